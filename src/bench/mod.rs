//! The scaling benchmark: whole counts by the single-threaded solver and by the parallel engine
//! at several thread counts, each repeated, checked against the published value and summarised
//! (median and minimum wall time, CPU time, speed-up over the serial solver, parallel scaling
//! and efficiency, solutions and nodes per second, load balance). [`export`] writes the results
//! as CSV, JSON, SVG plots and a markdown summary. A count under 10 ms is repeated within its
//! timed run (`timing`), so that no figure rests on a clock reading of microseconds unflagged.
//!
//! The range of N is fixed (`n_min..=n_max`) or open ([`Settings::budget_s`]): N then rises
//! from `n_min` through [`Settings::FULL_SET_MAX_N`] (17) and on until the engine's run on the
//! most threads has lasted [`Settings::SCALING_MIN_S`] (a second, long enough to judge
//! scaling), unless the next N would overrun the time budget first; past
//! [`Settings::FULL_SET_MAX_N`] only the scaling runs are made. The harness knows the expected
//! time of every step ahead (`forecast`), for that decision and for the progress bar. Stopped
//! on request (a signal), it returns what it measured, marked partial ([`Report::partial`]).
//!
//! Search nodes are counted apart from the timed runs, by an instrumented walk of the same trees
//! ([`crate::Plan::nodes`]), so the measured kernel carries no counter: nodes per
//! second is the nodes of the job divided by the median time of the real runs.

mod clock;
pub mod export;
mod forecast;
mod machine;
mod report;
mod stats;
mod timing;

use crate::engine::UnitTiming;
use crate::plan::evaluate_nodes;
use crate::search::Kernel;
use crate::{serial_count, Engine, Job, Method, Observer, Plan, RunOptions, Unit};
use clock::utc_now_iso8601;
use forecast::{Forecast, Work};
pub use machine::Machine;
use rayon::prelude::*;
pub use report::{ProjectionRow, Report, Row, Solver};
use report::{PROJECTED_THREADS, SCHEMA_VERSION};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};
use timing::MAX_COUNTS_PER_RUN;
use timing::{timed_run, RealClocks, TimedRun};

