//! A prepared run counting: the engine's observer that records each finished unit, saves the
//! checkpoint through the one save path ([`super::save`]) and keeps the progress; and how the
//! run ends ([`Finish`]): every unit counted (the result file written, the total checked
//! against the published value for a whole job), stopped, or failed.

use super::checkpoint::Checkpoint;
use super::identity::Identity;
use super::lock::RunLock;
use super::progress::{planned, Tracker};
use super::result::ShardResult;
use super::run::{Run, RunError};
use super::save::{Saved, Saver};
use super::spec::ShardSpec;
use super::watch::Watch;
use crate::engine::{Engine, Observer, Outcome, Report, RunOptions, UnitTiming};
use crate::plan::eta::Eta;
use crate::plan::{cost, Plan};
use crate::search::{Counts, Unit};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

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

/// What [`Run::prepare`] found, to make a [`Prepared`] of.
pub(crate) struct Parts {
    pub run: Run,
    pub plan: Arc<Plan>,
    pub identity: Identity,
    pub costs: Option<Vec<u64>>,
    pub mine: Vec<u32>,
    pub todo: Vec<u32>,
    pub ckpt: Checkpoint,
    pub loaded: bool,
    pub imbalance: f64,
    pub cpu: Duration,
    pub locks: Vec<RunLock>,
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
        /// What became of the checkpoint (`None`: the run had none).
        saved: Option<Saved>,
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
    /// What became of the checkpoint (`None`: the run had none): when its last save failed,
    /// the counts are whole all the same, but the file lacks the units finished since its last
    /// save that succeeded.
    pub checkpoint: Option<Saved>,
    /// Units taken from the checkpoint rather than counted in this run.
    pub resumed: usize,
    /// The units of the whole job.
    pub job_units: usize,
    /// The CPU time estimated before the run for the units it counted
    /// ([`Prepared::estimated_cpu`]), to set beside the time it took.
    pub estimated_cpu: Duration,
}

impl Prepared {
    pub(crate) fn new(p: Parts) -> Prepared {
        Prepared {
            resumed: p.ckpt.done.len(),
            run: p.run,
            plan: p.plan,
            identity: p.identity,
            costs: p.costs,
            mine: p.mine,
            todo: p.todo,
            ckpt: p.ckpt,
            loaded: p.loaded,
            imbalance: p.imbalance,
            cpu: p.cpu,
            locks: p.locks,
        }
    }

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
        let (path, _) = self.run.checkpoint_file()?;
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
    /// `watch` of the progress; at the end writes the result file, if asked for, and checks a
    /// whole job's total against the published value ([`crate::known::check`]:
    /// [`RunError::Mismatch`]).
    pub fn execute(mut self, engine: &Engine, watch: &mut dyn Watch) -> Result<Finish, RunError> {
        let progress = watch
            .wants_progress()
            .then(|| Tracker::new(self.eta(engine.threads()), self.mine.len(), self.resumed));
        let units = self.mine.len();
        let saver = Saver::new(
            self.run.checkpoint_file(),
            &self.ckpt,
            self.loaded,
            &mut self.locks,
        );
        let mut driver = Driver {
            ckpt: &mut self.ckpt,
            saver,
            units,
            progress,
            watch,
            error: None,
        };
        if self.run.checkpoint_file().is_some() && self.resumed == 0 && !driver.save() {
            // A first save at once: a path that cannot be written fails now, not after the
            // first interval of work.
            return Err(driver.saver.take_failure().expect("the save failed"));
        }
        let (cancel, tick) = self.run.cancel_and_tick();
        let opts = RunOptions {
            units: Some(std::mem::take(&mut self.todo)),
            tick,
            cancel,
        };
        let outcome = engine.run(&self.plan, &opts, &mut driver);
        if let Some(e) = driver.error.take() {
            return Err(e);
        }
        driver.save();
        let done = driver.ckpt.done.len();
        let counts = driver.ckpt.counts();
        let elapsed = driver.saver.elapsed();
        let saved = driver.saver.finish(units);
        if let Some(source) = outcome.device_failure() {
            // The device counting alone failed: what it finished is kept, no count is given.
            return Err(RunError::Count { source, saved });
        }
        if outcome.interrupted {
            return Ok(Finish::Stopped { done, units, saved });
        }
        self.finish(engine, counts, elapsed, outcome, saved)
    }

