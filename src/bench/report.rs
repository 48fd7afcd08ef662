//! The results of a benchmark: one [`Row`] per configuration, and the [`Results`] that holds
//! them with the machine and the settings (`scaling.json`).

use super::machine::Machine;
use super::{stats, Settings};
use serde::{Serialize, Serializer};

/// Significant digits of the measured figures in `scaling.csv` and `scaling.json`: more than
/// any timing here can support, few enough to read.
const SIGNIFICANT_DIGITS: usize = 6;

/// Serialises a measured figure with [`SIGNIFICANT_DIGITS`].
fn sig<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(stats::round_sig(*x, SIGNIFICANT_DIGITS))
}

/// Serialises an optional measured figure with [`SIGNIFICANT_DIGITS`] (none: empty or null).
fn sig_opt<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => sig(x, s),
        None => s.serialize_none(),
    }
}

/// Version of the layout of [`Results`] and of the CSV columns; changes whenever a field does
/// (`results/README.md` says what each version changed).
///
/// - 3: `efficiency` is the parallel efficiency (scaling ÷ threads, at most 1, empty for the
///   serial solver); in version 2 it was the speed-up over the serial solver ÷ threads.
/// - 4: rows have `short_for_scaling`, and `nodes` may be empty; the report has `range_end`
///   and `partial`, the settings `budget_s`.
/// - 5: `solutions` is the count the timed runs made (before, the published value it was
///   checked against); rows have `unique`, the settings `unique`.
/// - 6: rows have `max_s` (the slowest run), and no longer `nodes`, `nodes_per_s`,
///   `unit_max_over_mean` and `tail_share`; the report has no `nodes_note` and no
///   `projections`; the CSV columns follow the fields of [`Row`] in a new order.
pub(crate) const SCHEMA_VERSION: u32 = 6;

/// Which solver a row measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// [`crate::bench::serial_count`]: one search over the whole board, no units, no threads.
    #[default]
    Serial,
    /// The parallel [`Engine`](crate::Engine) on a plan of work units.
    Engine,
}

impl std::fmt::Display for Solver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Solver::Serial => "serial",
            Solver::Engine => "engine",
        })
    }
}

/// The measurements of one configuration: one row of `scaling.csv`, whose columns are these
/// fields in this order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Row {
    /// Board size.
    pub n: u32,
    /// `serial` (the single-threaded reference solver) or `engine` (the parallel engine).
    pub solver: Solver,
    /// Symmetry method of the search (`mirror` for the serial solver).
    pub method: String,
    /// The search kernel: the engine's (`avx512`, `avx2`, `neon`, `portable` or `dfs`), `dfs`
    /// for the serial solver (its own depth-first search).
    pub kernel: String,
    /// Worker threads (1 for the serial solver).
    pub threads: usize,
    /// Rows fixed by each work unit; empty for the serial solver.
    pub split_depth: Option<u32>,
    /// Number of work units; empty for the serial solver.
    pub units: Option<usize>,
    /// Timed runs behind the figures.
    pub repeats: usize,
    /// Solutions counted by the timed runs (every count is checked against the published value:
    /// a difference stops the bench).
    pub solutions: u64,
    /// Solutions distinct up to symmetry counted by the timed runs, checked as `solutions` are;
    /// empty where they were not counted (the serial solver, or [`Settings::unique`] off).
    pub unique: Option<u64>,
    /// Median wall time of one count, seconds (a timed run of several counts gives its time
    /// per count: see `counts_per_run`).
    #[serde(serialize_with = "sig")]
    pub median_s: f64,
    /// Fastest wall time of one count (of a run's time per count), seconds.
    #[serde(serialize_with = "sig")]
    pub min_s: f64,
    /// Slowest wall time of one count (of a run's time per count), seconds: with `min_s`, the
    /// spread of the runs.
    #[serde(serialize_with = "sig")]
    pub max_s: f64,
    /// Median CPU time (user + system, all threads of the process) of one count, seconds; empty
    /// where the platform does not tell.
    #[serde(serialize_with = "sig_opt")]
    pub cpu_s: Option<f64>,
    /// Median time of the serial solver at this N ÷ this median time: the gain over the serial
    /// solver, with what the method and the kernel gain (so it can be far above the thread
    /// count). Not a measure of parallel scaling: see `scaling` and `efficiency`.
    #[serde(serialize_with = "sig_opt")]
    pub speedup: Option<f64>,
    /// Engine only: parallel efficiency, `scaling` ÷ threads, at most 1 (1.0 is perfect
    /// scaling). A scaling above the thread count (timing noise, or a cache effect) stays in
    /// `scaling` and is capped at 1 here. Empty for the serial solver.
    #[serde(serialize_with = "sig_opt")]
    pub efficiency: Option<f64>,
    /// Engine only: the median of the same method's 1-thread run (its first split depth) ÷
    /// this median: parallel scaling on the same search and kernel, apart from what the method
    /// or the kernel gain over the serial solver.
    #[serde(serialize_with = "sig_opt")]
    pub scaling: Option<f64>,
    /// Solutions ÷ median time.
    #[serde(serialize_with = "sig_opt")]
    pub solutions_per_s: Option<f64>,
    /// Counts in one timed run, the fewest over the runs: 1 where a count lasted the settings'
    /// `min_run_ms`; 2 where it took 10 ms to `min_run_ms` (the second shows the first was no
    /// slow start); more where a count took under 10 ms and was repeated until the run had
    /// lasted `min_run_ms`. Times are per count.
    pub counts_per_run: u64,
    /// Flag: some timed run still lasted under `min_run_ms` (the repetition cap was reached,
    /// or repetition was off and one count took under 10 ms). Its times, and the speed-ups,
    /// scaling and efficiencies from them, are at the mercy of the clock and the scheduler.
    pub too_short: bool,
    /// Flag: an engine run on several threads that lasted under
    /// [`Settings::SCALING_MIN_S`] (1 s): making the plan, waking the workers and the tail
    /// weigh on its time, so its scaling and efficiency understate what the threads do on a
    /// long count. Never set for the serial solver or one thread.
    pub short_for_scaling: bool,
}

