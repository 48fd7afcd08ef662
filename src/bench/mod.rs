//! The scaling benchmark (feature `bench`): whole counts by the single-threaded solver and by
//! the parallel engine at several thread counts, each repeated, checked against the published
//! value and summarised (median, fastest and slowest wall time, CPU time, speed-up over the
//! serial solver, parallel scaling and efficiency, solutions per second). [`export`] writes the
//! results as CSV, JSON, SVG plots (feature `plot`) and a markdown summary. A count under 10 ms
//! is repeated within its timed run, so that no figure rests on a clock reading of microseconds
//! unflagged.
//!
//! The range of N is fixed (`n_min..=n_max`) or open ([`Settings::budget_s`]): N then rises
//! from `n_min` while the next N is expected to fit in what is left of the time budget; past
//! [`Settings::FULL_SET_MAX_N`] (17) only the scaling runs are made. A timed run is expected to
//! take its configuration's median at the last N measured grown by the ratio of the library's
//! CPU-time model between the two board sizes (before its first N, the model's time on the
//! model's reference machine), and at least `min_run_ms`: for that decision and for the
//! progress display's share and time left.
//!
//! Every row holds the counts its timed runs produced, and every count, the serial solver's and
//! the engine's alike, is checked against the published value ([`crate::known`]): a difference
//! stops the benchmark ([`BenchError::Mismatch`]), the rows before it kept and marked partial.

pub mod export;
mod harness;
mod machine;
mod report;
mod stats;
mod timing;

pub use crate::engine::serial_count;
use crate::engine::{Observer, Outcome, RunOptions};
use crate::known::Published;
use crate::longrun::Watch;
use crate::{Cancel, Engine, Job, Kernel, Method, Plan};
pub use machine::Machine;
pub use report::{Results, Row, Solver};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What to measure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// Smallest board size.
    pub n_min: u32,
    /// Largest board size: the end of a fixed range, the most an open range may reach.
    pub n_max: u32,
    /// The time budget of an open range, seconds (`None`: the range is `n_min..=n_max`, every
    /// configuration at every N). With a budget, N rises from `n_min` while the next N is
    /// expected to fit in what is left of the budget; past [`Settings::FULL_SET_MAX_N`] only
    /// the engine with the scaling method ([`Settings::scaling_method`]) is measured, at every
    /// thread count.
    pub budget_s: Option<u64>,
    /// Thread counts of the parallel engine, in the order measured.
    pub threads: Vec<usize>,
    /// Timed runs of every configuration.
    pub repeat: usize,
    /// Split depths of the engine's work units; empty for the library's default for each N and
    /// thread count ([`Job::default_split_depth`]).
    pub split_depths: Vec<u32>,
    /// Methods of the engine, each measured at every thread count: by default the library's
    /// default method ([`Method::default`]) and mirror, the serial solver's own method, so that
    /// the engine's scaling against the serial solver is also measured on the same search.
    pub methods: Vec<Method>,
    /// The kernel the engine searches with (the serial solver always runs its own
    /// depth-first search): by default the fastest this processor has.
    pub kernel: Kernel,
    /// The OpenCL devices the engine counts on as well (none by default).
    pub devices: crate::Devices,
    /// Sub-problems a device gathers per launch ([`crate::Engine::with_device_batch`]); `None`
    /// (the default, and left out of the JSON) is the engine's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_batch: Option<usize>,
    /// Where one count takes under 10 ms, each timed run repeats it until the run has lasted
    /// this many milliseconds (by default [`Settings::DEFAULT_MIN_RUN_MS`]) and times it per
    /// count; 0 turns repetition off. A run still shorter flags its row
    /// ([`Row::too_short`]).
    pub min_run_ms: u32,
    /// The engine counts the solutions distinct up to symmetry too ([`Job::with_unique`]), and
    /// they are checked like the totals; the serial solver counts totals only. Off by default:
    /// a plain count is timed, as `count` runs one.
    pub unique: bool,
}

impl Settings {
    /// The default of [`Settings::min_run_ms`]: 50 ms.
    pub const DEFAULT_MIN_RUN_MS: u32 = 50;

