//! The measurements: the range of N, the configurations of each N in order, their timed runs
//! (every count checked against the published value), the figures that compare the rows of
//! one N, and the expected time of what lies ahead, for the open range's budget and the
//! progress display.
//!
//! The expected time of a count is the CPU-time model's
//! ([`crate::longrun::estimate::cpu_time_of`]): on the model's reference machine before the
//! configuration was measured, then its median at the last N measured grown by the model's
//! ratio between the two board sizes. A timed run lasts at least the settings' `min_run_ms`.

use super::report::{Results, Row, Solver, SCHEMA_VERSION};
use super::timing::{real_clocks, timed_run, TimedRun};
use super::{human_s, job, stats, BenchError, Machine, Settings, Sources};
use crate::engine::{NoObserver, RunOptions};
use crate::known::Published;
use crate::longrun::estimate::cpu_time_of;
use crate::longrun::{Progress, Watch};
use crate::{Cancel, Counts, Engine, Kernel, Method, Plan};

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Measures the range of `settings` with the counts of `sources` (see [`super::run`]).
pub(crate) fn run(
    settings: &Settings,
    machine: Machine,
    progress: &mut dyn Watch,
    stop: Cancel,
    sources: Sources,
) -> Result<Results, BenchError> {
    settings.validate()?;
    let started_utc = super::machine::utc_now();
    let published = (settings.n_min..=settings.n_max).map(|n| {
        let none = || BenchError::Invalid(format!("no published count to check N = {n} against"));
        (sources.published)(n).ok_or_else(none)
    });
    let engine = |&threads: &usize| {
        let engine = Engine::new(threads)?.with_kernel(settings.kernel)?;
        let engine = engine.with_devices(settings.devices)?;
        match settings.device_batch {
            Some(subs) => engine.with_device_batch(subs).map(Arc::new),
            None => Ok(Arc::new(engine)),
        }
    };
    let engines = settings.threads.iter().map(engine);
    let mut harness = Harness {
        settings,
        cores: machine.logical_cores.max(1),
        published: published.collect::<Result<_, _>>()?,
        engines: engines.collect::<Result<_, _>>()?,
        sources,
        stop,
        progress,
        start: Instant::now(),
        runs_done: 0,
        rows: Vec::new(),
    };
    let (range_end, partial, failed) = harness.range()?;
    // The range that ran: an open range records the largest N it measured, not the most it
    // could have reached.
    let mut ran = settings.clone();
    if ran.budget_s.is_some() {
        ran.n_max = harness.rows.iter().map(|r| r.n).max().unwrap_or(ran.n_min);
    }
    let report = Results {
        schema_version: SCHEMA_VERSION,
        started_utc,
        machine,
        settings: ran,
        default_method: Method::default().to_string(),
        range_end,
        partial,
        rows: harness.rows,
    };
    let (error, report) = match failed {
        None => return Ok(report),
        Some(e) => (Box::new(e), Box::new(report)),
    };
    Err(BenchError::Failed { error, report })
}

/// Why measuring ended early: a failure, or none where the stop flag was set (what was
/// measured is kept then).
type Stop = Option<BenchError>;

/// One configuration of one N, its split depth aside: the serial solver (no engine), or
/// engine `.0` (an index into the list of engines) with method `.1`.
#[derive(Clone, Copy)]
struct Config(Option<usize>, Method);

/// One count of a timed run, checked.
type Counter = Box<dyn FnMut() -> Result<Counts, Stop> + Send>;

/// What lies ahead when a run begins: its expected time, the expected time of all after it, and
/// the runs of the benchmark in all.
type Ahead = (Duration, Duration, usize);

/// `got` of N = `want.n`, if it is the published value (its unique count too, where `unique`).
fn check(config: &str, got: Counts, unique: bool, want: Published) -> Result<Counts, BenchError> {
    let published = Counts {
        total: want.total,
        unique: want.unique,
    };
    // The one check of an announced count (`known::compare`); the error names what differs.
    let Err(m) = crate::known::compare(want.n, unique, got, published) else {
        return Ok(got);
    };
    let (what, got, expected) = if m.found.total != m.published.total {
        ("solutions", m.found.total, m.published.total)
    } else {
        ("unique solutions", m.found.unique, m.published.unique)
    };
    let (n, config) = (want.n, config.into());
    Err(BenchError::Mismatch {
        n,
        config,
        what,
        got,
        expected,
    })
}

