//! The parallel driver: runs the kernel on work units over a rayon pool and sums the results.
//!
//! Workers take units in index order from one shared counter (dynamic scheduling, one unit at a
//! time), so a slow unit never holds up a queue of others behind it. Each finished unit is sent
//! over a channel to the calling thread, which sums the counts and feeds the [`Observer`] (progress
//! bars, checkpoints): all I/O stays on the calling thread, none in the workers.

// Without the `opencl` feature the device workers are compiled (their types are shared) but
// never started.
#![cfg_attr(not(feature = "opencl"), allow(dead_code))]

use crate::error::{Error, Result};
#[cfg(feature = "opencl")]
mod accel;
#[cfg(not(feature = "opencl"))]
#[path = "no_accel.rs"]
mod accel;

use crate::plan::{check_threads, evaluate_on, evaluate_remainder_on, Job, Method, Plan};
use crate::search::dfs::{self, Masks};
use crate::search::opencl::DeviceInfo;
use crate::search::{lanes, Counts, Kernel, Runner, Searches, Unit};
use crossbeam::channel;
use crossbeam::utils::CachePadded;
use std::cell::Cell;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
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

/// One finished unit, as sent from a worker to the calling thread: its index, counts, timing and
/// the searches its CPU part took.
type Done = (u32, Counts, UnitTiming, Searches);

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
    /// What each OpenCL device did, in the order of [`Engine::devices`].
    pub devices: Vec<DeviceRun>,
    /// The searches the CPU workers ran for the units finished, on the lanes or depth first.
    pub searches: Searches,
}

/// What one OpenCL device did in a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRun {
    /// The device.
    pub device: DeviceInfo,
    /// Units it took from the queue: it counted and classified their parts; the CPU workers
    /// did what it cannot (units that leave fewer than three rows, edge's symmetric frames).
    pub units: usize,
    /// How long building its kernels took, when the engine opened it.
    pub build_time: Duration,
    /// Why it stopped early, if it failed. Beside the CPU workers, the CPU counted its units
    /// instead; alone ([`Devices::Only`]) the run stopped there ([`Outcome::interrupted`]).
    pub error: Option<String>,
}

/// Which OpenCL devices an engine counts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Devices {
    /// None: every unit on the CPU workers.
    #[default]
    Cpu,
    /// OpenCL device `index` (of [`crate::opencl::devices`], any type) takes every
    /// unit; the CPU workers only do what a device cannot (units that leave fewer than three
    /// rows, edge's symmetric frames).
    Only(usize),
    /// OpenCL device `index` (any type) beside the CPU workers: both take units from one
    /// queue, as each GPU does with [`Devices::Gpus`].
    Beside(usize),
    /// Every OpenCL GPU, beside the CPU workers: both take units from one queue. With no GPU
    /// (or no OpenCL), the CPU workers do everything and [`crate::Engine::device_note`] says
    /// why.
    Gpus,
}

/// A pool of worker threads, and the OpenCL devices beside them, that runs plans. Build one
/// and count many jobs on it; the threads are started once.
///
/// ```
/// use nqueens::{Engine, Job, Kernel};
///
/// let engine = Engine::new(2)?.with_kernel(Kernel::Dfs)?;
/// for (n, total) in [(8, 92), (10, 724)] {
///     let report = engine.count(&Job::new(n)?)?;
///     assert_eq!((report.counts.total, report.kernel), (total, Kernel::Dfs));
/// }
/// # Ok::<(), nqueens::Error>(())
/// ```
pub struct Engine {
    pool: rayon::ThreadPool,
    threads: usize,
    kernel: Kernel,
    lane_min_rows: u32,
    /// Batches after which each device fails on purpose ([`Engine::fail_devices_after`]).
    fail_after: Option<usize>,
    devices: Devices,
    counters: Vec<accel::Handle>,
    device_info: Vec<(DeviceInfo, Duration)>,
    device_note: Option<String>,
}

