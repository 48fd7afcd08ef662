//! The long-run side of `nqueens count`: progress, checkpoints and resume, signals, shards.
//!
//! A checkpoint is written at least every `--checkpoint-every` seconds and when the run is
//! stopped by SIGINT, SIGTERM or SIGHUP; the process then exits with 128 + the signal number.
//! The handlers are installed first thing ([`catch_signals`]), before any file is touched; a
//! signal ignored when the program starts (`nohup` ignores SIGHUP) stays ignored.
//! Units still running when the signal came are not saved and are recomputed on resume: a unit
//! is counted only once it is finished and reported by the engine.
//!
//! Split depth on resume: when `--split-depth` is not given, the depth stored in the checkpoint
//! is used (the default depth depends on the thread count, which may differ between runs); a
//! depth given explicitly must match the checkpoint's. Shards default to a depth that depends on
//! the number of shards only (3, or 4 beyond 64 shards), never on the machine, so that shards
//! run on different machines split the job the same way.

use super::progress::{Display, Mode};
use super::report::{print_report_of, Of, ShardOf};
use super::{Exit, Result};
use super::{Failure, UsageError};
use clap::Args;
use nqueens_count::longrun::ShardSpec;
use nqueens_count::longrun::{check_cpu_time, CpuTime, CONFIRM_ABOVE};
use nqueens_count::longrun::{Done, Finish, Prepared, Run, RunError};
use nqueens_count::{Cancel, Engine, Job, Method};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Options of `count` for long runs.
#[derive(Args, Debug, Clone, Default)]
pub struct LongRunArgs {
    /// Save the finished units to FILE, and resume from it if it exists (same job only).
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Save the checkpoint at least every SECS seconds (fractions allowed).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = parse_secs, requires = "checkpoint")]
    checkpoint_every: Duration,
    /// Show progress on stderr even when it is not a terminal: a line every --progress-every.
    #[arg(long)]
    progress: bool,
    /// Seconds between progress lines when stderr is not a terminal [default: 10], at least
    /// 0.001; implies --progress.
    #[arg(long, value_name = "SECS", value_parser = parse_interval, conflicts_with = "quiet")]
    progress_every: Option<Duration>,
    /// No progress and no notes on stderr.
    #[arg(short, long, conflicts_with = "progress")]
    quiet: bool,
    /// Compute only shard I of M (numbered from 0: 0/8 to 7/8, as Slurm numbers array tasks)
    /// and print or write (--out) its result file.
    #[arg(long, value_name = "I/M", value_parser = parse_shard, allow_hyphen_values = true)]
    shard: Option<ShardSpec>,
    /// Start a run estimated to take more than an hour of CPU time (without it, such a run
    /// stops at once and prints the estimate). A resumed run or a shard counts only its part.
    #[arg(long)]
    yes: bool,
    /// Write the result file (JSON, for `nqueens merge`) to FILE, atomically. Without --shard,
    /// the whole job is its one shard (0/1) and the count is printed as usual; with --shard and
    /// --json, the shard's JSON report goes to standard output. A result file already there is
    /// replaced only if it is of the same job and shard (see --overwrite).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Let --out replace a result file of another job or shard, or a damaged one (never a
    /// checkpoint, nor a file nqueens did not write).
    #[arg(long, requires = "out")]
    overwrite: bool,
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..1e9).contains(&x) => Ok(Duration::from_secs_f64(x)),
        Ok(x) if x >= 1e9 => Err(format!("'{s}' seconds is too long (under 1e9 seconds)")),
        _ => Err(format!("'{s}' is not a number of seconds")),
    }
}

/// The shortest time between progress lines, in seconds: 0, which printed a line per finished
/// unit, is refused (issue 29), and so is anything shorter.
const SHORTEST_INTERVAL: f64 = 0.001;

/// Seconds between progress lines: a number of seconds of at least [`SHORTEST_INTERVAL`].
fn parse_interval(s: &str) -> Result<Duration, String> {
    let secs = parse_secs(s)?;
    if secs.as_secs_f64() < SHORTEST_INTERVAL {
        return Err(format!(
            "needs at least {SHORTEST_INTERVAL} seconds between progress lines"
        ));
    }
    Ok(secs)
}