/// A count as a CSV figure: the published counts fit in u64 up to N = 27, the end of the table.
fn wide(count: u128) -> u64 {
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// The row of the timed `runs` at `n` of the serial solver, or of `engine` on its plan (which
/// counted unique solutions too, where its job says); `counts` is what they counted. The figures
/// that compare it with other rows come later ([`Harness::scale`]).
fn row(n: u32, engine: Option<(&Engine, &Plan)>, runs: &[TimedRun], counts: Counts) -> Row {
    let wall: Vec<f64> = runs.iter().map(|r| r.wall_s).collect();
    let cpu: Vec<f64> = runs.iter().filter_map(|r| r.cpu_s).collect();
    let median_s = stats::median(&wall).unwrap_or(f64::NAN);
    let mut row = Row {
        n,
        solver: Solver::Serial,
        method: Method::SERIAL.to_string(),
        // The serial solver's own depth-first search.
        kernel: Kernel::Dfs.to_string(),
        threads: 1,
        repeats: runs.len(),
        solutions: wide(counts.total),
        median_s,
        min_s: wall.iter().copied().fold(f64::INFINITY, f64::min),
        max_s: wall.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        cpu_s: stats::median(&cpu),
        solutions_per_s: stats::ratio(counts.total as f64, median_s),
        counts_per_run: runs.iter().map(|r| r.counts).min().unwrap_or(0),
        too_short: runs.iter().any(|r| r.too_short),
        ..Row::default()
    };
    if let Some((engine, plan)) = engine {
        row.solver = Solver::Engine;
        (row.method, row.kernel) = (plan.method().to_string(), engine.label());
        (row.threads, row.units) = (engine.threads(), Some(plan.units().len()));
        row.split_depth = Some(plan.job().split_depth());
        row.unique = plan.job().unique().then(|| wide(counts.unique));
        // Several threads only: one thread has no scaling to judge.
        row.short_for_scaling = row.threads > 1 && median_s < Settings::SCALING_MIN_S;
    }
    row
}

/// Where the benchmark is `elapsed` after its start, `into` into a run with `ahead` of it (see
/// [`Harness::ahead_of_run`]), `runs_done` runs done: the run counts down its expected time,
/// and past it is given a tenth of what it has run (as the ETA of `count` gives a unit in
/// flight); the share is of the expected time.
fn progress(runs_done: usize, ahead: Ahead, into: Duration, elapsed: Duration) -> Progress {
    let (expected, after, units_total) = ahead;
    let remaining = expected.checked_sub(into).unwrap_or(into / 10) + after;
    let whole = (elapsed + remaining).as_secs_f64();
    Progress {
        units_done: runs_done,
        units_total,
        units_this_run: runs_done,
        fraction: stats::ratio(elapsed.as_secs_f64(), whole).unwrap_or(0.0),
        remaining: Some(remaining),
        elapsed,
    }
}

/// The state of a benchmark in progress.
struct Harness<'a> {
    settings: &'a Settings,
    /// The machine's logical cores: more threads than these run no faster.
    cores: usize,
    engines: Vec<Arc<Engine>>,
    /// The published values of `n_min..=n_max`.
    published: Vec<Published>,
    sources: Sources,
    stop: Cancel,
    progress: &'a mut dyn Watch,
    start: Instant,
    runs_done: usize,
    rows: Vec<Row>,
}

