//! Runs of hours or days: a long run as one library call ([`Run`]), and the durable files it
//! keeps.
//!
//! * [`Identity`]: the job a file belongs to (board, method, placed queens, split depth, unit
//!   enumeration version); every file is JSON with a checksum, written atomically (temporary
//!   file, fsync, rename);
//! * [`Checkpoint`]: the units finished so far and their counts, saved as a run goes on, so a
//!   killed run resumes without losing or repeating a unit;
//! * [`ShardSpec`], [`ShardResult`], [`merge_files`]: one machine's share of a job's units, its
//!   result file (each unit's counts), and the merge that checks every unit is counted exactly
//!   once and that replicas agree;
//! * [`audit`]: a seeded random sample of the units a shard result or checkpoint records,
//!   counted again (on any kernel, on any machine) and compared unit by unit;
//! * [`lock`]: one run per checkpoint or result file, by an exclusive lock beside it;
//! * [`estimate`]: the CPU time a job (or what is left of it) will take, and the rule that a run
//!   of more than an hour needs confirmation.
//!
//! Every file names the job and the unit enumeration it belongs to and keeps each unit's counts;
//! resume, merge and audit only ever add or recount units by index.

pub mod audit;
pub(crate) mod checkpoint;
pub mod estimate;
pub mod lock;
mod run;
pub(crate) mod shard;
pub(crate) mod store;
mod watch;

pub use checkpoint::Checkpoint;
pub use run::{Done, Finish, Prepared, Progress, Run, RunError, Watch};
pub use shard::{merge_files, Disagreement, MergeError, Merged, ShardResult, ShardSpec};
pub use store::{Identity, StoreError};
pub use watch::{clock, LogLines};