/// A whole benchmark: where it ran, what it measured and the results; `scaling.json`. Measured
/// figures (the `f64` fields of rows) are written with 6 significant digits; counts exactly.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Results {
    /// Version of this layout: 6 (`results/README.md` says what each version changed).
    pub schema_version: u32,
    /// When the benchmark started, UTC, ISO 8601.
    pub started_utc: String,
    /// The machine, the build and the command line.
    pub machine: Machine,
    /// What was asked for, but for the largest N of an open range ([`Settings::budget_s`]):
    /// the largest it measured, the range that ran.
    pub settings: Settings,
    /// The library's default method when the benchmark ran (what `nqueens count` runs without
    /// `--method`, [`crate::Method::default`]): the method the plots show when it was measured.
    pub default_method: String,
    /// Why the range of N ended where it did, in words: the largest N asked for, the time
    /// budget, or a stop (or a failure).
    pub range_end: String,
    /// Set when the benchmark was stopped (by a signal) or failed before its end, saying when
    /// and why: the rows are the runs finished by then.
    pub partial: Option<String>,
    /// One row per configuration: per N the serial solver, then the engine with each method at
    /// each thread count and split depth.
    pub rows: Vec<Row>,
}

impl Results {
    /// A warning when the machine was busy with other work: some run of at least 0.1 s got
    /// less than 90 % of the CPU time its threads could use (CPU ÷ (wall × threads)), so its wall
    /// time, and the speed-ups and efficiencies from it, understate what the code does.
    pub fn busy_warning(&self) -> Option<String> {
        let (share, r) = (self.rows.iter())
            .filter(|r| r.median_s >= 0.1)
            .filter_map(|r| Some((r.cpu_s? / (r.median_s * r.threads as f64), r)))
            .min_by(|a, b| a.0.total_cmp(&b.0))?;
        let (n, solver, method, kernel) = (r.n, r.solver, &r.method, &r.kernel);
        let (threads, percent) = (plural(r.threads, "thread"), (100.0 * share).round());
        (share < 0.9).then(|| {
            format!(
                "the machine was busy: N = {n} {solver} ({method}, {kernel}) on {threads} got \
                 {percent} % of the CPU time its threads could use (CPU ÷ (wall × threads)); wall \
                 times, speed-ups and efficiencies here understate the code"
            )
        })
    }
}

/// `count` and `word`, with an `s` unless the count is 1 ("1 timed run", "3 timed runs").
pub(crate) fn plural(count: usize, word: &str) -> String {
    format!("{count} {word}{}", if count == 1 { "" } else { "s" })
}