    /// The end of a run whose every unit is counted: the result file written (if asked for),
    /// the report made, a whole job's total checked against the published value. A result
    /// that cannot be saved (the disk filled up during the run, or another run took the result
    /// file's lock) is still returned, so that the caller can put it elsewhere.
    fn finish(
        mut self,
        engine: &Engine,
        counts: Counts,
        elapsed: Duration,
        outcome: Outcome,
        checkpoint: Option<Saved>,
    ) -> Result<Finish, RunError> {
        // Every unit of the run is in the checkpoint now, resumed or counted.
        debug_assert_eq!(self.ckpt.done.len(), self.mine.len());
        let result = ShardResult::new(
            self.identity.clone(),
            self.run.shard_spec().unwrap_or(ShardSpec::WHOLE),
            &self.ckpt.done,
            elapsed,
            self.imbalance,
        );
        let saved = self.run.out_file().map(Path::to_path_buf).map(|out| {
            for lock in &mut self.locks {
                lock.check()?;
            }
            result.save(&out)?;
            Ok(out)
        });
        let report = self.report(engine, counts, elapsed, outcome);
        let done = Box::new(Done {
            report,
            result,
            saved,
            checkpoint,
            resumed: self.resumed,
            job_units: self.plan.units().len(),
            estimated_cpu: self.cpu,
        });
        let id = &self.identity;
        if self.mine.len() == self.plan.units().len() {
            if let Err(mismatch) =
                crate::known::check(id.n, !id.placed.is_empty(), id.unique, counts)
            {
                return Err(RunError::Mismatch { done, mismatch });
            }
        }
        Ok(Finish::Done(done))
    }

    /// The ETA of the units left on `threads` workers. A resumed run starts from the speed of
    /// the runs before it (their wall time on as many workers as this run has), so that its
    /// first seconds alone do not swing the ETA ([`Eta::with_time_before`]).
    fn eta(&mut self, threads: usize) -> Eta {
        let costs = self
            .costs
            .take()
            .unwrap_or_else(|| cost::estimate(&self.plan));
        let planned = |units: &mut dyn Iterator<Item = u32>| planned(&self.plan, &costs, units);
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
            unique: self.plan.job().unique(),
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

/// The observer of a long run: records finished units, saves the checkpoint through the one
/// save path, and keeps the progress.
struct Driver<'a> {
    ckpt: &'a mut Checkpoint,
    saver: Saver<'a>,
    /// The units of the run.
    units: usize,
    /// The progress, when the watch wants it.
    progress: Option<Tracker>,
    watch: &'a mut dyn Watch,
    /// Why the run must stop (a lost lock).
    error: Option<RunError>,
}

impl Driver<'_> {
    /// Saves the checkpoint now; whether it succeeded.
    fn save(&mut self) -> bool {
        self.saver.save(self.ckpt)
    }

