//! `nqueens bench`: the scaling benchmark as one command, with its progress on stderr.
//!
//! What it measures is never lost to where it goes: the output folder is checked before the
//! first run (it must be a folder this process can write, holding no earlier benchmark unless
//! `--overwrite` says to replace it; the default folder moves on to `-2`, `-3`, … instead), a
//! write that still fails puts the results in a fallback folder (or, failing that too,
//! `scaling.json` on standard output), and a signal stops the runs but writes what was
//! measured, marked partial.

use super::progress::{fit, stderr_target, Fitted};
use super::{parse_n, UsageError};
use super::{Exit, Failure, Result};
use clap::Args;
use indicatif::ProgressBar;
use nqueens::bench::{self, export, BenchError, Machine, Progress, Report, Settings};
use nqueens::known::MAX_KNOWN_N;
use nqueens::longrun::clock;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Measure the engine against the single-threaded solver: every N, every thread count, repeated;
/// writes scaling.csv, scaling.json, scaling.svg, time.svg and summary.md.
///
/// Without --n-max, N rises from --n-min within --budget, through N = 17 and on until the
/// engine's run on the most threads has lasted a second (long enough to judge scaling); past
/// N = 17 only those scaling runs are made. Engine runs on several threads that last under a
/// second are marked in the results.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Smallest N.
    #[arg(long, value_name = "A", default_value_t = 10, value_parser = parse_n)]
    n_min: u32,
    /// Largest N, at most 27 (every count is checked against the published value)
    /// [default: as far as --budget allows, from N = 17 on until the run on the most threads has
    /// lasted a second].
    #[arg(long, value_name = "B", value_parser = parse_n)]
    n_max: Option<u32>,
    /// Time budget of the range without --n-max: seconds, or a number with s, m or h
    /// (90s, 10m, 1.5h); the next N starts only if it is expected to fit [default: 10m].
    #[arg(long, value_name = "TIME", value_parser = parse_budget, conflicts_with = "n_max")]
    budget: Option<u64>,
    /// Thread counts of the engine, comma-separated [default: 1, 2, 4, ... up to the logical
    /// cores, and the core count itself].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::parse_threads)]
    threads: Option<Vec<usize>>,
    /// Timed runs of every configuration.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = super::positive::<usize>)]
    repeat: usize,
    /// Output folder, checked before the first run [default: results/<date>-<host>/, or the
    /// first of -2, -3, ... after it that holds no earlier benchmark].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace the result files of an earlier benchmark in --out (without it, such a folder is
    /// refused).
    #[arg(long, requires = "out")]
    overwrite: bool,
    /// Show progress on stderr even when it is not a terminal: a line every 10 seconds.
    #[arg(long)]
    progress: bool,
    /// Split depths of the engine's work units, comma-separated, 1 to 4 [default: 2 to 4 for
    /// each N and thread count, as `nqueens count` chooses].
    #[arg(long, value_name = "K", value_delimiter = ',', value_parser = super::positive::<u32>)]
    split_depth: Option<Vec<u32>>,
    /// Methods of the engine, comma-separated (edge, d4, mirror, plain) [default: edge, the
    /// default method of `nqueens count`, and mirror, the serial solver's own method, for a
    /// like-for-like scaling curve]. The plots show the default method.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::count::parse_method_arg)]
    method: Option<Vec<nqueens::Method>>,
    #[command(flatten)]
    engine: super::devices::EngineArgs,
    /// A count under 10 ms is repeated within each timed run until the run has lasted this many
    /// milliseconds, and timed per count; 0: no repetition (such rows are flagged as too short).
    #[arg(long, value_name = "MS", default_value_t = bench::Settings::DEFAULT_MIN_RUN_MS)]
    min_run_ms: u32,
    /// The engine counts the solutions distinct up to symmetry too, as `count --unique` does,
    /// and they are checked against the published values (the serial solver counts totals).
    #[arg(long)]
    unique: bool,
}