/// What to measure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// Smallest board size.
    pub n_min: u32,
    /// Largest board size: the end of a fixed range, the most an open range may reach.
    pub n_max: u32,
    /// The time budget of an open range, seconds (`None`: the range is `n_min..=n_max`, every
    /// configuration at every N). With a budget, N rises from `n_min` while the next N is
    /// expected to fit in what is left of the budget, and ends at the first N from
    /// [`Settings::FULL_SET_MAX_N`] on whose run of the engine on the most threads lasted at
    /// least [`Settings::SCALING_MIN_S`]; past [`Settings::FULL_SET_MAX_N`] only the engine with
    /// the scaling method ([`Settings::scaling_method`]) is measured, at every thread count.
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
    pub devices: crate::engine::Devices,
    /// Where one count takes under 10 ms, each timed run repeats it until the run has lasted
    /// this many milliseconds (by default [`Settings::DEFAULT_MIN_RUN_MS`]) and times it per
    /// count; 0 turns repetition off. A run still shorter flags its row
    /// ([`Row::too_short`]).
    pub min_run_ms: u32,
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
    /// some of them idle weigh on it more than on a long count, and more the more threads
    /// share it.
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
    /// thread list, 3 repeats, the default split depths, the default method and mirror, the fastest
    /// kernel, runs of short counts repeated to 50 ms.
    pub fn defaults(logical_cores: usize) -> Settings {
        let n_max = crate::known::MAX_KNOWN_N;
        Settings {
            n_min: 10,
            n_max,
            budget_s: Some(Settings::DEFAULT_BUDGET_S),
            threads: Settings::default_threads(logical_cores),
            repeat: 3,
            split_depths: Vec::new(),
            methods: {
                let mut m = vec![Method::default(), Method::SERIAL];
                m.dedup();
                m
            },
            kernel: Kernel::best(),
            devices: crate::engine::Devices::Cpu,
            min_run_ms: Settings::DEFAULT_MIN_RUN_MS,
        }
    }

    /// Checks the settings against each other and the engine's limits.
    pub fn validate(&self) -> Result<(), BenchError> {
        let invalid = |s: String| Err(BenchError::Invalid(s));
        if self.n_min == 0 || self.n_min > self.n_max {
            return invalid(format!(
                "the smallest N ({}) must be at least 1 and at most the largest N ({})",
                self.n_min, self.n_max
            ));
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            return invalid("every thread count must be at least 1".into());
        }
        if self.repeat == 0 {
            return invalid("the repeat count must be at least 1".into());
        }
        if self.budget_s == Some(0) {
            return invalid("the time budget must be at least a second".into());
        }
        if self.methods.is_empty() {
            return invalid("at least one method is needed".into());
        }
        for n in self.n_min..=self.n_max {
            let job = Job::new(n).map_err(|e| BenchError::Invalid(e.to_string()))?;
            for &k in &self.split_depths {
                job.clone()
                    .with_split_depth(k)
                    .map_err(|e| BenchError::Invalid(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// The method of the scaling runs, which the plots show: the library's default method
    /// ([`Method::default`]) if it is measured, else the first measured.
    pub fn scaling_method(&self) -> Method {
        let default = Method::default();
        if self.methods.contains(&default) {
            default
        } else {
            self.methods.first().copied().unwrap_or(default)
        }
    }

    /// The split depths to measure for `n` on `threads` workers with `method`.
    fn depths(&self, n: u32, threads: usize, method: Method) -> Vec<u32> {
        if self.split_depths.is_empty() {
            Job::new(n)
                .map(|job| vec![job.with_method(method).default_split_depth(threads)])
                .unwrap_or_default()
        } else {
            self.split_depths.clone()
        }
    }
}

/// Why a benchmark failed.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The settings make no sense (a usage error).
    #[error("{0}")]
    Invalid(String),
    /// A run counted something other than the published value.
    #[error("count mismatch for N = {n} ({config}): counted {got}, published {expected}")]
    Mismatch {
        /// Board size.
        n: u32,
        /// The configuration that counted it.
        config: String,
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
    Engine(crate::Error),
    /// A result file could not be written.
    #[error("could not write {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A run failed after others had been measured: `report` holds those, marked partial
    /// ([`Report::partial`] says what failed), so that they can still be written.
    #[error("{error}")]
    Failed {
        /// What failed.
        error: Box<BenchError>,
        /// The runs measured before.
        report: Box<Report>,
    },
    /// A result file could not be rendered.
    #[error("could not render {file}: {message}")]
    Render {
        /// The file.
        file: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// Receives the harness's progress, for a progress bar.
pub trait Progress {
    /// A step begins: `label` says what it measures (a timed run of one configuration, or the
    /// count of one N's search nodes); it is expected to take `expected`, and the steps after it
    /// `after` (those of the later N too, as far as the range is expected to go).
    fn step(&mut self, _label: &str, _expected: Duration, _after: Duration) {}
}

/// No progress shown.
impl Progress for () {}

/// Collects the timing of every unit of an engine run.
struct Timings(Vec<UnitTiming>);

impl Observer for Timings {
    fn unit_done(&mut self, _: &Unit, _: crate::Counts, timing: UnitTiming) -> ControlFlow<()> {
        self.0.push(timing);
        ControlFlow::Continue(())
    }
}

/// The timed runs of one configuration.
#[derive(Default)]
struct Samples {
    /// Wall seconds per count, one per timed run.
    wall: Vec<f64>,
    /// CPU seconds per count, one per timed run.
    cpu: Vec<f64>,
    /// Counts of each timed run.
    counts: Vec<u64>,
    /// Some timed run was too short ([`TimedRun::too_short`]).
    too_short: bool,
    unit_spread: Vec<f64>,
    tail: Vec<f64>,
    /// 1 thread only: every unit's cheapest time over the runs, seconds, in index order.
    unit_costs: Vec<f64>,
}

impl Samples {
    fn add(&mut self, run: &TimedRun) {
        self.wall.push(run.wall_per_count());
        self.cpu.extend(run.cpu_per_count());
        self.counts.push(run.counts);
        self.too_short |= run.too_short;
    }
}

/// The search nodes of a whole plan, counted on the global rayon pool (outside any timing).
fn plan_nodes(plan: &Plan) -> u64 {
    plan.units()
        .par_iter()
        .map(|u| evaluate_nodes(plan, u))
        .sum()
}

/// Why measuring ended early.
enum Halt {
    /// The stop flag was set: what was measured is kept.
    Stopped,
    /// A failure: the benchmark fails.
    Failed(BenchError),
}

impl From<BenchError> for Halt {
    fn from(e: BenchError) -> Halt {
        Halt::Failed(e)
    }
}

/// One configuration of one N: the serial solver, or the engine (by its index in the list of
/// engines) with a method and split depth.
#[derive(Clone, Copy, Debug)]
struct Config {
    work: Work,
    /// The engine's index and the split depth; `None` for the serial solver.
    engine: Option<(usize, u32)>,
}

/// Runs the benchmark. Every count is checked against `expected(n)` (normally the published
/// value, [`crate::known::published`]): a difference is an error, never a row.
pub fn run(
    settings: &Settings,
    machine: Machine,
    expected: &dyn Fn(u32) -> Option<u128>,
    progress: &mut dyn Progress,
) -> Result<Report, BenchError> {
    run_until(settings, machine, expected, progress, None)
}

/// [`run`], stopped early once `stop` is set (by a signal handler, say): the report then holds
/// the runs finished so far, marked partial ([`Report::partial`]); so does a failure after
/// some runs ([`BenchError::Failed`]). A run in progress is dropped
/// (the serial solver's is left to finish in the background), and the search nodes of the N
/// being measured are not counted.
pub fn run_until(
    settings: &Settings,
    machine: Machine,
    expected: &dyn Fn(u32) -> Option<u128>,
    progress: &mut dyn Progress,
    stop: Option<Arc<AtomicBool>>,
) -> Result<Report, BenchError> {
    settings.validate()?;
    let started_utc = utc_now_iso8601();
    let mut want = BTreeMap::new();
    for n in settings.n_min..=settings.n_max {
        let e = expected(n).ok_or_else(|| {
            BenchError::Invalid(format!("no published count to check N = {n} against"))
        })?;
        want.insert(n, e);
    }
    let engines = settings
        .threads
        .iter()
        .map(|&t| {
            Engine::new(t)
                .and_then(|e| e.with_kernel(settings.kernel))
                .and_then(|e| e.with_devices(settings.devices))
                .map_err(BenchError::Engine)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let min_run_s = f64::from(settings.min_run_ms) / 1000.0;
    let mut harness = Harness {
        settings,
        forecast: Forecast::new(
            settings.kernel,
            machine.logical_cores,
            &settings.methods,
            settings.scaling_method(),
            min_run_s,
        ),
        engines,
        min_run_s,
        stop: stop.unwrap_or_default(),
        start: Instant::now(),
        progress,
        rows: Vec::new(),
        projections: Vec::new(),
        depths: Default::default(),
    };
    let mut n = settings.n_min;
    let mut partial = None;
    let mut failed = None;
    let range_end = loop {
        if n > settings.n_max {
            break format!("N = {} is the largest asked for", settings.n_max);
        }
        if let Some(end) = harness.range_ends_before(n)? {
            break end;
        }
        match harness.measure(n, want[&n]) {
            Ok(()) => n += 1,
            Err(Halt::Stopped) => {
                partial = Some(format!(
                    "stopped during N = {n}, after {:.0} s: the runs finished by then, and no \
                     search nodes for N = {n}",
                    harness.start.elapsed().as_secs_f64()
                ));
                break format!("stopped during N = {n}");
            }
            Err(Halt::Failed(e)) if harness.rows.is_empty() => return Err(e),
            Err(Halt::Failed(e)) => {
                partial = Some(format!(
                    "failed during N = {n}, after {:.0} s: the runs finished by then; {e}",
                    harness.start.elapsed().as_secs_f64()
                ));
                failed = Some(e);
                break format!("failed during N = {n}");
            }
        }
    };
    let report = Report {
        schema_version: SCHEMA_VERSION,
        started_utc,
        machine,
        settings: settings.clone(),
        default_method: Method::default().to_string(),
        nodes_note: "nodes = queens placed by the searches below the work-unit prefixes, \
                     counted by a separate instrumented walk of the same trees (not timed); \
                     nodes_per_s = nodes / median_s"
            .into(),
        range_end,
        partial,
        rows: harness.rows,
        projections: harness.projections,
    };
    match failed {
        None => Ok(report),
        Some(e) => Err(BenchError::Failed {
            error: Box::new(e),
            report: Box::new(report),
        }),
    }
}

/// The state of a benchmark in progress.
struct Harness<'a> {
    settings: &'a Settings,
    forecast: Forecast,
    engines: Vec<Engine>,
    min_run_s: f64,
    stop: Arc<AtomicBool>,
    start: Instant,
    progress: &'a mut dyn Progress,
    rows: Vec<Row>,
    projections: Vec<ProjectionRow>,
    /// The split depths of each (N, threads, method), once worked out: the default depth makes
    /// plans, and the expected time of the rest of the range asks for them at every step.
    depths: std::cell::RefCell<BTreeMap<(u32, usize, Method), Vec<u32>>>,
}

impl Harness<'_> {
    /// [`Settings::depths`], remembered.
    fn depths(&self, n: u32, threads: usize, method: Method) -> Vec<u32> {
        self.depths
            .borrow_mut()
            .entry((n, threads, method))
            .or_insert_with(|| self.settings.depths(n, threads, method))
            .clone()
    }

    /// Whether every configuration is measured at `n` (else only the scaling runs).
    fn full_set(&self, n: u32) -> bool {
        self.settings.budget_s.is_none() || n <= Settings::FULL_SET_MAX_N
    }

    /// The configurations of `n`, in the order they are measured: the serial solver, then the
    /// engine with every method at every thread count and split depth (the scaling method
    /// only, past [`Settings::FULL_SET_MAX_N`] in an open range).
    fn configs(&self, n: u32) -> Vec<Config> {
        let full = self.full_set(n);
        let methods = if full {
            self.settings.methods.clone()
        } else {
            vec![self.settings.scaling_method()]
        };
        let mut configs = Vec::new();
        if full {
            configs.push(Config {
                work: Work::Serial,
                engine: None,
            });
        }
        for method in methods {
            for (i, engine) in self.engines.iter().enumerate() {
                let threads = engine.threads();
                for k in self.depths(n, threads, method) {
                    configs.push(Config {
                        work: Work::Engine { method, threads },
                        engine: Some((i, k)),
                    });
                }
            }
        }
        configs
    }

    /// The expected seconds of all of `n`: every configuration's runs, and the nodes.
    fn cost_s(&self, n: u32) -> f64 {
        let runs: f64 = self
            .configs(n)
            .iter()
            .map(|c| self.forecast.step_s(c.work, n))
            .sum();
        runs * self.settings.repeat as f64 + self.forecast.step_s(self.nodes_work(n), n)
    }

    fn nodes_work(&self, n: u32) -> Work {
        Work::Nodes {
            full: self.full_set(n),
        }
    }

    /// The engine's run with the scaling method on the most threads, at `n`: its median time
    /// per count where measured (the fastest split depth), else its expected time.
    fn widest_s(&self, n: u32) -> f64 {
        let method = self.settings.scaling_method();
        let threads = self.settings.threads.iter().copied().max().unwrap_or(1);
        let measured = self
            .rows
            .iter()
            .filter(|r| r.n == n && r.solver == Solver::Engine && r.threads == threads)
            .filter(|r| r.method == method.to_string())
            .map(|r| r.median_s)
            .fold(f64::INFINITY, f64::min);
        if measured.is_finite() {
            measured
        } else {
            self.forecast.count_s(Work::Engine { method, threads }, n)
        }
    }

    /// Why an open range ends before `n`, if it does: the last N's widest run was long enough,
    /// or `n` is expected to overrun the budget. Refused when even `n_min` would.
    fn range_ends_before(&self, n: u32) -> Result<Option<String>, BenchError> {
        let Some(budget) = self.settings.budget_s else {
            return Ok(None);
        };
        let threads = self.settings.threads.iter().copied().max().unwrap_or(1);
        if n > Settings::FULL_SET_MAX_N && n > self.settings.n_min {
            let widest = self.widest_s(n - 1);
            if widest >= Settings::SCALING_MIN_S {
                return Ok(Some(format!(
                    "the engine's run on {threads} thread{} lasted {} at N = {}, long enough to \
                     judge scaling",
                    if threads == 1 { "" } else { "s" },
                    human_s(widest),
                    n - 1
                )));
            }
        }
        let spent = self.start.elapsed().as_secs_f64();
        let cost = self.cost_s(n);
        if spent + cost <= budget as f64 {
            return Ok(None);
        }
        let budget = human_s(budget as f64);
        if n == self.settings.n_min {
            return Err(BenchError::Invalid(format!(
                "N = {n} alone is expected to take {}, more than the budget of {budget}; \
                 raise --budget or lower --n-min",
                human_s(cost)
            )));
        }
        Ok(Some(format!(
            "N = {n} was expected to take {} more, past the budget of {budget} ({} spent)",
            human_s(cost),
            human_s(spent)
        )))
    }

    /// The expected seconds of the range after `n`, starting once `spent_s` seconds have gone
    /// by: every later N the range is expected to reach.
    fn after_s(&self, n: u32, spent_s: f64) -> f64 {
        let mut total = 0.0;
        let mut widest = self.widest_s(n);
        for next in n + 1..=self.settings.n_max {
            let cost = self.cost_s(next);
            if let Some(budget) = self.settings.budget_s {
                let long = next > Settings::FULL_SET_MAX_N && widest >= Settings::SCALING_MIN_S;
                if long || spent_s + total + cost > budget as f64 {
                    break;
                }
                widest = self.widest_s(next);
            }
            total += cost;
        }
        total
    }

    /// Tells the progress display that a step begins, expected to take `expected_s`, with
    /// `rest_of_n_s` more of this N after it.
    fn step(&mut self, n: u32, label: &str, expected_s: f64, rest_of_n_s: f64) {
        let spent = self.start.elapsed().as_secs_f64();
        let after = rest_of_n_s + self.after_s(n, spent + expected_s + rest_of_n_s);
        let d = |s: f64| Duration::from_secs_f64(s.clamp(0.0, 1e9));
        self.progress.step(label, d(expected_s), d(after));
    }

    /// Measures every configuration of `n`, then its scaling and its nodes. Stopped, keeps the
    /// rows of the configurations with a finished run.
    fn measure(&mut self, n: u32, expect: u128) -> Result<(), Halt> {
        let configs = self.configs(n);
        let first_row = self.rows.len();
        // The expected seconds of each configuration's runs; corrected by each run measured.
        let mut expected: Vec<f64> = configs
            .iter()
            .map(|c| self.forecast.step_s(c.work, n))
            .collect();
        // The serial solver's median, once measured (none past N = 17 in an open range).
        let mut baseline = f64::NAN;
        let mut result = Ok(());
        for (ci, config) in configs.iter().enumerate() {
            let (row, halt) = self.measure_config(n, expect, config, ci, &mut expected, baseline);
            if let Some(row) = row {
                if row.solver == Solver::Serial {
                    baseline = row.median_s;
                }
                self.rows.push(row);
            }
            if let Some(halt) = halt {
                result = Err(halt);
                break;
            }
        }
        self.scale(n, first_row);
        if result.is_ok() {
            self.count_nodes(n, first_row)?;
        }
        result
    }

    /// The timed runs of configuration `ci` of `n` and its row (`None` where a method falls back
    /// to another one measured anyway); `expected` holds the expected seconds of a run of each
    /// configuration of `n`. Stopped or failed, the row of the runs finished, if any, and why.
    fn measure_config(
        &mut self,
        n: u32,
        expect: u128,
        config: &Config,
        ci: usize,
        expected: &mut [f64],
        baseline: f64,
    ) -> (Option<Row>, Option<Halt>) {
        let repeat = self.settings.repeat;
        let rest = |expected: &[f64], ci: usize, runs_left: usize, n: u32, h: &Self| -> f64 {
            expected[ci] * runs_left as f64
                + expected[ci + 1..].iter().sum::<f64>() * repeat as f64
                + h.forecast.step_s(h.nodes_work(n), n)
        };
        let mut s = Samples::default();
        let Some((ei, k)) = config.engine else {
            // The serial solver: the baseline.
            for r in 1..=repeat {
                let after = rest(expected, ci, repeat - r, n, self);
                self.step(
                    n,
                    &format!("N={n} serial, run {r}/{repeat}"),
                    expected[ci],
                    after,
                );
                let t0 = Instant::now();
                match self.serial_run(n, expect) {
                    Ok(run) => {
                        s.add(&run);
                        self.forecast
                            .measured(Work::Serial, n, run.wall_per_count());
                        expected[ci] = t0.elapsed().as_secs_f64();
                    }
                    Err(halt) => {
                        let row = (!s.wall.is_empty()).then(|| self.serial_row(n, expect, &s));
                        return (row, Some(halt));
                    }
                }
            }
            return (Some(self.serial_row(n, expect, &s)), None);
        };
        let Work::Engine { method, threads: t } = config.work else {
            unreachable!("an engine configuration's work is the engine's");
        };
        let plan = match job(n, k, Some(method)) {
            Ok(job) => Arc::new(Plan::new(job)),
            Err(e) => return (None, Some(Halt::Failed(e))),
        };
        if plan.method() != method && self.settings.methods.contains(&plan.method()) {
            // The method falls back to another one measured anyway (d4 is mirror at N = 1):
            // its row would repeat that method's row under the same name.
            return (None, None);
        }
        let config_name = format!("engine, {method}, {t} threads, split depth {k}");
        for r in 1..=repeat {
            let after = rest(expected, ci, repeat - r, n, self);
            self.step(
                n,
                &format!("N={n} engine {method} {t}t depth {k}, run {r}/{repeat}"),
                expected[ci],
                after,
            );
            let t0 = Instant::now();
            let stop = self.stop.clone();
            let engine = &self.engines[ei];
            let count = || -> Result<Vec<UnitTiming>, Halt> {
                let mut timings = Timings(Vec::with_capacity(plan.units().len()));
                let opts = RunOptions {
                    cancel: Some(stop.clone()),
                    ..RunOptions::default()
                };
                let out = engine.run(&plan, &opts, &mut timings);
                if out.interrupted {
                    if stop.load(Ordering::Relaxed) {
                        return Err(Halt::Stopped);
                    }
                    return Err(Halt::Failed(BenchError::Interrupted {
                        n,
                        config: config_name.clone(),
                    }));
                }
                if out.counts.total != expect {
                    return Err(Halt::Failed(BenchError::Mismatch {
                        n,
                        config: config_name.clone(),
                        got: out.counts.total,
                        expected: expect,
                    }));
                }
                Ok(timings.0)
            };
            let keep = |timings: Vec<UnitTiming>| {
                if t == 1 {
                    // One worker runs the units in index order, so arrival order is index
                    // order in every count: keep each unit's cheapest time, which filters out
                    // the preemptions of a busy machine.
                    let costs = timings.iter().map(|t| t.elapsed.as_secs_f64());
                    if s.unit_costs.is_empty() {
                        s.unit_costs = costs.collect();
                    } else {
                        s.unit_costs
                            .iter_mut()
                            .zip(costs)
                            .for_each(|(m, c)| *m = m.min(c));
                    }
                }
                if let Some(b) = stats::balance(&timings, t) {
                    s.unit_spread.push(b.unit_max_over_mean);
                    s.tail.push(b.tail_share);
                }
            };
            let mut clocks = RealClocks::new();
            match timed_run(&mut clocks, self.min_run_s, count, keep) {
                Ok(run) => {
                    s.add(&run);
                    self.forecast.measured(config.work, n, run.wall_per_count());
                    expected[ci] = t0.elapsed().as_secs_f64();
                }
                Err(halt) => {
                    let row = (!s.wall.is_empty())
                        .then(|| self.engine_row(n, expect, &plan, ei, k, &s, baseline));
                    return (row, Some(halt));
                }
            }
        }
        if t == 1 {
            for threads in PROJECTED_THREADS {
                if let Some(p) = stats::project(&s.unit_costs, threads) {
                    self.projections.push(ProjectionRow {
                        n,
                        method: plan.method().to_string(),
                        kernel: self.engines[ei].label(),
                        split_depth: k,
                        units: plan.units().len(),
                        threads,
                        efficiency_bound: p.efficiency_bound,
                        tail_share: p.tail_share,
                    });
                }
            }
        }
        (
            Some(self.engine_row(n, expect, &plan, ei, k, &s, baseline)),
            None,
        )
    }

    fn serial_row(&self, n: u32, expect: u128, s: &Samples) -> Row {
        let baseline = stats::median(&s.wall).unwrap_or(f64::NAN);
        row(
            n,
            Solver::Serial,
            Method::SERIAL.to_string(),
            // The serial solver's own depth-first search.
            Kernel::Dfs.to_string(),
            1,
            None,
            None,
            expect,
            s,
            baseline,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn engine_row(
        &self,
        n: u32,
        expect: u128,
        plan: &Plan,
        ei: usize,
        k: u32,
        s: &Samples,
        baseline: f64,
    ) -> Row {
        let engine = &self.engines[ei];
        row(
            n,
            Solver::Engine,
            plan.method().to_string(),
            engine.label(),
            engine.threads(),
            Some(k),
            Some(plan.units().len()),
            expect,
            s,
            baseline,
        )
    }

    /// One timed run of the serial solver, on a thread of its own so that a stop need not wait
    /// for its count (which cannot be interrupted) to end.
    fn serial_run(&self, n: u32, expect: u128) -> Result<TimedRun, Halt> {
        let min_run_s = self.min_run_s;
        self.on_thread("serial", move || {
            let count = || {
                let got = serial_count(n).map_err(|e| BenchError::Invalid(e.to_string()))?;
                if got == expect {
                    Ok(())
                } else {
                    Err(BenchError::Mismatch {
                        n,
                        config: "serial".into(),
                        got,
                        expected: expect,
                    })
                }
            };
            timed_run(&mut RealClocks::new(), min_run_s, count, |()| ())
        })
    }

    /// Runs `work` on a thread of its own and waits for it, or until the stop flag is set (the
    /// thread is then left to end in the background). A panic of `work` is passed on.
    fn on_thread<T: Send + 'static>(
        &self,
        name: &str,
        work: impl FnOnce() -> Result<T, BenchError> + Send + 'static,
    ) -> Result<T, Halt> {
        let (tx, rx) = mpsc::channel();
        let handle = std::thread::Builder::new()
            .name(format!("nqueens-bench-{name}"))
            .spawn(move || {
                let _ = tx.send(work());
            })
            .map_err(|e| {
                BenchError::Engine(crate::Error::ThreadPool {
                    reason: e.to_string(),
                })
            })?;
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(result) => return result.map_err(Halt::Failed),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if self.stop.load(Ordering::Relaxed) {
                        return Err(Halt::Stopped);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the thread sends its result before it ends"),
                },
            }
        }
    }

    /// Scaling and parallel efficiency of the rows of `n` (from `first_row` on): against the
    /// same method's 1-thread engine run.
    fn scale(&mut self, n: u32, first_row: usize) {
        let this_n = &mut self.rows[first_row..];
        let one_thread: Vec<(String, f64)> = this_n
            .iter()
            .filter(|r| r.n == n && r.solver == Solver::Engine && r.threads == 1)
            .map(|r| (r.method.clone(), r.median_s))
            .collect();
        for r in this_n.iter_mut().filter(|r| r.solver == Solver::Engine) {
            if let Some((_, one)) = one_thread.iter().find(|(m, _)| *m == r.method) {
                r.scaling = stats::speedup(*one, r.median_s);
                r.efficiency = r.scaling.map(|x| stats::efficiency(x, r.threads));
            }
        }
    }

    /// Search nodes of the rows of `n`: of the serial solver (the same trees as mirror units of
    /// depth 1) and of every plan measured; one count per plan, on a thread of its own.
    fn count_nodes(&mut self, n: u32, first_row: usize) -> Result<(), Halt> {
        let keys: Vec<(Solver, String, Option<u32>)> = {
            let mut keys: Vec<_> = self.rows[first_row..]
                .iter()
                .map(|r| (r.solver, r.method.clone(), r.split_depth))
                .collect();
            keys.sort();
            keys.dedup();
            keys
        };
        let label = format!("N={n}: counting search nodes");
        let work = self.nodes_work(n);
        self.step(n, &label, self.forecast.step_s(work, n), 0.0);
        let t0 = Instant::now();
        let jobs = keys
            .iter()
            .map(|(_, method, depth)| {
                let method: Method = method
                    .parse()
                    .map_err(|e: crate::Error| BenchError::Invalid(e.to_string()))?;
                job(n, depth.unwrap_or(1), Some(method))
            })
            .collect::<Result<Vec<Job>, BenchError>>()?;
        let nodes = self.on_thread("nodes", move || {
            Ok(jobs
                .into_iter()
                .map(|job| plan_nodes(&Plan::new(job)))
                .collect::<Vec<u64>>())
        })?;
        self.forecast.measured(work, n, t0.elapsed().as_secs_f64());
        let by_key: BTreeMap<_, u64> = keys.into_iter().zip(nodes).collect();
        for r in &mut self.rows[first_row..] {
            let nodes = by_key[&(r.solver, r.method.clone(), r.split_depth)];
            r.nodes = Some(nodes);
            r.nodes_per_s = stats::rate(nodes as f64, r.median_s);
        }
        Ok(())
    }
}

/// Seconds in words, for the range's reasons ("0.45 s", "3.2 min").
fn human_s(s: f64) -> String {
    crate::longrun::estimate::human(Duration::from_secs_f64(s.clamp(0.0, 1e12)))
}

/// The job of an engine configuration: the library's default method unless one is given.
fn job(n: u32, depth: u32, method: Option<Method>) -> Result<Job, BenchError> {
    let job = Job::new(n).map_err(|e| BenchError::Invalid(e.to_string()))?;
    let job = match method {
        Some(m) => job.with_method(m),
        None => job,
    };
    job.with_split_depth(depth)
        .map_err(|e| BenchError::Invalid(e.to_string()))
}

#[allow(clippy::too_many_arguments)]
fn row(
    n: u32,
    solver: Solver,
    method: String,
    kernel: String,
    threads: usize,
    split_depth: Option<u32>,
    units: Option<usize>,
    solutions: u128,
    s: &Samples,
    baseline_s: f64,
) -> Row {
    let median_s = stats::median(&s.wall).unwrap_or(f64::NAN);
    let speedup = stats::speedup(baseline_s, median_s);
    // Engine rows on several threads only: one thread has no scaling to judge.
    let short_for_scaling =
        solver == Solver::Engine && threads > 1 && median_s < Settings::SCALING_MIN_S;
    Row {
        n,
        solver,
        method,
        threads,
        split_depth,
        units,
        repeats: s.wall.len(),
        counts_per_run: s.counts.iter().copied().min().unwrap_or(0),
        too_short: s.too_short,
        short_for_scaling,
        // The published counts fit in u64 up to N = 27, the end of the table.
        solutions: u64::try_from(solutions).unwrap_or(u64::MAX),
        median_s,
        min_s: stats::min(&s.wall).unwrap_or(f64::NAN),
        cpu_s: stats::median(&s.cpu),
        speedup,
        // Both filled in once the 1-thread run of the method is known.
        efficiency: None,
        scaling: None,
        solutions_per_s: stats::rate(solutions as f64, median_s),
        // Filled in once the nodes are counted.
        nodes: None,
        nodes_per_s: None,
        unit_max_over_mean: stats::median(&s.unit_spread),
        tail_share: stats::median(&s.tail),
        kernel,
    }
}

#[cfg(test)]
mod tests;
