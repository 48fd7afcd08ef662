//! The parallel driver: runs the kernel on work units over a rayon pool and sums the results.
//!
//! Workers take units in index order from one shared counter (dynamic scheduling, one unit at a
//! time), so a slow unit never holds up a queue of others behind it. Each finished unit is sent
//! over a channel to the calling thread, which sums the counts and feeds the [`Observer`] (progress
//! bars, checkpoints): all I/O stays on the calling thread, none in the workers.

use crate::error::{Error, Result};
use crate::plan::{check_threads, evaluate_on, Job, Method, Plan};
use crate::search::dfs::{self, Masks};
use crate::search::{Counts, Kernel, Unit};
use crossbeam::channel;
use crossbeam::utils::CachePadded;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When and where a unit ran: for load-balance reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnitTiming {
    /// The worker that ran it, `0..threads`.
    pub worker: usize,
    /// When it started, from the start of the run.
    pub started: Duration,
    /// How long it took.
    pub elapsed: Duration,
}

/// One finished unit, as sent from a worker to the calling thread.
type Done = (u32, Counts, UnitTiming);

/// Receives the engine's events on the calling thread.
pub trait Observer {
    /// A unit finished with these counts. `Break` stops the run: no new unit is started.
    fn unit_done(&mut self, _unit: &Unit, _counts: Counts, _timing: UnitTiming) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// Called at least every [`RunOptions::tick`] while the run goes on. `Break` stops the run.
    fn tick(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// An observer that does nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Indices of the units to run, in the order to start them; `None` runs them all in index
    /// order.
    pub units: Option<Vec<u32>>,
    /// How often [`Observer::tick`] is called.
    pub tick: Duration,
    /// Set from anywhere (a signal handler) to stop taking new units.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            units: None,
            tick: Duration::from_millis(200),
            cancel: None,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The sum over the units finished in this run.
    pub counts: Counts,
    /// How many units finished in this run.
    pub units_done: usize,
    /// Whether the run stopped before all its units were done.
    pub interrupted: bool,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// A pool of worker threads that runs plans.
pub struct Engine {
    pool: rayon::ThreadPool,
    threads: usize,
    kernel: Kernel,
}

impl Engine {
    /// An engine with `threads` workers (1 to [`MAX_THREADS`]).
    pub fn new(threads: usize) -> Result<Engine> {
        check_threads(threads)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("nqueens-worker-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Engine {
            pool,
            threads,
            kernel: Kernel::best(),
        })
    }

    /// This engine, searching with `kernel` rather than the fastest one this processor has
    /// (for benchmarks and checks); refused if the processor cannot run it.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Engine> {
        if !kernel.available() {
            return Err(Error::Unsupported(format!(
                "this processor cannot run the {kernel} kernel"
            )));
        }
        self.kernel = kernel;
        Ok(self)
    }

    /// The kernel the workers search with.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// An engine with one worker per logical core.
    pub fn with_all_cores() -> Result<Engine> {
        Engine::new(num_cpus::get())
    }

    /// The number of workers.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Runs the units of `plan` chosen by `opts`, reporting each finished one to `observer`.
    ///
    /// When stopped (by the observer or `opts.cancel`), returns at once with the units finished
    /// so far; the units still in flight finish in the background and are not counted.
    pub fn run(&self, plan: &Arc<Plan>, opts: &RunOptions, observer: &mut dyn Observer) -> Outcome {
        let start = Instant::now();
        let order: Arc<Vec<u32>> = Arc::new(match &opts.units {
            Some(list) => list.clone(),
            None => (0..plan.units().len() as u32).collect(),
        });
        let next = Arc::new(CachePadded::new(AtomicUsize::new(0)));
        let stop = opts.cancel.clone().unwrap_or_default();
        let (tx, rx) = channel::unbounded::<Done>();
        let kernel = self.kernel;
        for worker in 0..self.threads.min(order.len()) {
            let (plan, order, next, stop, tx) = (
                plan.clone(),
                order.clone(),
                next.clone(),
                stop.clone(),
                tx.clone(),
            );
            self.pool.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&index) = order.get(i) else { break };
                    let unit = &plan.units()[index as usize];
                    let t0 = Instant::now();
                    let counts = evaluate_on(&plan, unit, kernel);
                    let timing = UnitTiming {
                        worker,
                        started: t0 - start,
                        elapsed: t0.elapsed(),
                    };
                    if tx.send((index, counts, timing)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);

        let mut outcome = Outcome {
            counts: Counts::default(),
            units_done: 0,
            interrupted: false,
            elapsed: Duration::ZERO,
        };
        let mut last_tick = Instant::now();
        while outcome.units_done < order.len() {
            let flow = match rx.recv_timeout(opts.tick) {
                Ok((index, counts, timing)) => {
                    outcome.counts += counts;
                    outcome.units_done += 1;
                    observer.unit_done(&plan.units()[index as usize], counts, timing)
                }
                Err(channel::RecvTimeoutError::Timeout) => ControlFlow::Continue(()),
                // Every worker has quit: only when stopped.
                Err(channel::RecvTimeoutError::Disconnected) => ControlFlow::Break(()),
            };
            let flow = if flow.is_continue() && last_tick.elapsed() >= opts.tick {
                last_tick = Instant::now();
                observer.tick()
            } else {
                flow
            };
            if flow.is_break() || stop.load(Ordering::Relaxed) {
                stop.store(true, Ordering::Relaxed);
                // Results that arrived before the stop still count.
                while let Ok((index, counts, timing)) = rx.try_recv() {
                    outcome.counts += counts;
                    outcome.units_done += 1;
                    let _ = observer.unit_done(&plan.units()[index as usize], counts, timing);
                }
                outcome.interrupted = outcome.units_done < order.len();
                break;
            }
        }
        outcome.elapsed = start.elapsed();
        outcome
    }
}