    /// The progress told to the watch, and a save when due.
    fn step(&mut self) -> ControlFlow<()> {
        if let Some(progress) = &mut self.progress {
            let p = progress.now();
            self.watch.progress(&p);
        }
        match self.saver.as_it_goes(self.ckpt, self.units, self.watch) {
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
        self.saver.unit_done();
        if let Some(progress) = &mut self.progress {
            progress.unit_done(unit.index, &timing);
        }
        self.watch.unit_done(unit.index, counts, &timing);
        self.step()
    }

    fn tick(&mut self) -> ControlFlow<()> {
        self.step()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::longrun::{Progress, SaveEvent};
    use crate::Job;
    use std::path::Path;

    /// Takes the checkpoint's folder away once the run's last unit is in: the saves that
    /// unit and the end of the run make fail.
    struct FolderGone {
        dir: PathBuf,
        away: PathBuf,
        told: usize,
    }

    impl Watch for FolderGone {
        fn progress(&mut self, p: &Progress) {
            if p.units_done == p.units_total && self.dir.exists() {
                std::fs::rename(&self.dir, &self.away).unwrap();
            }
        }
        fn checkpoint(&mut self, _: &SaveEvent<'_>) {
            self.told += 1;
        }
    }

    /// A watch that records whether the checkpoint existed at the first progress.
    struct FirstLook {
        path: PathBuf,
        existed: Option<bool>,
    }

    impl Watch for FirstLook {
        fn progress(&mut self, _: &Progress) {
            self.existed.get_or_insert_with(|| self.path.exists());
        }
    }

    /// What a prepared run says of itself before it counts, and the first save of a fresh run
    /// (a path that cannot be written fails before any work, not at the first interval).
    #[test]
    fn a_prepared_run_says_what_it_will_do_and_saves_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::new(2).unwrap();
        let job = Job::new(10).unwrap().with_split_depth(2).unwrap();
        let plan = Plan::new(job.clone());
        let spec = ShardSpec { index: 1, count: 2 };
        let mine = spec.units(&plan);
        let path = dir.path().join("c.ckpt");
        let fresh = Run::new(job.clone())
            .shard(spec)
            .checkpoint(&path, Duration::from_secs(60));
        let p = fresh.prepare(&engine).unwrap();
        assert_eq!(
            (p.units(), p.job_units(), p.resumed()),
            (mine.len(), plan.units().len(), 0)
        );
        assert_eq!(p.resumed_from(), None);
        let costs = plan.costs();
        let parts = crate::longrun::assign::assign(&costs, 2);
        assert_eq!(
            p.imbalance(),
            crate::longrun::assign::imbalance(&costs, &parts)
        );
        let whole = crate::longrun::estimate::cpu_time(&job, Some(&plan), engine.kernel());
        let share = crate::longrun::estimate::share(&costs, mine.iter().copied());
        assert_eq!(p.estimated_cpu(), whole.mul_f64(share));
        let mut look = FirstLook {
            path: path.clone(),
            existed: None,
        };
        assert!(matches!(p.execute(&engine, &mut look), Ok(Finish::Done(_))));
        assert_eq!(look.existed, Some(true));
        // Resumed: what the checkpoint holds.
        let mut c = Checkpoint::load(&path).unwrap();
        let kept: Vec<u32> = c.done.keys().copied().take(3).collect();
        c.done.retain(|u, _| kept.contains(u));
        c.save(&path).unwrap();
        let again = Run::new(job)
            .shard(spec)
            .checkpoint(&path, Duration::from_secs(60));
        let p = again.prepare(&engine).unwrap();
        assert_eq!((p.resumed(), p.resumed_from()), (3, Some(path.as_path())));
        assert!(p.estimated_cpu() < whole.mul_f64(share));
    }

    /// The one check of a whole job's total against the published value: a resumed checkpoint
    /// whose counts were forged is a mismatch, with the finished run kept; a shard (a part) and
    /// a job with placed queens (nothing published) are not checked.
    #[test]
    fn whole_jobs_are_checked_against_the_published_value_and_parts_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::new(2).unwrap();
        let forge = |run: Run, path: &Path| -> Result<Finish, RunError> {
            let p = run.clone().prepare(&engine).unwrap();
            drop(p.execute(&engine, &mut ()).unwrap());
            let mut c = Checkpoint::load(path).unwrap();
            for counts in c.done.values_mut() {
                counts.total = 1;
            }
            c.save(path).unwrap();
            run.prepare(&engine).unwrap().execute(&engine, &mut ())
        };
        let every = Duration::from_secs(60);
        let job = Job::new(10).unwrap();
        let whole = dir.path().join("whole.ckpt");
        match forge(Run::new(job.clone()).checkpoint(&whole, every), &whole) {
            Err(RunError::Mismatch { done, mismatch }) => {
                assert_eq!(mismatch.published.total, 724);
                assert_eq!(mismatch.found.total, done.report.counts.total);
                assert_eq!(done.report.counts.total, done.job_units as u128);
            }
            other => panic!("{other:?}"),
        }
        let part = dir.path().join("part.ckpt");
        let shard = ShardSpec { index: 0, count: 2 };
        let run = Run::new(job).shard(shard).checkpoint(&part, every);
        assert!(matches!(forge(run, &part), Ok(Finish::Done(_))));
        let placed = dir.path().join("placed.ckpt");
        let queen = crate::Queen::one_based(5, 5).unwrap();
        let job = Job::new(10).unwrap().with_placed(&[queen]).unwrap();
        let run = Run::new(job.clone()).checkpoint(&placed, every);
        let Ok(Finish::Done(done)) = run.prepare(&engine).unwrap().execute(&engine, &mut ()) else {
            panic!("a job with placed queens has no published value to differ from");
        };
        assert!(done.report.counts.total > 0);
    }

