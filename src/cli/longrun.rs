//! The long-run side of `nqueens count`: progress, checkpoints and resume, signals, shards.
//!
//! A checkpoint is written at least every `--checkpoint-every` seconds and when the run is
//! stopped by SIGINT, SIGTERM or SIGHUP; the process then exits with 128 + the signal number.
//! Units still running when the signal came are not saved and are recomputed on resume: a unit
//! is counted only once it is finished and reported by the engine.
//!
//! Split depth on resume: when `--split-depth` is not given, the depth stored in the checkpoint
//! is used (the default depth depends on the thread count, which may differ between runs); a
//! depth given explicitly must match the checkpoint's. Shards default to a depth that depends on
//! the number of shards only (3, or 4 beyond 64 shards), never on the machine, so that shards
//! run on different machines split the job the same way.

use super::progress::{Mode, Progress};
use super::report::{print_report_of, ShardOf};
use super::UsageError;
use anyhow::{Context, Result};
use clap::Args;
use nqueens::longrun::checkpoint::Checkpoint;
use nqueens::longrun::estimate;
use nqueens::longrun::lock::RunLock;
use nqueens::longrun::shard::{self, ShardResult, ShardSpec};
use nqueens::longrun::store::{self, Identity, StoreError};
use nqueens::plan::cost;
use nqueens::plan::eta::{scrambled, Planned};
use nqueens::{Counts, Engine, Job, Method, Observer, Plan, RunOptions, Unit};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// Seconds between progress lines when stderr is not a terminal.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_secs, requires = "progress")]
    progress_every: Duration,
    /// No progress and no notes on stderr.
    #[arg(short, long, conflicts_with = "progress")]
    quiet: bool,
    /// Compute only shard I of M (0-based) and print or write (--out) its result file.
    #[arg(long, value_name = "I/M", value_parser = parse_shard)]
    shard: Option<ShardSpec>,
    /// Start a run estimated to take more than an hour of CPU time (without it, such a run
    /// stops at once and prints the estimate). A resumed run or a shard counts only its part.
    #[arg(long)]
    yes: bool,
    /// Write the result file (JSON, for `nqueens merge`) to FILE, atomically. Without --shard,
    /// the whole job is its one shard (0/1) and the count is printed as usual; with --shard and
    /// --json, the shard's JSON report goes to standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("'{s}' is not a number of seconds"))
}

fn parse_shard(s: &str) -> Result<ShardSpec, String> {
    s.parse()
}

impl LongRunArgs {
    /// Whether this count needs the long-run path (otherwise the plain engine call is used).
    pub fn active(&self) -> bool {
        self.checkpoint.is_some()
            || self.shard.is_some()
            || self.out.is_some()
            || self.progress
            || (!self.quiet && std::io::stderr().is_terminal())
    }

    /// The method to use when none is given: the checkpoint's, when one is being resumed (so
    /// a checkpoint of an earlier default method resumes as it was started).
    pub fn checkpoint_method(&self) -> Option<Method> {
        let c = Checkpoint::load(self.checkpoint.as_ref()?).ok()?;
        c.identity.method.parse().ok()
    }

    /// The split depth to use when none is given: the checkpoint's, or the shard default (for
    /// `method`: edge's units hold the four edge queens besides the split rows, so depth 1, one
    /// unit per frame, already gives tens of thousands; depth 4 (the top two rows) for many
    /// shards).
    pub fn default_depth(&self, n: u32, method: Method) -> Option<u32> {
        if let Some(path) = &self.checkpoint {
            if let Ok(c) = Checkpoint::load(path) {
                return Some(c.identity.split_depth);
            }
        }
        self.shard.map(|s| {
            let deep = s.count > 64;
            match method {
                Method::Edge => {
                    if deep {
                        4
                    } else {
                        1
                    }
                }
                _ => {
                    if deep {
                        4
                    } else {
                        3
                    }
                }
            }
            .min(n)
        })
    }
}

