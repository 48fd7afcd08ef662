//! A long run of one job, as a library call: the checkpoint it resumes from and saves to, the
//! shard of the job it computes, its lock, the CPU-time confirmation, the order of its units,
//! its progress, and its result file. `nqueens count --checkpoint --shard --out` is this type
//! and a progress display.
//!
//! A checkpoint is saved at least every [`Run::checkpoint`] interval and when the run is
//! stopped (the cancel flag of [`Run::cancel_on`], set by a signal handler for instance). Units
//! still running then are not saved and are recomputed on resume: a unit is counted only once
//! it is finished and reported by the engine.
//!
//! A file-size limit (`ulimit -f`) kills a process with SIGXFSZ when a write passes it, unless
//! the process ignores that signal, as the `nqueens` command does: the write then fails with
//! EFBIG, and a finished result that cannot be saved is returned ([`Done::saved`]) as on a full
//! disk.
//!
//! Split depth on resume: a job resumed from a checkpoint must have the checkpoint's depth
//! ([`Run::defaults`] reads it for callers that let the user leave it out). Shards default to
//! a depth that depends on the method and the number of shards only, never on the machine, so
//! that shards run on different machines split the job alike.

use super::checkpoint::Checkpoint;
use super::estimate::{self, TooLong};
use super::lock::{lock_path, LockError, RunLock};
use super::shard::{self, ShardResult, ShardSpec};
use super::store::{self, Identity, StoreError};
use crate::engine::{Engine, Observer, Outcome, Report, RunOptions, UnitTiming};
use crate::plan::eta::{scrambled, Eta, Planned};
use crate::plan::{cost, Job, Method, Plan};
use crate::search::{Counts, Unit};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// A long run of one job: build it, [`Run::prepare`] it (locks taken, checkpoint read, work
/// estimated), then [`Prepared::execute`] it on an engine.
///
/// ```
/// use nqueens::longrun::{Finish, Run};
/// use nqueens::{Engine, Job};
/// use std::sync::atomic::{AtomicBool, Ordering};
/// use std::sync::Arc;
/// use std::time::Duration;
///
/// let ckpt = std::env::temp_dir().join(format!("nqueens-run-{}.ckpt", std::process::id()));
/// let engine = Engine::new(2)?;
/// let job = Job::new(13)?.with_unique(true).with_split_depth(2)?;
///
/// // A run stopped at once (as a signal handler would): what it finished is saved.
/// let stop = Arc::new(AtomicBool::new(true));
/// let run = Run::new(job.clone())
///     .checkpoint(&ckpt, Duration::from_secs(60))
///     .cancel_on(stop.clone());
/// assert!(matches!(run.prepare(&engine)?.execute(&engine, &mut ())?, Finish::Stopped { .. }));
///
/// // The same command again resumes from the checkpoint and finishes.
/// stop.store(false, Ordering::Relaxed);
/// let run = Run::new(job).checkpoint(&ckpt, Duration::from_secs(60));
/// let Finish::Done(done) = run.prepare(&engine)?.execute(&engine, &mut ())? else {
///     panic!("not stopped this time");
/// };
/// assert_eq!((done.report.counts.total, done.report.counts.unique), (73712, 9233));
/// std::fs::remove_file(&ckpt)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Run {
    job: Job,
    checkpoint: Option<(PathBuf, Duration)>,
    shard: Option<ShardSpec>,
    out: Option<PathBuf>,
    confirm_above: Option<Duration>,
    cancel: Option<Arc<AtomicBool>>,
    tick: Duration,
}

