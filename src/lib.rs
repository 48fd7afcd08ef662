//! # nqueens
//!
//! Exact counts and enumerations of the solutions of the N-Queens problem: place N queens on an
//! N×N board so that no two attack each other (OEIS A000170; distinct up to symmetry, A002562).
//!
//! A count flows through four pieces: a validated [`Job`], its deterministic list of work units
//! ([`Plan`]), the [`Engine`] that runs the bitmask [`kernel`] on every unit over a rayon pool,
//! and the [`Counts`] summed in `u128`, so no total can wrap.
//!
//! Solutions themselves come from [`solutions`] (one solution for any N by an explicit
//! construction; every solution of a job, streamed in lexicographic order) and are written by
//! [`format`](mod@format) (columns, board, matrix, JSON Lines, and the UVa 750 judge output).
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

pub mod bench;
pub mod checkpoint;
pub mod cost;
pub mod d4;
pub mod engine;
pub mod error;
pub mod format;
pub mod job;
pub mod kernel;
pub mod known;
pub mod lanes;
pub mod shard;
pub mod solutions;
pub mod store;
pub mod symmetry;
pub mod units;

pub use engine::{
    count, serial_count, Counts, Engine, NoObserver, Observer, Outcome, Report, RunOptions,
};
pub use error::{Error, Result};
pub use job::{Job, Method, Queen};
pub use units::{Plan, Unit};
