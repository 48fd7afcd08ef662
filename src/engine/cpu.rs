//! The CPU worker: takes units (or the rest of one a device counted in part) and counts them on
//! the engine's kernel, each with the tally of its searches.

use super::run::{CpuWork, Done, Shared};
use super::UnitTiming;
use crate::plan::evaluate_on;
#[cfg(feature = "opencl")]
use crate::plan::evaluate_remainder_on;
use crate::search::{Kernel, Runner, Searches};
use crossbeam::channel;
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// One CPU worker of a run.
pub(super) struct CpuWorker {
    pub(super) worker: usize,
    pub(super) kernel: Kernel,
    pub(super) lane_min_rows: u32,
    pub(super) shared: Shared,
    /// Work handed over by the devices.
    pub(super) work: channel::Receiver<CpuWork>,
}

impl CpuWorker {
    /// Its kernel, with the engine's lane threshold, tallying searches in `tally`.
    fn runner<'a>(&self, tally: &'a Cell<Searches>) -> Runner<'a> {
        Runner {
            kernel: self.kernel,
            lane_min_rows: self.lane_min_rows,
            tally: Some(tally),
        }
    }

    /// Counts what it takes until the run stops or nothing is left.
    pub(super) fn run(self) {
        while !self.shared.stop.load(Ordering::Relaxed) {
            let Some(work) = self.next() else { break };
            let done = self.count(work);
            if self.shared.done.send(done).is_err() {
                break;
            }
        }
    }

    /// The next work: what a device handed over first (its unit is waiting for it), else a
    /// unit from the queue; `None` when neither is left.
    fn next(&self) -> Option<CpuWork> {
        let Shared { queue, alive, .. } = &self.shared;
        loop {
            if let Ok(work) = self.work.try_recv() {
                return Some(work);
            }
            if self.shared.cpu_units || alive.load(Ordering::Acquire) == 0 {
                if let Some(index) = queue.take() {
                    return Some(CpuWork::Whole(index));
                }
            }
            match self.work.recv_timeout(Duration::from_millis(20)) {
                Ok(work) => return Some(work),
                // No device is left to hand work over.
                Err(channel::RecvTimeoutError::Disconnected) if queue.is_empty() => return None,
                Err(_) if self.shared.stop.load(Ordering::Relaxed) => return None,
                Err(_) => continue,
            }
        }
    }

    /// Counts `work`: a whole unit, or the rest of one a device counted in part.
    fn count(&self, work: CpuWork) -> Done {
        let plan = &self.shared.plan;
        let t0 = Instant::now();
        let tally = Cell::default();
        let (index, counts, timing) = match work {
            CpuWork::Whole(index) => {
                let counts = evaluate_on(plan, &plan.units()[index as usize], self.runner(&tally));
                let timing = UnitTiming {
                    worker: self.worker,
                    started: t0 - self.shared.start,
                    elapsed: t0.elapsed(),
                };
                (index, counts, timing)
            }
            #[cfg(feature = "opencl")]
            CpuWork::Rest {
                index,
                mut counts,
                mut timing,
            } => {
                let unit = &plan.units()[index as usize];
                counts += evaluate_remainder_on(plan, unit, self.runner(&tally));
                timing.elapsed += t0.elapsed();
                (index, counts, timing)
            }
        };
        (index, counts, timing, tally.get())
    }
}