/// Why a long run could not start or finish.
#[derive(Debug, Error)]
pub enum RunError {
    /// A checkpoint or result file is unreadable, damaged, of another job, or cannot be
    /// written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Another run holds a file of this one.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The run would take more CPU time than allowed unconfirmed ([`Run::confirm_above`]).
    #[error(transparent)]
    TooLong(#[from] TooLong),
    /// Two of the run's files (the checkpoint, the result file and their lock files) are one
    /// file: one would replace or remove the other.
    #[error("{first} and {second} both name {}; give them different names", path.display())]
    SamePath {
        /// The one file, as the first is named.
        path: PathBuf,
        /// What the first is ("the checkpoint", "the result file", "the checkpoint's lock file").
        first: &'static str,
        /// What the second is.
        second: &'static str,
    },
    /// More shards than the job has units: every shard needs one at least.
    #[error("{}", too_many_shards(*count, *units))]
    TooManyShards {
        /// The shards asked for.
        count: u32,
        /// The units of the job.
        units: usize,
    },
    /// The count failed (an OpenCL device counting alone failed); what was finished is saved.
    #[error("no count{saved}: {source}", saved = saved_note(.saved))]
    Count {
        /// Why.
        source: crate::Error,
        /// The checkpoint that holds the units finished, and how many.
        saved: Option<(PathBuf, usize)>,
    },
}

fn too_many_shards(count: u32, units: usize) -> String {
    if units == 0 {
        // N = 2 and 3: no placement of the first rows survives.
        return format!(
            "{count} shards, but the job has no units at all (the board has no solutions): \
             count it whole"
        );
    }
    format!(
        "{count} shards, but the job has only {units} units: every shard needs one at least \
         (use at most {units} shards, or a deeper split for more units)"
    )
}

fn saved_note(saved: &Option<(PathBuf, usize)>) -> String {
    match saved {
        Some((path, units)) => {
            format!(
                "; the {units} finished units are saved in {}",
                path.display()
            )
        }
        None => String::new(),
    }
}

impl RunError {
    /// Whether the error is in what the user gave (a bad or foreign file, a file in use, a run
    /// too long to start unconfirmed), as opposed to a failure of the system or a device.
    pub fn is_bad_input(&self) -> bool {
        match self {
            RunError::Store(e) => e.is_bad_input(),
            RunError::Lock(e) => e.is_bad_input(),
            RunError::TooLong(_) | RunError::SamePath { .. } | RunError::TooManyShards { .. } => {
                true
            }
            RunError::Count { .. } => false,
        }
    }
}

impl Run {
    /// A run of the whole of `job`, with no checkpoint, no result file, and the confirmation
    /// limit [`estimate::CONFIRM_ABOVE`].
    pub fn new(job: Job) -> Run {
        Run {
            job,
            checkpoint: None,
            shard: None,
            out: None,
            confirm_above: Some(estimate::CONFIRM_ABOVE),
            cancel: None,
            tick: Duration::from_millis(100),
        }
    }

    /// Saves the finished units to `path` at least every `every` (and when stopped), and
    /// resumes from it if it exists (the same job and shard only).
    pub fn checkpoint(mut self, path: impl Into<PathBuf>, every: Duration) -> Run {
        self.checkpoint = Some((path.into(), every));
        self
    }

    /// Computes only shard `spec` of the job: its share of the units, assigned by their
    /// estimated cost ([`Plan::costs`]) alike on every machine.
    pub fn shard(mut self, spec: ShardSpec) -> Run {
        self.shard = Some(spec);
        self
    }

    /// Writes the result file (for `nqueens merge`) to `path` at the end, atomically; the
    /// whole job is its one shard (0/1) when no shard is given.
    pub fn out(mut self, path: impl Into<PathBuf>) -> Run {
        self.out = Some(path.into());
        self
    }

    /// Refuses to start a run estimated to take more CPU time than `limit` (`None`: no limit;
    /// the default is [`estimate::CONFIRM_ABOVE`]). A resumed run or a shard counts only its
    /// part.
    pub fn confirm_above(mut self, limit: Option<Duration>) -> Run {
        self.confirm_above = limit;
        self
    }

    /// Stops the run, saving the checkpoint, once `flag` is set (from a signal handler, say).
    pub fn cancel_on(mut self, flag: Arc<AtomicBool>) -> Run {
        self.cancel = Some(flag);
        self
    }

    /// How often the observer's progress is updated while no unit finishes.
    pub fn tick(mut self, every: Duration) -> Run {
        self.tick = every;
        self
    }

    /// The method and split depth for a run of `method` (the user's choice, if any) resumed
    /// from `checkpoint` or split into `shards` shards, when the user gives no depth: the
    /// checkpoint's method (when none is given) and depth, else the method's shard depth; `None`
    /// for the depth when neither applies (the job's default depth then serves).
    pub fn defaults(
        n: u32,
        method: Option<Method>,
        checkpoint: Option<&Path>,
        shards: Option<u32>,
    ) -> (Method, Option<u32>) {
        let saved = checkpoint.and_then(|p| Checkpoint::load(p).ok());
        let method = method
            .or_else(|| saved.as_ref()?.identity.method.parse().ok())
            .unwrap_or_default();
        let depth = match (&saved, shards) {
            (Some(c), _) => Some(c.identity.split_depth),
            (None, Some(m)) => Some(method.costing().shard_depth(m).min(n)),
            (None, None) => None,
        };
        (method, depth)
    }

