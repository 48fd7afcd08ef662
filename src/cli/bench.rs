//! `nqueens bench`: the scaling benchmark as one command, with its progress on stderr.
//!
//! What it measures is never lost to where it goes: the output folder is checked before the
//! first run (it must be a folder this process can write, holding no earlier benchmark unless
//! `--overwrite` says to replace it; the default folder moves on to `-2`, `-3`, … instead), a
//! write that still fails puts `scaling.json`, the whole report, on standard output, and a
//! signal stops the runs but writes what was measured, marked partial.

use super::progress::{Display, Mode};
use super::{parse_n, Exit, Failure, Result, UsageError};
use clap::Args;
use nqueens_count::bench::{self, export, BenchError, Machine, Results, Settings};
use nqueens_count::known::MAX_KNOWN_N;
use nqueens_count::longrun::{read_bounded, Bound};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Measure how the engine scales against the single-threaded solver.
///
/// Every N, every thread count, repeated; writes scaling.csv, scaling.json, scaling.svg,
/// time.svg and summary.md.
///
/// Without --n-max, N rises from --n-min while the next N is expected to fit in what is left of
/// --budget (each run expected to take its time at the last N grown as the CPU-time model
/// grows); past N = 17 only the scaling runs are made (the engine with the default method at
/// every thread count). Engine runs on several threads that last under a second are marked in
/// the results.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens bench --n-max 16                      # up to N = 16, on 1, 2, 4... threads\n  \
    nqueens bench --budget 10m --out results/my-machine")]
pub struct BenchArgs {
    /// Smallest N.
    #[arg(long, value_name = "A", default_value_t = 10, value_parser = parse_n)]
    n_min: u32,
    /// Largest N, at most 27 (every count is checked against the published value)
    /// [default: as far as --budget allows].
    #[arg(long, value_name = "B", value_parser = parse_n_max)]
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
    /// Output folder, checked before the first run [default: results/DATE-HOST/, or the
    /// first of -2, -3, ... after it that holds no earlier benchmark].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace the result files of an earlier benchmark in --out (without it, such a folder is
    /// refused). A file of such a name that no benchmark wrote is never replaced.
    #[arg(long, requires = "out")]
    overwrite: bool,
    /// Show progress on stderr even when it is not a terminal: a line every 10 seconds.
    #[arg(long)]
    progress: bool,
    /// Split depths of the engine's work units, comma-separated, 1 to 4 [default: 2 to 4 for
    /// each N and thread count, as `nqueens count` chooses].
    #[arg(long, value_name = "K", value_delimiter = ',', value_parser = super::positive::<u32>)]
    split_depth: Option<Vec<u32>>,
    /// Methods of the engine, comma-separated [default: edge, the
    /// default method of `nqueens count`, and mirror, the serial solver's own method, for a
    /// like-for-like scaling curve]. The plots show the default method.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::args::named::<nqueens_count::Method>())]
    method: Option<Vec<nqueens_count::Method>>,
    #[command(flatten)]
    engine: super::args::EngineArgs,
    /// A count under 10 ms is repeated within each timed run until the run has lasted this many
    /// milliseconds, and timed per count; 0: no repetition (such rows are flagged as too short).
    #[arg(long, value_name = "MS", default_value_t = bench::Settings::DEFAULT_MIN_RUN_MS)]
    min_run_ms: u32,
    /// The engine counts the solutions distinct up to symmetry too, as `count --unique` does,
    /// and they are checked against the published values (the serial solver counts totals).
    #[arg(long)]
    unique: bool,
}

