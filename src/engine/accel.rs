//! OpenCL devices as workers of the engine: a device takes a batch of units from the shared
//! queue, splits their counted and classified parts ([`crate::plan::counted_part`],
//! [`crate::plan::classified_parts`]) into many small sub-problems, runs them in one launch of each
//! kernel, and hands what it cannot do to the CPU workers.

use super::run::{CpuWork, DeviceLog, DeviceSettings, Done, Queue, Shared};
use super::{Devices, UnitTiming};
use crate::error::{Error, Result};
use crate::plan::{classified_parts, counted_part, has_cpu_only_work, Plan};
use crate::search::opencl::{self, Counter, DeviceInfo, DeviceKind, OpenClError, RowSpec, Sub};
use crate::search::{ClassifiedPart, CountedPart, Counts, Searches, Unit};
use crate::sync::lock;
use crossbeam::channel;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

/// How the engine holds an opened device: its worker locks it for each launch.
pub(super) type Handle = Arc<Mutex<Counter>>;

/// A device just opened, and how long building its kernels took.
pub(super) fn info(counter: &Counter) -> (DeviceInfo, std::time::Duration) {
    (counter.device().clone(), counter.build_time())
}

/// The handle of a device just opened.
pub(super) fn handle(counter: Counter) -> Handle {
    Arc::new(Mutex::new(counter))
}

/// Starts a worker thread for each opened device (`counters`, worker numbers from `first_id`
/// on); a device whose thread cannot start is said in `log`, and the CPU workers take over.
pub(super) fn start(
    counters: &[Handle],
    first_id: usize,
    settings: DeviceSettings,
    shared: &Shared,
    work: &channel::Sender<CpuWork>,
    log: &DeviceLog,
) -> Vec<JoinHandle<()>> {
    let mut threads = Vec::new();
    for (d, counter) in counters.iter().enumerate() {
        shared.alive.fetch_add(1, Ordering::Relaxed);
        let worker = DeviceWorker {
            id: first_id + d,
            device: d,
            fail_after: settings.fail_after,
            batch: settings.batch,
            counter: counter.clone(),
            shared: shared.cpu_units,
            plan: shared.plan.clone(),
            queue: shared.queue.clone(),
            stop: shared.stop.clone(),
            done: shared.done.clone(),
            work: work.clone(),
            log: log.clone(),
            alive: AliveGuard(shared.alive.clone()),
            start: shared.start,
        };
        let spawned = std::thread::Builder::new()
            .name(format!("nqueens-device-{d}"))
            .spawn(move || worker.run());
        match spawned {
            Ok(thread) => threads.push(thread),
            // The closure (and its guard) is dropped: the CPU workers take over.
            Err(e) => lock(log)[d].error = Some(format!("could not start its thread: {e}")),
        }
    }
    threads
}

/// One OpenCL device's worker thread.
struct DeviceWorker {
    /// Its worker number in [`UnitTiming`]: the CPU threads come first.
    id: usize,
    device: usize,
    /// Batches after which it fails on purpose.
    fail_after: Option<usize>,
    /// Sub-problems it gathers per launch.
    batch: usize,
    counter: Handle,
    /// Whether CPU workers take units too.
    shared: bool,
    plan: Arc<Plan>,
    queue: Arc<Queue>,
    stop: Arc<AtomicBool>,
    done: channel::Sender<Done>,
    work: channel::Sender<CpuWork>,
    log: DeviceLog,
    alive: AliveGuard,
    start: Instant,
}

/// Counts the device workers still running; one less when a worker ends, even by a panic.
struct AliveGuard(Arc<AtomicUsize>);

impl Drop for AliveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Release);
    }
}

/// Sub-problems a part is split into before a launch, at least (unless it is small).
const SUBS_PER_PART: usize = 2048;

/// Rows a sub-problem keeps to search, at least: expansion stops there.
const MIN_ROWS_LEFT: u32 = 9;

/// Opens the devices `which` asks for, building the kernels once each. For [`Devices::Gpus`],
/// no GPU is not an error: the list is empty and the note says why.
pub(crate) fn open(which: Devices) -> Result<(Vec<Counter>, Option<String>)> {
    match which {
        Devices::Cpu => Ok((Vec::new(), None)),
        Devices::Only(index) | Devices::Beside(index) => {
            Ok((vec![Counter::new(index).map_err(to_error)?], None))
        }
        Devices::Gpus => {
            let list = match opencl::devices() {
                Ok(list) => list,
                Err(e) if e.is_unavailable() => return Ok((Vec::new(), Some(e.to_string()))),
                Err(e) => return Err(to_error(e)),
            };
            let gpus: Vec<&DeviceInfo> =
                list.iter().filter(|d| d.kind == DeviceKind::Gpu).collect();
            if gpus.is_empty() {
                let others: Vec<String> = list
                    .iter()
                    .map(|d| format!("{} ({})", d.name, d.kind))
                    .collect();
                return Ok((
                    Vec::new(),
                    Some(format!(
                        "no OpenCL GPU found (other OpenCL devices: {}, which a count can be \
                         asked to use by index)",
                        others.join(", ")
                    )),
                ));
            }
            let counters = gpus
                .iter()
                .map(|d| Counter::new(d.index).map_err(to_error))
                .collect::<Result<Vec<_>>>()?;
            Ok((counters, None))
        }
    }
}

