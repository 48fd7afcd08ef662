//! Runs of hours or days: durable files and the job identity they carry.
//!
//! * [`store`]: the job's identity (board, method, placed queens, split depth, unit enumeration
//!   version) and atomic, checksummed JSON files (temporary file, fsync, rename);
//! * [`checkpoint`]: the units finished so far and their counts, saved as a run goes on, so a
//!   killed run resumes without losing or repeating a unit;
//! * [`shard`]: one machine's share of a job's units, its result file (each unit's counts), and
//!   the merge that checks every unit is counted exactly once and that replicas agree;
//! * [`audit`]: a seeded random sample of the units a shard result or checkpoint records,
//!   counted again (on any kernel, on any machine) and compared unit by unit;
//! * [`lock`]: one run per checkpoint or result file, by an exclusive lock beside it;
//! * [`estimate`]: the CPU time a job (or what is left of it) will take, and the rule that a run
//!   of more than an hour needs confirmation;
//! * [`Run`]: all of it together, a long run as one library call.
//!
//! Every file names the job and the unit enumeration it belongs to and keeps each unit's counts;
//! resume, merge and audit only ever add or recount units by index.

pub mod audit;
pub mod checkpoint;
pub mod estimate;
pub mod lock;
mod run;
pub mod shard;
pub mod store;

pub use run::{Done, Finish, Prepared, Progress, Run, RunError, Watch};