/// Parses the largest N: one with a published count to check against.
fn parse_n_max(s: &str) -> Result<u32, String> {
    let n = parse_n(s)?;
    let most = format!("at most {MAX_KNOWN_N} (the largest N with a published count), got {n}");
    (n <= MAX_KNOWN_N).then_some(n).ok_or(most)
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
    let defaults = Settings::defaults(num_cpus::get());
    let budget = args.budget.unwrap_or(Settings::DEFAULT_BUDGET_S);
    let settings = Settings {
        n_min: args.n_min,
        n_max,
        budget_s: args.n_max.is_none().then_some(budget),
        threads: args.threads.clone().unwrap_or(defaults.threads),
        repeat: args.repeat,
        split_depths: args.split_depth.clone().unwrap_or_default(),
        methods: args.method.clone().unwrap_or(defaults.methods),
        kernel: args.engine.cpu_kernel(),
        devices: args.engine.devices()?,
        device_batch: args.engine.opencl_batch,
        min_run_ms: args.min_run_ms,
        unique: args.unique,
    };
    if settings.devices == nqueens_count::Devices::Gpus {
        // Says on stderr, once, when there is no GPU to add.
        args.engine.engine(1, false)?;
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
    // First thing, as `count` does: a signal from now on stops the benchmark cleanly.
    let signals = super::longrun::catch_signals()?;
    let settings = settings(args)?;
    let machine = Machine::detect(command_line());
    // Before any run: a folder that cannot take the results stops here.
    let (out, created) = prepare(args.out.as_deref(), args.overwrite, &machine.host)?;
    // The progress of the timed runs, drawn as `count` draws its own.
    let lines = args.progress.then_some(Duration::from_secs(10));
    let mut display = Display::new(Mode::choose(false, lines)).counting("runs");
    let result = bench::run(&settings, machine, &mut display, &signals.cancel);
    // The bar cleared, the last line written in a log.
    display.finish();
    let (report, failure) = match result {
        Ok(report) => (report, None),
        // The runs measured before a failure are written too, marked partial.
        Err(BenchError::Failed { error, report }) => (*report, Some(*error)),
        Err(e) => {
            if created {
                let _ = std::fs::remove_dir(&out);
            }
            return Err(usage(e));
        }
    };
    let sig = signals.signal.load(Ordering::SeqCst);
    if report.rows.is_empty() && failure.is_none() && sig != 0 {
        // Stopped before any run was measured: nothing to write, and no empty folder left.
        if created {
            let _ = std::fs::remove_dir(&out);
        }
        note!("nqueens: stopped by signal {sig} before any run was measured; nothing written");
        return Ok(Exit::Signal(sig as i32));
    }
    if let Some(w) = report.busy_warning() {
        note!("nqueens: warning: {w}");
    }
    let rows = report.rows.len();
    let kept = match report.partial {
        Some(_) => format!("the {rows} rows measured by then are written, marked partial"),
        None => format!("all {rows} rows are written"),
    };
    let code = match (&failure, signals.signal.load(Ordering::SeqCst)) {
        (Some(e), _) => {
            note!("nqueens: error: {e}; {kept}");
            Exit::of(nqueens_count::Classify::class(e))
        }
        (None, 0) => Exit::Done,
        (None, sig) => {
            note!("nqueens: stopped by signal {sig}: {kept}");
            Exit::Signal(sig as i32)
        }
    };
    write(&report, &out, args.overwrite, code)
}

/// Writes the results into `dir` and lists the files on standard output: `code`. Where they
/// cannot go there (the disk filled up during the runs, or, unless `overwrite`, another
/// benchmark's results appeared there meanwhile), says so and writes `scaling.json`, the whole
/// report, to standard output instead: a failure.
fn write(report: &Results, dir: &Path, overwrite: bool, code: Exit) -> Result<Exit> {
    let mut stdout = std::io::stdout().lock();
    match save(report, dir, overwrite) {
        Ok(written) => {
            written.iter().try_for_each(|p| {
                writeln!(stdout, "{}", super::escape(&p.display().to_string()))
            })?;
            Ok(code)
        }
        Err(error) => {
            note!("nqueens: error: {error}; scaling.json follows on standard output instead");
            stdout.write_all(&export::json(report)?)?;
            stdout.flush()?;
            Ok(Exit::Failed)
        }
    }
}

/// Writes the results into `dir`, unless a file someone else put there under a result file's
/// name appeared while this one ran, or, without `overwrite`, a benchmark's results did
/// (another `bench` given the same folder): the paths written.
fn save(report: &Results, dir: &Path, overwrite: bool) -> Result<Vec<PathBuf>, BenchError> {
    let found = Found::in_dir(dir);
    if let Some(refusal) = found.refusal(dir, overwrite) {
        return Err(BenchError::Invalid(format!(
            "{refusal} (found after the runs)"
        )));
    }
    export::write_all(report, dir)
}

/// The command line as typed, each argument quoted when it needs to be.
fn command_line() -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:+@".contains(c);
    let shown = |a: String| match !a.is_empty() && a.chars().all(plain) {
        true => a,
        false => format!("'{}'", a.replace('\'', r"'\''")),
    };
    std::env::args().map(shown).collect::<Vec<_>>().join(" ")
}

