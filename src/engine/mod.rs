//! The parallel driver: runs the kernel on work units over a rayon pool and sums the results.
//!
//! Workers take units in index order from one shared counter (dynamic scheduling, one unit at a
//! time), so a slow unit never holds up a queue of others behind it. Each finished unit is sent
//! over a channel to the calling thread, which sums the counts and feeds an observer (the progress
//! of [`Engine::count_with`], a long run's checkpoints): all I/O stays on the calling thread, none
//! in the workers.
//!
//! Here the [`Engine`] (its threads, kernel and devices) and [`Engine::count`]; `run.rs` one
//! run (the queue, the calling thread's sums, the observer), `cpu.rs` the CPU worker,
//! `accel.rs` the OpenCL device workers (`no_accel.rs` without the `opencl` feature),
//! `report.rs` what a run and a count return, `serial.rs` the single-threaded reference solver.

#[cfg(feature = "opencl")]
mod accel;
#[cfg(not(feature = "opencl"))]
#[path = "no_accel.rs"]
mod accel;
mod cpu;
mod report;
mod run;
#[cfg(any(feature = "bench", test))]
mod serial;
#[cfg(test)]
mod tests;

pub(crate) use report::Outcome;
pub use report::{DeviceRun, Report, UnitTiming};
pub(crate) use run::{NoObserver, Observer, RunOptions};
#[cfg(any(feature = "bench", test))]
pub use serial::serial_count;

pub use crate::plan::MAX_THREADS;
/// The default lane threshold of an engine ([`Engine::with_lane_min_rows`]).
pub use crate::search::lanes::MIN_ROWS as LANE_MIN_ROWS;

/// Sub-problems a device worker gathers for one launch unless told otherwise
/// ([`Engine::with_device_batch`]): it takes whole units until it has this many.
pub const DEVICE_BATCH: usize = 1 << 18;

/// The largest batch [`Engine::with_device_batch`] takes: a launch holds at most this many
/// sub-problems, and larger batches would be split into several.
pub const MAX_DEVICE_BATCH: usize = 1 << 24;

/// Checks a device batch ([`Engine::with_device_batch`]): 1 to [`MAX_DEVICE_BATCH`]
/// sub-problems, else [`Error::DeviceBatch`]. The one rule for every caller that takes one.
pub fn check_device_batch(subs: usize) -> Result<()> {
    if (1..=MAX_DEVICE_BATCH).contains(&subs) {
        Ok(())
    } else {
        Err(Error::DeviceBatch {
            subs,
            max: MAX_DEVICE_BATCH,
        })
    }
}

use crate::error::{Error, Result};
use crate::plan::{check_threads, Job, Plan};
use crate::search::opencl::DeviceInfo;
use crate::search::{lanes, Kernel};
use std::sync::Arc;
use std::time::Duration;

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
/// use nqueens_count::{Engine, Job, Kernel};
///
/// let engine = Engine::new(2)?.with_kernel(Kernel::Dfs)?;
/// for (n, total) in [(8, 92), (10, 724)] {
///     let report = engine.count(&Job::new(n)?)?;
///     assert_eq!((report.counts.total, report.kernel), (total, Kernel::Dfs));
/// }
/// # Ok::<(), nqueens_count::Error>(())
/// ```
pub struct Engine {
    pool: rayon::ThreadPool,
    threads: usize,
    kernel: Kernel,
    lane_min_rows: u32,
    /// How its device workers take their work: the batch, and a failure on purpose.
    device: run::DeviceSettings,
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
            device: run::DeviceSettings {
                batch: DEVICE_BATCH,
                fail_after: None,
            },
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

    /// This engine, its device workers gathering units until a batch holds `subs` sub-problems
    /// (1 to [`MAX_DEVICE_BATCH`]; the default is [`DEVICE_BATCH`]) before each launch. Larger
    /// batches fill more of a GPU's lanes per launch and wait less on the host per unit; smaller
    /// ones leave more of the end of a run to share. For tuning a device: the counts do not
    /// depend on it, and [`DeviceRun`]'s times show its effect.
    pub fn with_device_batch(mut self, subs: usize) -> Result<Engine> {
        check_device_batch(subs)?;
        self.device.batch = subs;
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
        self.device.fail_after = Some(batches);
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
}

impl Engine {
    /// Counts the solutions of `job`: all its units, with no progress and nothing to stop it
    /// ([`Engine::count_with`] has both; a count that keeps its work across stops is a long
    /// run, [`crate::longrun::Run`]). The units are the job's own: for many threads, a job
    /// split for them balances better ([`Job::with_default_split_depth`]).
    ///
    /// Fails with [`Error::Device`] when the one device counting alone ([`Devices::Only`])
    /// fails: no partial count is returned. A device beside the CPU workers that fails leaves
    /// its units to them, and the report says so ([`DeviceRun::error`]).
    ///
    /// ```
    /// let job = nqueens_count::Job::new(8)?;
    /// let report = nqueens_count::Engine::new(2)?.count(&job)?;
    /// assert_eq!(report.counts.total, 92);
    /// # Ok::<(), nqueens_count::Error>(())
    /// ```
    pub fn count(&self, job: &Job) -> Result<Report> {
        let plan = Arc::new(Plan::new(job.clone()));
        let outcome = self.run(&plan, &RunOptions::default(), &mut NoObserver);
        self.report(&plan, outcome)
    }

    /// The report of a run of every unit of `plan`: [`Error::Device`] if the device counting
    /// alone failed, [`Error::Cancelled`] if the run was stopped, the counts otherwise.
    pub(crate) fn report(&self, plan: &Plan, outcome: Outcome) -> Result<Report> {
        if let Some(e) = outcome.device_failure() {
            return Err(e);
        }
        let units = plan.units().len();
        if outcome.interrupted {
            return Err(Error::Cancelled {
                done: outcome.units_done,
                of: units,
            });
        }
        let job = plan.job();
        Ok(Report {
            n: job.n(),
            counts: outcome.counts,
            unique: job.unique(),
            method: plan.method(),
            split_depth: job.split_depth(),
            units,
            threads: self.threads,
            kernel: self.kernel,
            elapsed: outcome.elapsed,
            devices: outcome.devices,
            searches: outcome.searches,
        })
    }
}