fn parse_shard(s: &str) -> Result<ShardSpec, String> {
    s.parse()
        .map_err(|e: nqueens_count::longrun::ShardSpecError| e.to_string())
}

impl LongRunArgs {
    /// The method and the split depth to use when the user gives none: the checkpoint's, when
    /// one is being resumed (so a checkpoint of an earlier default method resumes as it was
    /// started), else a shard's default depth for the method, a result file of the whole job
    /// being its one shard 0/1 (so that `--out` and `--shard 0/1 --out` write one job); `None`:
    /// the default depth.
    pub fn defaults(&self, n: u32, method: Option<Method>) -> (Method, Option<u32>) {
        let shards = self
            .shard
            .map(|s| s.count)
            .or(self.out.is_some().then_some(1));
        Run::defaults(n, method, self.checkpoint.as_deref(), shards)
    }

    /// How progress is shown: a bar on a terminal, lines when asked for, else nothing.
    fn mode(&self) -> Mode {
        let every = self.progress_every.unwrap_or(Duration::from_secs(10));
        let lines = self.progress || self.progress_every.is_some();
        Mode::choose(self.quiet, lines.then_some(every))
    }

    /// Whether --quiet was given: no notes on stderr.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// A note on stderr, unless --quiet.
    fn note(&self, msg: String) {
        if !self.quiet {
            note!("nqueens: {msg}");
        }
    }
}

/// Says on stderr (unless --quiet) when pre-placed queens make the job count with another
/// method than the one asked for (the report names it too), so that the change is never silent.
fn note_fallback(args: &LongRunArgs, job: &Job) {
    if let Some(ran) = job.placement_fallback() {
        args.note(format!(
            "--place: the queens break the symmetry {} needs; counting with {ran}",
            job.method()
        ));
    }
}

/// Refuses (a usage error, exit code 2) a run of estimated CPU time `cpu` over
/// [`CONFIRM_ABOVE`] unless `yes`; the message ends with `hint`.
pub fn confirm(cpu: Duration, threads: usize, yes: bool, hint: &str) -> Result<()> {
    check_cpu_time(cpu, threads, yes).map_err(|e| UsageError(format!("{e}; {hint}")).into())
}

/// Counts `job` on `engine` with the long-run options (every count goes this way, whether
/// stderr is a terminal or not); `signals` are the handlers' flags ([`catch_signals`], called
/// before anything else).
pub fn run(
    args: &LongRunArgs,
    job: Job,
    engine: &Engine,
    json: bool,
    signals: Signals,
) -> Result<Exit> {
    if json && args.shard.is_some() && args.out.is_none() {
        return Err(UsageError(
            "--json with --shard needs --out FILE: without it, standard output carries the \
             shard's result file (already JSON, for nqueens merge)"
                .into(),
        )
        .into());
    }
    let Signals {
        cancel,
        signal,
        interrupt_ignored,
    } = signals;
    let prepared = prepare(args, job, engine, cancel)?;
    announce(args, &prepared, engine, interrupt_ignored);
    let mut display = Display::new(args.mode());
    let finish = prepared.execute(engine, &mut display);
    display.finish();
    match finish {
        Ok(Finish::Stopped { done, units, saved }) => {
            let sig = signal.load(Ordering::SeqCst);
            let saved =
                match saved {
                    Some(s) if s.failed.is_none() => format!(
                        "saved to {}; run the same command to resume",
                        shown_path(&s.path)
                    ),
                    Some(s) => {
                        format!(
                    "but the checkpoint could not be saved ({}): {} keeps the {} units of its \
                     last save; run the same command to resume from there",
                    super::escape(&s.failed.as_ref().map(ToString::to_string).unwrap_or_default()),
                    shown_path(&s.path),
                    s.holds
                )
                    }
                    None => "nothing saved (no --checkpoint)".into(),
                };
            note!("nqueens: stopped by signal {sig}: {done} of {units} units done, {saved}");
            Ok(Exit::Signal(sig as i32))
        }
        Ok(Finish::Done(done)) => deliver(args, &done, json),
        Err(RunError::Mismatch { done, mismatch }) => {
            super::devices::warn_failed(&done.report.devices);
            say_saves(args, &done);
            note!(
                "nqueens: {mismatch}; no count is printed: {}",
                mismatch_hint(args, &done)
            );
            Ok(Exit::Disagreed)
        }
        Err(e) => Err(e.into()),
    }
}

