//! # nqueens
//!
//! Exact counts and enumerations of the solutions of the N-Queens problem: place N queens on an
//! N×N board so that no two attack each other (OEIS A000170; distinct up to symmetry, A002562).
//!
//! A count flows down through four rooms: a validated [`Job`] and its deterministic list of work
//! units ([`plan`]), the [`Engine`] that runs a search on every unit over a rayon pool and sums
//! the [`Counts`] in `u128` (so no total can wrap), the searches themselves (private; chosen with
//! [`Kernel`]), and, for runs of hours, checkpoints and shards ([`longrun`]).
//!
//! Solutions themselves come from [`solutions`] (one solution for any N by an explicit
//! construction; every solution of a job, streamed in lexicographic order; the UVa 750 judge
//! problem) and are written by [`format`](mod@format) (columns, board, matrix, JSON Lines).
//! [`bench`](mod@bench) measures how the engine scales; [`known`] holds the published values.
//!
//! ```
//! use nqueens::{count, Job, Method};
//!
//! let job = Job::new(10)?.with_method(Method::Mirror).with_split_depth(3)?;
//! let report = count(&job, 2)?;
//! assert_eq!(report.counts.total, 724);
//! assert_eq!(nqueens::known::published(10).unwrap().total, 724);
//! # Ok::<(), nqueens::Error>(())
//! ```

#![warn(missing_docs)]

pub mod bench;
pub mod engine;
mod error;
pub mod format;
pub mod known;
pub mod longrun;
pub mod plan;
pub(crate) mod search;
pub mod solutions;

pub use engine::{
    count, serial_count, DeviceRun, Devices, Engine, NoObserver, Observer, Outcome, Report,
    RunOptions, UnitTiming, MAX_THREADS,
};
pub use error::{Error, Result};
pub use plan::{Job, Method, Plan, Queen};
pub use search::{Counts, Kernel, Searches, Unit};