/// What is at the result files' names in a folder: files of an earlier benchmark, and what
/// is not one (another program's file, a link, a folder), which is never replaced.
#[derive(Debug, Default)]
struct Found {
    earlier: Vec<&'static str>,
    foreign: Vec<String>,
}

/// A result file read to tell whether it is one: a benchmark's are far smaller (about 90 KB
/// for a default run), so a larger file is not one.
const RESULT_FILE: Bound = Bound {
    bytes: 64 << 20,
    what: "benchmark result file",
    parse_memory: |_| 0,
};

impl Found {
    fn in_dir(dir: &Path) -> Found {
        let mut found = Found::default();
        for &(name, _, is_ours) in export::FILES {
            let path = dir.join(name);
            let Ok(meta) = path.symlink_metadata() else {
                continue;
            };
            let ours =
                meta.is_file() && read_bounded(&path, RESULT_FILE).is_ok_and(|b| is_ours(&b));
            if ours {
                found.earlier.push(name);
            } else if meta.is_file() {
                found.foreign.push(name.to_string());
            } else {
                let t = meta.file_type();
                let what = match (t.is_symlink(), t.is_dir()) {
                    (true, _) => "a symbolic link",
                    (_, true) => "a folder",
                    _ => "not a regular file",
                };
                found.foreign.push(format!("{name}, {what}"));
            }
        }
        found
    }

    fn is_empty(&self) -> bool {
        self.earlier.is_empty() && self.foreign.is_empty()
    }

    /// Why the results may not go into `dir`, if they may not: a file there that no benchmark
    /// wrote, or, without `overwrite`, an earlier benchmark's.
    fn refusal(&self, dir: &Path, overwrite: bool) -> Option<String> {
        let dir = dir.display();
        if !self.foreign.is_empty() {
            return Some(format!(
                "{dir} holds files under the names of a benchmark's results that no benchmark \
                 wrote ({}); they are never replaced: choose another --out, or move them away",
                self.foreign.join("; ")
            ));
        }
        (!overwrite && !self.earlier.is_empty()).then(|| {
            format!(
                "{dir} already holds the results of a benchmark ({}); choose another --out, or \
                 add --overwrite to replace them",
                self.earlier.join(", ")
            )
        })
    }
}

/// The output folder, checked before any run, and whether this run created it: `out`, or the
/// default one for `host`; refused (a usage error) unless it is, or can be made, a folder this
/// process writes to, holding no earlier benchmark unless `overwrite`.
fn prepare(out: Option<&Path>, overwrite: bool, host: &str) -> Result<(PathBuf, bool)> {
    let path = out.map_or_else(|| default_dir(host), Path::to_path_buf);
    if path.is_dir() {
        if let Some(refusal) = Found::in_dir(&path).refusal(&path, overwrite) {
            return Err(UsageError(refusal).into());
        }
    }
    let unusable = |why: String| -> Failure {
        let path = path.display();
        UsageError(format!("cannot write the results to {path}: {why}")).into()
    };
    if path.exists() && !path.is_dir() {
        return Err(unusable("it is not a folder".into()));
    }
    let created = !path.exists();
    std::fs::create_dir_all(&path).map_err(|e| unusable(e.to_string()))?;
    // A file larger than the five of a default benchmark (about 90 KB), removed at once: a
    // read-only folder, or a disk already full, fails here rather than after the runs.
    let probe = tempfile::tempfile_in(&path).and_then(|mut file| {
        file.write_all(&vec![0u8; 256 << 10])?;
        file.sync_all()
    });
    if let Err(e) = probe {
        if created {
            let _ = std::fs::remove_dir(&path);
        }
        return Err(unusable(e.to_string()));
    }
    Ok((path, created))
}

