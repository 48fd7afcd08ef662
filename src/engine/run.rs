//! One run of an engine: the queue of units every worker takes from, the work devices hand to
//! the CPU workers, and the calling thread's side, which sums the finished units and tells the
//! observer.

use super::cpu::CpuWorker;
use super::{accel, Devices, Engine};
use super::{DeviceRun, Outcome, UnitTiming};
use crate::plan::Plan;
use crate::search::{Counts, Searches, Unit};
use crate::sync::lock;
use crate::Cancel;
use crossbeam::channel;
use crossbeam::utils::CachePadded;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One finished unit, as sent from a worker to the calling thread: its index, counts, timing and
/// the searches its CPU part took.
pub(super) type Done = (u32, Counts, UnitTiming, Searches);

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
    /// Cancelled from anywhere (a signal handler) to stop taking new units.
    pub cancel: Cancel,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            units: None,
            tick: Duration::from_millis(200),
            cancel: Cancel::new(),
        }
    }
}

/// How the device workers of a run take their work.
#[derive(Clone, Copy)]
pub(super) struct DeviceSettings {
    /// Sub-problems a worker gathers per launch ([`Engine::with_device_batch`]).
    pub(super) batch: usize,
    /// Batches after which each device fails on purpose ([`Engine::fail_devices_after`]).
    pub(super) fail_after: Option<usize>,
}

/// What the device workers of a run say besides their units, one [`DeviceTally`] per device
/// (by index), copied into the report's [`DeviceRun`]s at its end.
pub(super) type DeviceLog = Arc<Mutex<Vec<DeviceTally>>>;

/// What one device's worker has said: its batches and their times, and its failure.
#[derive(Clone, Default)]
pub(super) struct DeviceTally {
    /// Batches counted.
    pub(super) batches: usize,
    /// Time spent preparing them, the device waiting.
    pub(super) host: Duration,
    /// Time in their launches.
    pub(super) launch: Duration,
    /// Why it failed (or its thread did not start), in its words.
    pub(super) error: Option<String>,
}

impl DeviceTally {
    /// A log of `devices` devices that have said nothing yet.
    fn log(devices: usize) -> DeviceLog {
        Arc::new(Mutex::new(vec![DeviceTally::default(); devices]))
    }

    /// Copies what it says into the report of its device.
    fn record(&self, run: &mut DeviceRun) {
        run.batches = self.batches;
        run.host_time = self.host;
        run.launch_time = self.launch;
        run.error.clone_from(&self.error);
    }
}

impl Engine {
    /// Runs the units of `plan` chosen by `opts`, reporting each finished one to `observer`.
    ///
    /// CPU workers take units one at a time from a shared counter; each OpenCL device takes a
    /// batch of units at a time from the same counter, counts and classifies their parts, and
    /// hands what it cannot do (units that leave fewer than three rows, edge's symmetric
    /// frames) to the CPU workers, which take such work first. A unit is reported once, when all
    /// of it is done. A device that fails gives its batch back to the CPU workers (the failure
    /// is in [`Outcome::devices`]).
    ///
    /// When stopped (by the observer or `opts.cancel`), returns at once with the units finished
    /// so far; the units still in flight finish in the background and are not counted.
    pub(crate) fn run(
        &self,
        plan: &Arc<Plan>,
        opts: &RunOptions,
        observer: &mut dyn Observer,
    ) -> Outcome {
        let (tx, rx) = channel::unbounded::<Done>();
        let shared = Shared {
            plan: plan.clone(),
            queue: Arc::new(Queue {
                order: match &opts.units {
                    Some(list) => list.clone(),
                    None => (0..plan.units().len() as u32).collect(),
                },
                next: CachePadded::new(AtomicUsize::new(0)),
            }),
            stop: opts.cancel.flag().clone(),
            start: Instant::now(),
            done: tx,
            alive: Arc::new(AtomicUsize::new(0)),
            cpu_units: self.counters.is_empty() || !matches!(self.devices, Devices::Only(_)),
        };
        let total_units = shared.queue.order.len();
        let (work_tx, work_rx) = channel::unbounded::<CpuWork>();
        let log = DeviceTally::log(self.counters.len());
        let devices = if total_units > 0 {
            accel::start(
                &self.counters,
                self.threads,
                self.device,
                &shared,
                &work_tx,
                &log,
            )
        } else {
            Vec::new()
        };
        drop(work_tx);
        for worker in 0..self.threads.min(total_units) {
            let cpu = CpuWorker {
                worker,
                kernel: self.kernel,
                lane_min_rows: self.lane_min_rows,
                shared: shared.clone(),
                work: work_rx.clone(),
            };
            self.pool.spawn(move || cpu.run());
        }
        let (stop, start) = (shared.stop.clone(), shared.start);
        drop(shared);
        let mut outcome = self.outcome_before_run();
        let collect = Collect {
            rx,
            plan,
            opts,
            stop: &stop,
            total_units,
            first_device: self.threads,
        };
        collect.run(&mut outcome, observer);
        if !outcome.interrupted {
            // Every unit is in: the device threads are done with their last batch, and what
            // they say of their end (a failure) belongs to this run's report. A stopped run
            // does not wait for a batch in flight.
            for device in devices {
                let _ = device.join();
            }
        }
        for (tally, run) in lock(&log).iter().zip(&mut outcome.devices) {
            tally.record(run);
        }
        outcome.elapsed = start.elapsed();
        outcome
    }