/// Parses a time budget: seconds, or a number with the unit `s`, `m` (or `min`) or `h`; at
/// least a second, at most a year.
fn parse_budget(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit {
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => f64::NAN,
    };
    match number.trim().parse::<f64>().map(|x| x * scale) {
        Ok(x) if x.is_finite() && (1.0..=365.0 * 86400.0).contains(&x) => Ok(x.round() as u64),
        _ => Err(format!(
            "'{}' is not a time budget from 1s to a year (for example 90s, 10m or 1.5h)",
            super::shown(s)
        )),
    }
}

/// The settings the arguments ask for, checked (a usage error otherwise).
fn settings(args: &BenchArgs) -> Result<Settings> {
    let n_max = args.n_max.unwrap_or(MAX_KNOWN_N);
    if n_max > MAX_KNOWN_N {
        return Err(UsageError(format!(
            "--n-max must be at most {MAX_KNOWN_N} (the largest N with a published count), got \
             {n_max}"
        ))
        .into());
    }
    if args.n_min > n_max {
        let n_min = args.n_min;
        return Err(UsageError(format!(
            "--n-min ({n_min}) is larger than --n-max ({n_max})"
        ))
        .into());
    }
    let defaults = Settings::defaults(num_cpus::get());
    let settings = Settings {
        n_min: args.n_min,
        n_max,
        budget_s: match args.n_max {
            Some(_) => None,
            None => Some(args.budget.unwrap_or(Settings::DEFAULT_BUDGET_S)),
        },
        threads: args.threads.clone().unwrap_or(defaults.threads),
        repeat: args.repeat,
        split_depths: args.split_depth.clone().unwrap_or_default(),
        methods: args.method.clone().unwrap_or(defaults.methods),
        kernel: args.engine.cpu_kernel(),
        devices: args.engine.devices()?,
        min_run_ms: args.min_run_ms,
        unique: args.unique,
    };
    if settings.devices == nqueens::Devices::Gpus {
        // Says on stderr, once, when there is no GPU to add.
        args.engine.engine(1)?;
    }
    settings.validate().map_err(usage)?;
    Ok(settings)
}

/// A benchmark's error for the command line: the settings' errors are usage errors, with the
/// options that change them.
fn usage(e: BenchError) -> Failure {
    match e {
        BenchError::Invalid(m) => UsageError(m).into(),
        e @ BenchError::OverBudget { .. } => {
            UsageError(format!("{e}; raise --budget or lower --n-min")).into()
        }
        other => other.into(),
    }
}

pub fn run(args: &BenchArgs) -> Result<Exit> {
    let settings = settings(args)?;
    let machine = Machine::detect(command_line());
    // Before any run: a folder that cannot take the results stops here.
    let out = OutDir::prepare(args.out.as_deref(), args.overwrite, &machine.host)?;
    let signals = super::longrun::catch_signals()?;
    let terminal = std::io::stderr().is_terminal();
    let mut progress = Display::new(terminal, args.progress && !terminal);
    let stop = Some(signals.cancel.clone());
    let result = bench::run(&settings, machine, &mut progress, stop);
    progress.finish();
    let (report, failure) = match result {
        Ok(report) => (report, None),
        // The runs measured before a failure are written too, marked partial.
        Err(BenchError::Failed { error, report }) => (*report, Some(*error)),
        Err(e) => {
            out.remove_if_empty();
            return Err(usage(e));
        }
    };
    if let Some(w) = report.busy_warning() {
        note!("nqueens: warning: {w}");
    }
    let rows = report.rows.len();
    let code = match (&failure, signals.signal.load(Ordering::SeqCst)) {
        (Some(e), _) => {
            note!(
                "nqueens: error: {e}; the {rows} rows measured before are written, marked partial"
            );
            Exit::Mismatch
        }
        (None, 0) => Exit::Done,
        (None, sig) => {
            match report.partial {
                Some(_) => note!(
                    "nqueens: stopped by signal {sig}: the {rows} rows measured by then are \
                     written, marked partial"
                ),
                None => note!(
                    "nqueens: stopped by signal {sig} after the last run: all {rows} rows are \
                     written"
                ),
            }
            Exit::Signal(sig as i32)
        }
    };
    write(&report, &out, code)
}

