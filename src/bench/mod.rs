//! The scaling benchmark: whole counts by the single-threaded solver and by the parallel engine
//! at several thread counts, each repeated, checked against the published value and summarised
//! (median and minimum wall time, CPU time, speed-up over the serial solver, parallel scaling
//! and efficiency, solutions and nodes per second, load balance). [`export`] writes the results
//! as CSV, JSON, SVG plots and a markdown summary. A count under 10 ms is repeated within its
//! timed run (`timing`), so that no figure rests on a clock reading of microseconds unflagged.
//!
//! Search nodes are counted apart from the timed runs, by an instrumented walk of the same trees
//! ([`crate::Plan::nodes`]), so the measured kernel carries no counter: nodes per
//! second is the nodes of the job divided by the median time of the real runs.

mod clock;
pub mod export;
pub mod machine;
mod report;
pub mod stats;
mod timing;

use crate::engine::UnitTiming;
use crate::plan::evaluate_nodes;
use crate::search::Kernel;
use crate::{serial_count, Engine, Job, Method, Observer, Plan, RunOptions, Unit};
pub use clock::utc_now_iso8601;
use machine::Machine;
use rayon::prelude::*;
pub use report::{
    ProjectionRow, Report, Row, Solver, PROJECTED_THREADS, SCHEMA_VERSION, SIGNIFICANT_DIGITS,
};
use serde::Serialize;
use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use timing::{timed_run, RealClocks, TimedRun};
pub use timing::{MAX_COUNTS_PER_RUN, SHORT_COUNT_S};

/// What to measure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// Smallest board size.
    pub n_min: u32,
    /// Largest board size.
    pub n_max: u32,
    /// Thread counts of the parallel engine, in the order measured.
    pub threads: Vec<usize>,
    /// Timed runs of every configuration.
    pub repeat: usize,
    /// Split depths of the engine's work units; empty for the library's default for each N and
    /// thread count ([`Job::default_split_depth`]).
    pub split_depths: Vec<u32>,
    /// Methods of the engine, each measured at every thread count: by default the library's
    /// default method ([`default_method`]) and mirror, the serial solver's own method, so that
    /// the engine's scaling against the serial solver is also measured on the same search.
    pub methods: Vec<Method>,
    /// The kernel the engine searches with (the serial solver always runs its own
    /// depth-first search): by default the fastest this processor has.
    pub kernel: Kernel,
    /// The OpenCL devices the engine counts on as well (none by default).
    pub devices: crate::engine::Devices,
    /// Where one count takes under [`SHORT_COUNT_S`] (10 ms), each timed run repeats it until
    /// the run has lasted this many milliseconds (by default [`DEFAULT_MIN_RUN_MS`]) and times
    /// it per count; 0 turns repetition off. A run still shorter flags its row
    /// ([`Row::too_short`]).
    pub min_run_ms: u32,
}

/// The default of [`Settings::min_run_ms`]: 50 ms.
pub const DEFAULT_MIN_RUN_MS: u32 = 50;