    /// The default time budget of an open range ([`Settings::budget_s`]): 10 minutes.
    pub const DEFAULT_BUDGET_S: u64 = 600;

    /// The largest N of an open range at which every configuration is measured (the serial
    /// solver and every method); beyond it only the scaling runs are (the serial solver alone
    /// would take minutes a run at N = 18).
    pub const FULL_SET_MAX_N: u32 = 17;

    /// A parallel run shorter than this (1 s of wall time) is too short to judge scaling by
    /// ([`Row::short_for_scaling`]): making the plan, waking the workers and the tail where
    /// some of them idle weigh on it more than on a long count.
    pub const SCALING_MIN_S: f64 = 1.0;

    /// The default thread counts for `logical_cores`: 1, 2, 4, … up to the core count, plus the
    /// core count itself when it is not a power of two.
    pub fn default_threads(logical_cores: usize) -> Vec<usize> {
        let cores = logical_cores.max(1);
        let mut list: Vec<usize> = std::iter::successors(Some(1usize), |&t| t.checked_mul(2))
            .take_while(|&t| t <= cores)
            .collect();
        if list.last() != Some(&cores) {
            list.push(cores);
        }
        list
    }

    /// The defaults of `nqueens bench` on a machine with `logical_cores`: N from 10 in an open
    /// range of [`Settings::DEFAULT_BUDGET_S`] up to the largest published count, the default
    /// thread list, 3 repeats, the default split depths, the default method and mirror, the
    /// fastest kernel, runs of short counts repeated to 50 ms, totals only.
    pub fn defaults(logical_cores: usize) -> Settings {
        let mut methods = vec![Method::default(), Method::SERIAL];
        methods.dedup();
        Settings {
            n_min: 10,
            n_max: crate::known::MAX_KNOWN_N,
            budget_s: Some(Settings::DEFAULT_BUDGET_S),
            threads: Settings::default_threads(logical_cores),
            repeat: 3,
            split_depths: Vec::new(),
            methods,
            kernel: Kernel::best(),
            devices: crate::Devices::Cpu,
            device_batch: None,
            min_run_ms: Settings::DEFAULT_MIN_RUN_MS,
            unique: false,
        }
    }

    /// Checks the settings against each other and the engine's limits.
    pub fn validate(&self) -> Result<(), BenchError> {
        let invalid = |s: &str| Err(BenchError::Invalid(s.into()));
        if self.n_min == 0 || self.n_min > self.n_max {
            return invalid("the smallest N must be at least 1 and at most the largest N");
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            return invalid("every thread count must be at least 1");
        }
        if self.repeat == 0 {
            return invalid("the repeat count must be at least 1");
        }
        if self.budget_s == Some(0) {
            return invalid("the time budget must be at least a second");
        }
        if self.methods.is_empty() {
            return invalid("at least one method is needed");
        }
        if let Some(subs) = self.device_batch {
            if self.devices == crate::Devices::Cpu {
                return invalid("a device batch needs OpenCL devices");
            }
            crate::check_device_batch(subs).map_err(|e| BenchError::Invalid(e.to_string()))?;
        }
        for n in self.n_min..=self.n_max {
            for depth in self.split_depths.iter().copied().chain(Some(1)) {
                job(n, depth, Method::SERIAL, false)?;
            }
        }
        Ok(())
    }

    /// The method of the scaling runs, which the plots show: the library's default method
    /// ([`Method::default`]) if it is measured, else the first measured.
    pub fn scaling_method(&self) -> Method {
        let mut methods = self.methods.iter().copied();
        let default = methods.clone().find(|&m| m == Method::default());
        default.or(methods.next()).unwrap_or_default()
    }
}