impl Engine {
    /// An engine with `threads` workers (1 to [`MAX_THREADS`]).
    pub fn new(threads: usize) -> Result<Engine> {
        check_threads(threads)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("nqueens-worker-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool {
                reason: e.to_string(),
            })?;
        Ok(Engine {
            pool,
            threads,
            kernel: Kernel::best(),
            lane_min_rows: lanes::MIN_ROWS,
            fail_after: None,
            devices: Devices::Cpu,
            counters: Vec::new(),
            device_info: Vec::new(),
            device_note: None,
        })
    }

    /// This engine, searching with `kernel` rather than the fastest one this processor has
    /// (for benchmarks and checks); refused if the processor cannot run it.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Engine> {
        if !kernel.available() {
            return Err(Error::KernelUnavailable { kernel });
        }
        self.kernel = kernel;
        Ok(self)
    }

    /// This engine, searching on the lanes of its kernel every tree of at least `rows` rows
    /// below a unit's prefix (3 to 32; the default, [`lanes::MIN_ROWS`], is where the lanes
    /// start to pay). Smaller trees run depth first. Lower it to make checks on small boards
    /// reach the lane code; [`Report::searches`] says where the searches went.
    pub fn with_lane_min_rows(mut self, rows: u32) -> Result<Engine> {
        if !(3..=crate::search::MAX_N).contains(&rows) {
            return Err(Error::LaneRows {
                rows,
                max: crate::search::MAX_N,
            });
        }
        self.lane_min_rows = rows;
        Ok(self)
    }

    /// This engine, counting on the OpenCL devices `which` names as well (see [`Devices`]).
    /// Opens them and builds their kernels once, here. Fails with [`Error::NoDevice`] when
    /// OpenCL or the device asked for is missing ([`Devices::Gpus`] then counts on the CPU and
    /// says why in [`Engine::device_note`]), and with [`Error::Device`] when a device fails.
    pub fn with_devices(mut self, which: Devices) -> Result<Engine> {
        let (counters, note) = accel::open(which)?;
        self.device_info = counters.iter().map(accel::info).collect();
        self.counters = counters.into_iter().map(accel::handle).collect();
        self.devices = which;
        self.device_note = note;
        Ok(self)
    }

    /// This engine, its devices made to fail on purpose, for checks of how a failing device is
    /// handled: every device fails at its batch `batches + 1`, or when it runs out of units or
    /// the run ends before that. Not for counting: the binary's tests reach it through the
    /// binary (`NQUEENS_OPENCL_FAIL_AFTER`), which is why it is public.
    #[doc(hidden)]
    pub fn fail_devices_after(mut self, batches: usize) -> Engine {
        self.fail_after = Some(batches);
        self
    }

    /// The kernel the workers search with.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// What counts, for reports: the kernel (`avx512`), `opencl` for one device alone, or the
    /// kernel and the devices beside it (`avx512+opencl:2`).
    pub fn label(&self) -> String {
        match (self.counters.len(), self.devices) {
            (0, _) => self.kernel.to_string(),
            (_, Devices::Only(_)) => "opencl".into(),
            (k, _) => format!("{}+opencl:{k}", self.kernel),
        }
    }

    /// The OpenCL devices this engine counts on (none by default).
    pub fn devices(&self) -> Vec<DeviceInfo> {
        self.device_info.iter().map(|(d, _)| d.clone()).collect()
    }

    /// Why [`Devices::Gpus`] found no GPU to count on, if it did not.
    pub fn device_note(&self) -> Option<&str> {
        self.device_note.as_deref()
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
    /// CPU workers take units one at a time from a shared counter; each OpenCL device takes a
    /// batch of units at a time from the same counter, counts and classifies their parts, and
    /// hands what it cannot do (units that leave fewer than three rows, edge's symmetric
    /// frames) to the CPU workers, which take such work first. A unit is reported once, when all of it is done. A device that fails gives its
    /// batch back to the CPU workers (the failure is in [`Outcome::devices`]).
    ///
    /// When stopped (by the observer or `opts.cancel`), returns at once with the units finished
    /// so far; the units still in flight finish in the background and are not counted.
    pub fn run(&self, plan: &Arc<Plan>, opts: &RunOptions, observer: &mut dyn Observer) -> Outcome {
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
            stop: opts.cancel.clone().unwrap_or_default(),
            start: Instant::now(),
            done: tx,
            alive: Arc::new(AtomicUsize::new(0)),
            cpu_units: self.counters.is_empty() || !matches!(self.devices, Devices::Only(_)),
        };
        let total_units = shared.queue.order.len();
        let (work_tx, work_rx) = channel::unbounded::<CpuWork>();
        let errors: Arc<Mutex<Vec<(usize, String)>>> = Arc::default();
        let devices = if total_units > 0 {
            self.start_devices(&shared, &work_tx, &errors)
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
        for (d, e) in lock(&errors).drain(..) {
            outcome.devices[d].error = Some(e);
        }
        outcome.elapsed = start.elapsed();
        outcome
    }

    /// Starts a worker thread for each OpenCL device (none without the `opencl` feature); a
    /// device whose thread cannot start is said in `errors`, and the CPU workers take over.
    fn start_devices(
        &self,
        shared: &Shared,
        work: &channel::Sender<CpuWork>,
        errors: &Arc<Mutex<Vec<(usize, String)>>>,
    ) -> Vec<std::thread::JoinHandle<()>> {
        #[cfg_attr(not(feature = "opencl"), allow(unused_mut))]
        let mut threads = Vec::new();
        #[cfg(feature = "opencl")]
        for (d, counter) in self.counters.iter().enumerate() {
            shared.alive.fetch_add(1, Ordering::Relaxed);
            let worker = DeviceWorker {
                id: self.threads + d,
                device: d,
                fail_after: self.fail_after,
                counter: counter.clone(),
                shared: shared.cpu_units,
                plan: shared.plan.clone(),
                queue: shared.queue.clone(),
                stop: shared.stop.clone(),
                done: shared.done.clone(),
                work: work.clone(),
                errors: errors.clone(),
                alive: AliveGuard(shared.alive.clone()),
                start: shared.start,
            };
            let spawned = std::thread::Builder::new()
                .name(format!("nqueens-device-{d}"))
                .spawn(move || worker.run());
            match spawned {
                Ok(thread) => threads.push(thread),
                // The closure (and its guard) is dropped: the CPU workers take over.
                Err(e) => lock(errors).push((d, format!("could not start its thread: {e}"))),
            }
        }
        #[cfg(not(feature = "opencl"))]
        let _ = (shared, work, errors);
        threads
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
                    error: None,
                })
                .collect(),
            searches: Searches::default(),
        }
    }
}

