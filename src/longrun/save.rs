//! The one save path of a run's checkpoint: the first save, the saves due as the run goes, the
//! save after the last unit, the save when a run is stopped and the save when a device fails
//! all go through [`Saver::save`], under one rule: **a failed save never costs a finished
//! count**. A save that fails during the run (a full disk, a file-size limit) is told to the
//! watch and tried again at the next one while the run goes on counting; after the last unit the
//! count is returned whatever became of the save ([`Saved::failed`]); only a lost lock (another
//! run now owns the file) stops a run, since nothing may be written there any more.

use super::checkpoint::Checkpoint;
use super::lock::{LockError, RunLock};
use super::run::RunError;
use super::watch::{SaveEvent, Watch};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// What became of a run's checkpoint when the run ended.
#[derive(Debug)]
pub struct Saved {
    /// The checkpoint.
    pub path: PathBuf,
    /// The units it holds (those of its last save that succeeded).
    pub holds: usize,
    /// The units of the run.
    pub of: usize,
    /// Why its last save failed, if it did: the file keeps its earlier content.
    pub failed: Option<Box<RunError>>,
}

/// The saves of one run's checkpoint, and the checks of its locks.
pub(crate) struct Saver<'a> {
    path: Option<&'a Path>,
    every: Duration,
    /// When the last save was tried, and how long it took.
    last: Instant,
    took: Duration,
    /// Units finished since the last save that succeeded.
    dirty: bool,
    /// The run's time before this one (from the checkpoint), and this run's start.
    prior: Duration,
    start: Instant,
    /// The units the file on disk holds.
    holds: usize,
    /// Why the last save failed, when it did.
    failure: Option<RunError>,
    locks: &'a mut [RunLock],
    locks_checked: Instant,
}