/// The result of a whole count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Board size.
    pub n: u32,
    /// The counts.
    pub counts: Counts,
    /// The method used.
    pub method: Method,
    /// The split depth.
    pub split_depth: u32,
    /// Number of work units.
    pub units: usize,
    /// Worker threads.
    pub threads: usize,
    /// The kernel the workers searched with.
    pub kernel: Kernel,
    /// Wall time.
    pub elapsed: Duration,
}

/// Counts the solutions of `job` on `threads` workers: the one-call entry point.
///
/// ```
/// let job = nqueens::Job::new(8).unwrap();
/// let report = nqueens::count(&job, 2).unwrap();
/// assert_eq!(report.counts.total, 92);
/// ```
pub fn count(job: &Job, threads: usize) -> Result<Report> {
    Ok(Engine::new(threads)?.count(job))
}

impl Engine {
    /// Counts the solutions of `job`: all its units, no observer.
    pub fn count(&self, job: &Job) -> Report {
        let plan = Arc::new(Plan::new(job.clone()));
        let outcome = self.run(&plan, &RunOptions::default(), &mut NoObserver);
        Report {
            n: job.n(),
            counts: outcome.counts,
            method: plan.method(),
            split_depth: job.split_depth(),
            units: plan.units().len(),
            threads: self.threads,
            kernel: self.kernel,
            elapsed: outcome.elapsed,
        }
    }
}

pub use crate::plan::MAX_THREADS;

/// OpenCL devices that can take counting work: listed by `nqueens devices`. The OpenCL library is
/// loaded at run time, so a machine without it runs every CPU count and gets a clear error here.
pub mod opencl {
    pub use crate::search::opencl::{devices, DeviceInfo, DeviceKind, OpenClError};
}

/// The single-threaded reference solver: one bitmask search over the whole board with mirror
/// halving (first-row queen in the left half, counted twice; for odd N the middle column once).
/// It uses no work units and no threads; the parallel engine is measured against it.
pub fn serial_count(n: u32) -> Result<u128> {
    let n = crate::plan::check_n(u64::from(n))?;
    let mut total: u128 = 0;
    for col in 0..n / 2 {
        let m = Masks::EMPTY.place(1 << col);
        total += 2 * u128::from(dfs::count(n, n - 1, m));
    }
    if n % 2 == 1 {
        let m = Masks::EMPTY.place(1 << (n / 2));
        total += u128::from(dfs::count(n, n - 1, m));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::evaluate;

    #[test]
    fn serial_matches_small_table() {
        let expect = [1u128, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200];
        for (i, &e) in expect.iter().enumerate() {
            assert_eq!(serial_count(i as u32 + 1).unwrap(), e);
        }
        assert!(serial_count(0).is_err());
    }

    #[test]
    fn engine_counts_and_uniques() {
        let job = Job::new(8).unwrap().with_unique(true);
        let r = count(&job, 3).unwrap();
        assert_eq!(
            r.counts,
            Counts {
                total: 92,
                unique: 12
            }
        );
        assert!(Engine::new(0).is_err());
    }

    struct StopAfter(usize);
    impl Observer for StopAfter {
        fn unit_done(&mut self, _: &Unit, _: Counts, _: UnitTiming) -> ControlFlow<()> {
            self.0 -= 1;
            if self.0 == 0 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        }
    }

    #[test]
    fn a_stopped_run_reports_what_it_finished() {
        let plan = Arc::new(Plan::new(
            Job::new(15).unwrap().with_split_depth(3).unwrap(),
        ));
        let engine = Engine::new(1).unwrap();
        let out = engine.run(&plan, &RunOptions::default(), &mut StopAfter(5));
        assert!(out.interrupted);
        assert!(out.units_done >= 5 && out.units_done < plan.units().len());
        // Running just the listed units sums exactly those.
        let some: Vec<u32> = vec![3, 1, 4];
        let opts = RunOptions {
            units: Some(some.clone()),
            ..RunOptions::default()
        };
        let out = engine.run(&plan, &opts, &mut NoObserver);
        let expect: u128 = some
            .iter()
            .map(|&i| evaluate(&plan, &plan.units()[i as usize]).total)
            .sum();
        assert_eq!(out.counts.total, expect);
        assert_eq!(out.units_done, 3);
        assert!(!out.interrupted);
    }
}