/// `results/<date>-<host>`, or the first of `-2`, `-3`, … after it that holds no earlier
/// benchmark (and says so).
fn default_dir(host: &str) -> PathBuf {
    let date = jiff::Timestamp::now().strftime("%Y-%m-%d");
    let base = format!("results/{date}-{host}");
    let free = |p: &PathBuf| !p.exists() || (p.is_dir() && Found::in_dir(p).is_empty());
    let names = std::iter::once(base.clone()).chain((2..).map(|i| format!("{base}-{i}")));
    let path = names
        .map(PathBuf::from)
        .find(free)
        .expect("some suffix is free");
    if path != Path::new(&base) {
        note!(
            "nqueens: {base} holds an earlier benchmark; writing to {}",
            path.display()
        );
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn results_are_never_written_over_an_earlier_benchmark_s() {
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
        let report =
            nqueens_count::bench::run(&settings, machine, &mut (), &nqueens_count::Cancel::new())
                .unwrap();
        let tmp = tempfile::tempdir().unwrap();
        // A folder under a regular file cannot be made, not even by root.
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let error = save(&report, &file.join("out"), false).unwrap_err();
        assert!(error.to_string().contains("could not write"), "{error}");
        // A folder that works: the five files, there.
        let fine = tmp.path().join("fine");
        let written = save(&report, &fine, false).unwrap();
        assert_eq!(written.len(), export::FILES.len());
        // Results there now (another benchmark's, say): never written over unless asked.
        let json = std::fs::read(fine.join("scaling.json")).unwrap();
        let error = save(&report, &fine, false).unwrap_err().to_string();
        assert!(
            error.contains("already holds the results of a benchmark")
                && error.ends_with("(found after the runs)"),
            "{error}"
        );
        assert_eq!(std::fs::read(fine.join("scaling.json")).unwrap(), json);
        assert!(save(&report, &fine, true).is_ok());
    }

    #[test]
    fn the_output_folder_is_checked_before_any_run() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"x").unwrap();
        let err = |out: &Path, overwrite: bool| {
            let prepared = prepare(Some(out), overwrite, "h");
            prepared.err().map(|e| e.to_string())
        };
        // A file, and a folder under a file.
        assert!(err(&file, false).unwrap().contains("it is not a folder"));
        let under = err(&file.join("sub"), false).unwrap();
        assert!(under.contains("cannot write the results"), "{under}");
        // A folder with an earlier benchmark: refused, unless asked to replace it.
        let earlier = tmp.path().join("earlier");
        std::fs::create_dir(&earlier).unwrap();
        let json = earlier.join("scaling.json");
        std::fs::write(&json, br#"{"schema_version": 6, "rows": []}"#).unwrap();
        let e = err(&earlier, false).unwrap();
        assert!(
            e.contains("already holds the results of a benchmark (scaling.json)"),
            "{e}"
        );
        assert!(e.contains("--overwrite"), "{e}");
        assert_eq!(err(&earlier, true), None);
        // A file of that name that no benchmark wrote: refused, asked or not.
        std::fs::write(&json, b"{}").unwrap();
        for overwrite in [false, true] {
            let e = err(&earlier, overwrite).unwrap();
            assert!(e.contains("that no benchmark wrote (scaling.json)"), "{e}");
        }
        // A new folder is made, and the probe leaves nothing in it.
        let new = tmp.path().join("a/b");
        let (dir, created) = prepare(Some(&new), false, "h").unwrap();
        assert!(created && dir == new && new.is_dir());
        assert_eq!(std::fs::read_dir(&new).unwrap().count(), 0);
    }
}