impl LongRunArgs {
    /// Refuses, unless --yes was given, a whole `job` estimated to take more than an hour of CPU
    /// time (the plain path of `count`; the long-run path counts only its part, in [`run`]).
    pub fn confirm_whole(&self, job: &Job, threads: usize, kernel: nqueens::Kernel) -> Result<()> {
        let cpu = estimate::cpu_time(job, None, kernel);
        confirm(cpu, threads, self.yes, "add --yes to start it anyway")
    }
}

/// Refuses (a usage error, exit code 2) a run of estimated CPU time `cpu` over
/// [`estimate::CONFIRM_ABOVE`] unless `yes`; the message ends with `hint`.
pub fn confirm(cpu: Duration, threads: usize, yes: bool, hint: &str) -> Result<()> {
    estimate::check(cpu, threads, yes).map_err(|e| UsageError(format!("{e}; {hint}")).into())
}

/// Runs `job` on `engine` with the long-run options.
pub fn run(args: &LongRunArgs, job: Job, engine: &Engine, json: bool) -> Result<ExitCode> {
    if json && args.shard.is_some() && args.out.is_none() {
        return Err(UsageError(
            "--json with --shard needs --out FILE: without it, standard output carries the \
             shard's result file (already JSON, for nqueens merge)"
                .into(),
        )
        .into());
    }
    if let Some(out) = &args.out {
        if args
            .checkpoint
            .as_deref()
            .is_some_and(|c| same_file(c, out))
        {
            return Err(UsageError(format!(
                "--out and --checkpoint both name {}: the result would replace the checkpoint",
                out.display()
            ))
            .into());
        }
        // Found now, not after hours of counting.
        store::check_writable(out)?;
    }
    if let Some(path) = &args.checkpoint {
        // A checkpoint that cannot be written fails now, naming it, before its lock beside it.
        store::check_writable(path)?;
    }
    // One run per file: a second run on the same checkpoint or result file stops here, before
    // reading the checkpoint. Held to the end of this function, whatever way it returns.
    let _locks = [args.checkpoint.as_deref(), args.out.as_deref()]
        .into_iter()
        .flatten()
        .map(RunLock::acquire)
        .collect::<Result<Vec<_>, _>>()?;
    let plan = Arc::new(Plan::new(job));
    let identity = Identity::of(&plan);
    let costs = cost::estimate(&plan);
    let note = |msg: String| {
        if !args.quiet {
            eprintln!("nqueens: {msg}");
        }
    };
    let spec = args.shard.unwrap_or(ShardSpec { index: 0, count: 1 });
    let parts = shard::assign(&costs, spec.count);
    let imbalance = shard::imbalance(&costs, &parts);
    let mine: Vec<u32> = parts[spec.index as usize].clone();
    let mut ckpt = match &args.checkpoint {
        Some(path) if path.exists() => {
            let c = Checkpoint::load(path)?;
            c.check_job(path, &identity, args.shard)?;
            let set: HashSet<u32> = mine.iter().copied().collect();
            if let Some(i) = c.done.keys().find(|i| !set.contains(i)) {
                return Err(StoreError::Foreign {
                    path: path.clone(),
                    reason: format!("unit {i} is not one of this run's units"),
                }
                .into());
            }
            note(format!(
                "resuming from {}: {} of {} units done",
                path.display(),
                c.done.len(),
                mine.len()
            ));
            c
        }
        _ => Checkpoint::new(identity.clone(), args.shard),
    };
    if let Some(s) = args.shard {
        note(format!(
            "shard {s}: {} of {} units, estimated imbalance of the split {:.1}%",
            mine.len(),
            costs.len(),
            imbalance * 100.0
        ));
    }

    let mut todo: Vec<u32> = mine
        .iter()
        .copied()
        .filter(|i| !ckpt.done.contains_key(i))
        .collect();
    if plan.method() == Method::Edge {
        // Thousands of nearly equal units: the largest-estimate-first order buys no balance.
        // Index order is sorted by frame, and the time per unit of estimate drifts with the
        // frame; in a fixed scrambled order the ETA learns from a fair sample from the start
        // (docs/ETA.md).
        todo.sort_unstable_by_key(|&i| scrambled(i));
    }
    let resumed = ckpt.done.len();
    // Only the part this run computes: the shard's units not yet in the checkpoint.
    let threads = engine.threads();
    let cpu = estimate::cpu_time(plan.job(), Some(&plan), engine.kernel())
        .mul_f64(estimate::share(&costs, todo.iter().copied()));
    confirm(cpu, threads, args.yes, "add --yes to start it anyway")?;
    if cpu > estimate::CONFIRM_ABOVE {
        let cores = threads.clamp(1, num_cpus::get().max(1));
        note(format!(
            "estimated {} of CPU time, about {} on {cores} cores",
            estimate::human(cpu),
            estimate::human(cpu / cores as u32)
        ));
    }

    let cancel = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicUsize::new(0));
    register_signals(&cancel, &signal)?;

    let mode = if args.quiet {
        Mode::Off
    } else if std::io::stderr().is_terminal() {
        Mode::Bar
    } else if args.progress {
        Mode::Lines(args.progress_every)
    } else {
        Mode::Off
    };
    let planned = |units: &mut dyn Iterator<Item = u32>| -> Vec<Planned> {
        units
            .map(|i| Planned {
                id: i,
                cost: costs[i as usize] as f64,
                class: cost::class(&plan.units()[i as usize]),
            })
            .collect()
    };
    let progress = Progress::new(
        mode,
        threads,
        mine.len(),
        planned(&mut todo.iter().copied()),
        &planned(&mut ckpt.done.keys().copied()),
    );
    let prior = ckpt.elapsed;
    let mut driver = Driver {
        path: args.checkpoint.as_deref(),
        every: args.checkpoint_every,
        last_save: Instant::now(),
        dirty: false,
        prior,
        start: Instant::now(),
        ckpt: &mut ckpt,
        progress,
        error: None,
    };
    if driver.path.is_some() && resumed == 0 {
        // A first save at once: a path that cannot be written fails now, not after the first
        // interval of work.
        driver.save()?;
    }
    let opts = RunOptions {
        units: Some(todo),
        tick: Duration::from_millis(100),
        cancel: Some(cancel.clone()),
    };
    let outcome = engine.run(&plan, &opts, &mut driver);
    driver.progress.finish();
    super::devices::warn_failed(&outcome.devices);
    if let Some(e) = driver.error.take() {
        return Err(e.into());
    }
    if let Some(e) = outcome.device_failure() {
        // The device counting alone failed: what it finished is kept, nothing is printed as
        // the count.
        driver.save().context("could not save the checkpoint")?;
        let saved = match &args.checkpoint {
            Some(p) => format!(
                "; the {} finished units are saved in {}",
                driver.ckpt.done.len(),
                p.display()
            ),
            None => String::new(),
        };
        return Err(anyhow::Error::new(e).context(format!("no count{saved}")));
    }
    if outcome.interrupted {
        let sig = signal.load(Ordering::SeqCst);
        driver.save().context("could not save the checkpoint")?;
        let saved = match &args.checkpoint {
            Some(p) => format!("saved to {}; run the same command to resume", p.display()),
            None => "nothing saved (no --checkpoint)".into(),
        };
        let done = driver.ckpt.done.len();
        eprintln!(
            "nqueens: stopped by signal {sig}: {done} of {} units done, {saved}",
            mine.len()
        );
        return Ok(ExitCode::from(128u8.saturating_add(sig as u8)));
    }
    if driver.path.is_some() {
        driver.save().context("could not save the checkpoint")?;
    }
    let elapsed = prior + driver.start.elapsed();
    let counts = ckpt.counts();
    let result = ShardResult::new(identity, spec, mine.clone(), counts, elapsed, imbalance);
    // A result that cannot be saved (the disk filled up during the run) still goes to
    // standard output, so that the work is not lost.
    let saved = args.out.as_ref().map(|out| result.save(out).map(|()| out));
    match &saved {
        Some(Ok(out)) => note(format!("wrote {}", out.display())),
        Some(Err(e)) => eprintln!("nqueens: {e}; the result follows on standard output"),
        None => {}
    }
    let mut stdout = std::io::stdout().lock();
    let unique = plan.job().unique();
    let mut report = nqueens::Report {
        n: plan.job().n(),
        counts,
        method: plan.method(),
        split_depth: plan.job().split_depth(),
        units: plan.units().len(),
        threads: engine.threads(),
        kernel: engine.kernel(),
        elapsed,
        devices: outcome.devices.clone(),
        searches: outcome.searches,
    };
    match args.shard {
        // The result file is a shard's output: on stdout when it was not written.
        Some(_) if !matches!(saved, Some(Ok(_))) => stdout.write_all(&result.to_bytes())?,
        // Written: with --json, the shard's report too (its share of the counts and units).
        Some(s) if json => {
            report.units = mine.len();
            let of = ShardOf {
                spec: s.to_string(),
                job_units: plan.units().len(),
            };
            print_report_of(&mut stdout, &report, unique, true, Some(resumed), Some(of))?;
        }
        Some(_) => {}
        None => print_report_of(&mut stdout, &report, unique, json, Some(resumed), None)?,
    }
    stdout.flush()?;
    if let Some(Err(e)) = saved {
        return Err(e.into());
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether two paths name the same file, whether or not it exists yet.
fn same_file(a: &Path, b: &Path) -> bool {
    // The directory resolved (links, `..`), the file name as given.
    let resolve = |p: &Path| -> Option<PathBuf> {
        Some(store::dir_of(p).canonicalize().ok()?.join(p.file_name()?))
    };
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// SIGINT, SIGTERM and SIGHUP set `cancel` and record their number in `signal`; a second one
/// while the first is being handled exits at once.
fn register_signals(cancel: &Arc<AtomicBool>, signal: &Arc<AtomicUsize>) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::flag;
    for sig in [SIGINT, SIGTERM, SIGHUP] {
        // Registered first, so it sees the flag as it was before this signal set it.
        flag::register_conditional_shutdown(sig, 128 + sig, cancel.clone())?;
        flag::register_usize(sig, signal.clone(), sig as usize)?;
        flag::register(sig, cancel.clone())?;
    }
    Ok(())
}

/// The observer of a long run: records finished units, saves the checkpoint when due, and
/// drives the progress display.
struct Driver<'a> {
    path: Option<&'a Path>,
    every: Duration,
    last_save: Instant,
    dirty: bool,
    prior: Duration,
    start: Instant,
    ckpt: &'a mut Checkpoint,
    progress: Progress,
    error: Option<StoreError>,
}

impl Driver<'_> {
    fn save(&mut self) -> Result<(), StoreError> {
        let Some(path) = self.path else {
            return Ok(());
        };
        self.ckpt.elapsed = self.prior + self.start.elapsed();
        self.ckpt.save(path)?;
        self.dirty = false;
        self.last_save = Instant::now();
        Ok(())
    }

    fn save_if_due(&mut self) -> ControlFlow<()> {
        if self.dirty && self.last_save.elapsed() >= self.every {
            if let Err(e) = self.save() {
                self.error = Some(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

impl Observer for Driver<'_> {
    fn unit_done(
        &mut self,
        unit: &Unit,
        counts: Counts,
        timing: nqueens::engine::UnitTiming,
    ) -> ControlFlow<()> {
        self.ckpt.done.insert(unit.index, counts);
        self.dirty = true;
        self.progress.unit_done(unit.index, &timing);
        self.save_if_due()
    }

    fn tick(&mut self) -> ControlFlow<()> {
        self.progress.tick();
        self.save_if_due()
    }
}