/// What the workers of one run share.
#[derive(Clone)]
struct Shared {
    plan: Arc<Plan>,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    start: Instant,
    /// Where finished units go.
    done: channel::Sender<Done>,
    /// The device workers still running.
    alive: Arc<AtomicUsize>,
    /// Whether CPU workers take units from the queue (else only what devices hand over, and
    /// the units left once every device has stopped).
    cpu_units: bool,
}

/// One CPU worker of a run.
struct CpuWorker {
    worker: usize,
    kernel: Kernel,
    lane_min_rows: u32,
    shared: Shared,
    /// Work handed over by the devices.
    work: channel::Receiver<CpuWork>,
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
    fn run(self) {
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
struct Queue {
    order: Vec<u32>,
    next: CachePadded<AtomicUsize>,
}

impl Queue {
    /// The next unit to run, if any is left.
    fn take(&self) -> Option<u32> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        self.order.get(i).copied()
    }

    /// How many units are left to take.
    fn left(&self) -> usize {
        self.order
            .len()
            .saturating_sub(self.next.load(Ordering::Relaxed))
    }

    /// Whether every unit has been taken.
    fn is_empty(&self) -> bool {
        self.next.load(Ordering::Relaxed) >= self.order.len()
    }
}

/// Work a device hands to the CPU workers.
enum CpuWork {
    /// A unit whose counted part the device did (`counts`, `timing`): the rest remains.
    Rest {
        index: u32,
        counts: Counts,
        timing: UnitTiming,
    },
    /// A whole unit, given back by a device that failed.
    Whole(u32),
}

/// Counts the device workers still running; one less when a worker ends, even by a panic.
struct AliveGuard(Arc<AtomicUsize>);

impl Drop for AliveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

/// A mutex's data, even if a thread panicked while holding it (the data stay consistent here:
/// each holder only pushes or counts).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One OpenCL device's worker thread.
struct DeviceWorker {
    /// Its worker number in [`UnitTiming`]: the CPU threads come first.
    id: usize,
    device: usize,
    /// Batches after which it fails on purpose.
    fail_after: Option<usize>,
    counter: accel::Handle,
    /// Whether CPU workers take units too.
    shared: bool,
    plan: Arc<Plan>,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    done: channel::Sender<Done>,
    work: channel::Sender<CpuWork>,
    errors: Arc<Mutex<Vec<(usize, String)>>>,
    alive: AliveGuard,
    start: Instant,
}

/// The result of a whole count: the counts, and how they were made (method, split depth,
/// units, threads, kernel, devices, where the searches ran, the wall time).
///
/// ```
/// let job = nqueens::Job::new(9)?.with_unique(true);
/// let report = nqueens::count(&job, 2)?;
/// assert_eq!((report.counts.total, report.counts.unique), (352, 46));
/// assert_eq!((report.n, report.method, report.threads), (9, nqueens::Method::Edge, 2));
/// assert!(report.units > 0 && report.devices.is_empty());
/// # Ok::<(), nqueens::Error>(())
/// ```
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
    /// What each OpenCL device did (empty when the count ran on the CPU only).
    pub devices: Vec<DeviceRun>,
    /// Where the CPU workers' searches ran: on the lanes of `kernel` or depth first.
    pub searches: Searches,
}

