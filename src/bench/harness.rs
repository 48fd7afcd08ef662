//! The measurements: the range of N, the configurations of each N in order, their timed runs
//! (every count checked against the published value), then the figures that compare the rows
//! of one N, and its search nodes.

use super::forecast::{Forecast, Work};
use super::report::{ProjectionRow, Report, Row, Solver, PROJECTED_THREADS, SCHEMA_VERSION};
use super::timing::{timed_run, RealClocks, TimedRun};
use super::{job, stats, BenchError, Machine, Progress, Settings, Sources};
use crate::known::Published;
use crate::{Counts, Engine, Kernel, Method, Observer, Plan, RunOptions, Unit, UnitTiming};
use rayon::prelude::*;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Measures the range of `settings` with the counts of `sources` (see [`super::run`]).
pub(crate) fn run(
    settings: &Settings,
    machine: Machine,
    progress: &mut dyn Progress,
    stop: Arc<AtomicBool>,
    sources: Sources,
) -> Result<Report, BenchError> {
    settings.validate()?;
    let started_utc = super::machine::utc_now();
    let published = (settings.n_min..=settings.n_max).map(|n| {
        let none = || BenchError::Invalid(format!("no published count to check N = {n} against"));
        (sources.published)(n).ok_or_else(none)
    });
    let engines = settings.threads.iter().map(|&t| {
        let engine = Engine::new(t)?.with_kernel(settings.kernel)?;
        engine
            .with_devices(settings.devices)
            .map_err(BenchError::Engine)
    });
    let mut harness = Harness {
        settings,
        forecast: Forecast::new(settings, machine.logical_cores),
        published: published.collect::<Result<_, _>>()?,
        engines: engines.collect::<Result<_, _>>()?,
        sources,
        stop,
        start: Instant::now(),
        progress,
        rows: Vec::new(),
        projections: Vec::new(),
        depths: RefCell::default(),
    };
    let (range_end, partial, failed) = harness.range()?;
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

impl From<crate::Error> for BenchError {
    fn from(e: crate::Error) -> BenchError {
        BenchError::Engine(e)
    }
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

/// One configuration of one N: the serial solver, or engine `index` (of the list of engines)
/// with a method and a split depth.
#[derive(Clone, Copy)]
enum Config {
    Serial,
    Engine {
        index: usize,
        method: Method,
        threads: usize,
        depth: u32,
    },
}

impl Config {
    /// The kind of work it is, for the forecast.
    fn work(self) -> Work {
        match self {
            Config::Serial => Work::Serial,
            Config::Engine {
                method, threads, ..
            } => Work::Engine { method, threads },
        }
    }
}

/// The timed runs of one configuration.
#[derive(Default)]
struct Samples {
    /// Wall and CPU seconds per count, one per timed run.
    wall: Vec<f64>,
    cpu: Vec<f64>,
    /// Counts made in each timed run.
    per_run: Vec<u64>,
    /// Some timed run was too short ([`TimedRun::too_short`]).
    too_short: bool,
    /// What the last count counted (every count was checked).
    counts: Counts,
    /// Engine only, per count: the costliest unit ÷ the mean, and the share of the tail.
    unit_spread: Vec<f64>,
    tail: Vec<f64>,
    /// 1 thread only: every unit's cheapest time over the runs, seconds, in index order.
    unit_costs: Vec<f64>,
}

impl Samples {
    fn add(&mut self, run: &TimedRun) {
        self.wall.push(run.wall_per_count());
        self.cpu.extend(run.cpu_per_count());
        self.per_run.push(run.counts);
        self.too_short |= run.too_short;
    }

    /// One engine count on `threads` workers: what it counted and how its units ran.
    fn keep(&mut self, counts: Counts, timings: &[UnitTiming], threads: usize) {
        self.counts = counts;
        if threads == 1 {
            // One worker runs the units in index order, so arrival order is index order in
            // every count: keep each unit's cheapest time, which filters out the preemptions
            // of a busy machine.
            let costs = timings.iter().map(|t| t.elapsed.as_secs_f64());
            if self.unit_costs.is_empty() {
                self.unit_costs = costs.collect();
            } else {
                let mins = self.unit_costs.iter_mut().zip(costs);
                mins.for_each(|(m, c)| *m = m.min(c));
            }
        }
        if let Some(b) = stats::balance(timings, threads) {
            self.unit_spread.push(b.unit_max_over_mean);
            self.tail.push(b.tail_share);
        }
    }
}

/// Collects the timing of every unit of an engine run.
struct Timings(Vec<UnitTiming>);

impl Observer for Timings {
    fn unit_done(&mut self, _: &Unit, _: Counts, timing: UnitTiming) -> ControlFlow<()> {
        self.0.push(timing);
        ControlFlow::Continue(())
    }
}

/// `got` of N = `want.n`, if it is the published value (its unique count too, where `unique`).
fn check(config: &str, got: Counts, unique: bool, want: Published) -> Result<Counts, BenchError> {
    let mismatch = |what, got, expected| {
        let (n, config) = (want.n, config.into());
        Err(BenchError::Mismatch {
            n,
            config,
            what,
            got,
            expected,
        })
    };
    if got.total != want.total {
        mismatch("solutions", got.total, want.total)
    } else if unique && got.unique != want.unique {
        mismatch("unique solutions", got.unique, want.unique)
    } else {
        Ok(got)
    }
}

/// A count as a CSV figure: the published counts fit in u64 up to N = 27, the end of the table.
fn wide(count: u128) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// The row of the runs `s` at `n` of the serial solver, or of `engine` on its plan (which
/// counted unique solutions too, where `unique`): the counts are those of the runs. The figures
/// that compare it with other rows, and its nodes, come later ([`Harness::scale`],
/// [`Harness::count_nodes`]).
fn row(n: u32, engine: Option<(&Engine, &Plan)>, unique: bool, s: &Samples) -> Row {
    let median_s = stats::median(&s.wall).unwrap_or(f64::NAN);
    let mut row = Row {
        n,
        solver: Solver::Serial,
        method: Method::SERIAL.to_string(),
        // The serial solver's own depth-first search.
        kernel: Kernel::Dfs.to_string(),
        threads: 1,
        repeats: s.wall.len(),
        solutions: wide(s.counts.total),
        median_s,
        min_s: stats::min(&s.wall).unwrap_or(f64::NAN),
        cpu_s: stats::median(&s.cpu),
        solutions_per_s: stats::rate(s.counts.total as f64, median_s),
        unit_max_over_mean: stats::median(&s.unit_spread),
        tail_share: stats::median(&s.tail),
        counts_per_run: s.per_run.iter().copied().min().unwrap_or(0),
        too_short: s.too_short,
        ..Row::default()
    };
    if let Some((engine, plan)) = engine {
        row.solver = Solver::Engine;
        (row.method, row.kernel) = (plan.method().to_string(), engine.label());
        (row.threads, row.units) = (engine.threads(), Some(plan.units().len()));
        row.split_depth = Some(plan.job().split_depth());
        row.unique = unique.then(|| wide(s.counts.unique));
        // Several threads only: one thread has no scaling to judge.
        row.short_for_scaling = row.threads > 1 && median_s < Settings::SCALING_MIN_S;
    }
    row
}

/// The load balance of `plan` replayed on more threads, from the unit costs measured by a
/// 1-thread `engine` (none from more threads).
fn projections(n: u32, engine: &Engine, plan: &Plan, unit_costs: &[f64]) -> Vec<ProjectionRow> {
    let threads = PROJECTED_THREADS
        .into_iter()
        .filter(|_| engine.threads() == 1);
    let projected = threads.filter_map(|t| Some((t, stats::project(unit_costs, t)?)));
    projected
        .map(|(threads, p)| ProjectionRow {
            n,
            method: plan.method().to_string(),
            kernel: engine.label(),
            split_depth: plan.job().split_depth(),
            units: plan.units().len(),
            threads,
            efficiency_bound: p.efficiency_bound,
            tail_share: p.tail_share,
        })
        .collect()
}

/// Seconds in words, for the range's reasons ("0.45 s", "3.2 min").
fn human_s(s: f64) -> String {
    crate::longrun::estimate::human(Duration::from_secs_f64(s.clamp(0.0, 1e12)))
}

/// The state of a benchmark in progress.
struct Harness<'a> {
    settings: &'a Settings,
    forecast: Forecast,
    engines: Vec<Engine>,
    /// The published values of `n_min..=n_max`.
    published: Vec<Published>,
    sources: Sources,
    stop: Arc<AtomicBool>,
    start: Instant,
    progress: &'a mut dyn Progress,
    rows: Vec<Row>,
    projections: Vec<ProjectionRow>,
    /// The split depths of each (N, threads, method), once worked out: the default depth makes
    /// plans, and the expected time of the rest of the range asks for them at every step.
    depths: RefCell<HashMap<(u32, usize, Method), Vec<u32>>>,
}

impl Harness<'_> {
    /// Measures N after N until the range ends: why it ended and, stopped or failed, why the
    /// report is partial and the failure. A failure before any row is the error alone.
    fn range(&mut self) -> Result<(String, Option<String>, Option<BenchError>), BenchError> {
        for n in self.settings.n_min..=self.settings.n_max {
            if let Some(end) = self.range_ends_before(n)? {
                return Ok((end, None, None));
            }
            let result = self.measure(n);
            let secs = self.start.elapsed().as_secs_f64();
            let (what, more, failed) = match result {
                Ok(()) => continue,
                Err(Halt::Stopped) => (
                    "stopped",
                    format!(", and no search nodes for N = {n}"),
                    None,
                ),
                Err(Halt::Failed(e)) if self.rows.is_empty() => return Err(e),
                Err(Halt::Failed(e)) => ("failed", format!("; {e}"), Some(e)),
            };
            let partial = format!(
                "{what} during N = {n}, after {secs:.0} s: the runs finished by then{more}"
            );
            return Ok((format!("{what} during N = {n}"), Some(partial), failed));
        }
        let end = format!("N = {} is the largest asked for", self.settings.n_max);
        Ok((end, None, None))
    }

    /// The split depths to measure for `n` on `threads` workers with `method`, remembered.
    fn depths(&self, n: u32, threads: usize, method: Method) -> Vec<u32> {
        let mut depths = self.depths.borrow_mut();
        let entry = depths.entry((n, threads, method)).or_insert_with(|| {
            match (&self.settings.split_depths[..], crate::Job::new(n)) {
                ([], Ok(job)) => vec![job.with_method(method).default_split_depth(threads)],
                (depths, _) => depths.to_vec(),
            }
        });
        entry.clone()
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
        let methods = match full {
            true => self.settings.methods.clone(),
            false => vec![self.settings.scaling_method()],
        };
        let mut configs: Vec<Config> = full.then_some(Config::Serial).into_iter().collect();
        for method in methods {
            for (index, engine) in self.engines.iter().enumerate() {
                let threads = engine.threads();
                let depths = self.depths(n, threads, method).into_iter();
                configs.extend(depths.map(|depth| Config::Engine {
                    index,
                    method,
                    threads,
                    depth,
                }));
            }
        }
        configs
    }

    /// The expected seconds of all of `n`: every configuration's runs, and the nodes.
    fn cost_s(&self, n: u32) -> f64 {
        let configs = self.configs(n);
        let runs: f64 = configs
            .iter()
            .map(|c| self.forecast.step_s(c.work(), n))
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
        let (method, threads) = (self.settings.scaling_method(), self.settings.most_threads());
        let fastest = (self.rows.iter())
            .filter(|r| (r.n, r.solver, r.threads) == (n, Solver::Engine, threads))
            .filter(|r| r.method == method.to_string())
            .map(|r| r.median_s)
            .fold(f64::INFINITY, f64::min);
        match fastest.is_finite() {
            true => fastest,
            false => self.forecast.count_s(Work::Engine { method, threads }, n),
        }
    }

    /// Why an open range ends before `n`, if it does: the last N's widest run was long enough,
    /// or `n` is expected to overrun the budget. Refused when even `n_min` would.
    fn range_ends_before(&self, n: u32) -> Result<Option<String>, BenchError> {
        let Some(budget) = self.settings.budget_s else {
            return Ok(None);
        };
        let widest = || self.widest_s(n - 1);
        if n > Settings::FULL_SET_MAX_N
            && n > self.settings.n_min
            && widest() >= Settings::SCALING_MIN_S
        {
            let threads = self.settings.most_threads();
            return Ok(Some(format!(
                "the engine's run on {threads} thread{} lasted {} at N = {}, long enough to \
                 judge scaling",
                if threads == 1 { "" } else { "s" },
                human_s(widest()),
                n - 1
            )));
        }
        let (spent, cost) = (self.start.elapsed().as_secs_f64(), self.cost_s(n));
        let (expected, budget_words) = (human_s(cost), human_s(budget as f64));
        if spent + cost <= budget as f64 {
            Ok(None)
        } else if n == self.settings.n_min {
            Err(BenchError::OverBudget {
                n,
                expected,
                budget: budget_words,
            })
        } else {
            Ok(Some(format!(
                "N = {n} was expected to take {expected} more, past the budget of {budget_words} \
                 ({} spent)",
                human_s(spent)
            )))
        }
    }

    /// The expected seconds of the range after `n`, starting once `spent_s` seconds have gone
    /// by: every later N the range is expected to reach.
    fn after_s(&self, n: u32, spent_s: f64) -> f64 {
        let (mut total, mut widest) = (0.0, self.widest_s(n));
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

    /// Measures every configuration of `n`, then the figures that compare its rows, and its
    /// nodes. Stopped or failed, keeps the rows of the configurations with a finished run.
    fn measure(&mut self, n: u32) -> Result<(), Halt> {
        let (configs, first) = (self.configs(n), self.rows.len());
        // The expected seconds of a run of each configuration; corrected by each run measured.
        let mut expected: Vec<f64> = configs
            .iter()
            .map(|c| self.forecast.step_s(c.work(), n))
            .collect();
        let measured = (0..configs.len())
            .try_for_each(|i| self.measure_config(n, configs[i], i, &mut expected));
        self.scale(first);
        measured?;
        self.count_nodes(n, first)
    }

    /// The timed runs of configuration `ci` of `n` and its row, if a run finished (none where a
    /// method falls back to another one measured anyway); `expected` holds the expected
    /// seconds of a run of each configuration of `n`.
    fn measure_config(
        &mut self,
        n: u32,
        config: Config,
        ci: usize,
        expected: &mut [f64],
    ) -> Result<(), Halt> {
        let (label, engine) = match config {
            Config::Serial => (format!("N={n} serial"), None),
            Config::Engine {
                index,
                method,
                threads,
                depth,
            } => {
                let plan = Plan::new(job(n, depth, method, self.settings.unique)?);
                // A method that falls back to another one measured anyway (d4 is mirror at
                // N = 1) would repeat that method's row under the same name.
                if plan.method() != method && self.settings.methods.contains(&plan.method()) {
                    return Ok(());
                }
                let label = format!("N={n} engine {method} {threads}t depth {depth}");
                (label, Some((index, Arc::new(plan))))
            }
        };
        let (repeat, mut s, mut halt) = (self.settings.repeat, Samples::default(), None);
        for r in 1..=repeat {
            let later = expected[ci + 1..].iter().sum::<f64>() * repeat as f64;
            let rest = expected[ci] * (repeat - r) as f64
                + later
                + self.forecast.step_s(self.nodes_work(n), n);
            self.step(n, &format!("{label}, run {r}/{repeat}"), expected[ci], rest);
            let t0 = Instant::now();
            let run = match &engine {
                None => self.serial_run(n, &mut s),
                Some((index, plan)) => self.engine_run(n, *index, plan, &mut s),
            };
            match run {
                Ok(run) => s.add(&run),
                Err(h) => {
                    halt = Some(h);
                    break;
                }
            }
            let per_count = s.wall.last().copied().unwrap_or_default();
            self.forecast.measured(config.work(), n, per_count);
            expected[ci] = t0.elapsed().as_secs_f64();
        }
        if !s.wall.is_empty() {
            let unique = self.settings.unique;
            let engine = engine
                .as_ref()
                .map(|(i, plan)| (&self.engines[*i], &**plan));
            let row = row(n, engine, unique, &s);
            self.rows.push(row);
        }
        if let (None, Some((index, plan))) = (&halt, &engine) {
            let projected = projections(n, &self.engines[*index], plan, &s.unit_costs);
            self.projections.extend(projected);
        }
        halt.map_or(Ok(()), Err)
    }

    /// The published value of `n`.
    fn want(&self, n: u32) -> Published {
        self.published[(n - self.settings.n_min) as usize]
    }

    /// One timed run of the serial solver, on a thread of its own so that a stop need not wait
    /// for its count (which cannot be interrupted) to end.
    fn serial_run(&self, n: u32, s: &mut Samples) -> Result<TimedRun, Halt> {
        let (serial, min_run_s, want) =
            (self.sources.serial, self.settings.min_run_s(), self.want(n));
        let (run, counts) = self.on_thread("serial", move || {
            let mut last = Counts::default();
            let count = || {
                check(
                    "serial",
                    Counts {
                        total: serial(n)?,
                        unique: 0,
                    },
                    false,
                    want,
                )
            };
            let run = timed_run(&mut RealClocks::new(), min_run_s, count, |c| last = c)?;
            Ok((run, last))
        })?;
        s.counts = counts;
        Ok(run)
    }

    /// One timed run of engine `index` on `plan`.
    fn engine_run(
        &self,
        n: u32,
        index: usize,
        plan: &Arc<Plan>,
        s: &mut Samples,
    ) -> Result<TimedRun, Halt> {
        let (engine, want, unique) = (&self.engines[index], self.want(n), self.settings.unique);
        let threads = engine.threads();
        let depth = plan.job().split_depth();
        let config = format!(
            "engine, {}, {threads} threads, split depth {depth}",
            plan.method()
        );
        let opts = RunOptions {
            cancel: Some(self.stop.clone()),
            ..RunOptions::default()
        };
        let count = || -> Result<_, Halt> {
            let mut timings = Timings(Vec::with_capacity(plan.units().len()));
            let out = (self.sources.engine)(engine, plan, &opts, &mut timings);
            match (out.interrupted, self.stop.load(Relaxed)) {
                (true, true) => Err(Halt::Stopped),
                (true, false) => Err(BenchError::Interrupted {
                    n,
                    config: config.clone(),
                }
                .into()),
                (false, _) => Ok((check(&config, out.counts, unique, want)?, timings.0)),
            }
        };
        let keep = |(counts, timings): (Counts, Vec<UnitTiming>)| s.keep(counts, &timings, threads);
        timed_run(
            &mut RealClocks::new(),
            self.settings.min_run_s(),
            count,
            keep,
        )
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
                Err(mpsc::RecvTimeoutError::Timeout) if self.stop.load(Relaxed) => {
                    return Err(Halt::Stopped)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the thread sends its result before it ends"),
                },
            }
        }
    }

    /// The speed-ups of the rows of one N (from `first` on) over its serial solver, and the
    /// engine rows' scaling and parallel efficiency against the same method's 1-thread run.
    fn scale(&mut self, first: usize) {
        let rows = &mut self.rows[first..];
        let serial = rows.iter().find(|r| r.solver == Solver::Serial);
        let serial = serial.map_or(f64::NAN, |r| r.median_s);
        let one_thread: Vec<(String, f64)> = (rows.iter())
            .filter(|r| r.solver == Solver::Engine && r.threads == 1)
            .map(|r| (r.method.clone(), r.median_s))
            .collect();
        for r in rows {
            r.speedup = stats::speedup(serial, r.median_s);
            let one = one_thread.iter().find(|(m, _)| *m == r.method);
            if let (Solver::Engine, Some((_, one))) = (r.solver, one) {
                r.scaling = stats::speedup(*one, r.median_s);
                r.efficiency = r.scaling.map(|x| stats::efficiency(x, r.threads));
            }
        }
    }

    /// Search nodes of the rows of `n` (from `first` on): of the serial solver (the same trees
    /// as mirror units of depth 1) and of every plan measured; one count per plan, on a thread
    /// of its own.
    fn count_nodes(&mut self, n: u32, first: usize) -> Result<(), Halt> {
        let key = |r: &Row| (r.method.clone(), r.split_depth.unwrap_or(1));
        let mut keys: Vec<(String, u32)> = self.rows[first..].iter().map(key).collect();
        keys.sort();
        keys.dedup();
        let work = self.nodes_work(n);
        let label = format!("N={n}: counting search nodes");
        self.step(n, &label, self.forecast.step_s(work, n), 0.0);
        let t0 = Instant::now();
        let jobs = keys
            .iter()
            .map(|(method, depth)| job(n, *depth, method.parse()?, false));
        let plans = jobs
            .map(|job| job.map(Plan::new))
            .collect::<Result<Vec<_>, _>>()?;
        let nodes = self.on_thread("nodes", move || {
            let nodes = |p: &Plan| p.units().par_iter().map(|u| p.nodes(u)).sum();
            Ok(plans.iter().map(nodes).collect::<Vec<u64>>())
        })?;
        self.forecast.measured(work, n, t0.elapsed().as_secs_f64());
        for r in &mut self.rows[first..] {
            let nodes = nodes[keys.binary_search(&key(r)).expect("every plan was counted")];
            (r.nodes, r.nodes_per_s) = (Some(nodes), stats::rate(nodes as f64, r.median_s));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::timing::SHORT_COUNT_S;
    use crate::Job;

    fn small() -> Settings {
        Settings {
            n_min: 6,
            n_max: 8,
            budget_s: None,
            threads: vec![1, 2],
            repeat: 2,
            split_depths: vec![],
            methods: vec![Method::D4, Method::Mirror],
            kernel: Kernel::best(),
            devices: crate::Devices::Cpu,
            // Short, to keep the tests quick: the counts here take microseconds.
            min_run_ms: 2,
            unique: false,
        }
    }

    fn published(n: u32) -> Option<u128> {
        crate::known::published(n).map(|p| p.total)
    }

    /// The benchmark of `settings` with the counts and published values of `sources`.
    fn bench(settings: &Settings, sources: Sources) -> Result<Report, BenchError> {
        let machine = Machine::detect("test".into());
        run(settings, machine, &mut (), Arc::default(), sources)
    }

    /// The benchmark of `settings` as the library runs it.
    fn library(settings: &Settings) -> Report {
        bench(settings, Sources::LIBRARY).unwrap()
    }

    /// The published values, with `published.n`'s own changed by `change`.
    fn changed(published: Published, n: u32, change: fn(&mut Published)) -> Published {
        let mut p = published;
        if p.n == n {
            change(&mut p);
        }
        p
    }

    #[test]
    fn default_thread_lists() {
        assert_eq!(Settings::default_threads(1), vec![1]);
        assert_eq!(Settings::default_threads(2), vec![1, 2]);
        assert_eq!(Settings::default_threads(6), vec![1, 2, 4, 6]);
        assert_eq!(Settings::default_threads(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(
            Settings::default_threads(256),
            vec![1, 2, 4, 8, 16, 32, 64, 128, 256]
        );
        assert_eq!(Settings::default_threads(0), vec![1]);
    }

    #[test]
    fn the_default_method_is_the_library_s() {
        // The bench takes `Method::default()` as the default method: the one `Job::new` gives at
        // every N (and `nqueens count` runs without `--method`).
        for n in [1, 8, 17, 27] {
            assert_eq!(Method::default(), Job::new(n).unwrap().method());
        }
        let defaults = Settings::defaults(2);
        assert_eq!(defaults.methods[0], Method::default());
        assert!(defaults.methods.contains(&Method::Mirror));
    }

    #[test]
    fn settings_are_validated() {
        assert!(small().validate().is_ok());
        let bad = [
            Settings {
                n_min: 9,
                n_max: 8,
                ..small()
            },
            Settings {
                n_min: 0,
                ..small()
            },
            Settings {
                threads: vec![1, 0],
                ..small()
            },
            Settings {
                threads: vec![],
                ..small()
            },
            Settings {
                repeat: 0,
                ..small()
            },
            Settings {
                n_max: 33,
                ..small()
            },
            // Depth 4 is deeper than a 3x3 board.
            Settings {
                n_min: 3,
                split_depths: vec![4],
                ..small()
            },
        ];
        for s in bad {
            assert!(matches!(s.validate(), Err(BenchError::Invalid(_))), "{s:?}");
        }
    }

    #[test]
    fn a_small_benchmark_has_every_row_and_figure() {
        let report = library(&small());
        // Per N: serial, then the engine with d4 and with mirror, each on 1 and on 2 threads.
        assert_eq!(report.rows.len(), 3 * 5);
        let methods: Vec<&str> = report.rows[..5].iter().map(|r| r.method.as_str()).collect();
        assert_eq!(methods, ["mirror", "d4", "d4", "mirror", "mirror"]);
        for r in &report.rows {
            // Every row names its method and kernel: the serial solver's own depth-first search,
            // or the engine's kernel.
            let kernel = match r.solver {
                Solver::Serial => "dfs",
                Solver::Engine => Kernel::best().name(),
            };
            assert_eq!(r.kernel, kernel);
            assert_eq!(u128::from(r.solutions), published(r.n).unwrap());
            assert_eq!(r.repeats, 2);
            assert!(r.min_s <= r.median_s && r.min_s > 0.0);
            // Counts of microseconds, repeated until each run lasted 2 ms: never flagged.
            assert!(r.counts_per_run >= 1 && !r.too_short, "{r:?}");
            assert!(r.nodes.unwrap() > 0);
            match r.solver {
                Solver::Serial => {
                    assert_eq!((r.threads, r.split_depth, r.units), (1, None, None));
                    assert_eq!(r.unit_max_over_mean, None);
                    assert_eq!(r.scaling, None);
                }
                Solver::Engine => {
                    assert!(r.units.unwrap() > 0);
                    // Against the same method's 1-thread row of the same N.
                    let one = report
                        .rows
                        .iter()
                        .find(|o| {
                            (o.n, o.solver, &o.method, o.threads)
                                == (r.n, Solver::Engine, &r.method, 1)
                        })
                        .unwrap();
                    assert_eq!(r.scaling, Some(one.median_s / r.median_s));
                    assert!(r.unit_max_over_mean.unwrap() >= 1.0);
                    assert!((0.0..=1.0).contains(&r.tail_share.unwrap()));
                }
            }
            // Parallel efficiency: the engine's scaling per thread, never above 1; none for the
            // serial solver, whose speed-up over itself says nothing of threads.
            match r.solver {
                Solver::Serial => assert_eq!(r.efficiency, None),
                Solver::Engine => {
                    let e = r.efficiency.unwrap();
                    let want = (r.scaling.unwrap() / r.threads as f64).min(1.0);
                    assert!((e - want).abs() < 1e-12 && e <= 1.0, "{r:?}");
                }
            }
        }
        // The serial solver's node counts against a textbook recount of its tree.
        for r in report.rows.iter().filter(|r| r.solver == Solver::Serial) {
            assert_eq!(r.nodes, Some(naive_serial_nodes(r.n)), "N = {}", r.n);
        }
        // The serial row is its own baseline.
        assert_eq!(report.rows[0].speedup, Some(1.0));
        assert_eq!(report.rows[0].solver, Solver::Serial);
        assert_eq!(report.schema_version, SCHEMA_VERSION);
        assert_eq!(report.default_method, Method::default().to_string());
        // Runs this short are never taken as a sign of a busy machine.
        assert_eq!(report.busy_warning(), None);
        // Projections from the 1-thread runs: every N and method (one default depth each) at 8
        // thread counts.
        assert_eq!(report.projections.len(), 3 * 2 * PROJECTED_THREADS.len());
        for p in &report.projections {
            let one_thread = report.rows.iter().find(|r| {
                (r.n, r.solver, r.threads, &r.method) == (p.n, Solver::Engine, 1, &p.method)
            });
            assert_eq!(one_thread.unwrap().kernel, p.kernel);
            assert!(p.efficiency_bound > 0.0 && p.efficiency_bound <= 1.0 + 1e-9);
            assert!((0.0..=1.0).contains(&p.tail_share));
        }
    }

    #[test]
    fn short_counts_are_repeated_to_50_ms_or_flagged() {
        let settings = Settings {
            n_min: 6,
            n_max: 6,
            threads: vec![1],
            repeat: 1,
            methods: vec![Method::Mirror],
            min_run_ms: Settings::DEFAULT_MIN_RUN_MS,
            ..small()
        };
        let bench = library;
        // N = 6 counts in microseconds: each run repeats its count until it has lasted 50 ms.
        let report = bench(&settings);
        assert_eq!(report.rows.len(), 2);
        for r in &report.rows {
            // Repeated (how often depends on the machine's load: 9 times under a parallel test run;
            // a machine loaded enough to take 50 ms for one count needs no repetition).
            assert!(r.counts_per_run > 1 || r.median_s >= 0.05, "{r:?}");
            assert!(
                r.median_s * r.counts_per_run as f64 >= 0.05 * (1.0 - 1e-9),
                "{r:?}"
            );
            assert!(!r.too_short);
        }
        assert_eq!(report.settings.min_run_ms, 50);
        // Repetition off: one count a run, flagged.
        let report = bench(&Settings {
            min_run_ms: 0,
            ..settings
        });
        for r in &report.rows {
            // Flagged when shorter than the threshold, which a microsecond count is unless the
            // machine is loaded enough to stretch it past 10 ms.
            let short = r.median_s < SHORT_COUNT_S;
            assert_eq!((r.counts_per_run, r.too_short), (1, short), "{r:?}");
        }
    }

    /// The queens a mirror-halved search places below row 0 (first queen in the left half, or
    /// the middle column), by plain recursion.
    fn naive_serial_nodes(n: u32) -> u64 {
        fn below(n: usize, cols: &mut Vec<usize>) -> u64 {
            let row = cols.len();
            if row == n {
                return 0;
            }
            let mut nodes = 0;
            for c in 0..n {
                let safe = cols
                    .iter()
                    .enumerate()
                    .all(|(r, &q)| q != c && q.abs_diff(c) != row - r);
                if safe {
                    cols.push(c);
                    nodes += 1 + below(n, cols);
                    cols.pop();
                }
            }
            nodes
        }
        let n = n as usize;
        (0..n.div_ceil(2)).map(|c| below(n, &mut vec![c])).sum()
    }

    #[test]
    fn a_method_that_falls_back_to_another_measured_one_has_no_row_of_its_own() {
        // At N = 1 d4 runs as mirror: one mirror row per thread count, each scaled against
        // the mirror 1-thread row.
        let settings = Settings {
            n_min: 1,
            n_max: 2,
            ..small()
        };
        let report = library(&settings);
        let n1: Vec<(&str, usize)> = report
            .rows
            .iter()
            .filter(|r| r.n == 1)
            .map(|r| (r.method.as_str(), r.threads))
            .collect();
        assert_eq!(n1, [("mirror", 1), ("mirror", 1), ("mirror", 2)]);
        let n2: Vec<&str> = report
            .rows
            .iter()
            .filter(|r| r.n == 2)
            .map(|r| r.method.as_str())
            .collect();
        assert_eq!(n2, ["mirror", "d4", "d4", "mirror", "mirror"]);
    }

    #[test]
    fn a_count_mismatch_is_an_error() {
        // A published value that is off by one for N = 7 only: the serial solver, first, disagrees.
        let wrong = Sources {
            published: |n| Some(changed(crate::known::published(n)?, 7, |p| p.total += 1)),
            ..Sources::LIBRARY
        };
        let err = bench(&small(), wrong).unwrap_err();
        // The rows of N = 6, measured before, come with the error, marked partial.
        let BenchError::Failed { error, report } = err else {
            panic!("expected a failure with the rows before it, got {err}");
        };
        match *error {
            BenchError::Mismatch {
                n, got, expected, ..
            } => assert_eq!((n, got, expected), (7, 40, 41)),
            other => panic!("expected a mismatch, got {other}"),
        }
        assert!(!report.rows.is_empty() && report.rows.iter().all(|r| r.n == 6));
        let partial = report.partial.as_deref().unwrap_or_default();
        assert!(partial.starts_with("failed during N = 7"), "{partial}");
        assert!(partial.contains("count mismatch"), "{partial}");
        assert_eq!(report.range_end, "failed during N = 7");
        // At the first N, nothing measured: the error alone.
        let first = Sources {
            published: |n| Some(changed(crate::known::published(n)?, 6, |p| p.total += 1)),
            ..Sources::LIBRARY
        };
        let err = bench(&small(), first).unwrap_err();
        assert!(matches!(err, BenchError::Mismatch { n: 6, .. }), "{err}");
        // No published value at all: refused before any run.
        let none = Sources {
            published: |_| None,
            ..Sources::LIBRARY
        };
        assert!(matches!(bench(&small(), none), Err(BenchError::Invalid(_))));
    }

    /// One engine run that counts one solution too many at N = 7 (and, with `--unique`, one
    /// unique solution too few), as a faulty kernel would.
    fn engine_wrong_at_7(
        e: &Engine,
        plan: &Arc<Plan>,
        opts: &RunOptions,
        obs: &mut dyn Observer,
    ) -> crate::Outcome {
        let mut out = e.run(plan, opts, obs);
        if plan.job().n() == 7 {
            if plan.job().unique() {
                out.counts.unique -= 1;
            } else {
                out.counts.total += 1;
            }
        }
        out
    }

    #[test]
    fn an_engine_count_that_differs_is_an_error() {
        // The serial solver counts right; the engine alone counts 41 at N = 7.
        let wrong = Sources {
            engine: engine_wrong_at_7,
            ..Sources::LIBRARY
        };
        let err = bench(&small(), wrong).unwrap_err();
        let BenchError::Failed { error, report } = err else {
            panic!("expected a failure with the rows before it, got {err}");
        };
        let BenchError::Mismatch {
            n,
            ref config,
            what,
            got,
            expected,
        } = *error
        else {
            panic!("expected a mismatch, got {error}");
        };
        assert_eq!((n, what, got, expected), (7, "solutions", 41, 40));
        assert!(config.starts_with("engine, d4, 1 threads"), "{config}");
        // Kept: every row of N = 6 and the serial solver's of N = 7, which counted right; the
        // engine's first run at N = 7 failed, so it has no row.
        let kept: Vec<(u32, Solver)> = report.rows.iter().map(|r| (r.n, r.solver)).collect();
        assert_eq!(kept.len(), 6, "{kept:?}");
        assert!(kept[..5].iter().all(|&(n, _)| n == 6), "{kept:?}");
        assert_eq!(kept[5], (7, Solver::Serial));
        assert!(report
            .rows
            .iter()
            .all(|r| u128::from(r.solutions) == published(r.n).unwrap()));
        let partial = report.partial.as_deref().unwrap_or_default();
        assert!(partial.starts_with("failed during N = 7"), "{partial}");
        assert!(
            partial.contains("count mismatch for N = 7 (engine, d4"),
            "{partial}"
        );
    }

    #[test]
    fn unique_counts_are_reported_and_checked() {
        let settings = Settings {
            unique: true,
            ..small()
        };
        // Measured: each engine row has the unique count its runs made, the published one.
        let report = library(&settings);
        for r in &report.rows {
            let p = crate::known::published(r.n).unwrap();
            let unique = (r.solver == Solver::Engine).then_some(p.unique as u64);
            assert_eq!((r.solutions, r.unique), (p.total as u64, unique), "{r:?}");
        }
        // Not asked for: none.
        assert!(library(&small()).rows.iter().all(|r| r.unique.is_none()));
        // One unique count off at N = 7: a mismatch, the rows before it kept.
        let wrong = Sources {
            engine: engine_wrong_at_7,
            ..Sources::LIBRARY
        };
        let Err(BenchError::Failed { error, report }) = bench(&settings, wrong) else {
            panic!("expected a failure with the rows before it");
        };
        assert!(
            matches!(
                *error,
                BenchError::Mismatch {
                    n: 7,
                    what: "unique solutions",
                    got: 5,
                    expected: 6,
                    ..
                }
            ),
            "{error}"
        );
        assert_eq!(report.rows.len(), 6);
    }

    #[test]
    fn a_row_holds_the_counts_of_its_runs() {
        // Counts of N = 7 unlike the published ones (40 and 6): the row says what was counted.
        let s = Samples {
            wall: vec![0.5, 0.25],
            per_run: vec![1, 1],
            counts: Counts {
                total: 41,
                unique: 5,
            },
            ..Samples::default()
        };
        let serial = row(7, None, true, &s);
        assert_eq!(
            (serial.solutions, serial.unique, serial.repeats),
            (41, None, 2)
        );
        assert_eq!(serial.solutions_per_s, Some(41.0 / 0.375));
        let engine = Engine::new(2).unwrap();
        let plan = Plan::new(Job::new(7).unwrap().with_unique(true));
        let row_of = |unique| row(7, Some((&engine, &plan)), unique, &s);
        assert_eq!((row_of(true).solutions, row_of(true).unique), (41, Some(5)));
        assert_eq!(row_of(false).unique, None);
        assert_eq!(row_of(true).threads, 2);
    }

    #[test]
    fn rows_hold_the_counts_the_runs_made() {
        // Counts that both solvers agree on and that match the published table given: the rows
        // say what was counted, here one more than the library's published value.
        let off = Sources {
            published: |n| Some(changed(crate::known::published(n)?, n, |p| p.total += 1)),
            serial: |n| Ok(crate::serial_count(n)? + 1),
            engine: |e, plan, opts, obs| {
                let mut out = e.run(plan, opts, obs);
                out.counts.total += 1;
                out
            },
        };
        let report = bench(&small(), off).unwrap();
        assert_eq!(report.rows.len(), 15);
        for r in &report.rows {
            assert_eq!(
                u128::from(r.solutions),
                published(r.n).unwrap() + 1,
                "{r:?}"
            );
        }
    }
}