/// Writes the results where `out` says, or where they can go (see [`save`]), and lists the
/// files on standard output: `code`, or a failure where they did not reach `out`.
fn write(report: &Report, out: &OutDir, code: Exit) -> Result<Exit> {
    let mut stdout = std::io::stdout().lock();
    let (written, code) = match save(report, &out.path, &std::env::temp_dir(), out.overwrite) {
        Saved::Here(written) => (written, code),
        Saved::Fallback { error, written } => {
            let dir = written.first().and_then(|p| p.parent());
            let dir = dir.map_or_else(String::new, |p| p.display().to_string());
            note!("nqueens: error: {error}; the results are in {dir} instead");
            (written, Exit::Mismatch)
        }
        Saved::Nowhere { error } => {
            note!(
                "nqueens: error: {error}, and no fallback folder could be written either; \
                 scaling.json follows on standard output"
            );
            stdout.write_all(&export::json(report).map_err(usage)?)?;
            stdout.flush()?;
            return Ok(Exit::Mismatch);
        }
    };
    for path in written {
        writeln!(stdout, "{}", path.display())?;
    }
    Ok(code)
}

/// What the progress display knows of the step in progress.
#[derive(Clone, Debug)]
struct Step {
    label: String,
    started: Instant,
    expected: Duration,
    after: Duration,
}

/// When a step has run past what was expected of it, the time it is still given: this share of
/// what it has run so far (as the ETA of `count` does for a unit in flight).
const OVERDUE_SHARE: f64 = 0.1;

/// The share of the benchmark done and the time left, `elapsed` after its start, `into` into
/// `step`: the time spent over the time spent and expected still.
fn share_and_left(step: &Step, elapsed: Duration, into: Duration) -> (f64, Duration) {
    let left_in_step = if into <= step.expected {
        step.expected - into
    } else {
        into.mul_f64(OVERDUE_SHARE)
    };
    let left = left_in_step + step.after;
    let whole = elapsed + left;
    let share = if whole.is_zero() {
        0.0
    } else {
        elapsed.as_secs_f64() / whole.as_secs_f64()
    };
    (share, left)
}

/// The progress of a benchmark on stderr: a bar on a terminal, redrawn every 200 ms so that
/// the share and the ETA move during a long run too, or a line every 10 s in a log
/// (`--progress`), or nothing.
struct Display {
    step: Arc<Mutex<Option<Step>>>,
    stop: Arc<AtomicBool>,
    ticker: Option<std::thread::JoinHandle<()>>,
    bar: Option<ProgressBar>,
}

impl Display {
    fn new(bar: bool, lines: bool) -> Display {
        let step: Arc<Mutex<Option<Step>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let bar = bar.then(|| ProgressBar::with_draw_target(Some(1_000_000), stderr_target()));
        let ticker = (bar.is_some() || lines).then(|| {
            let (step, stop, bar) = (step.clone(), stop.clone(), bar.clone());
            std::thread::spawn(move || tick(&step, &stop, bar.as_ref()))
        });
        Display {
            step,
            stop,
            ticker,
            bar,
        }
    }

    /// Stops the display and clears the bar: nothing of it stays above the next message.
    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The display's thread: every 200 ms until `stop`, the share and the ETA of `step` on the
/// bar, or every 10 s on a line without one.
fn tick(step: &Mutex<Option<Step>>, stop: &AtomicBool, bar: Option<&ProgressBar>) {
    let start = Instant::now();
    let mut fitted = bar.map(Fitted::new);
    let mut last_line = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let Some(s) = step.lock().map(|s| s.clone()).unwrap_or(None) else {
            continue;
        };
        let (share, left) = share_and_left(&s, start.elapsed(), s.started.elapsed());
        let texts = messages(&s.label, start.elapsed(), left);
        match (bar, &mut fitted) {
            (Some(bar), Some(fitted)) => {
                let room = fitted.room(bar);
                bar.set_position((share * 1e6) as u64);
                bar.set_message(fit(&texts, room));
            }
            _ if last_line.elapsed() >= Duration::from_secs(10) => {
                last_line = Instant::now();
                let pct = share * 100.0;
                note!(
                    "nqueens: bench: {pct:.1}% of the expected time, {}",
                    texts[0]
                );
            }
            _ => {}
        }
    }
}