/// What to do about a whole job that counts other than the published value, where its units'
/// counts were kept: audit the checkpoint it resumed or wrote, or the result file.
fn mismatch_hint(args: &LongRunArgs, done: &Done) -> String {
    let files: Vec<String> = [
        args.checkpoint.as_deref(),
        done.saved
            .as_ref()
            .and_then(|s| s.as_ref().ok())
            .map(PathBuf::as_path),
    ]
    .into_iter()
    .flatten()
    .map(shown_path)
    .collect();
    if files.is_empty() {
        return "a unit was counted wrong; count again, or on another kernel (--kernel)".into();
    }
    let verb = if done.resumed > 0 {
        "resumed holds"
    } else {
        "holds"
    };
    format!(
        "{} {verb} each unit's counts, and `nqueens audit --sample 1 {}` recounts them and \
         names the wrong ones",
        files.join(" and "),
        files.join(" ")
    )
}

/// The run of `job` that the options ask for, prepared (files checked and locked, checkpoint
/// read, confirmation asked), with the command line's hints on a refusal.
fn prepare(args: &LongRunArgs, job: Job, engine: &Engine, cancel: Cancel) -> Result<Prepared> {
    let mut run = Run::new(job)
        .confirm_above((!args.yes).then_some(CONFIRM_ABOVE))
        .cancel_on(cancel)
        .tick(Duration::from_millis(100))
        .overwrite(args.overwrite);
    if let Some(path) = &args.checkpoint {
        run = run.checkpoint(path, args.checkpoint_every);
    }
    if let Some(spec) = args.shard {
        run = run.shard(spec);
    }
    if let Some(out) = &args.out {
        run = run.out(out);
    }
    run.prepare(engine).map_err(|e| -> Failure {
        match e {
            RunError::TooLong(e) => UsageError(format!("{e}; add --yes to start it anyway")).into(),
            RunError::Occupied {
                source,
                overwritable,
            } => {
                let hint = if overwritable {
                    "; add --overwrite to replace it"
                } else {
                    ""
                };
                UsageError(format!("{source}; it was left untouched{hint}")).into()
            }
            // A file the run would have written over: say that it was not.
            RunError::Store(e) if e.is_about_a_file() => {
                UsageError(format!("{e}{}; it was left untouched", unique_hint(&e))).into()
            }
            e => e.into(),
        }
    })
}

/// The notes before a run, once nothing can refuse it any more (so that a refusal is one line
/// alone): a method the placed queens changed, where it resumes from, its shard, its estimated
/// CPU time when long.
fn announce(args: &LongRunArgs, prepared: &Prepared, engine: &Engine, interrupt_ignored: bool) {
    note_fallback(args, prepared.plan().job());
    if let Some(path) = prepared.resumed_from() {
        args.note(format!(
            "resuming from {}: {} of {} units done",
            shown_path(path),
            prepared.resumed(),
            prepared.units()
        ));
    }
    if let Some(s) = args.shard {
        args.note(format!(
            "shard {s}: {} of {} units, estimated imbalance of the split {:.1}%",
            prepared.units(),
            prepared.job_units(),
            prepared.imbalance() * 100.0
        ));
    }
    let cpu = prepared.estimated_cpu();
    if cpu > CONFIRM_ABOVE {
        let threads = engine.threads();
        args.note(format!("estimated {}", CpuTime { cpu, threads }));
    }
    // Said once, at the start of a run worth stopping: a run from a script's background has
    // SIGINT ignored (as a shell does for background jobs), and only SIGTERM stops it cleanly.
    if interrupt_ignored && (args.checkpoint.is_some() || cpu > SAY_HOW_TO_STOP_ABOVE) {
        args.note(format!(
            "SIGINT is ignored here (a background job of a script): stop this run with SIGTERM \
             (kill {}){}",
            std::process::id(),
            if args.checkpoint.is_some() {
                ", which saves the checkpoint"
            } else {
                ""
            }
        ));
    }
}