    /// A resumed run's first ETA comes from the runs before it: their wall time on as many
    /// workers as this run has. Half the work done in 100 s leaves about 100 s, on any number
    /// of workers (the same command resumed on the same machine).
    #[test]
    fn a_resumed_run_starts_its_eta_from_the_speed_of_the_runs_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.ckpt");
        let job = Job::new(12).unwrap().with_split_depth(2).unwrap();
        let plan = Plan::new(job.clone());
        let costs = plan.costs();
        let all: u64 = costs.iter().sum();
        // The first units, to about half the estimated work.
        let sums = costs.iter().scan(0, |sum, &c| {
            *sum += c;
            Some(*sum)
        });
        let half = 1 + sums.take_while(|&sum| sum < all / 2).count();
        let done_cost: u64 = costs[..half].iter().sum();
        let left = (all - done_cost) as f64 / done_cost as f64;
        let mut c = Checkpoint::new(Identity::of(&plan), None);
        for (u, unit) in (0u32..).zip(&plan.units()[..half]) {
            c.done
                .insert(u, plan.count_unit(unit, crate::Kernel::best()));
        }
        c.elapsed = Duration::from_secs(100);
        c.save(&path).unwrap();
        for threads in [1, 2, 3] {
            let engine = Engine::new(threads).unwrap();
            let run = Run::new(job.clone()).checkpoint(&path, Duration::from_secs(60));
            let mut p = run.prepare(&engine).unwrap();
            assert_eq!(p.resumed(), half);
            let eta = p
                .eta(threads)
                .remaining(0.0)
                .expect("a speed from the runs before");
            let want = 100.0 * left;
            assert!(
                (eta / want - 1.0).abs() < 0.25,
                "{threads}: {eta} s, not {want} s"
            );
        }
    }

    /// Issue 33, item 1, at the library: every unit counted, the saves after the last failing,
    /// the run is done all the same, with its whole count and the failed save said.
    #[test]
    fn a_run_whose_saves_fail_at_the_end_keeps_its_count() {
        let top = tempfile::tempdir().unwrap();
        let dir = top.path().join("d");
        std::fs::create_dir(&dir).unwrap();
        let engine = Engine::new(2).unwrap();
        let job = Job::new(11).unwrap().with_unique(true);
        let mut watch = FolderGone {
            dir: dir.clone(),
            away: top.path().join("away"),
            told: 0,
        };
        let run = Run::new(job).checkpoint(dir.join("c.ckpt"), Duration::ZERO);
        let finish = run.prepare(&engine).unwrap().execute(&engine, &mut watch);
        let Ok(Finish::Done(done)) = finish else {
            panic!("{finish:?}");
        };
        assert_eq!(
            (done.report.counts.total, done.report.counts.unique),
            (2680, 341)
        );
        let saved = done.checkpoint.unwrap();
        assert!(saved.failed.is_some());
        assert!(saved.holds < saved.of, "{saved:?}");
        assert!(watch.told <= 1);
    }
}