    /// Plans the job, checks the files, takes their locks, reads the checkpoint and estimates
    /// the work left: everything that can fail before counting fails here.
    ///
    /// The checkpoint and the result file (`out`) are only ever regular files, written by
    /// replacing them whole (a temporary file renamed over them); a path that names a
    /// directory, a device, a FIFO or a socket is refused ([`StoreError::NotRegular`]). A
    /// symbolic link there is followed to the file it names, which is the file read, locked
    /// and replaced (the link stays), except a link of another user in a sticky directory
    /// every user may write to (`/tmp`), as Linux's `fs.protected_symlinks` refuses
    /// ([`StoreError::Link`]). An existing result file must be empty or a result file of this
    /// program: any other file there is not replaced ([`StoreError::WrongKind`]). No two of
    /// the checkpoint, the result file and their lock files may be one file
    /// ([`RunError::SamePath`]). More shards than the job has units are refused
    /// ([`RunError::TooManyShards`]). Temporary files that killed runs left beside the two
    /// files are removed once their locks are held.
    pub fn prepare(mut self, engine: &Engine) -> Result<Prepared, RunError> {
        let plan = Arc::new(Plan::new(self.job.clone()));
        let spec = self.shard.unwrap_or(ShardSpec { index: 0, count: 1 });
        let units = plan.units().len();
        if spec.count as usize > units.max(1) {
            return Err(RunError::TooManyShards {
                count: spec.count,
                units,
            });
        }
        let locks = self.lock_files()?;
        let identity = Identity::of(&plan);
        // The units' estimated costs split the job into shards, start the costliest units
        // first (unless the method scrambles its order), and tell a resumed run its share; a
        // whole run of a scrambled order that resumes nothing needs them for its ETA alone,
        // worked out when the run is watched ([`Watch::wants_progress`]).
        let resuming = self.checkpoint.as_ref().is_some_and(|(p, _)| p.exists());
        let costs = (spec.count > 1 || !plan.costing().scrambled_order() || resuming)
            .then(|| cost::estimate(&plan));
        let (mine, imbalance) = match &costs {
            Some(costs) => {
                let parts = shard::assign(costs, spec.count);
                (
                    parts[spec.index as usize].clone(),
                    shard::imbalance(costs, &parts),
                )
            }
            None => ((0..units as u32).collect(), 0.0),
        };
        let (ckpt, loaded) = self.resume(&identity, &mine)?;
        let mut todo: Vec<u32> = mine
            .iter()
            .copied()
            .filter(|i| !ckpt.done.contains_key(i))
            .collect();
        if plan.costing().scrambled_order() {
            todo.sort_unstable_by_key(|&i| scrambled(i));
        }
        // Only the part this run computes: the shard's units not yet in the checkpoint.
        let share = costs
            .as_ref()
            .map_or(1.0, |c| estimate::share(c, todo.iter().copied()));
        let cpu = estimate::cpu_time(plan.job(), Some(&plan), engine.kernel()).mul_f64(share);
        if let Some(limit) = self.confirm_above {
            estimate::check_against(cpu, engine.threads(), limit)?;
        }
        Ok(Prepared {
            resumed: ckpt.done.len(),
            loaded,
            run: self,
            plan,
            identity,
            costs,
            mine,
            todo,
            ckpt,
            imbalance,
            cpu,
            locks,
        })
    }

