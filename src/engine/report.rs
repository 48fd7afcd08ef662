//! What a run and a count return: the sums, and how they were made.

use crate::error::Error;
use crate::search::opencl::DeviceInfo;
use crate::search::{Counts, Kernel, Method, Searches};
use std::time::Duration;

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
    /// What each OpenCL device did, in the order of [`crate::Engine::devices`].
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
    /// Batches of units it counted.
    pub batches: usize,
    /// Time its worker spent preparing those batches: taking units and splitting them into
    /// sub-problems. The device has one batch at a time, so it waits meanwhile.
    pub host_time: Duration,
    /// Time in its launches of those batches: uploads, kernels and downloads.
    pub launch_time: Duration,
    /// Why it stopped early, if it failed. Beside the CPU workers, the CPU counted its units
    /// instead; alone ([`crate::Devices::Only`]) the run stopped there.
    pub error: Option<String>,
}

/// The result of a whole count: the counts, and how they were made (method, split depth,
/// units, threads, kernel, devices, where the searches ran, the wall time).
///
/// ```
/// let job = nqueens_count::Job::new(9)?.with_unique(true);
/// let report = nqueens_count::Engine::new(2)?.count(&job)?;
/// assert_eq!((report.counts.total, report.counts.unique), (352, 46));
/// assert_eq!((report.n, report.method, report.threads), (9, nqueens_count::Method::Edge, 2));
/// assert!(report.unique && report.units > 0 && report.devices.is_empty());
/// # Ok::<(), nqueens_count::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Board size.
    pub n: u32,
    /// The counts: `counts.unique` is 0 unless [`Report::unique`].
    pub counts: Counts,
    /// Whether the solutions distinct up to rotation and reflection were counted
    /// ([`Job::with_unique`](crate::Job::with_unique)).
    pub unique: bool,
    /// The method used.
    pub method: Method,
    /// The split depth.
    pub split_depth: u32,
    /// The units this report covers: every unit of the job for a count, or the units of a
    /// long run's shard (resumed ones included); the job's own units are
    /// [`crate::longrun::Done::job_units`].
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