/// The library's error for an OpenCL one: a usage error when there is no such device.
pub(crate) fn to_error(e: OpenClError) -> Error {
    if e.is_unavailable() || matches!(e, OpenClError::NoSuchDevice { .. }) {
        Error::NoDevice {
            reason: e.to_string(),
        }
    } else {
        Error::Device {
            device: None,
            units_done: None,
            reason: e.to_string(),
        }
    }
}

/// A batch of units prepared for one launch of each kernel.
#[derive(Default)]
pub(crate) struct Batch {
    /// The rows specs of the batch, each once.
    table: Vec<RowSpec>,
    index_of: HashMap<RowSpec, u32>,
    /// The sub-problems of the counted parts.
    subs: Vec<Sub>,
    /// The sub-problems of the classified parts, and the columns above each.
    classify: Vec<Sub>,
    prefixes: Vec<[u8; 32]>,
    /// The units, in the order pushed.
    units: Vec<BatchUnit>,
    level: Vec<(Sub, [u8; 32])>,
    next: Vec<(Sub, [u8; 32])>,
    children: Vec<Sub>,
}

/// One unit of a batch: where its pieces are and what they are worth.
struct BatchUnit {
    index: u32,
    /// Its counted part's sub-problems, and what one completion adds.
    counted: Range<usize>,
    each: Counts,
    /// Its classified parts' sub-problems, each part with its tally.
    classified: Vec<(Range<usize>, ClassifiedPart)>,
}

impl Batch {
    /// Empties the batch, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.index_of.clear();
        self.subs.clear();
        self.classify.clear();
        self.prefixes.clear();
        self.units.clear();
    }

    /// How many sub-problems the batch holds.
    pub(crate) fn subs(&self) -> usize {
        self.subs.len() + self.classify.len()
    }

    /// The index of `spec` in the batch's table.
    fn spec_index(&mut self, spec: RowSpec) -> u32 {
        let next = self.table.len() as u32;
        let index = *self.index_of.entry(spec).or_insert(next);
        if index == next {
            self.table.push(spec);
        }
        index
    }

    /// Splits `root` (the columns above it in `prefix`) by placing rows one at a time until
    /// it is in enough pieces or the pieces are small; leaves them in `self.level`.
    fn split(&mut self, n: u32, spec: &RowSpec, root: Sub, prefix: [u8; 32]) {
        self.level.clear();
        self.level.push((root, prefix));
        let mut first = root.first;
        while self.level.len() < SUBS_PER_PART && n - first > MIN_ROWS_LEFT {
            self.next.clear();
            for &(sub, prefix) in &self.level {
                self.children.clear();
                opencl::expand_into(n, spec, sub, 1, &mut self.children);
                for &child in &self.children {
                    let mut p = prefix;
                    p[sub.first as usize] = (child.cols ^ sub.cols).trailing_zeros() as u8;
                    self.next.push((child, p));
                }
            }
            std::mem::swap(&mut self.level, &mut self.next);
            first += 1;
            if self.level.is_empty() {
                break;
            }
        }
    }

    /// Adds `unit`: its counted part and its classified parts, split into sub-problems (a
    /// unit that leaves too few rows has neither: the CPU does it).
    pub(crate) fn push(&mut self, plan: &Plan, unit: &Unit) {
        let n = plan.job().n();
        let start = self.subs.len();
        let mut each = Counts::default();
        if let Some(part) = counted_part(plan, unit) {
            let (root, spec) = part.sub_problem(0);
            let root = Sub {
                rows: self.spec_index(spec),
                ..root
            };
            self.split(n, &spec, root, [0; 32]);
            self.subs.extend(self.level.iter().map(|&(sub, _)| sub));
            each = part.counts(1);
        }
        let counted = start..self.subs.len();
        let mut classified = Vec::new();
        for part in classified_parts(plan, unit) {
            let (root, spec) = CountedPart {
                rows: part.rows,
                first: part.first,
                masks: part.masks,
                total: 0,
                unique: 0,
            }
            .sub_problem(0);
            let root = Sub {
                rows: self.spec_index(spec),
                ..root
            };
            self.split(n, &spec, root, part.prefix);
            let start = self.classify.len();
            for &(sub, prefix) in &self.level {
                self.classify.push(sub);
                self.prefixes.push(prefix);
            }
            classified.push((start..self.classify.len(), part));
        }
        self.units.push(BatchUnit {
            index: unit.index,
            counted,
            each,
            classified,
        });
    }

    /// Counts the batch on `counter`: per unit, its index and the counts of its counted and
    /// classified parts.
    pub(crate) fn count(
        &self,
        counter: &mut Counter,
        n: u32,
    ) -> std::result::Result<Vec<(u32, Counts)>, OpenClError> {
        let found = counter.count(n, &self.table, &self.subs)?;
        let classes = counter.classify(n, &self.table, &self.classify, &self.prefixes)?;
        Ok(self
            .units
            .iter()
            .map(|u| {
                let completions: u128 = found[u.counted.clone()]
                    .iter()
                    .map(|&c| u128::from(c))
                    .sum();
                let mut counts = Counts {
                    total: u.each.total * completions,
                    unique: u.each.unique * completions,
                };
                for (range, part) in &u.classified {
                    let mut sum = [0u128; 3];
                    for c in &classes[range.clone()] {
                        (0..3).for_each(|k| sum[k] += u128::from(c[k]));
                    }
                    counts += part.counts(sum);
                }
                (u.index, counts)
            })
            .collect())
    }
}