    /// Resolves the checkpoint and result paths to the files they name, checks that those can
    /// be written and are distinct, and takes their locks (a second run on either stops here,
    /// before the checkpoint is read); then removes what killed runs left beside them.
    fn lock_files(&mut self) -> Result<Vec<RunLock>, RunError> {
        // The files themselves, links followed: the ones read, locked and replaced.
        if let Some((path, _)) = &mut self.checkpoint {
            *path = store::resolve_target(path)?;
        }
        if let Some(out) = &mut self.out {
            *out = store::resolve_target(out)?;
        }
        self.check_distinct()?;
        // Found now, not after hours of counting; each before its lock beside it.
        if let Some(out) = &self.out {
            store::check_writable(out)?;
            check_replaceable(out)?;
        }
        if let Some((path, _)) = &self.checkpoint {
            store::check_writable(path)?;
        }
        let targets: Vec<PathBuf> = [self.checkpoint.as_ref().map(|c| &c.0), self.out.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let locks = targets
            .iter()
            .map(|p| RunLock::acquire(p))
            .collect::<Result<Vec<_>, _>>()?;
        for target in &targets {
            store::remove_stale_temps(target);
        }
        Ok(locks)
    }

    /// The checkpoint this run resumes from, refused unless it is of this job and shard and
    /// holds only units of `mine`; an empty one when there is none yet. Also whether it was
    /// read.
    fn resume(&self, identity: &Identity, mine: &[u32]) -> Result<(Checkpoint, bool), RunError> {
        let Some((path, _)) = self.checkpoint.as_ref().filter(|(p, _)| p.exists()) else {
            return Ok((Checkpoint::new(identity.clone(), self.shard), false));
        };
        let c = Checkpoint::load(path)?;
        c.check_job(path, identity, self.shard)?;
        let set: std::collections::HashSet<u32> = mine.iter().copied().collect();
        if let Some(i) = c.done.keys().find(|i| !set.contains(i)) {
            return Err(StoreError::Foreign {
                path: path.clone(),
                reason: format!("unit {i} is not one of this run's units"),
            }
            .into());
        }
        Ok((c, true))
    }

    /// Refuses a run two of whose files (the checkpoint, the result file, their lock files)
    /// are one: a save would replace the other, or a lock's removal delete it.
    fn check_distinct(&self) -> Result<(), RunError> {
        let mut files: Vec<(&'static str, PathBuf)> = Vec::new();
        if let Some((path, _)) = &self.checkpoint {
            files.push(("the checkpoint", path.clone()));
            files.push(("the checkpoint's lock file", lock_path(path)));
        }
        if let Some(out) = &self.out {
            files.push(("the result file", out.clone()));
            files.push(("the result file's lock file", lock_path(out)));
        }
        for (i, (first, a)) in files.iter().enumerate() {
            for (second, b) in &files[i + 1..] {
                if store::same_file(a, b) {
                    return Err(RunError::SamePath {
                        path: a.clone(),
                        first,
                        second,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Refuses to replace a file at `out` that this program did not write: what is there must be
/// empty or a shard result file (of any job: a run again replaces its own result).
fn check_replaceable(out: &Path) -> Result<(), StoreError> {
    const SHARD: &[u8] = br#"{"format":"nqueens-shard""#;
    const CHECKPOINT: &[u8] = br#"{"format":"nqueens-checkpoint""#;
    let Some(head) = store::head(out, SHARD.len().max(CHECKPOINT.len()))? else {
        return Ok(());
    };
    if head.is_empty() || head.starts_with(SHARD) {
        return Ok(());
    }
    Err(StoreError::WrongKind {
        path: out.to_path_buf(),
        found: if head.starts_with(CHECKPOINT) {
            "checkpoint"
        } else {
            "file that nqueens did not write"
        },
        expected: "shard result file, which alone it would replace".into(),
    })
}

/// A run ready to count: its files locked (until it is dropped), its checkpoint read, its
/// work estimated.
pub struct Prepared {
    run: Run,
    plan: Arc<Plan>,
    identity: Identity,
    /// The units' estimated costs, when the run needed them before it started.
    costs: Option<Vec<u64>>,
    /// This run's units (its shard's, or all): in the order of the split (by falling cost), or
    /// in index order for a whole job whose costs were not needed before it started.
    mine: Vec<u32>,
    /// The units left to count, in the order they start.
    todo: Vec<u32>,
    ckpt: Checkpoint,
    resumed: usize,
    /// Whether the checkpoint existed and was read.
    loaded: bool,
    imbalance: f64,
    cpu: Duration,
    /// Held until the run is dropped; checked as it goes ([`RunLock::check`]).
    locks: Vec<RunLock>,
}

impl Prepared {
    /// The plan of the job.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
    /// The units this run computes (its shard's share, or all of the job's).
    pub fn units(&self) -> usize {
        self.mine.len()
    }
    /// The units of the whole job.
    pub fn job_units(&self) -> usize {
        self.plan.units().len()
    }
    /// The units already done, from the checkpoint.
    pub fn resumed(&self) -> usize {
        self.resumed
    }
    /// The checkpoint this run resumes from, if it existed.
    pub fn resumed_from(&self) -> Option<&Path> {
        let (path, _) = self.run.checkpoint.as_ref()?;
        self.loaded.then_some(path.as_path())
    }
    /// The estimated imbalance of the job's split into shards (0 for a whole job).
    pub fn imbalance(&self) -> f64 {
        self.imbalance
    }
    /// The estimated CPU time of what is left to count.
    pub fn estimated_cpu(&self) -> Duration {
        self.cpu
    }

    /// Counts the units left on `engine`, saving the checkpoint as it goes and telling
    /// `watch` of the progress; at the end writes the result file, if asked for.
    pub fn execute(mut self, engine: &Engine, watch: &mut dyn Watch) -> Result<Finish, RunError> {
        let progress = watch
            .wants_progress()
            .then(|| Tracker::new(self.eta(engine.threads()), self.mine.len(), self.resumed));
        let path = self.run.checkpoint.as_ref().map(|(p, _)| p.as_path());
        let prior = self.ckpt.elapsed;
        let mut driver = Driver::new(
            self.run.checkpoint.as_ref(),
            &mut self.ckpt,
            progress,
            watch,
            &mut self.locks,
        );
        if driver.path.is_some() && self.resumed == 0 {
            // A first save at once: a path that cannot be written fails now, not after the
            // first interval of work.
            driver.save()?;
        }
        let opts = RunOptions {
            units: Some(std::mem::take(&mut self.todo)),
            tick: self.run.tick,
            cancel: self.run.cancel.clone(),
        };
        let outcome = engine.run(&self.plan, &opts, &mut driver);
        if let Some(e) = driver.error.take() {
            return Err(e);
        }
        if let Some(e) = outcome.device_failure() {
            // The device counting alone failed: what it finished is kept, no count is given.
            driver.save()?;
            return Err(RunError::Count {
                source: e,
                saved: path.map(|p| (p.to_path_buf(), driver.ckpt.done.len())),
            });
        }
        if outcome.interrupted {
            driver.save()?;
            return Ok(Finish::Stopped {
                done: driver.ckpt.done.len(),
                units: self.mine.len(),
                saved: path.map(Path::to_path_buf),
            });
        }
        // Every unit is counted: a failed last save (a full disk, a lost lock) costs the
        // checkpoint its last units, never the count, which is returned with the failure.
        let unsaved = driver.save().err();
        let elapsed = prior.saturating_add(driver.start.elapsed());
        // Every unit of the run is in the checkpoint now, resumed or counted.
        debug_assert_eq!(driver.ckpt.done.len(), self.mine.len());
        let result = ShardResult::new(
            self.identity.clone(),
            self.run.shard.unwrap_or(ShardSpec { index: 0, count: 1 }),
            &driver.ckpt.done,
            elapsed,
            self.imbalance,
        );
        // A result that cannot be saved (the disk filled up during the run, or another run
        // took the result file's lock) is still returned, so that the caller can put it
        // elsewhere.
        let saved = self.run.out.as_ref().map(|out| {
            driver.check_locks(true)?;
            result.save(out)?;
            Ok(out.clone())
        });
        let counts = driver.ckpt.counts();
        drop(driver);
        let report = self.report(engine, counts, elapsed, outcome);
        Ok(Finish::Done(Box::new(Done {
            report,
            result,
            saved,
            unsaved,
            resumed: self.resumed,
            job_units: self.plan.units().len(),
            estimated_cpu: self.cpu,
        })))
    }

    /// The ETA of the units left on `threads` workers. A resumed run starts from the speed of
    /// the runs before it (their wall time on as many workers as this run has), so that its
    /// first seconds alone do not swing the ETA ([`Eta::with_time_before`]).
    fn eta(&mut self, threads: usize) -> Eta {
        let costs = self
            .costs
            .take()
            .unwrap_or_else(|| cost::estimate(&self.plan));
        let planned = |units: &mut dyn Iterator<Item = u32>| -> Vec<Planned> {
            units
                .map(|i| Planned {
                    id: i,
                    cost: costs[i as usize] as f64,
                    class: cost::class(&self.plan, &self.plan.units()[i as usize]),
                })
                .collect()
        };
        Eta::new(threads, planned(&mut self.todo.iter().copied()))
            .with_done_before(&planned(&mut self.ckpt.done.keys().copied()))
            .with_time_before(self.ckpt.elapsed.as_secs_f64() * threads as f64)
    }

    /// The report of the finished run: its counts over every run, of its units.
    fn report(
        &self,
        engine: &Engine,
        counts: Counts,
        elapsed: Duration,
        outcome: Outcome,
    ) -> Report {
        Report {
            n: self.plan.job().n(),
            counts,
            method: self.plan.method(),
            split_depth: self.plan.job().split_depth(),
            units: self.mine.len(),
            threads: engine.threads(),
            kernel: engine.kernel(),
            elapsed,
            devices: outcome.devices,
            searches: outcome.searches,
        }
    }
}

/// How a run ended.
#[derive(Debug)]
pub enum Finish {
    /// Every unit of the run is counted.
    Done(Box<Done>),
    /// Stopped by its cancel flag; the units finished are in the checkpoint, if any.
    Stopped {
        /// Units of this run done, from every run so far.
        done: usize,
        /// Units of this run in all.
        units: usize,
        /// The checkpoint they are saved in.
        saved: Option<PathBuf>,
    },
}

/// A finished run.
#[derive(Debug)]
pub struct Done {
    /// The counts of the run's units (a shard's share of the job), over every run that
    /// contributed; `units` is the run's units.
    pub report: Report,
    /// The result file's content (for `nqueens merge`), whether or not it was written.
    pub result: ShardResult,
    /// Where the result file was written, or why it could not be (`None`: not asked for).
    pub saved: Option<Result<PathBuf, RunError>>,
    /// Why the checkpoint's last save failed, if it did: the counts are whole, but the
    /// checkpoint may lack the units finished since the save before.
    pub unsaved: Option<RunError>,
    /// Units taken from the checkpoint rather than counted in this run.
    pub resumed: usize,
    /// The units of the whole job.
    pub job_units: usize,
    /// The CPU time estimated before the run for the units it counted
    /// ([`Prepared::estimated_cpu`]), to set beside the time it took.
    pub estimated_cpu: Duration,
}

/// Where a run's progress goes (a progress bar, a log line, nothing: `()`).
pub trait Watch {
    /// Called when a unit finishes and at least every [`Run::tick`] otherwise.
    fn progress(&mut self, _progress: &Progress) {}

    /// Whether [`Watch::progress`] is wanted at all: a watch that shows nothing says no, and
    /// the run then works out no share and no ETA.
    fn wants_progress(&self) -> bool {
        true
    }
}

impl Watch for () {
    fn wants_progress(&self) -> bool {
        false
    }
}

/// How far a run is: units, the share of the estimated work, and the time left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Units of the run done (resumed ones included).
    pub units_done: usize,
    /// Units of the run in all.
    pub units_total: usize,
    /// Units done in this run (not resumed).
    pub units_this_run: usize,
    /// The share of the run's estimated work done, 0 to 1, the estimate corrected by the
    /// measured times of the units finished.
    pub fraction: f64,
    /// The time left, when it can be told yet: not before a unit has finished, nor in a fresh
    /// run's first half second.
    pub remaining: Option<Duration>,
    /// Wall time of this run so far.
    pub elapsed: Duration,
}

/// How often the ETA is worked out again at most (a bar is redrawn on every finished unit).
const RECOMPUTE: Duration = Duration::from_millis(250);

/// The share of the run's units whose finishing makes the progress be worked out again however
/// little time has passed: a run shorter than [`RECOMPUTE`] would else show the share of its
/// first unit to its end. Each working out
/// costs a pass over the units, so at most a hundred such passes a run.
const RECOMPUTE_SHARE: f64 = 0.01;

/// Whether progress worked out `age` ago, with `since` units finished since, is to be worked
/// out again, of `total` units.
fn stale(age: Duration, since: usize, total: usize) -> bool {
    age >= RECOMPUTE || since as f64 >= (RECOMPUTE_SHARE * total as f64).max(1.0)
}

/// The progress of a run, worked out from the units' measured times.
pub(crate) struct Tracker {
    eta: Eta,
    start: Instant,
    units_total: usize,
    units_done: usize,
    units_at_start: usize,
    /// The last (share done, seconds left) worked out, when, and the units done then.
    cached: Option<(Instant, f64, Option<f64>, usize)>,
}

impl Tracker {
    pub(crate) fn new(eta: Eta, units_total: usize, done: usize) -> Tracker {
        Tracker {
            eta,
            start: Instant::now(),
            units_total,
            units_done: done,
            units_at_start: done,
            cached: None,
        }
    }

    /// The unit `index` finished, as the engine timed it.
    pub(crate) fn unit_done(&mut self, index: u32, timing: &UnitTiming) {
        self.units_done += 1;
        let (started, elapsed) = (timing.started.as_secs_f64(), timing.elapsed.as_secs_f64());
        self.eta.finished(index, timing.worker, started, elapsed);
    }

    /// The progress now: worked out again when it is [`stale`] or every unit is done; in
    /// between, the time left counts down from the last working out.
    pub(crate) fn now(&mut self) -> Progress {
        let all_done = self.units_done == self.units_total;
        let (fraction, left) = match self.cached {
            Some((at, fraction, left, done))
                if !all_done && !stale(at.elapsed(), self.units_done - done, self.units_total) =>
            {
                (fraction, left.map(|s| s - at.elapsed().as_secs_f64()))
            }
            _ => {
                let now = self.start.elapsed().as_secs_f64();
                let (fraction, left) = (self.eta.fraction_done(now), self.eta.remaining(now));
                self.cached = Some((Instant::now(), fraction, left, self.units_done));
                (fraction, left)
            }
        };
        Progress {
            units_done: self.units_done,
            units_total: self.units_total,
            units_this_run: self.units_done - self.units_at_start,
            fraction,
            remaining: left.map(|s| Duration::from_secs_f64(s.clamp(0.0, 1e12))),
            elapsed: self.start.elapsed(),
        }
    }
}

/// The observer of a long run: records finished units, saves the checkpoint when due, and
/// keeps the progress.
struct Driver<'a> {
    path: Option<&'a Path>,
    every: Duration,
    last_save: Instant,
    /// How long the last save took.
    save_took: Duration,
    dirty: bool,
    prior: Duration,
    start: Instant,
    ckpt: &'a mut Checkpoint,
    /// The progress, when the watch wants it.
    progress: Option<Tracker>,
    watch: &'a mut dyn Watch,
    error: Option<RunError>,
    locks: &'a mut [RunLock],
    /// When the locks were last checked.
    locks_checked: Instant,
}

/// How many times its own duration a save waits at least before the next: checkpoints take at
/// most about 1/20 of a run's time whatever the interval asked for, so that
/// `--checkpoint-every 0` (a save after every unit) stays cheap where the file is large (a
/// save rewrites the whole file: after every unit the cost would grow with the square of the
/// units).
const SAVE_SPACING: u32 = 20;

/// Whether a save is due, `since` the last one, which took `took`: the interval `every` has
/// passed, and [`SAVE_SPACING`] times the last save's duration.
fn save_due(every: Duration, took: Duration, since: Duration) -> bool {
    since >= every.max(took.saturating_mul(SAVE_SPACING))
}

/// How often a run checks that its lock files are still in place ([`RunLock::check`]).
const LOCK_CHECK: Duration = Duration::from_millis(100);

impl<'a> Driver<'a> {
    /// The observer of a run that saves `ckpt` to the checkpoint file and interval of
    /// `checkpoint` (none: no saves), tells `watch` of its `progress` and checks `locks`.
    fn new(
        checkpoint: Option<&'a (PathBuf, Duration)>,
        ckpt: &'a mut Checkpoint,
        progress: Option<Tracker>,
        watch: &'a mut dyn Watch,
        locks: &'a mut [RunLock],
    ) -> Driver<'a> {
        Driver {
            path: checkpoint.map(|(p, _)| p.as_path()),
            every: checkpoint.map_or(Duration::MAX, |c| c.1),
            last_save: Instant::now(),
            save_took: Duration::ZERO,
            dirty: false,
            prior: ckpt.elapsed,
            start: Instant::now(),
            ckpt,
            progress,
            watch,
            error: None,
            locks,
            locks_checked: Instant::now(),
        }
    }

    /// Checks the locks (when [`LOCK_CHECK`] has passed, or `now`).
    fn check_locks(&mut self, now: bool) -> Result<(), LockError> {
        if now || self.locks_checked.elapsed() >= LOCK_CHECK {
            self.locks_checked = Instant::now();
            for lock in self.locks.iter_mut() {
                lock.check()?;
            }
        }
        Ok(())
    }

    fn save(&mut self) -> Result<(), RunError> {
        let Some(path) = self.path else {
            return Ok(());
        };
        // Never over the saves of a run that took the checkpoint over.
        self.check_locks(true)?;
        self.ckpt.elapsed = self.prior.saturating_add(self.start.elapsed());
        let t0 = Instant::now();
        self.ckpt.save(path)?;
        self.save_took = t0.elapsed();
        // The new file, under any name it may be given, is this run's too.
        if let Some(lock) = self.locks.iter_mut().find(|l| l.target() == path) {
            lock.lock_target()?;
        }
        self.dirty = false;
        self.last_save = Instant::now();
        Ok(())
    }

    fn save_if_due(&mut self) -> ControlFlow<()> {
        let due = save_due(self.every, self.save_took, self.last_save.elapsed());
        let result = if self.dirty && due {
            self.save()
        } else {
            self.check_locks(false).map_err(RunError::from)
        };
        match result {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.error = Some(e);
                ControlFlow::Break(())
            }
        }
    }
}

impl Observer for Driver<'_> {
    fn unit_done(&mut self, unit: &Unit, counts: Counts, timing: UnitTiming) -> ControlFlow<()> {
        self.ckpt.done.insert(unit.index, counts);
        self.dirty = true;
        if let Some(progress) = &mut self.progress {
            progress.unit_done(unit.index, &timing);
            let p = progress.now();
            self.watch.progress(&p);
        }
        self.save_if_due()
    }

    fn tick(&mut self) -> ControlFlow<()> {
        if let Some(progress) = &mut self.progress {
            let p = progress.now();
            self.watch.progress(&p);
        }
        self.save_if_due()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(costs: &[f64]) -> Vec<Planned> {
        costs
            .iter()
            .enumerate()
            .map(|(i, &cost)| Planned {
                id: i as u32,
                cost,
                class: 0,
            })
            .collect()
    }

    #[test]
    fn saves_are_spaced_by_their_own_cost() {
        let ms = Duration::from_millis;
        assert!(save_due(ms(0), ms(0), ms(0)));
        assert!(save_due(ms(100), ms(1), ms(100)));
        assert!(!save_due(ms(100), ms(1), ms(99)));
        // A save of 10 ms: the next one 200 ms later at the soonest, whatever was asked.
        assert!(!save_due(ms(0), ms(10), ms(199)));
        assert!(save_due(ms(0), ms(10), ms(200)));
        assert!(!save_due(ms(60_000), ms(10), ms(59_999)));
    }

    #[test]
    fn progress_follows_the_corrected_work() {
        let all = planned(&[10.0, 45.0, 45.0]);
        let eta = Eta::new(1, all[1..].to_vec()).with_done_before(&all[..1]);
        let mut t = Tracker::new(eta, 3, 1);
        // The run's clock at the 9 s the unit below took.
        t.start = Instant::now() - Duration::from_secs(9);
        let p = t.now();
        assert!((p.fraction - 0.1).abs() < 1e-9 && p.remaining.is_none());
        let timing = |started: u64, elapsed: u64| UnitTiming {
            worker: 0,
            started: Duration::from_secs(started),
            elapsed: Duration::from_secs(elapsed),
        };
        t.unit_done(1, &timing(0, 9));
        t.cached = None;
        let p = t.now();
        assert!((p.fraction - 0.55).abs() < 1e-9);
        // 45 of the estimate took 9 s (as the engine timed it); the unit left started then.
        let left = p.remaining.unwrap().as_secs_f64();
        assert!(left > 0.0 && left <= 9.0);
        t.unit_done(2, &timing(9, 9));
        let p = t.now();
        assert_eq!((p.fraction, p.remaining), (1.0, Some(Duration::ZERO)));
        assert_eq!((p.units_done, p.units_total, p.units_this_run), (3, 3, 2));
    }

    #[test]
    fn progress_is_worked_out_again_by_time_or_by_units() {
        let ms = Duration::from_millis;
        assert!(!stale(ms(249), 32, 3206));
        assert!(stale(ms(249), 33, 3206));
        assert!(stale(ms(250), 0, 3206));
        // A run of few units: after every one.
        assert!(stale(ms(0), 1, 78));
        assert!(!stale(ms(0), 0, 78));
    }

    /// N = 16's 3206 edge units, in the run's order and each as long as its estimate, reported
    /// within far less than [`RECOMPUTE`] (as in a run of a quarter of a second): the share
    /// shown moves with them (it stayed at the first unit's 0.0 %, issue 29).
    #[test]
    fn the_share_of_a_short_run_moves_with_its_units() {
        let plan = Plan::new(Job::new(16).unwrap().with_default_split_depth(2));
        let costs = cost::estimate(&plan);
        let mean = costs.iter().sum::<u64>() as f64 / costs.len() as f64;
        let mut order: Vec<u32> = (0..costs.len() as u32).collect();
        order.sort_by_key(|&i| scrambled(i));
        let planned = |i: u32| Planned {
            id: i,
            cost: costs[i as usize] as f64,
            class: cost::class(&plan, &plan.units()[i as usize]),
        };
        let eta = Eta::new(2, order.iter().map(|&i| planned(i)).collect());
        let mut t = Tracker::new(eta, order.len(), 0);
        let mut free = [0.0f64; 2];
        let (mut done, mut shown) = (0.0, Vec::new());
        for (k, &i) in order.iter().enumerate() {
            let secs = costs[i as usize] as f64 / mean;
            let worker = k % 2;
            let timing = UnitTiming {
                worker,
                started: Duration::from_secs_f64(free[worker]),
                elapsed: Duration::from_secs_f64(secs),
            };
            free[worker] += secs;
            t.unit_done(i, &timing);
            done += costs[i as usize] as f64 / mean / costs.len() as f64;
            shown.push((done, t.now().fraction));
        }
        // The share shown is the share of the estimate done, but for the units since it was
        // last worked out (a hundredth of them).
        for &(done, fraction) in &shown {
            assert!((fraction - done).abs() < 0.02, "{fraction} against {done}");
        }
        let half = shown[order.len() / 2].1;
        assert!((0.45..0.55).contains(&half), "{half}");
    }
}