/// The estimated CPU time above which a run with SIGINT ignored says how to stop it, with or
/// without a checkpoint.
const SAY_HOW_TO_STOP_ABOVE: std::time::Duration = std::time::Duration::from_secs(60);

/// Says what became of a finished run's files, and prints its result: the count, its JSON
/// report, or (for a shard not written to `--out`) the result file itself. Nothing counted is
/// lost: a failed last save of the checkpoint or of the result file is said and the result
/// printed all the same, with exit code 1; standard output that cannot take a result kept
/// nowhere else (a closed pipe included) fails too, and a shard's result file then goes to a
/// new file in the temporary directory, named on stderr.
fn deliver(args: &LongRunArgs, done: &Done, json: bool) -> Result<Exit> {
    super::devices::warn_failed(&done.report.devices);
    let (written, failed) = say_saves(args, done);
    let carries_result_file = args.shard.is_some() && !written;
    let text = output(args, done, json, carries_result_file)?;
    // Kept elsewhere: in the result file, or in a checkpoint that holds every unit (the same
    // command prints the count again at once).
    let kept = written || done.checkpoint.as_ref().is_some_and(|c| c.failed.is_none());
    let Err(e) = write_out(&text) else {
        return Ok(Exit::failed_if(failed));
    };
    if kept && e.kind() == std::io::ErrorKind::BrokenPipe {
        return Ok(Exit::failed_if(failed));
    }
    let what = if carries_result_file {
        match keep_result_file(done) {
            Ok(path) => format!(
                "the shard's result file is saved in {} instead",
                shown_path(&path)
            ),
            Err(k) => format!(
                "and it could not be saved elsewhere either ({})",
                without_path(k)
            ),
        }
    } else if kept {
        "the result is kept in the files named above".into()
    } else {
        format!(
            "the count was {}",
            String::from_utf8_lossy(&text).trim_end()
        )
    };
    Err(super::Undelivered(format!("{e}; {what}")).into())
}

/// Says what became of the run's files: the checkpoint (what it holds now, or its failed last
/// save), the result file written or not. Whether the result file was written, and whether
/// anything failed.
fn say_saves(args: &LongRunArgs, done: &Done) -> (bool, bool) {
    let mut failed = false;
    let goes = if args.shard.is_some() {
        "the shard's result goes to --out or standard output"
    } else {
        "the count goes to standard output"
    };
    match &done.checkpoint {
        Some(c) if c.failed.is_some() => {
            note!(
                "nqueens: error: the last save of the checkpoint failed: {}; every unit was \
                 counted, and {goes}; {} keeps the {} of {} units of its last save",
                super::escape(
                    &c.failed
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                ),
                shown_path(&c.path),
                c.holds,
                c.of
            );
            failed = true;
        }
        Some(c) => args.note(format!(
            "the checkpoint {} holds all {} units of this run: the same command prints the \
             result again at once; keep it or delete it",
            shown_path(&c.path),
            c.holds
        )),
        None => {}
    }
    let written = match &done.saved {
        Some(Ok(out)) => {
            args.note(format!("wrote {}", shown_path(out)));
            true
        }
        Some(Err(e)) => {
            let follows = if args.shard.is_some() {
                "the result file follows on standard output instead"
            } else {
                "the count follows on standard output as usual, but no result file was written"
            };
            note!(
                "nqueens: error: {}; {follows}",
                super::escape(&e.to_string())
            );
            failed = true;
            false
        }
        None => false,
    };
    (written, failed)
}

/// What goes to standard output: the count or its JSON report, the shard's JSON report, or
/// the shard's result file itself where it was not written.
fn output(args: &LongRunArgs, done: &Done, json: bool, result_file: bool) -> Result<Vec<u8>> {
    let mut text = Vec::new();
    // Said in the JSON report of a run that could resume.
    let resumed = args.checkpoint.is_some().then_some(done.resumed);
    match args.shard {
        Some(_) if result_file => text = done.result.to_bytes(),
        // Written: with --json, the shard's report too (its share of the counts and units).
        Some(s) if json => {
            let of = Of {
                shard: Some(ShardOf {
                    spec: s.to_string(),
                    job_units: done.job_units,
                }),
                estimated_cpu: Some(done.estimated_cpu),
            };
            print_report_of(&mut text, &done.report, true, resumed, of)?;
        }
        Some(_) => {}
        None => {
            let of = Of {
                estimated_cpu: Some(done.estimated_cpu),
                ..Of::default()
            };
            print_report_of(&mut text, &done.report, json, resumed, of)?;
        }
    }
    Ok(text)
}