impl Settings {
    /// The defaults of `nqueens bench` on a machine with `logical_cores`: N = 10..=17, the
    /// default thread list, 3 repeats, the default split depths, the default method and
    /// mirror, the fastest kernel, runs of short counts repeated to 50 ms.
    pub fn defaults(logical_cores: usize) -> Settings {
        let n_max = 17;
        Settings {
            n_min: 10,
            n_max,
            threads: default_threads(logical_cores),
            repeat: 3,
            split_depths: Vec::new(),
            methods: {
                let mut m = vec![default_method(n_max), Method::Mirror];
                m.dedup();
                m
            },
            kernel: Kernel::best(),
            devices: crate::engine::Devices::Cpu,
            min_run_ms: DEFAULT_MIN_RUN_MS,
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

/// The library's default method at board size `n`: the one [`Job::new`] chooses, which
/// `nqueens count` runs without `--method` (for an `n` the library refuses, that of a 1×1
/// board).
pub fn default_method(n: u32) -> Method {
    Job::new(n)
        .or_else(|_| Job::new(1))
        .map(|job| job.method())
        .expect("a 1×1 board is a valid job")
}

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
    /// The benchmark will make `runs` timed runs.
    fn start(&mut self, _runs: u64) {}
    /// Now measuring (or preparing) what `label` describes.
    fn working_on(&mut self, _label: &str) {}
    /// One timed run finished.
    fn run_done(&mut self) {}
}

/// A [`Progress`] that shows nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

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

/// Runs the benchmark. Every count is checked against `expected(n)` (normally the published
/// value, [`crate::known::published`]): a difference is an error, never a row.
pub fn run(
    settings: &Settings,
    machine: Machine,
    expected: &dyn Fn(u32) -> Option<u128>,
    progress: &mut dyn Progress,
) -> Result<Report, BenchError> {
    settings.validate()?;
    let started_utc = utc_now_iso8601();
    let ns = settings.n_min..=settings.n_max;
    let mut want = BTreeMap::new();
    for n in ns.clone() {
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
    let configs_per_n: u64 = 1 + settings
        .threads
        .iter()
        .flat_map(|&t| settings.methods.iter().map(move |&m| (t, m)))
        .map(|(t, m)| settings.depths(settings.n_min, t, m).len() as u64)
        .sum::<u64>();
    progress.start(configs_per_n * ns.clone().count() as u64 * settings.repeat as u64);

    let mut rows = Vec::new();
    let mut projections = Vec::new();
    let mut clocks = RealClocks::new();
    let min_run_s = f64::from(settings.min_run_ms) / 1000.0;
    for n in ns {
        let expect = want[&n];
        let check = |config: &str, got: u128| {
            if got == expect {
                Ok(())
            } else {
                Err(BenchError::Mismatch {
                    n,
                    config: config.to_string(),
                    got,
                    expected: expect,
                })
            }
        };

        // The serial solver: the baseline.
        let mut s = Samples::default();
        for r in 1..=settings.repeat {
            progress.working_on(&format!("N={n} serial, run {r}/{}", settings.repeat));
            let count = || {
                let got = serial_count(n).map_err(|e| BenchError::Invalid(e.to_string()))?;
                check("serial", got)
            };
            s.add(&timed_run(&mut clocks, min_run_s, count, |()| ())?);
            progress.run_done();
        }
        let baseline = stats::median(&s.wall).unwrap_or(f64::NAN);
        // Nodes are counted once all of this N's timed runs are done (below), so that the
        // counting threads never share the machine with a timed run.
        let first_row = rows.len();
        rows.push(row(
            n,
            Solver::Serial,
            Method::Mirror.to_string(),
            // The serial solver's own depth-first search.
            Kernel::Dfs.to_string(),
            1,
            None,
            None,
            expect,
            &s,
            baseline,
        ));

        // The engine at every method, thread count and split depth.
        for (&method, engine) in settings
            .methods
            .iter()
            .flat_map(|m| engines.iter().map(move |e| (m, e)))
        {
            let t = engine.threads();
            for k in settings.depths(n, t, method) {
                let plan = Arc::new(Plan::new(job(n, k, Some(method))?));
                if plan.method() != method && settings.methods.contains(&plan.method()) {
                    // The method falls back to another one measured anyway (d4 is mirror at
                    // N = 1): its row would repeat that method's row under the same name.
                    (0..settings.repeat).for_each(|_| progress.run_done());
                    continue;
                }
                let config = format!("engine, {method}, {t} threads, split depth {k}");
                let mut s = Samples::default();
                for r in 1..=settings.repeat {
                    progress.working_on(&format!(
                        "N={n} engine {method} {t}t depth {k}, run {r}/{}",
                        settings.repeat
                    ));
                    let count = || {
                        let mut timings = Timings(Vec::with_capacity(plan.units().len()));
                        let out = engine.run(&plan, &RunOptions::default(), &mut timings);
                        if out.interrupted {
                            return Err(BenchError::Interrupted {
                                n,
                                config: config.clone(),
                            });
                        }
                        check(&config, out.counts.total)?;
                        Ok(timings.0)
                    };
                    let keep = |timings: Vec<UnitTiming>| {
                        if t == 1 {
                            // One worker runs the units in index order, so arrival order is
                            // index order in every count: keep each unit's cheapest time, which
                            // filters out the preemptions of a busy machine.
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
                    let run = timed_run(&mut clocks, min_run_s, count, keep)?;
                    s.add(&run);
                    progress.run_done();
                }
                if t == 1 {
                    for threads in PROJECTED_THREADS {
                        if let Some(p) = stats::project(&s.unit_costs, threads) {
                            projections.push(ProjectionRow {
                                n,
                                method: plan.method().to_string(),
                                kernel: engine.label(),
                                split_depth: k,
                                units: plan.units().len(),
                                threads,
                                efficiency_bound: p.efficiency_bound,
                                tail_share: p.tail_share,
                            });
                        }
                    }
                }
                rows.push(row(
                    n,
                    Solver::Engine,
                    plan.method().to_string(),
                    engine.label(),
                    t,
                    Some(k),
                    Some(plan.units().len()),
                    expect,
                    &s,
                    baseline,
                ));
            }
        }

        // Scaling and parallel efficiency: against the same method's 1-thread engine run.
        let this_n = &mut rows[first_row..];
        let one_thread: Vec<(String, f64)> = this_n
            .iter()
            .filter(|r| r.solver == Solver::Engine && r.threads == 1)
            .map(|r| (r.method.clone(), r.median_s))
            .collect();
        for r in this_n.iter_mut().filter(|r| r.solver == Solver::Engine) {
            if let Some((_, one)) = one_thread.iter().find(|(m, _)| *m == r.method) {
                r.scaling = stats::speedup(*one, r.median_s);
                r.efficiency = r.scaling.map(|x| stats::efficiency(x, r.threads));
            }
        }

        // Search nodes: of the serial solver (the same trees as mirror units of depth 1) and of
        // every plan measured; one count per plan.
        let mut nodes_by_plan: BTreeMap<(Solver, String, Option<u32>), u64> = BTreeMap::new();
        for r in &mut rows[first_row..] {
            let key = (r.solver, r.method.clone(), r.split_depth);
            let nodes = match nodes_by_plan.get(&key) {
                Some(&nodes) => nodes,
                None => {
                    progress.working_on(&format!("N={n}: counting search nodes"));
                    let method: Method = r
                        .method
                        .parse()
                        .map_err(|e: crate::Error| BenchError::Invalid(e.to_string()))?;
                    let plan = Plan::new(job(n, r.split_depth.unwrap_or(1), Some(method))?);
                    let nodes = plan_nodes(&plan);
                    nodes_by_plan.insert(key, nodes);
                    nodes
                }
            };
            r.nodes = nodes;
            r.nodes_per_s = stats::rate(nodes as f64, r.median_s);
        }
    }
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        started_utc,
        machine,
        settings: settings.clone(),
        default_method: default_method(settings.n_max).to_string(),
        nodes_note: "nodes = queens placed by the searches below the work-unit prefixes, \
                     counted by a separate instrumented walk of the same trees (not timed); \
                     nodes_per_s = nodes / median_s"
            .into(),
        rows,
        projections,
    })
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
        nodes: 0,
        nodes_per_s: None,
        unit_max_over_mean: stats::median(&s.unit_spread),
        tail_share: stats::median(&s.tail),
        kernel,
    }
}

#[cfg(test)]
mod tests;
