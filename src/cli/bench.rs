//! `nqueens bench`: the scaling benchmark as one command, with a progress bar on stderr.

use super::{parse_n, UsageError};
use anyhow::Result;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use nqueens::bench::{self, export, machine::Machine, BenchError, Progress, Settings};
use nqueens::known::{self, MAX_KNOWN_N};
use std::path::PathBuf;
use std::process::ExitCode;

/// Measure the engine against the single-threaded solver: every N, every thread count, repeated;
/// writes scaling.csv, scaling.json, scaling.svg, time.svg and summary.md.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Smallest N.
    #[arg(long, value_name = "A", default_value_t = 10, value_parser = parse_n)]
    n_min: u32,
    /// Largest N, at most 27 (every count is checked against the published value).
    #[arg(long, value_name = "B", default_value_t = 17, value_parser = parse_n)]
    n_max: u32,
    /// Thread counts of the engine, comma-separated [default: 1, 2, 4, ... up to the logical
    /// cores, and the core count itself].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::parse_threads)]
    threads: Option<Vec<usize>>,
    /// Timed runs of every configuration.
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = parse_repeat)]
    repeat: usize,
    /// Output folder [default: results/<date>-<host>/].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Split depths of the engine's work units, comma-separated, 1 to 4 [default: 2 to 4 for
    /// each N and thread count, as `nqueens count` chooses].
    #[arg(long, value_name = "K", value_delimiter = ',', value_parser = super::positive::<u32>)]
    split_depth: Option<Vec<u32>>,
    /// Methods of the engine, comma-separated (d4, mirror, plain) [default: the default method
    /// of `nqueens count`, and mirror, the serial solver's own method, for a like-for-like
    /// scaling curve]. The plots show the default method.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::count::parse_method_arg)]
    method: Option<Vec<nqueens::Method>>,
    #[command(flatten)]
    engine: super::devices::EngineArgs,
    /// A count under 10 ms is repeated within each timed run until the run has lasted this many
    /// milliseconds, and timed per count; 0: no repetition (such rows are flagged as too short).
    #[arg(long, value_name = "MS", default_value_t = bench::DEFAULT_MIN_RUN_MS)]
    min_run_ms: u32,
}

fn parse_repeat(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(r) if r > 0 => Ok(r),
        _ => Err(format!("'{s}' is not a positive number of runs")),
    }
}

/// A progress bar on stderr that names the configuration being measured (hidden when stderr
/// is not a terminal).
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&mut self, runs: u64) {
        self.0.set_length(runs);
    }
    fn working_on(&mut self, label: &str) {
        self.0.set_message(label.to_string());
    }
    fn run_done(&mut self) {
        self.0.inc(1);
    }
}

/// The command line as typed, each argument quoted when it needs to be.
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@".contains(c))
            {
                a
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    if args.n_max > MAX_KNOWN_N {
        return Err(UsageError(format!(
            "--n-max must be at most {MAX_KNOWN_N} (the largest N with a published count), got {}",
            args.n_max
        ))
        .into());
    }
    if args.n_min > args.n_max {
        return Err(UsageError(format!(
            "--n-min ({}) is larger than --n-max ({})",
            args.n_min, args.n_max
        ))
        .into());
    }
    let mut settings = Settings::defaults(num_cpus::get());
    settings.n_min = args.n_min;
    settings.n_max = args.n_max;
    settings.repeat = args.repeat;
    if let Some(t) = &args.threads {
        settings.threads = t.clone();
    }
    if let Some(k) = &args.split_depth {
        settings.split_depths = k.clone();
    }
    if let Some(m) = &args.method {
        settings.methods = m.clone();
    }
    settings.kernel = args.engine.cpu_kernel();
    settings.devices = args.engine.devices()?;
    if settings.devices == nqueens::Devices::Gpus {
        // Says on stderr, once, when there is no GPU to add.
        args.engine.engine(1)?;
    }
    settings.min_run_ms = args.min_run_ms;
    let usage = |e: BenchError| -> anyhow::Error {
        match e {
            BenchError::Invalid(m) => UsageError(m).into(),
            other => other.into(),
        }
    };
    settings.validate().map_err(usage)?;
    let machine = Machine::detect(command_line());
    let out = args.out.clone().unwrap_or_else(|| {
        let date = &bench::utc_now_iso8601()[..10];
        PathBuf::from("results").join(format!("{date}-{}", machine.host))
    });

    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs  {msg}")
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    let mut progress = Bar(bar);
    let expected = |n: u32| known::published(n).map(|p| p.total);
    let result = bench::run(&settings, machine, &expected, &mut progress);
    progress.0.finish_and_clear();
    let report = result.map_err(usage)?;
    if let Some(w) = report.busy_warning() {
        eprintln!("nqueens: warning: {w}");
    }
    let written = export::write_all(&report, &out)?;
    for path in written {
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