impl Harness<'_> {
    /// Measures N after N until the range ends: why it ended and, stopped or failed, why the
    /// report is partial and the failure. A failure before any row is the error alone, and so
    /// is an open range whose first N alone is expected to overrun the budget.
    fn range(&mut self) -> Result<(String, Option<String>, Option<BenchError>), BenchError> {
        let (n_min, n_max) = (self.settings.n_min, self.settings.n_max);
        for n in n_min..=n_max {
            if let Some(end) = self.ends_before(n, self.start.elapsed().as_secs_f64()) {
                let budget_s = self.settings.budget_s.unwrap_or_default();
                let expected_s = self.cost(n).0;
                return match n == n_min {
                    true => Err(BenchError::OverBudget {
                        n,
                        expected_s,
                        budget_s,
                    }),
                    false => Ok((end, None, None)),
                };
            }
            let (what, failed) = match self.measure(n) {
                Ok(()) => continue,
                Err(None) => ("stopped", None),
                Err(Some(e)) if self.rows.is_empty() => return Err(e),
                Err(Some(e)) => ("failed", Some(e)),
            };
            let secs = self.start.elapsed().as_secs_f64();
            let why = failed.as_ref().map_or(String::new(), |e| format!("; {e}"));
            let partial = format!("after {secs:.0} s: the runs finished by then{why}");
            let end = format!("{what} during N = {n}");
            return Ok((end.clone(), Some(format!("{end}, {partial}")), failed));
        }
        Ok((format!("N = {n_max} is the largest asked for"), None, None))
    }

    /// The configurations of `n`, in the order they are measured: the serial solver, then the
    /// engine with every method at every thread count (the scaling method only, past
    /// [`Settings::FULL_SET_MAX_N`] in an open range).
    fn configs(&self, n: u32) -> Vec<Config> {
        let full = self.settings.budget_s.is_none() || n <= Settings::FULL_SET_MAX_N;
        let methods = match full {
            true => self.settings.methods.clone(),
            false => vec![self.settings.scaling_method()],
        };
        let engines = (methods.into_iter())
            .flat_map(|method| (0..self.engines.len()).map(move |i| Config(Some(i), method)));
        let serial = full.then_some(Config(None, Method::SERIAL));
        serial.into_iter().chain(engines).collect()
    }

    /// The split depths of `c` at `n`: those asked for, else the library's default for its
    /// method and threads; none for the serial solver.
    fn depths(&self, n: u32, c: Config) -> Vec<Option<u32>> {
        match (c.0, &self.settings.split_depths[..], crate::Job::new(n)) {
            (None, _, _) => vec![None],
            (Some(_), [], Ok(job)) => {
                let job = job.with_method(c.1);
                vec![Some(job.default_split_depth(self.threads(c)))]
            }
            (Some(_), depths, _) => depths.iter().copied().map(Some).collect(),
        }
    }

    fn threads(&self, c: Config) -> usize {
        c.0.map_or(1, |i| self.engines[i].threads())
    }

    /// The median of one count of `c` at `n` (its first split depth), if it was measured.
    fn measured_s(&self, c: Config, n: u32) -> Option<f64> {
        let (threads, method) = (self.threads(c), c.1.to_string());
        let mut rows = self
            .rows
            .iter()
            .filter(|r| (r.solver == Solver::Engine) == c.0.is_some());
        let row = rows.find(|r| (r.n, r.threads, &r.method) == (n, threads, &method));
        row.map(|r| r.median_s)
    }

    /// The CPU-time model's seconds of one count of `c` at `n` on its threads.
    fn model_s(&self, c: Config, n: u32) -> f64 {
        let (kernel, unique) = match c.0 {
            None => (Kernel::Dfs, false),
            Some(_) => (self.settings.kernel, self.settings.unique),
        };
        let cpu = cpu_time_of(n, c.1, unique, kernel).as_secs_f64();
        cpu / self.threads(c).min(self.cores) as f64
    }

    /// The expected seconds of one timed run of `c` at `n` (see the module).
    fn run_s(&self, c: Config, n: u32) -> f64 {
        // Boards without solutions (N = 2, 3) have no model time to grow from.
        let measured = (self.settings.n_min..n)
            .rev()
            .filter(|&m| self.model_s(c, m) > 0.0);
        let last = measured
            .clone()
            .find_map(|m| Some((m, self.measured_s(c, m)?)));
        let count_s = match last {
            Some((m, secs)) => secs * self.model_s(c, n) / self.model_s(c, m),
            None => self.model_s(c, n),
        };
        count_s.max(self.min_run_s())
    }

    fn min_run_s(&self) -> f64 {
        f64::from(self.settings.min_run_ms) / 1000.0
    }

    /// The expected seconds and timed runs of all of `n`.
    fn cost(&self, n: u32) -> (f64, usize) {
        let depths = self.settings.split_depths.len().max(1);
        let runs = |c: &Config| self.settings.repeat * if c.0.is_some() { depths } else { 1 };
        let configs = self.configs(n);
        let secs = configs.iter().map(|c| self.run_s(*c, n) * runs(c) as f64);
        (secs.sum(), configs.iter().map(runs).sum())
    }

    /// The expected seconds and timed runs of the N after `n` that the range is expected to
    /// reach, `spent_s` seconds into it when `n` is done.
    fn ahead(&self, n: u32, spent_s: f64) -> (f64, usize) {
        let (mut secs, mut runs) = (0.0, 0);
        for next in n + 1..=self.settings.n_max {
            if self.ends_before(next, spent_s + secs).is_some() {
                break;
            }
            let (s, r) = self.cost(next);
            (secs, runs) = (secs + s, runs + r);
        }
        (secs, runs)
    }

    /// Why an open range ends before `n`, `spent_s` seconds into it, if it does: `n` is
    /// expected to overrun the budget.
    fn ends_before(&self, n: u32, spent_s: f64) -> Option<String> {
        let budget = self.settings.budget_s? as f64;
        let cost = self.cost(n).0;
        (spent_s + cost > budget).then(|| {
            let (cost, budget, spent) = (human_s(cost), human_s(budget), human_s(spent_s));
            format!(
                "N = {n} was expected to take {cost} more, past the budget of {budget} ({spent} \
                 spent)"
            )
        })
    }

    /// Measures every configuration of `n`, then the figures that compare its rows. Stopped or
    /// failed, keeps the rows of the configurations with a finished run.
    fn measure(&mut self, n: u32) -> Result<(), Stop> {
        let configs = self.configs(n).into_iter();
        let all = configs.flat_map(|c| self.depths(n, c).into_iter().map(move |d| (c, d)));
        let all: Vec<(Config, Option<u32>)> = all.collect();
        // The expected seconds of a run of each; corrected by each run measured.
        let mut expected: Vec<f64> = all.iter().map(|&(c, _)| self.run_s(c, n)).collect();
        let first = self.rows.len();
        let measured =
            (0..all.len()).try_for_each(|i| self.measure_config(n, all[i], i, &mut expected));
        self.scale(first);
        measured
    }

    /// The timed runs of configuration `i` of `n`, `c` at split depth `depth`, and its row, if
    /// a run finished (none where a method falls back to another one measured anyway);
    /// `expected` holds the expected seconds of a run of each configuration of `n`.
    fn measure_config(
        &mut self,
        n: u32,
        (c, depth): (Config, Option<u32>),
        i: usize,
        expected: &mut [f64],
    ) -> Result<(), Stop> {
        let engine = match (c.0, depth) {
            (Some(index), Some(depth)) => {
                let plan = Plan::new(job(n, depth, c.1, self.settings.unique)?);
                // A method that falls back to another one measured anyway (d4 is mirror at
                // N = 1) would repeat that method's row under the same name.
                if plan.method() != c.1 && self.settings.methods.contains(&plan.method()) {
                    return Ok(());
                }
                Some((Arc::clone(&self.engines[index]), Arc::new(plan)))
            }
            _ => None,
        };
        let (repeat, mut runs, mut counts) = (self.settings.repeat, Vec::new(), Counts::default());
        let halt = (1..=repeat).try_for_each(|r| {
            let ahead = self.ahead_of_run(n, expected, i, repeat - r);
            let t0 = Instant::now();
            let (run, counted) = self.timed(self.counter(n, engine.clone()), ahead)?;
            (self.runs_done, expected[i]) = (self.runs_done + 1, t0.elapsed().as_secs_f64());
            runs.push(run);
            counts = counted;
            Ok(())
        });
        if !runs.is_empty() {
            let engine = (engine.as_ref()).map(|(engine, plan)| (&**engine, &**plan));
            self.rows.push(row(n, engine, &runs, counts));
        }
        halt
    }

    /// What lies ahead when a run of configuration `i` of `n` begins, with `more` runs of it
    /// after this one: the expected time of this run and of all after it, and the runs in all;
    /// `expected` holds the expected seconds of a run of each configuration of `n`.
    fn ahead_of_run(&self, n: u32, expected: &[f64], i: usize, more: usize) -> Ahead {
        let repeat = self.settings.repeat;
        let later = expected[i + 1..].iter().sum::<f64>() * repeat as f64;
        let rest_s = expected[i] * more as f64 + later;
        let rest_runs = more + (expected.len() - i - 1) * repeat;
        let spent = self.start.elapsed().as_secs_f64() + expected[i] + rest_s;
        let (ahead_s, ahead_runs) = self.ahead(n, spent);
        let d = |s: f64| Duration::from_secs_f64(s.clamp(0.0, 1e9));
        let runs_total = self.runs_done + 1 + rest_runs + ahead_runs;
        (d(expected[i]), d(rest_s + ahead_s), runs_total)
    }

    /// One count at `n`, checked: of the serial solver, or of an engine on its plan.
    fn counter(&self, n: u32, engine: Option<(Arc<Engine>, Arc<Plan>)>) -> Counter {
        let want = self.published[(n - self.settings.n_min) as usize];
        let (sources, stop) = (self.sources, self.stop.clone());
        let Some((engine, plan)) = engine else {
            return Box::new(move || {
                let total = (sources.serial)(n).map_err(BenchError::from)?;
                Ok(check("serial", Counts { total, unique: 0 }, false, want)?)
            });
        };
        let (method, depth, threads) = (plan.method(), plan.job().split_depth(), engine.threads());
        let config = format!("engine, {method}, {threads} threads, split depth {depth}");
        let unique = self.settings.unique;
        let cancel = stop.clone();
        let opts = RunOptions {
            cancel,
            ..RunOptions::default()
        };
        Box::new(move || {
            let out = (sources.engine)(&engine, &plan, &opts, &mut NoObserver);
            let (n, config) = (n, config.clone());
            match (out.interrupted, stop.is_cancelled()) {
                (true, true) => Err(None),
                (true, false) => Err(BenchError::Interrupted { n, config }.into()),
                (false, _) => Ok(check(&config, out.counts, unique, want)?),
            }
        })
    }

    /// One timed run of `count`, and what it counted, on a thread of its own, so that a stop
    /// need not wait for a count that cannot be interrupted (the serial solver's) to end: the
    /// thread is then left to end in the background, and a panic of it is passed on. The
    /// progress display hears where the benchmark is every 100 ms meanwhile ([`progress`]).
    fn timed(&mut self, mut count: Counter, ahead: Ahead) -> Result<(TimedRun, Counts), Stop> {
        let (min_run_s, (tx, rx)) = (self.min_run_s(), mpsc::channel());
        let handle = std::thread::spawn(move || {
            let mut last = Counts::default();
            let clocks = &mut real_clocks(Instant::now());
            let run = timed_run(clocks, min_run_s, &mut count, |c| last = c);
            let _ = tx.send(run.map(|run| (run, last)));
        });
        let began = Instant::now();
        loop {
            let (into, elapsed) = (began.elapsed(), self.start.elapsed());
            let now = progress(self.runs_done, ahead, into, elapsed);
            self.progress.progress(&now);
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(result) => return result,
                Err(RecvTimeoutError::Timeout) if self.stop.is_cancelled() => return Err(None),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    let panic = handle.join().expect_err("the thread sends before it ends");
                    std::panic::resume_unwind(panic)
                }
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
            r.speedup = stats::ratio(serial, r.median_s);
            let one = one_thread.iter().find(|(m, _)| *m == r.method);
            if let (Solver::Engine, Some((_, one))) = (r.solver, one) {
                r.scaling = stats::ratio(*one, r.median_s);
                r.efficiency = r.scaling.map(|x| stats::efficiency(x, r.threads));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::timing::SHORT_COUNT_S;
    use crate::engine::{Observer, Outcome};
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
            device_batch: None,
            // Short, to keep the tests quick: the counts here take microseconds.
            min_run_ms: 2,
            unique: false,
        }
    }

    fn published(n: u32) -> Option<u128> {
        crate::known::published(n).map(|p| p.total)
    }

    /// The benchmark of `settings` with the counts and published values of `sources`.
    fn bench(settings: &Settings, sources: Sources) -> Result<Results, BenchError> {
        let machine = Machine::detect("test".into());
        run(settings, machine, &mut (), Cancel::new(), sources)
    }

    /// The benchmark of `settings` as the library runs it.
    fn library(settings: &Settings) -> Results {
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
        let batched = Settings {
            devices: crate::Devices::Gpus,
            device_batch: Some(crate::MAX_DEVICE_BATCH),
            ..small()
        };
        assert!(batched.validate().is_ok());
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
            // A launch size without a device to launch on, or out of range.
            Settings {
                device_batch: Some(1000),
                ..small()
            },
            Settings {
                devices: crate::Devices::Gpus,
                device_batch: Some(0),
                ..small()
            },
            Settings {
                devices: crate::Devices::Gpus,
                device_batch: Some(crate::MAX_DEVICE_BATCH + 1),
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
            assert!(r.min_s <= r.median_s && r.median_s <= r.max_s);
            match r.solver {
                Solver::Serial => {
                    assert_eq!((r.threads, r.split_depth, r.units), (1, None, None));
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
        // The serial row is its own baseline.
        assert_eq!(report.rows[0].speedup, Some(1.0));
        assert_eq!(report.rows[0].solver, Solver::Serial);
        assert_eq!(report.schema_version, SCHEMA_VERSION);
        assert_eq!(report.default_method, Method::default().to_string());
        // Runs this short are never taken as a sign of a busy machine.
        assert_eq!(report.busy_warning(), None);
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
    ) -> Outcome {
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
        let run = |wall_s| TimedRun {
            counts: 1,
            wall_s,
            cpu_s: None,
            too_short: false,
        };
        let (runs, counts) = (
            [run(0.5), run(0.25)],
            Counts {
                total: 41,
                unique: 5,
            },
        );
        let serial = row(7, None, &runs, counts);
        assert_eq!(
            (serial.solutions, serial.unique, serial.repeats),
            (41, None, 2)
        );
        assert_eq!((serial.min_s, serial.max_s), (0.25, 0.5));
        assert_eq!(serial.solutions_per_s, Some(41.0 / 0.375));
        let engine = Engine::new(2).unwrap();
        let row_of = |unique| {
            let plan = Plan::new(Job::new(7).unwrap().with_unique(unique));
            row(7, Some((&engine, &plan)), &runs, counts)
        };
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
            serial: |n| Ok(crate::bench::serial_count(n)? + 1),
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

    /// Records the steps of a benchmark.
    struct Steps(Vec<Progress>);

    impl Watch for Steps {
        fn progress(&mut self, p: &Progress) {
            self.0.push(*p);
        }
    }

    #[test]
    fn progress_counts_every_run_ahead() {
        let mut steps = Steps(Vec::new());
        let machine = Machine::detect("test".into());
        let stop = Cancel::new();
        run(&small(), machine, &mut steps, stop, Sources::LIBRARY).unwrap();
        // 3 N, 5 configurations each, 2 runs each: every step knows all 30.
        let done: Vec<usize> = steps.0.iter().map(|s| s.units_done).collect();
        assert!(done.windows(2).all(|w| w[0] <= w[1] && w[1] <= w[0] + 1));
        assert_eq!((done[0], done[done.len() - 1]), (0, 29));
        for s in &steps.0 {
            assert!(
                s.units_total == 30 && (0.0..=1.0).contains(&s.fraction),
                "{s:?}"
            );
        }
    }

    #[test]
    fn the_share_is_of_the_expected_time() {
        let secs = Duration::from_secs;
        let ahead = |expected, after| (secs(expected), secs(after), 40);
        // The case: 19 s into a benchmark whose long serial runs come last, 125 s
        // expected still: 13 %, not the 87 % of the runs counted.
        let p = progress(4, ahead(2, 123), Duration::ZERO, secs(19));
        assert!((p.fraction - 19.0 / 144.0).abs() < 1e-9, "{p:?}");
        assert_eq!(
            (p.remaining, p.units_done, p.units_total),
            (Some(secs(125)), 4, 40)
        );
        // Half through a run of 20 s: its time counts down.
        let p = progress(4, ahead(20, 100), secs(10), secs(30));
        assert_eq!(p.remaining, Some(secs(110)));
        // Past what was expected: a tenth of what it has run is still given, and the share
        // stays below 1.
        let p = progress(4, ahead(20, 100), secs(40), secs(60));
        assert_eq!(p.remaining, Some(secs(104)));
        assert!(p.fraction < 1.0);
        let p = progress(0, ahead(0, 0), Duration::ZERO, Duration::ZERO);
        assert_eq!((p.fraction, p.remaining), (0.0, Some(Duration::ZERO)));
    }

    #[test]
    fn a_run_is_expected_to_grow_by_the_model() {
        let settings = Settings {
            n_min: 10,
            n_max: 27,
            budget_s: Some(600),
            threads: vec![1],
            methods: vec![Method::Mirror],
            ..small()
        };
        let mut progress = ();
        let mut h = Harness {
            settings: &settings,
            cores: 2,
            engines: vec![Arc::new(Engine::new(1).unwrap())],
            published: Vec::new(),
            sources: Sources::LIBRARY,
            stop: Cancel::new(),
            progress: &mut progress,
            start: Instant::now(),
            runs_done: 0,
            rows: Vec::new(),
        };
        let serial = Config(None, Method::SERIAL);
        // Nothing measured: the model.
        assert_eq!(h.run_s(serial, 14), h.model_s(serial, 14));
        assert!(h.model_s(serial, 14) > 0.0);
        // Measured: its time, grown by the model's ratio.
        let at = |n, median_s| Row {
            n,
            median_s,
            method: "mirror".into(),
            threads: 1,
            ..Row::default()
        };
        h.rows.push(at(10, 0.2));
        let ratio = h.model_s(serial, 12) / h.model_s(serial, 10);
        assert!((h.run_s(serial, 12) - 0.2 * ratio).abs() < 1e-12);
        h.rows.push(at(11, 1.0));
        let ratio = h.model_s(serial, 12) / h.model_s(serial, 11);
        assert!((h.run_s(serial, 12) - ratio).abs() < 1e-12);
        // The engine's 1-thread run is another configuration: not measured yet.
        let engine = Config(Some(0), Method::Mirror);
        assert_eq!(h.run_s(engine, 14), h.model_s(engine, 14));
        // A run repeats short counts to min_run_ms.
        assert_eq!(h.run_s(serial, 4), 0.002);
    }

    #[test]
    fn an_open_range_ends_at_its_budget() {
        // N = 20 alone takes far longer than a second: refused before any run.
        let over = Settings {
            n_min: 20,
            n_max: 27,
            budget_s: Some(1),
            ..small()
        };
        let err = bench(&over, Sources::LIBRARY).unwrap_err();
        let BenchError::OverBudget {
            n: 20,
            expected_s,
            budget_s: 1,
        } = err
        else {
            panic!("expected the budget's refusal, got {err}");
        };
        assert!(expected_s > 1.0);
        // From N = 6 within 2 s: N rises while the next fits, and the range says why it ended.
        let open = Settings {
            n_max: 27,
            budget_s: Some(2),
            threads: vec![1],
            ..small()
        };
        let report = library(&open);
        assert!(
            report.range_end.contains("past the budget of 2 s"),
            "{}",
            report.range_end
        );
        let last = report.rows.last().unwrap().n;
        assert!((9..17).contains(&last), "{last}");
        assert!(report.partial.is_none());
        // The settings record the range that ran (issue 36, item 4: they said 27).
        assert_eq!(report.settings.n_max, last);
        assert_eq!(report.settings.budget_s, Some(2));
    }
}
