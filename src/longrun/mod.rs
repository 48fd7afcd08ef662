//! Runs of hours or days: a long run as one library call ([`Run`]), the durable files it
//! keeps, and the checks that stand between those files and an announced count.
//!
//! * [`Run`]: a job counted with a checkpoint it resumes from and saves to (through one save
//!   path that never costs a finished count), a shard of the job, a result file, locks, the
//!   CPU-time confirmation, progress told to a [`Watch`];
//! * [`Checkpoint`]: the units finished so far and their counts, so a killed run resumes
//!   without losing or repeating a unit;
//! * [`ShardSpec`], [`ShardResult`], [`merge_files`]: one machine's share of a
//!   job's units, its result file (each unit's counts), and the merge that checks every unit is
//!   counted exactly once and that replicas agree;
//! * [`audit()`]: a seeded random sample of the units a shard result or checkpoint records,
//!   counted again (on any kernel, on any machine) and compared unit by unit;
//! * [`status()`]: how far a sharded job is, from its files alone;
//! * [`RunLock`]: one run per checkpoint or result file;
//! * [`cpu_time`], [`listing_estimate`]: the CPU time a job (or what is left of it) will take,
//!   and the rule that a run of more than an hour needs confirmation ([`check_cpu_time`]).
//!
//! Everything is exported here, flat; the files of the module are one concern each.
//!
//! Each guard is written once, in the module of its concern, and every path calls it:
//! `durable.rs` (atomic writes: [`write_atomic`]; bounded reads of regular files:
//! [`read_bounded`]; link rules), `envelope.rs` ("is this our file, and which": one sniffer;
//! checksums, capped parsing), [`Identity`] (the
//! one comparison of a file's job with the one expected, under [`Versions`]), [`Records`] (the
//! one check of a file's unit records), the published value ([`crate::known::check`]), the rule
//! for replacing a result file ([`Run::overwrite`]) and the save path ([`Saved`]).

pub(crate) mod assign;
pub(crate) mod audit;
mod checkpoint;
mod count;
pub(crate) mod durable;
pub(crate) mod envelope;
mod error;
pub(crate) mod estimate;
mod execute;
mod files;
mod host;
mod identity;
pub(crate) mod lock;
mod merge;
mod progress;

mod records;
mod result;
mod run;
mod save;
mod spec;
mod status;
mod watch;

pub use audit::{
    audit, pass_probability, whole_jobs, Audit, AuditError, Mismatch as UnitMismatch, Recorded,
    Sample, WholeJob,
};
pub use checkpoint::Checkpoint;
pub use durable::{read_bounded, write_atomic, Bound, FileError, LinkRefusal};
pub use envelope::{FileKind, MAX_UNITS};
pub use error::{Damage, Foreign, StoreError};
pub use estimate::{
    check as check_cpu_time, cpu_time, cpu_time_of, listing as listing_estimate, CpuTime,
    ListingEstimate, ListingTooLarge, TooLong, CONFIRM_ABOVE,
};
pub use execute::{Done, Finish, Prepared};
pub use identity::{Difference, Identity, Versions, PROGRAM_VERSION};
pub use lock::{Holder, LockError, RunLock};
pub use merge::{merge, merge_files, Disagreement, MergeError, Merged, SetError};
pub use progress::Progress;
pub use records::{RecordError, Records, Which};
pub use result::ShardResult;
pub use run::{Run, RunError};
pub use save::Saved;
pub use spec::{ShardSpec, ShardSpecError};
pub use status::{status, Partial, Status, StatusError};
pub use watch::{clock, LogLines, SaveEvent, Watch};