impl Progress for Display {
    fn step(&mut self, label: &str, expected: Duration, after: Duration) {
        if let Ok(mut s) = self.step.lock() {
            let label = label.to_string();
            *s = Some(Step {
                label,
                started: Instant::now(),
                expected,
                after,
            });
        }
    }
}

/// The progress message, from the most detailed (the elapsed time, the ETA and the step) to
/// the shortest (the ETA), for [`fit`].
fn messages(label: &str, elapsed: Duration, left: Duration) -> Vec<String> {
    let eta = clock(Duration::from_secs(left.as_secs_f64().round() as u64));
    let elapsed = clock(Duration::from_secs(elapsed.as_secs()));
    vec![
        format!("elapsed {elapsed}, ETA {eta}, {label}"),
        format!("ETA {eta}, {label}"),
        format!("ETA {eta}"),
    ]
}

/// The command line as typed, each argument quoted when it needs to be.
fn command_line() -> String {
    let plain = |a: &str| {
        !a.is_empty()
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@".contains(c))
    };
    let quoted = |a: String| match plain(&a) {
        true => a,
        false => format!("'{}'", a.replace('\'', r"'\''")),
    };
    std::env::args().map(quoted).collect::<Vec<_>>().join(" ")
}

/// The names of the files a benchmark writes.
fn result_names() -> Vec<&'static str> {
    export::all().iter().map(|e| e.file_name()).collect()
}

/// The result files of an earlier benchmark in `dir`.
fn earlier_results(dir: &Path) -> Vec<&'static str> {
    let exists = |name: &&str| dir.join(name).symlink_metadata().is_ok();
    result_names().into_iter().filter(exists).collect()
}

/// The output folder, checked: where the results will go, whether this run created it, and
/// whether it may replace an earlier benchmark's results there.
struct OutDir {
    path: PathBuf,
    created: bool,
    overwrite: bool,
}

impl OutDir {
    /// The folder asked for (`out`), or the default one for `host`; refused (a usage error)
    /// unless it is, or can be made, a folder this process writes to, holding no earlier
    /// benchmark unless `overwrite`.
    fn prepare(out: Option<&Path>, overwrite: bool, host: &str) -> Result<OutDir> {
        let path = match out {
            Some(dir) => {
                let earlier = earlier_results(dir);
                if dir.is_dir() && !earlier.is_empty() && !overwrite {
                    return Err(UsageError(format!(
                        "{} already holds the results of a benchmark ({}); choose another \
                         --out, or add --overwrite to replace them",
                        dir.display(),
                        earlier.join(", ")
                    ))
                    .into());
                }
                dir.to_path_buf()
            }
            None => default_dir(host),
        };
        let unusable = |why: String| -> Failure {
            let path = path.display();
            UsageError(format!("cannot write the results to {path}: {why}")).into()
        };
        if path.exists() && !path.is_dir() {
            return Err(unusable("it is not a folder".into()));
        }
        let created = !path.exists();
        std::fs::create_dir_all(&path).map_err(|e| unusable(e.to_string()))?;
        if let Err(e) = probe(&path) {
            if created {
                let _ = std::fs::remove_dir(&path);
            }
            return Err(unusable(e.to_string()));
        }
        Ok(OutDir {
            path,
            created,
            overwrite,
        })
    }