impl DeviceWorker {
    /// Fills `batch` anew with units from the queue until it holds [`DeviceWorker::batch`]
    /// sub-problems (beside CPU workers, at most half the units left: the tail stays shared);
    /// returns their indices, none when the queue is empty.
    fn gather(&self, batch: &mut Batch) -> Vec<u32> {
        batch.clear();
        let mut taken = Vec::new();
        let most = if self.shared {
            self.queue.left().div_ceil(2)
        } else {
            usize::MAX
        };
        while batch.subs() < self.batch && taken.len() < most {
            let Some(index) = self.queue.take() else {
                break;
            };
            taken.push(index);
            batch.push(&self.plan, &self.plan.units()[index as usize]);
        }
        taken
    }

    /// Takes batches until the queue is empty or the run stops.
    fn run(self) {
        let mut counter = lock(&self.counter);
        let mut batch = Batch::default();
        let n = self.plan.job().n();
        let mut batches = 0;
        while !self.stop.load(Ordering::Relaxed) {
            let t0 = Instant::now();
            let taken = self.gather(&mut batch);
            let prepared = t0.elapsed();
            let results = match self.fail_after {
                // An injected failure comes at batch k + 1, or at the end if the device takes
                // fewer batches: a check that asks for one always sees it.
                Some(k) if batches >= k || taken.is_empty() => Err(OpenClError::Injected(k)),
                _ if taken.is_empty() => break,
                _ => batch.count(&mut counter, n),
            };
            batches += 1;
            let results = match results {
                Ok(results) => {
                    let mut log = lock(&self.log);
                    let tally = &mut log[self.device];
                    tally.batches += 1;
                    tally.host += prepared;
                    tally.launch += t0.elapsed() - prepared;
                    results
                }
                Err(e) => {
                    lock(&self.log)[self.device].error = Some(e.to_string());
                    if !self.shared {
                        // Alone, the device was asked for: its failure ends the run, so that
                        // a broken device is seen, not hidden behind CPU counts.
                        self.stop.store(true, Ordering::Relaxed);
                        return;
                    }
                    // Nothing of the batch was reported: the CPU workers do all of it. They
                    // take units from the queue too once no device is left.
                    drop(self.alive);
                    for index in taken {
                        let _ = self.work.send(CpuWork::Whole(index));
                    }
                    return;
                }
            };
            let share = t0.elapsed() / results.len() as u32;
            for (index, counts) in results {
                let timing = UnitTiming {
                    worker: self.id,
                    started: t0 - self.start,
                    elapsed: share,
                };
                let sent = if has_cpu_only_work(&self.plan, &self.plan.units()[index as usize]) {
                    self.work
                        .send(CpuWork::Rest {
                            index,
                            counts,
                            timing,
                        })
                        .is_ok()
                } else {
                    self.done
                        .send((index, counts, timing, Searches::default()))
                        .is_ok()
                };
                if !sent {
                    return;
                }
            }
        }
        // The run ended before the device reached its injected failure (the CPU workers took
        // every unit first): the failure asked for is still seen, as a device that took none.
        if let Some(k) = self.fail_after {
            lock(&self.log)[self.device].error = Some(OpenClError::Injected(k).to_string());
        }
    }
}