    /// An outcome of nothing done yet, with a record for every device.
    fn outcome_before_run(&self) -> Outcome {
        Outcome {
            counts: Counts::default(),
            units_done: 0,
            interrupted: false,
            elapsed: Duration::ZERO,
            devices: self
                .device_info
                .iter()
                .map(|(d, build)| DeviceRun {
                    device: d.clone(),
                    build_time: *build,
                    units: 0,
                    batches: 0,
                    host_time: Duration::ZERO,
                    launch_time: Duration::ZERO,
                    error: None,
                })
                .collect(),
            searches: Searches::default(),
        }
    }
}

/// What the workers of one run share.
#[derive(Clone)]
pub(super) struct Shared {
    pub(super) plan: Arc<Plan>,
    pub(super) queue: Arc<Queue>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) start: Instant,
    /// Where finished units go.
    pub(super) done: channel::Sender<Done>,
    /// The device workers still running.
    pub(super) alive: Arc<AtomicUsize>,
    /// Whether CPU workers take units from the queue (else only what devices hand over, and
    /// the units left once every device has stopped).
    pub(super) cpu_units: bool,
}

/// The calling thread's side of a run: sums the finished units and tells the observer.
struct Collect<'a> {
    rx: channel::Receiver<Done>,
    plan: &'a Plan,
    opts: &'a RunOptions,
    stop: &'a AtomicBool,
    total_units: usize,
    /// The worker number of the first device ([`UnitTiming::worker`]).
    first_device: usize,
}

impl Collect<'_> {
    /// Receives until every unit is done or the run stops (the observer or the cancel flag);
    /// the units that arrived before a stop still count.
    fn run(&self, outcome: &mut Outcome, observer: &mut dyn Observer) {
        let mut last_tick = Instant::now();
        while outcome.units_done < self.total_units {
            let flow = match self.rx.recv_timeout(self.opts.tick) {
                Ok(done) => self.record(outcome, observer, done),
                Err(channel::RecvTimeoutError::Timeout) => ControlFlow::Continue(()),
                // Every worker has quit: only when stopped.
                Err(channel::RecvTimeoutError::Disconnected) => ControlFlow::Break(()),
            };
            let flow = if flow.is_continue() && last_tick.elapsed() >= self.opts.tick {
                last_tick = Instant::now();
                observer.tick()
            } else {
                flow
            };
            if flow.is_break() || self.stop.load(Ordering::Relaxed) {
                self.stop.store(true, Ordering::Relaxed);
                while let Ok(done) = self.rx.try_recv() {
                    let _ = self.record(outcome, observer, done);
                }
                outcome.interrupted = outcome.units_done < self.total_units;
                return;
            }
        }
    }

    /// Adds a finished unit to the outcome and tells the observer.
    fn record(
        &self,
        outcome: &mut Outcome,
        observer: &mut dyn Observer,
        done: Done,
    ) -> ControlFlow<()> {
        let (index, counts, timing, searches) = done;
        outcome.counts += counts;
        outcome.searches += searches;
        outcome.units_done += 1;
        if let Some(d) = timing.worker.checked_sub(self.first_device) {
            outcome.devices[d].units += 1;
        }
        observer.unit_done(&self.plan.units()[index as usize], counts, timing)
    }
}

/// The units of a run, taken in order by every worker.
pub(super) struct Queue {
    order: Vec<u32>,
    next: CachePadded<AtomicUsize>,
}

impl Queue {
    /// The next unit to run, if any is left.
    pub(super) fn take(&self) -> Option<u32> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.order.get(i).copied()
    }

    /// How many units are left to take.
    #[cfg(feature = "opencl")]
    pub(super) fn left(&self) -> usize {
        self.order
            .len()
            .saturating_sub(self.next.load(Ordering::Relaxed))
    }

    /// Whether every unit has been taken.
    pub(super) fn is_empty(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.order.len()
    }
}

/// Work a device hands to the CPU workers.
pub(super) enum CpuWork {
    /// A unit whose counted part the device did (`counts`, `timing`): the rest remains.
    #[cfg(feature = "opencl")]
    Rest {
        index: u32,
        counts: Counts,
        timing: UnitTiming,
    },
    /// A whole unit, given back by a device that failed.
    Whole(u32),
}
