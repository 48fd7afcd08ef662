//! A count with progress and a cancel, without files ([`Engine::count_with`]): the quick count
//! of [`Engine::count`] that tells a [`Watch`] how far it is, as a long run does.

use super::progress::{planned, Tracker};
use super::watch::Watch;
use crate::engine::{Observer, RunOptions};
use crate::plan::eta::Eta;
use crate::plan::{cost, Plan};
use crate::{Cancel, Counts, Engine, Job, Report, Result, Unit, UnitTiming};
use std::ops::ControlFlow;
use std::sync::Arc;

impl Engine {
    /// Counts the solutions of `job` as [`Engine::count`] does, telling `watch` of its
    /// progress ([`Watch::progress`], at least every 200 ms) and of each unit it finishes
    /// ([`Watch::unit_done`]), and stopping once `cancel` is cancelled: then
    /// [`crate::Error::Cancelled`], and no count (a count that keeps what it finished across a
    /// stop is a long run, [`crate::longrun::Run`], which takes the same watch and cancel).
    ///
    /// ```
    /// use nqueens_count::longrun::Progress;
    /// use nqueens_count::{Cancel, Engine, Job};
    ///
    /// struct Last(Option<Progress>);
    /// impl nqueens_count::longrun::Watch for Last {
    ///     fn progress(&mut self, p: &Progress) {
    ///         self.0 = Some(*p);
    ///     }
    /// }
    /// let (engine, job) = (Engine::new(2)?, Job::new(12)?);
    /// let mut last = Last(None);
    /// let report = engine.count_with(&job, &mut last, &Cancel::new())?;
    /// assert_eq!(report.counts.total, 14200);
    /// let p = last.0.expect("the last unit tells the progress");
    /// assert_eq!((p.units_done, p.units_total), (report.units, report.units));
    ///
    /// let cancel = Cancel::new();
    /// cancel.cancel();
    /// let stopped = engine.count_with(&job, &mut (), &cancel);
    /// assert!(matches!(stopped, Err(nqueens_count::Error::Cancelled { .. })));
    /// # Ok::<(), nqueens_count::Error>(())
    /// ```
    pub fn count_with(&self, job: &Job, watch: &mut dyn Watch, cancel: &Cancel) -> Result<Report> {
        let plan = Arc::new(Plan::new(job.clone()));
        let units = plan.units().len();
        let progress = watch.wants_progress().then(|| {
            let costs = cost::estimate(&plan);
            let eta = Eta::new(self.threads(), planned(&plan, &costs, 0..units as u32));
            Tracker::new(eta, units, 0)
        });
        let opts = RunOptions {
            cancel: cancel.clone(),
            ..RunOptions::default()
        };
        let outcome = self.run(&plan, &opts, &mut Watched { watch, progress });
        self.report(&plan, outcome)
    }
}

/// The observer of a quick count: the watch told of each unit and of the progress.
struct Watched<'a> {
    watch: &'a mut dyn Watch,
    progress: Option<Tracker>,
}

impl Watched<'_> {
    fn tell(&mut self) {
        if let Some(progress) = &mut self.progress {
            self.watch.progress(&progress.now());
        }
    }
}

impl Observer for Watched<'_> {
    fn unit_done(&mut self, unit: &Unit, counts: Counts, timing: UnitTiming) -> ControlFlow<()> {
        if let Some(progress) = &mut self.progress {
            progress.unit_done(unit.index, &timing);
        }
        self.watch.unit_done(unit.index, counts, &timing);
        self.tell();
        ControlFlow::Continue(())
    }

    fn tick(&mut self) -> ControlFlow<()> {
        self.tell();
        ControlFlow::Continue(())
    }
}
