//! Runs of hours or days: durable files and the job identity they carry.
//!
//! * [`store`]: the job's identity (board, method, placed queens, split depth, unit enumeration
//!   version) and atomic, checksummed JSON files (temporary file, fsync, rename);
//! * [`checkpoint`]: the units finished so far and their counts, saved as a run goes on, so a
//!   killed run resumes without losing or repeating a unit;
//! * [`shard`]: one machine's share of a job's units, its result file, and the merge that checks
//!   every unit is counted exactly once;
//! * [`lock`]: one run per checkpoint or result file, by an exclusive lock beside it;
//! * [`estimate`]: the CPU time a job (or what is left of it) will take, and the rule that a run
//!   of more than an hour needs confirmation;
//! * [`Run`]: all of it together, a long run as one library call.
//!
//! Every file names the job and the unit enumeration it belongs to; resume and merge only ever
//! add counts of units by index.

pub mod checkpoint;
pub mod estimate;
pub mod lock;
mod run;
pub mod shard;
pub mod store;

pub use run::{Done, Finish, Prepared, Progress, Run, RunError, Watch};