/// Writes `text` to standard output, whole, and flushes it.
fn write_out(text: &[u8]) -> std::io::Result<()> {
    let mut stdout = super::stdout();
    stdout.write_all(text)?;
    stdout.flush()
}

/// A shard's result file that reached neither `--out` nor standard output, in a new file of
/// the temporary directory (never over another): its path.
fn keep_result_file(done: &Done) -> std::io::Result<PathBuf> {
    let spec = done.result.shard;
    let mut file = tempfile::Builder::new()
        .prefix(&format!(
            "nqueens-{}-shard-{}-of-{}-",
            done.result.identity.n, spec.index, spec.count
        ))
        .suffix(".json")
        .tempfile()?;
    file.write_all(&done.result.to_bytes())?;
    file.as_file().sync_all()?;
    let (_, path) = file.keep().map_err(|e| e.error)?;
    Ok(path)
}

/// The error of a temporary file that is gone (removed when it failed), without the "at path"
/// that `tempfile` adds: naming it would send the reader to a file that does not exist.
fn without_path(e: std::io::Error) -> std::io::Error {
    match e.get_ref() {
        // tempfile's errors end with " at path \"...\"" after the system's message.
        Some(inner) => {
            let text = inner.to_string();
            let message = text.split(" at path ").next().unwrap_or_default();
            std::io::Error::new(e.kind(), message.to_string())
        }
        None => e,
    }
}

/// What to add to the refusal of a file of this job but for counting unique solutions where
/// the run does not, or the reverse: the option that resumes it.
fn unique_hint(e: &nqueens_count::longrun::StoreError) -> &'static str {
    use nqueens_count::longrun::Difference;
    match e.differences() {
        [Difference::Unique { file: true }] => ": resume it with --unique",
        [Difference::Unique { file: false }] => ": resume it without --unique",
        _ => "",
    }
}

/// `path` as quoted in a message: control characters escaped.
fn shown_path(path: &std::path::Path) -> String {
    super::escape(&path.display().to_string())
}

/// The flags the signal handlers set: `cancel` on any of them, `signal` its number.
pub struct Signals {
    pub cancel: Cancel,
    pub signal: Arc<AtomicUsize>,
    /// SIGINT was ignored when the program started (a background job of a script): Ctrl-C and
    /// `kill -INT` do not stop it.
    pub interrupt_ignored: bool,
}

/// Installs the handlers of a long run, first thing, so that a signal before the run starts
/// still stops it cleanly (no lock file left, the line that says so): SIGINT, SIGTERM and
/// SIGHUP set `cancel` and record their number; a second one while the first is being handled
/// exits at once. A signal ignored when the program started stays ignored, as the GNU C
/// Library's manual advises ("Basic Signal Handling"): `nohup` ignores SIGHUP so that the run
/// goes on after the terminal closes, and a shell's background job ignores SIGINT.
pub fn catch_signals() -> Result<Signals> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::flag;
    let cancel = Cancel::new();
    let signal = Arc::new(AtomicUsize::new(0));
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        if ignored(sig) {
            continue;
        }
        // Registered first, so it sees the flag as it was before this signal set it.
        flag::register_conditional_shutdown(sig, 128 + sig, cancel.flag().clone())?;
        flag::register_usize(sig, signal.clone(), sig as usize)?;
        flag::register(sig, cancel.flag().clone())?;
    }
    Ok(Signals {
        cancel,
        signal,
        interrupt_ignored: ignored(SIGINT) && !ignored(SIGTERM),
    })
}

/// Whether the signal `sig` is ignored (`SIG_IGN`) now.
#[cfg(unix)]
fn ignored(sig: libc::c_int) -> bool {
    // SAFETY: with a null new action, sigaction only reads the current one into `old`, a
    // zeroed plain C struct owned here.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(not(unix))]
fn ignored(_sig: libc::c_int) -> bool {
    false
}
