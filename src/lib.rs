//! # nqueens
//!
//! Exact counts and enumerations of the solutions of the N-Queens problem: place N queens on an
//! N×N board so that no two attack each other (OEIS A000170; distinct up to symmetry, A002562).
//!
//! A count flows down through four rooms: a validated [`Job`] and its deterministic list of work
//! units (a [`Plan`]), the [`Engine`] that runs a search on every unit over a rayon pool (and
//! OpenCL devices, [`opencl`]) and sums the [`Counts`] in `u128` (so no total can wrap), the
//! searches themselves (private; chosen with [`Method`] and [`Kernel`]), and, for runs of
//! hours, checkpoints, shards, audits and merges ([`longrun`]).
//!
//! ```
//! use nqueens_count::{Engine, Job, Method};
//!
//! let job = Job::new(10)?.with_method(Method::Mirror).with_split_depth(3)?;
//! let report = Engine::new(2)?.count(&job)?;
//! assert_eq!(report.counts.total, 724);
//! assert_eq!(nqueens_count::known::published(10).unwrap().total, 724);
//! # Ok::<(), nqueens_count::Error>(())
//! ```
//!
//! A count that tells how far it is and can be stopped: [`Engine::count_with`], with a
//! [`longrun::Watch`] (`()` for none, [`longrun::LogLines`] for log lines) and a [`Cancel`]; a long
//! run ([`longrun::Run`]) takes the same watch and cancel.
//!
//! A long count checkpoints as it goes: stopped (here at once, as a signal handler would stop
//! it), it keeps what it finished; run again, it resumes there.
//!
//! ```
//! use nqueens_count::longrun::{Finish, Run};
//! use nqueens_count::{Cancel, Engine, Job};
//! use std::time::Duration;
//!
//! let ckpt = std::env::temp_dir().join(format!("nqueens-doc-{}.ckpt", std::process::id()));
//! let engine = Engine::new(2)?;
//! let job = Job::new(12)?.with_unique(true);
//! let stopped = Run::new(job.clone())
//!     .checkpoint(&ckpt, Duration::from_secs(60))
//!     .cancel_on({
//!         let stop = Cancel::new();
//!         stop.cancel();
//!         stop
//!     });
//! assert!(matches!(stopped.prepare(&engine)?.execute(&engine, &mut ())?, Finish::Stopped { .. }));
//!
//! let again = Run::new(job).checkpoint(&ckpt, Duration::from_secs(60));
//! let Finish::Done(done) = again.prepare(&engine)?.execute(&engine, &mut ())? else {
//!     unreachable!("nothing stops it this time");
//! };
//! assert_eq!((done.report.counts.total, done.report.counts.unique), (14200, 1787));
//! std::fs::remove_file(&ckpt)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Solutions themselves come from [`solutions`] (one solution for any N by an explicit
//! construction; every solution of a job, streamed in lexicographic order; the UVa 750 judge
//! problem) and are written by [`format`](mod@format) (columns, board, matrix, JSON Lines).
//! `bench` (feature `bench`) measures how the engine scales; [`known`] holds the published
//! values.
//!
//! Cargo features, all on by default: `cli` (the `nqueens` binary), `bench` (the scaling
//! benchmark), `plot` (SVG plots of benchmarks, with `bench`), `opencl` (counting on OpenCL
//! devices). `default-features = false` gives the library alone.

#![warn(missing_docs)]

#[cfg(feature = "bench")]
pub mod bench;
mod cancel;
mod engine;
mod error;
pub mod format;
pub mod known;
pub mod longrun;
mod names;
mod plan;
mod random;
mod search;
mod sync;
// The unit tests that can skip are the OpenCL ones.
#[cfg(all(test, feature = "opencl"))]
#[path = "../tests/common/skip.rs"]
mod skip;
pub mod solutions;

pub use cancel::Cancel;
pub use engine::{
    check_device_batch, DeviceRun, Devices, Engine, Report, UnitTiming, DEVICE_BATCH,
    LANE_MIN_ROWS, MAX_DEVICE_BATCH, MAX_THREADS,
};
pub use error::{Attack, Class, Classify, Error, Result};
pub use names::Named;
pub use plan::{check_n, Job, Plan, Queen, MAX_SPLIT_DEPTH};
pub use search::{Counts, Kernel, Method, Searches, Unit, MAX_N};

/// OpenCL devices that can take counting work, as `nqueens devices` lists them. The OpenCL
/// library is loaded at run time, so a machine without it runs every CPU count and gets a clear
/// error here; without the `opencl` cargo feature, [`opencl::devices`] says the build has none.
pub mod opencl {
    pub use crate::search::opencl::{devices, DeviceInfo, DeviceKind, OpenClError};
}
