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
//! A save that fails (a full disk; a file-size limit, `ulimit -f`, which kills a process with
//! SIGXFSZ unless it ignores that signal, as the `nqueens` command does, so that the write fails
//! with EFBIG instead) never costs a finished count: the run goes on and tries again at the next
//! save ([`super::save`]), and a finished result that cannot be saved is returned
//! ([`Done::saved`], [`Done::checkpoint`]).
//!
//! Split depth on resume: a job resumed from a checkpoint must have the checkpoint's depth
//! ([`Run::defaults`] reads it for callers that let the user leave it out). Shards default to
//! a depth that depends on the method and the number of shards only, never on the machine, so
//! that shards run on different machines split the job alike.

use super::checkpoint::Checkpoint;
use super::error::StoreError;
use super::estimate::{self, TooLong};
use super::execute::{Done, Prepared};
use super::identity::Identity;
use super::lock::LockError;
use super::spec::ShardSpec;
use super::{assign, files};
use crate::engine::Engine;
use crate::known::Mismatch;
use crate::plan::eta::scrambled;
use crate::plan::{cost, Job, Method, Plan};
use crate::{Cancel, Class, Classify};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;

/// A long run of one job: build it, [`Run::prepare`] it (locks taken, checkpoint read, work
/// estimated), then [`Prepared::execute`] it on an engine.
///
/// ```
/// use nqueens_count::longrun::{Finish, Run};
/// use nqueens_count::{Cancel, Engine, Job};
/// use std::time::Duration;
///
/// let ckpt = std::env::temp_dir().join(format!("nqueens-run-{}.ckpt", std::process::id()));
/// let engine = Engine::new(2)?;
/// let job = Job::new(13)?.with_unique(true).with_split_depth(2)?;
///
/// // A run stopped at once (as a signal handler would): what it finished is saved.
/// let stop = Cancel::new();
/// stop.cancel();
/// let run = Run::new(job.clone())
///     .checkpoint(&ckpt, Duration::from_secs(60))
///     .cancel_on(stop.clone());
/// assert!(matches!(run.prepare(&engine)?.execute(&engine, &mut ())?, Finish::Stopped { .. }));
///
/// // The same command again resumes from the checkpoint and finishes.
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
    overwrite: bool,
    confirm_above: Option<Duration>,
    cancel: Cancel,
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
    /// The result file's path holds a file the run may not replace ([`Run::overwrite`]): left
    /// untouched.
    #[error("{source}")]
    Occupied {
        /// What is there.
        source: Box<StoreError>,
        /// Whether [`Run::overwrite`] would let the run replace it (a result file of another
        /// job or shard, or a damaged one), as opposed to never (a checkpoint, a file this
        /// program did not write).
        overwritable: bool,
    },
    /// The count failed (an OpenCL device counting alone failed); what was finished is saved.
    #[error("no count{}: {source}", saved_note(.saved))]
    Count {
        /// Why.
        source: crate::Error,
        /// What became of the checkpoint.
        saved: Option<super::save::Saved>,
    },
    /// Every unit of a whole job is counted, and the total differs from the published value:
    /// a unit was counted wrong, or a checkpoint resumed holds wrong counts. The finished run
    /// (its files written) is kept here; its count must not be announced.
    #[error("{mismatch}")]
    Mismatch {
        /// The finished run.
        done: Box<Done>,
        /// How its count differs from the published one.
        mismatch: Mismatch,
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

fn saved_note(saved: &Option<super::save::Saved>) -> String {
    match saved {
        Some(s) if s.failed.is_none() => {
            format!(
                "; the {} finished units are saved in {}",
                s.holds,
                s.path.display()
            )
        }
        Some(s) => format!(
            "; {} keeps the {} units of its last save (the last save failed: {})",
            s.path.display(),
            s.holds,
            s.failed
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default()
        ),
        None => String::new(),
    }
}

impl Classify for RunError {
    fn class(&self) -> Class {
        match self {
            RunError::Store(e) => e.class(),
            RunError::Lock(e) => e.class(),
            RunError::TooLong(_)
            | RunError::SamePath { .. }
            | RunError::TooManyShards { .. }
            | RunError::Occupied { .. } => Class::Request,
            RunError::Count { .. } => Class::Machine,
            RunError::Mismatch { .. } => Class::Disagreement,
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
            overwrite: false,
            confirm_above: Some(estimate::CONFIRM_ABOVE),
            cancel: Cancel::new(),
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

    /// Lets the run replace a result file at [`Run::out`] of another job or shard, or a damaged
    /// one; without it only a result of this very job and shard is replaced (a checkpoint, or a
    /// file this program did not write, never is: [`RunError::Occupied`]).
    pub fn overwrite(mut self, yes: bool) -> Run {
        self.overwrite = yes;
        self
    }

    /// Refuses to start a run estimated to take more CPU time than `limit` (`None`: no limit;
    /// the default is [`estimate::CONFIRM_ABOVE`]). A resumed run or a shard counts only its
    /// part.
    pub fn confirm_above(mut self, limit: Option<Duration>) -> Run {
        self.confirm_above = limit;
        self
    }

    /// Stops the run, saving the checkpoint, once `cancel` is cancelled (from a signal
    /// handler, say).
    pub fn cancel_on(mut self, cancel: Cancel) -> Run {
        self.cancel = cancel;
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
    /// directory, a device, a FIFO or a socket is refused. A symbolic link there is followed to
    /// the file it names, which is the file read, locked and replaced (the link stays), except
    /// a link of another user in a sticky directory every user may write to (`/tmp`), as
    /// Linux's `fs.protected_symlinks` refuses. A file at the result file's path is replaced
    /// only by the rule of [`Run::overwrite`] ([`RunError::Occupied`]). No two of the
    /// checkpoint, the result file and their lock files may be one file
    /// ([`RunError::SamePath`]). More shards than the job has units are refused
    /// ([`RunError::TooManyShards`]). A checkpoint is resumed only by the program version that
    /// began it, for the same job and shard, holding only units of that shard. Temporary files
    /// that killed runs left beside the two files are removed once their locks are held.
    pub fn prepare(mut self, engine: &Engine) -> Result<Prepared, RunError> {
        let plan = Arc::new(Plan::new(self.job.clone()));
        let spec = self.shard.unwrap_or(ShardSpec::WHOLE);
        let units = plan.units().len();
        if spec.count as usize > units.max(1) {
            return Err(RunError::TooManyShards {
                count: spec.count,
                units,
            });
        }
        let identity = Identity::of(&plan);
        let locks = files::prepare(
            self.checkpoint.as_mut().map(|(p, _)| p),
            self.out.as_mut(),
            &identity,
            spec,
            self.overwrite,
        )?;
        // The units' estimated costs split the job into shards, start the costliest units
        // first (unless the method scrambles its order), and tell a resumed run its share; a
        // whole run of a scrambled order that resumes nothing needs them for its ETA alone,
        // worked out when the run is watched (`Watch::wants_progress`).
        let resuming = self.checkpoint.as_ref().is_some_and(|(p, _)| p.exists());
        let costs = (spec.count > 1 || !plan.costing().scrambled_order() || resuming)
            .then(|| cost::estimate(&plan));
        let (mine, imbalance) = match &costs {
            Some(costs) => {
                let parts = assign::assign(costs, spec.count);
                (
                    parts[spec.index as usize].clone(),
                    assign::imbalance(costs, &parts),
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
        Ok(Prepared::new(super::execute::Parts {
            run: self,
            plan,
            identity,
            costs,
            mine,
            todo,
            ckpt,
            loaded,
            imbalance,
            cpu,
            locks,
        }))
    }

    /// The checkpoint this run resumes from, refused unless it is of this job and shard and
    /// holds only units of `mine` ([`Checkpoint::check_resume`]); an empty one when there is
    /// none yet. Also whether it was read.
    fn resume(&self, identity: &Identity, mine: &[u32]) -> Result<(Checkpoint, bool), RunError> {
        let Some((path, _)) = self.checkpoint.as_ref().filter(|(p, _)| p.exists()) else {
            return Ok((Checkpoint::new(identity.clone(), self.shard), false));
        };
        let c = Checkpoint::load(path)?;
        let mut assigned = mine.to_vec();
        assigned.sort_unstable();
        c.check_resume(path, identity, self.shard, &assigned)?;
        Ok((c, true))
    }

    /// The checkpoint and its save interval, if any.
    pub(crate) fn checkpoint_file(&self) -> Option<&(PathBuf, Duration)> {
        self.checkpoint.as_ref()
    }

    /// The shard, if only one.
    pub(crate) fn shard_spec(&self) -> Option<ShardSpec> {
        self.shard
    }

    /// The result file, if asked for.
    pub(crate) fn out_file(&self) -> Option<&Path> {
        self.out.as_deref()
    }

    /// The cancel flag and the tick.
    pub(crate) fn cancel_and_tick(&self) -> (Cancel, Duration) {
        (self.cancel.clone(), self.tick)
    }
}