impl<'a> Saver<'a> {
    /// The saves to `checkpoint` (file and interval; none: no saves) of a run that resumed
    /// `ckpt` as it is now, checking `locks`.
    pub(crate) fn new(
        checkpoint: Option<&'a (PathBuf, Duration)>,
        ckpt: &Checkpoint,
        resumed: bool,
        locks: &'a mut [RunLock],
    ) -> Saver<'a> {
        Saver {
            path: checkpoint.map(|(p, _)| p.as_path()),
            every: checkpoint.map_or(Duration::MAX, |c| c.1),
            last: Instant::now(),
            took: Duration::ZERO,
            dirty: false,
            prior: ckpt.elapsed,
            start: Instant::now(),
            holds: if resumed { ckpt.done.len() } else { 0 },
            failure: None,
            locks,
            locks_checked: Instant::now(),
        }
    }

    /// The run's wall time over every run so far.
    pub(crate) fn elapsed(&self) -> Duration {
        self.prior.saturating_add(self.start.elapsed())
    }

    /// A unit finished: the checkpoint has something new to save.
    pub(crate) fn unit_done(&mut self) {
        self.dirty = true;
    }

    /// Checks the locks (when [`LOCK_CHECK`] has passed, or `now`).
    pub(crate) fn check_locks(&mut self, now: bool) -> Result<(), LockError> {
        if now || self.locks_checked.elapsed() >= LOCK_CHECK {
            self.locks_checked = Instant::now();
            for lock in self.locks.iter_mut() {
                lock.check()?;
            }
        }
        Ok(())
    }

    /// Saves `ckpt` now (no checkpoint: nothing to do): the one save of every moment of a run.
    /// On success the file holds every unit of `ckpt`; on failure it keeps its earlier content,
    /// and the failure is kept ([`Saver::failure`], [`Saver::finish`]). Whether it succeeded.
    pub(crate) fn save(&mut self, ckpt: &mut Checkpoint) -> bool {
        let Some(path) = self.path else {
            return true;
        };
        ckpt.elapsed = self.elapsed();
        let t0 = Instant::now();
        let result = self.write(path, ckpt);
        self.took = t0.elapsed();
        self.last = Instant::now();
        match result {
            Ok(()) => {
                self.holds = ckpt.done.len();
                self.dirty = false;
                self.failure = None;
                true
            }
            Err(e) => {
                self.failure = Some(e);
                false
            }
        }
    }

    /// Why the last save failed, taken (`None` when it did not).
    pub(crate) fn take_failure(&mut self) -> Option<RunError> {
        self.failure.take()
    }

    /// Never over the saves of a run that took the checkpoint over; the new file, under any
    /// name it may be given, is this run's too.
    fn write(&mut self, path: &Path, ckpt: &Checkpoint) -> Result<(), RunError> {
        self.check_locks(true)?;
        ckpt.save(path)?;
        if let Some(lock) = self.locks.iter_mut().find(|l| l.target() == path) {
            lock.lock_target()?;
        }
        Ok(())
    }

    /// As the run goes (a unit finished, or a tick): saves `ckpt` when a save is due, telling
    /// `watch` when a save fails and when one succeeds again, and checks the locks. An error
    /// only when the run must stop: its lock was lost.
    pub(crate) fn as_it_goes(
        &mut self,
        ckpt: &mut Checkpoint,
        units: usize,
        watch: &mut dyn Watch,
    ) -> Result<(), RunError> {
        if !(self.dirty && save_due(self.every, self.took, self.last.elapsed())) {
            return self.check_locks(false).map_err(RunError::from);
        }
        let was_failing = self.failure.is_some();
        let holds = self.holds;
        if self.save(ckpt) {
            if was_failing {
                watch.checkpoint(&SaveEvent::Recovered {
                    holds: self.holds,
                    of: units,
                });
            }
            return Ok(());
        }
        match &self.failure {
            Some(RunError::Lock(LockError::Lost { .. })) => {
                Err(self.failure.take().expect("the save failed"))
            }
            Some(error) if !was_failing => {
                watch.checkpoint(&SaveEvent::Failed {
                    error,
                    holds,
                    of: units,
                });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// What became of the checkpoint: the file, the units it holds of the run's `units`, and
    /// why its last save failed, if it did; `None` without a checkpoint.
    pub(crate) fn finish(self, units: usize) -> Option<Saved> {
        Some(Saved {
            path: self.path?.to_path_buf(),
            holds: self.holds,
            of: units,
            failed: self.failure.map(Box::new),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::longrun::Identity;
    use crate::plan::{Job, Plan};
    use crate::Counts;

    /// A watch that keeps what it is told of the saves.
    #[derive(Default)]
    struct Told(Vec<String>);

    impl Watch for Told {
        fn checkpoint(&mut self, event: &SaveEvent<'_>) {
            self.0.push(event.to_string());
        }
    }

    /// The contract of the save path: a save that fails during the run is told once and the
    /// run goes on (no error), the file keeping its last good content; the next save that
    /// succeeds is told too; at the end the checkpoint says what it holds, or why its last save
    /// failed.
    #[test]
    fn a_failed_save_is_told_once_retried_and_never_stops_the_run() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("d");
        let away = top.path().join("away");
        std::fs::create_dir(&dir).unwrap();
        let path = dir.join("c.ckpt");
        let plan = Plan::new(Job::new(8).unwrap().with_split_depth(2).unwrap());
        let mut ckpt = Checkpoint::new(Identity::of(&plan), None);
        let mut locks = vec![RunLock::acquire(&path).unwrap()];
        let file = (path.clone(), Duration::ZERO);
        let mut saver = Saver::new(Some(&file), &ckpt, false, &mut locks);
        let mut told = Told::default();
        assert!(saver.save(&mut ckpt));
        let unit = |saver: &mut Saver, ckpt: &mut Checkpoint, told: &mut Told, i: u32| {
            ckpt.done.insert(
                i,
                Counts {
                    total: 1,
                    unique: 0,
                },
            );
            saver.unit_done();
            // A save due now, whatever the last one cost (the spacing is tested above).
            saver.took = Duration::ZERO;
            saver.last = Instant::now() - Duration::from_secs(1);
            saver.as_it_goes(ckpt, 10, told)
        };
        unit(&mut saver, &mut ckpt, &mut told, 0).unwrap();
        assert!(told.0.is_empty());
        assert_eq!(Checkpoint::load(&path).unwrap().done.len(), 1);
        // The folder gone: the saves fail, said once, and the run goes on.
        std::fs::rename(&dir, &away).unwrap();
        unit(&mut saver, &mut ckpt, &mut told, 1).unwrap();
        assert_eq!(told.0.len(), 1, "{:?}", told.0);
        unit(&mut saver, &mut ckpt, &mut told, 2).unwrap();
        assert_eq!(told.0.len(), 1, "{:?}", told.0);
        assert!(told.0[0].contains("cannot write"), "{}", told.0[0]);
        assert!(
            told.0[0].contains("keeps the 1 of 10 units of its last save, and the run goes on"),
            "{}",
            told.0[0]
        );
        assert_eq!(
            Checkpoint::load(&away.join("c.ckpt")).unwrap().done.len(),
            1
        );
        // Back: the next save succeeds and says so.
        std::fs::rename(&away, &dir).unwrap();
        unit(&mut saver, &mut ckpt, &mut told, 3).unwrap();
        assert_eq!(told.0.len(), 2);
        assert_eq!(
            told.0[1],
            "the checkpoint is saved again: it holds 4 of 10 units"
        );
        assert_eq!(Checkpoint::load(&path).unwrap().done.len(), 4);
        // A failed last save is kept for the end, with what the file holds.
        std::fs::rename(&dir, &away).unwrap();
        ckpt.done.insert(
            4,
            Counts {
                total: 1,
                unique: 0,
            },
        );
        assert!(!saver.save(&mut ckpt));
        let saved = saver.finish(10).unwrap();
        assert_eq!((saved.holds, saved.of), (4, 10));
        assert!(saved.failed.is_some());
        assert_eq!(saved.path, path);
    }

    /// The locks guard the saves: a run whose lock another run took (its lock file removed,
    /// its checkpoint gone) stops at its next save or check, and only then; the checkpoint it
    /// saves is locked under its name, so that no other run can start from it; nothing new,
    /// nothing saved; a failed save is kept until taken; the file records the run's time.
    #[test]
    fn a_lost_lock_stops_the_run_and_a_saved_checkpoint_is_locked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        let plan = Plan::new(Job::new(8).unwrap().with_split_depth(2).unwrap());
        let mut ckpt = Checkpoint::new(Identity::of(&plan), None);
        let mut locks = vec![RunLock::acquire(&path).unwrap()];
        let lock_file = locks[0].path().to_path_buf();
        let file = (path.clone(), Duration::ZERO);
        let mut saver = Saver::new(Some(&file), &ckpt, false, &mut locks);
        std::thread::sleep(Duration::from_millis(20));
        assert!(saver.save(&mut ckpt));
        assert!(saver.take_failure().is_none());
        assert!(Checkpoint::load(&path).unwrap().elapsed >= Duration::from_millis(20));
        // The saved file is locked: a run that finds no lock file still cannot take it.
        std::fs::remove_file(&lock_file).unwrap();
        assert!(matches!(
            RunLock::acquire(&path),
            Err(LockError::HeldByFile { .. })
        ));
        // Nothing new since the last save: none is made, however due.
        std::fs::remove_file(&path).unwrap();
        saver.took = Duration::ZERO;
        saver.last = Instant::now() - Duration::from_secs(1);
        let mut told = Told::default();
        saver.as_it_goes(&mut ckpt, 10, &mut told).unwrap();
        assert!(!path.exists());
        // Another run takes the lock (no lock file, no checkpoint to hold): checked now, the
        // lock is lost; not yet due, not checked.
        let _other = RunLock::acquire(&path).unwrap();
        saver.locks_checked = Instant::now();
        assert!(saver.check_locks(false).is_ok());
        assert!(matches!(
            saver.check_locks(true),
            Err(LockError::Lost { .. })
        ));
        // A save due with the lock lost: the run stops, and no save is said to have failed.
        ckpt.done.insert(
            0,
            Counts {
                total: 1,
                unique: 0,
            },
        );
        saver.unit_done();
        saver.took = Duration::ZERO;
        saver.last = Instant::now() - Duration::from_secs(1);
        let stop = saver.as_it_goes(&mut ckpt, 10, &mut told);
        assert!(
            matches!(stop, Err(RunError::Lock(LockError::Lost { .. }))),
            "{stop:?}"
        );
        assert!(told.0.is_empty(), "{:?}", told.0);
        assert!(!path.exists());
        // A failed save is kept until taken.
        assert!(!saver.save(&mut ckpt));
        assert!(saver.take_failure().is_some());
        assert!(saver.take_failure().is_none());
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
}