/// Counts the solutions of `job` on `threads` workers: the one-call entry point.
///
/// ```
/// let job = nqueens::Job::new(8).unwrap();
/// let report = nqueens::count(&job, 2).unwrap();
/// assert_eq!(report.counts.total, 92);
/// ```
pub fn count(job: &Job, threads: usize) -> Result<Report> {
    Engine::new(threads)?.count(job)
}

impl Engine {
    /// Counts the solutions of `job`: all its units, no observer. Fails with [`Error::Device`]
    /// when the one device counting alone ([`Devices::Only`]) fails: no partial count is
    /// returned. A device beside the CPU workers that fails leaves its units to them, and the
    /// report says so ([`DeviceRun::error`]).
    pub fn count(&self, job: &Job) -> Result<Report> {
        let plan = Arc::new(Plan::new(job.clone()));
        let outcome = self.run(&plan, &RunOptions::default(), &mut NoObserver);
        if let Some(e) = outcome.device_failure() {
            return Err(e);
        }
        Ok(Report {
            n: job.n(),
            counts: outcome.counts,
            method: plan.method(),
            split_depth: job.split_depth(),
            units: plan.units().len(),
            threads: self.threads,
            kernel: self.kernel,
            elapsed: outcome.elapsed,
            devices: outcome.devices,
            searches: outcome.searches,
        })
    }
}

impl Outcome {
    /// The error that stopped this run, if a device counting alone failed: the device named,
    /// with the units done before it stopped.
    pub fn device_failure(&self) -> Option<Error> {
        if !self.interrupted {
            return None;
        }
        self.devices.iter().find_map(|d| {
            let e = d.error.as_ref()?;
            Some(Error::Device {
                device: Some((d.device.index, d.device.name.clone())),
                units_done: Some(self.units_done),
                reason: e.clone(),
            })
        })
    }
}

pub use crate::plan::MAX_THREADS;
/// The default lane threshold of an engine ([`Engine::with_lane_min_rows`]).
pub use crate::search::lanes::MIN_ROWS as LANE_MIN_ROWS;

/// The single-threaded reference solver: one bitmask search over the whole board with mirror
/// halving (first-row queen in the left half, counted twice; for odd N the middle column once).
/// It uses no work units and no threads; the parallel engine is measured against it.
pub fn serial_count(n: u32) -> Result<u128> {
    let n = crate::plan::check_n(n)?;
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
mod tests;