/// Why a benchmark failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The settings make no sense (a usage error).
    #[error("{0}")]
    Invalid(String),
    /// The first N of an open range alone is expected to take longer than the time budget (a
    /// usage error).
    #[error("N = {n} alone is expected to take {}, more than the budget of {}", human_s(*.expected_s), human_s(*.budget_s as f64))]
    OverBudget {
        /// Board size.
        n: u32,
        /// Its expected time, seconds.
        expected_s: f64,
        /// The budget, seconds.
        budget_s: u64,
    },
    /// A run counted something other than the published value.
    #[error("count mismatch for N = {n} ({config}): counted {got} {what}, published {expected}")]
    Mismatch {
        /// Board size.
        n: u32,
        /// The configuration that counted it.
        config: String,
        /// What differs: `solutions` or `unique solutions`.
        what: &'static str,
        /// What the run counted.
        got: u128,
        /// The published value.
        expected: u128,
    },
    /// A run stopped before all its units were done.
    #[error("the run of N = {n} ({config}) stopped before its end")]
    Interrupted {
        /// Board size.
        n: u32,
        /// The configuration.
        config: String,
    },
    /// The engine could not start.
    #[error(transparent)]
    Engine(#[from] crate::Error),
    /// A result file could not be rendered or written.
    #[error("could not write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A run failed after others had been measured: `report` holds those, marked partial
    /// ([`Results::partial`] says what failed), so that they can still be written.
    #[error("{error}")]
    Failed {
        /// What failed.
        error: Box<BenchError>,
        /// The runs measured before.
        report: Box<Results>,
    },
}

impl crate::Classify for BenchError {
    fn class(&self) -> crate::Class {
        use crate::Class;
        match self {
            BenchError::Invalid(_) | BenchError::OverBudget { .. } => Class::Request,
            BenchError::Mismatch { .. } => Class::Disagreement,
            BenchError::Engine(e) => crate::Classify::class(e),
            BenchError::Failed { error, .. } => crate::Classify::class(&**error),
            BenchError::Interrupted { .. } | BenchError::Io { .. } => Class::Machine,
        }
    }
}

/// Runs the benchmark. Every count is checked against the published value: a difference stops
/// it ([`BenchError::Mismatch`]). Once `stop` is cancelled (by a signal handler, say), it ends early
/// with the runs finished so far, marked partial ([`Results::partial`]); a failure after some
/// runs returns them too ([`BenchError::Failed`]). A run in progress is dropped (the serial
/// solver's is left to finish in the background).
///
/// `progress` hears where the benchmark is when a timed run begins and every 100 ms while it
/// runs: its units are the timed runs (done, and expected in all as far as the range is
/// expected to go), its share is of the expected time (the time spent over the time spent and
/// expected still), and its time left is that expected of the runs ahead.
pub fn run(
    settings: &Settings,
    machine: Machine,
    progress: &mut dyn Watch,
    stop: &Cancel,
) -> Result<Results, BenchError> {
    harness::run(settings, machine, progress, stop.clone(), Sources::LIBRARY)
}

/// Where the benchmark's counts come from and what they are checked against: the library's
/// solvers and the published table ([`Sources::LIBRARY`]), or stand-ins that a test makes
/// wrong to see the checks stop the benchmark.
#[derive(Clone, Copy)]
pub(crate) struct Sources {
    /// The published values of N.
    pub published: fn(u32) -> Option<Published>,
    /// The serial solver's count of N.
    pub serial: fn(u32) -> crate::Result<u128>,
    /// One run of the engine on a plan.
    pub engine: fn(&Engine, &Arc<Plan>, &RunOptions, &mut dyn Observer) -> Outcome,
}

impl Sources {
    /// The library's own.
    pub const LIBRARY: Sources = Sources {
        published: crate::known::published,
        serial: crate::bench::serial_count,
        engine: Engine::run,
    };
}

/// The job of a configuration, checked.
fn job(n: u32, depth: u32, method: Method, unique: bool) -> Result<Job, BenchError> {
    let invalid = |e: crate::Error| BenchError::Invalid(e.to_string());
    let job = Job::new(n).map_err(invalid)?.with_method(method);
    job.with_unique(unique)
        .with_split_depth(depth)
        .map_err(invalid)
}

/// Seconds in words ("0.45 s", "3.2 min").
pub(crate) fn human_s(s: f64) -> String {
    crate::longrun::estimate::human(Duration::from_secs_f64(s.clamp(0.0, 1e12)))
}