    /// Removes the folder if this run created it and left it empty (a benchmark that failed).
    fn remove_if_empty(&self) {
        if self.created {
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}

/// `results/<date>-<host>`, or the first of `-2`, `-3`, … after it that holds no earlier
/// benchmark (and says so).
fn default_dir(host: &str) -> PathBuf {
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let base = PathBuf::from("results").join(format!("{date}-{host}"));
    let free = |p: &Path| !p.exists() || (p.is_dir() && earlier_results(p).is_empty());
    let path = std::iter::once(base.clone())
        .chain((2..).map(|i| PathBuf::from(format!("{}-{i}", base.display()))))
        .find(|p| free(p))
        .expect("some suffix is free");
    if path != base {
        let (base, path) = (base.display(), path.display());
        note!("nqueens: {base} holds an earlier benchmark; writing to {path}");
    }
    path
}

/// Writes and removes a file of the size of a benchmark's results in `dir`: a folder that is
/// read-only, or a disk already full, fails here rather than after the runs.
fn probe(dir: &Path) -> std::io::Result<()> {
    // Larger than the five files of a default benchmark (about 90 KB).
    const SIZE: usize = 256 << 10;
    let mut file = tempfile::Builder::new()
        .prefix(".nqueens-bench-probe")
        .tempfile_in(dir)?;
    file.write_all(&vec![0u8; SIZE])?;
    file.as_file().sync_all()?;
    file.close()
}

/// Where the results went.
#[derive(Debug)]
enum Saved {
    /// Into the folder asked for.
    Here(Vec<PathBuf>),
    /// Into a fallback folder, after `error` in the folder asked for.
    Fallback {
        error: BenchError,
        written: Vec<PathBuf>,
    },
    /// Nowhere: `scaling.json` is to go to standard output.
    Nowhere { error: BenchError },
}

/// Writes the results into `dir`, else into a new folder under `fallback_root` (the system's
/// temporary folder), so that no measurement is lost to a write failure. Unless `overwrite`,
/// a benchmark's results that appeared in `dir` while this one ran (another `bench` given the
/// same folder) send these to the fallback folder too, rather than over them.
fn save(report: &Report, dir: &Path, fallback_root: &Path, overwrite: bool) -> Saved {
    let earlier = earlier_results(dir);
    let error = if !overwrite && !earlier.is_empty() {
        BenchError::Invalid(format!(
            "{} received the results of another benchmark while this one ran ({})",
            dir.display(),
            earlier.join(", ")
        ))
    } else {
        match export::write_all(report, dir) {
            Ok(written) => return Saved::Here(written),
            Err(e) => e,
        }
    };
    let fallback = tempfile::Builder::new()
        .prefix("nqueens-bench-")
        .tempdir_in(fallback_root)
        .map(tempfile::TempDir::keep);
    let Ok(other) = fallback else {
        return Saved::Nowhere { error };
    };
    match export::write_all(report, &other) {
        Ok(written) => Saved::Fallback { error, written },
        Err(_) => {
            let _ = std::fs::remove_dir_all(&other);
            Saved::Nowhere { error }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(expected: u64, after: u64) -> Step {
        Step {
            label: "N=17 serial, run 1/3".into(),
            started: Instant::now(),
            expected: Duration::from_secs(expected),
            after: Duration::from_secs(after),
        }
    }

    #[test]
    fn the_share_is_of_the_expected_time() {
        // The issue's case: 19 s into a benchmark whose long serial runs come last, 125 s
        // expected still: 13 %, not the 87 % of the runs counted.
        let s = step(2, 123);
        let (share, left) = share_and_left(&s, Duration::from_secs(19), Duration::ZERO);
        assert!((share - 19.0 / 144.0).abs() < 1e-9, "{share}");
        assert_eq!(left, Duration::from_secs(125));
        // Half through a step of 20 s: its time counts down.
        let s = step(20, 100);
        let (_, left) = share_and_left(&s, Duration::from_secs(30), Duration::from_secs(10));
        assert_eq!(left, Duration::from_secs(110));
        // Past what was expected: a tenth of what it has run is still given, and the share
        // stays below 1.
        let (share, left) = share_and_left(&s, Duration::from_secs(60), Duration::from_secs(40));
        assert_eq!(left, Duration::from_secs(104));
        assert!(share < 1.0);
        let (share, left) = share_and_left(&step(0, 0), Duration::ZERO, Duration::ZERO);
        assert_eq!((share, left), (0.0, Duration::ZERO));
    }

    #[test]
    fn budgets_take_units() {
        assert_eq!(parse_budget("600"), Ok(600));
        assert_eq!(parse_budget("90s"), Ok(90));
        assert_eq!(parse_budget("10m"), Ok(600));
        assert_eq!(parse_budget("10min"), Ok(600));
        assert_eq!(parse_budget("1.5h"), Ok(5400));
        for bad in ["0", "0.2s", "10x", "m", "-5m", "1e9h", ""] {
            let err = parse_budget(bad).unwrap_err();
            assert!(err.contains("is not a time budget"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_failed_write_keeps_the_results_in_a_fallback_folder() {
        let settings = Settings {
            n_min: 5,
            n_max: 6,
            budget_s: None,
            threads: vec![1],
            repeat: 1,
            min_run_ms: 1,
            ..Settings::defaults(1)
        };
        let machine = Machine::detect("test".into());
        let report = nqueens::bench::run(&settings, machine, &mut (), None).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        // A folder under a regular file cannot be made, not even by root.
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let roots = tmp.path().join("roots");
        std::fs::create_dir(&roots).unwrap();
        match save(&report, &file.join("out"), &roots, false) {
            Saved::Fallback { error, written } => {
                assert!(error.to_string().contains("could not write"), "{error}");
                assert_eq!(written.len(), result_names().len());
                let json = std::fs::read(
                    written
                        .iter()
                        .find(|p| p.ends_with("scaling.json"))
                        .unwrap(),
                )
                .unwrap();
                let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
                assert_eq!(v["rows"].as_array().unwrap().len(), report.rows.len());
                assert!(written.iter().all(|p| p.starts_with(&roots)));
            }
            other => panic!("expected the fallback folder, got {other:?}"),
        }
        // No fallback either: the caller prints scaling.json.
        assert!(matches!(
            save(&report, &file.join("out"), &file.join("roots"), false),
            Saved::Nowhere { .. }
        ));
        // A folder that works: the five files, there.
        let fine = tmp.path().join("fine");
        assert!(
            matches!(save(&report, &fine, &roots, false), Saved::Here(w) if w.len() == result_names().len())
        );
        // Results there now (another benchmark's, say): never written over unless asked.
        match save(&report, &fine, &roots, false) {
            Saved::Fallback { error, written } => {
                let error = error.to_string();
                assert!(
                    error.contains("received the results of another benchmark"),
                    "{error}"
                );
                assert!(written.iter().all(|p| p.starts_with(&roots)));
            }
            other => panic!("expected the fallback folder, got {other:?}"),
        }
        assert!(matches!(save(&report, &fine, &roots, true), Saved::Here(_)));
    }

    #[test]
    fn the_output_folder_is_checked_before_any_run() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = |out: &Path, overwrite: bool| {
            OutDir::prepare(Some(out), overwrite, "h")
                .err()
                .map(|e| e.to_string())
        };
        // A file, and a folder under a file.
        assert!(err(&file, false).unwrap().contains("it is not a folder"));
        assert!(err(&file.join("sub"), false)
            .unwrap()
            .contains("cannot write the results"));
        // A folder with an earlier benchmark: refused, unless asked to replace it.
        let earlier = tmp.path().join("earlier");
        std::fs::create_dir(&earlier).unwrap();
        std::fs::write(earlier.join("scaling.json"), b"{}").unwrap();
        let e = err(&earlier, false).unwrap();
        assert!(
            e.contains("already holds the results of a benchmark (scaling.json)"),
            "{e}"
        );
        assert!(e.contains("--overwrite"), "{e}");
        assert_eq!(err(&earlier, true), None);
        // A new folder is made, and the probe leaves nothing in it.
        let new = tmp.path().join("a/b");
        let dir = OutDir::prepare(Some(&new), false, "h").unwrap();
        assert!(dir.created && new.is_dir());
        assert_eq!(std::fs::read_dir(&new).unwrap().count(), 0);
        dir.remove_if_empty();
        assert!(!new.exists());
    }
}
