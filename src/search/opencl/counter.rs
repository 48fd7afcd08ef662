//! Counting batches of sub-problems on one OpenCL device: the device opened, its buffers kept
//! from call to call, each batch cut into launches ([`super::launch`]) with the settings of
//! [`super::tuning`] of the kernels of [`super::program`].

use std::ptr;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context as ClContext;
use opencl3::device::Device;
use opencl3::memory::{Buffer, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY};
use opencl3::types::{cl_device_id, CL_BLOCKING, CL_NON_BLOCKING};

use super::device::{enumerate, major_version, DeviceInfo};
use super::error::{Context, OpenClError};
use super::launch::{self, Launch};
use super::program::Kernels;
use super::spec::{full_mask, RowSpec, Sub, MAX_N};
use super::tuning::{Schedule, StackMemory, Tuning};

/// The most sub-problems one classifying launch takes (its buffers are made for each call).
const MAX_CLASSIFY_CHUNK: usize = 1 << 20;

/// Device buffers, kept across calls and grown when a batch needs more.
struct Buffers {
    subs: Buffer<Sub>,
    out: Buffer<u64>,
    capacity: usize,
}

/// The counting kernels, built once, on one OpenCL device.
///
/// Each call of [`Counter::count`] uploads a batch of sub-problems, counts them with one kernel
/// launch per chunk of at most 2^24, and reads back one count each. The device buffers are
/// reused from call to call.
pub struct Counter {
    // Fields drop in order: kernels and buffers before the queue and the context.
    kernels: Kernels,
    buffers: Option<Buffers>,
    table: Option<(Buffer<RowSpec>, usize)>,
    /// The counter the persistent kernels take sub-problems from.
    next: Buffer<u32>,
    queue: CommandQueue,
    context: ClContext,
    device: DeviceInfo,
    tuning: Tuning,
    build_time: Duration,
}

impl Counter {
    /// Opens device `device_index` (an index of [`super::devices`]) and builds the kernels for
    /// it, with the stack placement that suits the device ([`StackMemory::for_kind`]). A failed
    /// build returns [`OpenClError::Build`] with the compiler's log.
    pub fn new(device_index: usize) -> Result<Counter, OpenClError> {
        Counter::with_stack(device_index, None)
    }

    /// Like [`Counter::new`], with the stacks in `stack` memory (`None`: the device's choice).
    pub fn with_stack(
        device_index: usize,
        stack: Option<StackMemory>,
    ) -> Result<Counter, OpenClError> {
        let mut all = enumerate()?;
        let available = all.len();
        if device_index >= available {
            return Err(OpenClError::NoSuchDevice {
                index: device_index,
                available,
            });
        }
        let (device, id) = all.swap_remove(device_index);
        let stack = stack.unwrap_or_else(|| StackMemory::for_kind(device.kind));
        Counter::open(device, id, stack)
    }

    fn open(
        device: DeviceInfo,
        id: cl_device_id,
        stack: StackMemory,
    ) -> Result<Counter, OpenClError> {
        let context = ClContext::from_device(&Device::new(id)).call("clCreateContext")?;
        // SAFETY: `id` is the device of `context`; properties 0 is an in-order queue.
        let queue = unsafe {
            if major_version(&device.version) >= 2 {
                CommandQueue::create_with_properties(&context, id, 0, 0)
                    .call("clCreateCommandQueueWithProperties")?
            } else {
                CommandQueue::create(&context, id, 0).call("clCreateCommandQueue")?
            }
        };
        let started = Instant::now();
        let kernels = Kernels::build(&context, &device, id, stack)?;
        let build_time = started.elapsed();
        let tuning = Tuning::for_device(&device, stack, kernels.max_work_group(id)?);
        // SAFETY: a plain device allocation, no host pointer.
        let next = unsafe {
            Buffer::<u32>::create(&context, CL_MEM_READ_WRITE, 1, ptr::null_mut())
                .call("clCreateBuffer")?
        };
        Ok(Counter {
            kernels,
            buffers: None,
            table: None,
            next,
            queue,
            context,
            device,
            tuning,
            build_time,
        })
    }

    /// The device counted on.
    pub fn device(&self) -> &DeviceInfo {
        &self.device
    }

    /// How long building the program and creating the kernels took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// Where the kernels keep their stacks.
    #[cfg(test)]
    pub fn stack_memory(&self) -> StackMemory {
        self.tuning.stack
    }

    /// Sets how work-items take their sub-problems.
    #[cfg(test)]
    pub fn set_schedule(&mut self, schedule: Schedule) {
        self.tuning.schedule = schedule;
    }

    /// Sets the preferred work-group size (128 unless set). A launch uses the largest power of
    /// two at most this size that the kernel and the local memory (the stacks) allow.
    #[cfg(test)]
    pub fn set_work_group_size(&mut self, size: usize) {
        self.tuning.work_group_size = size.max(1);
    }

    /// Sets the most sub-problems one kernel launch takes (at most 2^24, the default, or what
    /// the device's largest buffer holds); bigger batches are counted in several launches. A
    /// smaller value bounds the run time of one launch, for devices with a watchdog.
    #[cfg(test)]
    pub fn set_max_launch(&mut self, subs: usize) {
        self.tuning.max_chunk = subs.clamp(1, Tuning::launch_limit(&self.device));
    }

    /// Counts, for each sub-problem of `subs`, the completions of its rows `first..n` on an
    /// `n`-column board: each row `r` placed from the lowest column of
    /// `rows_table[sub.rows].allow[r]` not attacked, the deadline of that spec checked on rows
    /// `first..n`. A sub-problem with `first == n` counts 1.
    ///
    /// Returns one count per sub-problem, in order. Fails with [`OpenClError::InvalidInput`]
    /// if `n > 32`, a `first` is past `n` or a `rows` index is out of the table.
    pub fn count(
        &mut self,
        n: u32,
        rows_table: &[RowSpec],
        subs: &[Sub],
    ) -> Result<Vec<u64>, OpenClError> {
        let levels = validate(n, rows_table, subs)?;
        let mut counts = vec![0u64; subs.len()];
        if subs.is_empty() {
            return Ok(counts);
        }
        let work_group = self.tuning.work_group(levels)?;
        self.upload_table(n, rows_table)?;
        let max = self.tuning.max_chunk;
        for (chunk, out) in subs.chunks(max).zip(counts.chunks_mut(max)) {
            if let Err(e) = self.count_chunk(n, chunk, out, levels, work_group) {
                // The queue may still read `chunk`: wait before giving it back to the caller.
                let _ = self.queue.finish();
                return Err(e);
            }
        }
        Ok(counts)
    }

    /// Classifies the solutions of each sub-problem under the 8 symmetries of the square. The
    /// search is that of [`Counter::count`]; `prefixes[i]` holds the columns of rows
    /// `0..subs[i].first` (the rest is ignored). Returns, per sub-problem, `[solutions,
    /// canonical solutions, class sizes of the canonical ones summed]`: a canonical solution
    /// is the lexicographically smallest of its class, as in `crate::search::symmetry`.
    ///
    /// Fails with [`OpenClError::InvalidInput`] as [`Counter::count`] does, and when the
    /// prefixes are not one per sub-problem or name a column off the board.
    pub fn classify(
        &mut self,
        n: u32,
        rows_table: &[RowSpec],
        subs: &[Sub],
        prefixes: &[[u8; 32]],
    ) -> Result<Vec<[u64; 3]>, OpenClError> {
        let levels = validate(n, rows_table, subs)?;
        validate_prefixes(n, subs, prefixes)?;
        let mut out = vec![[0u64; 3]; subs.len()];
        if subs.is_empty() {
            return Ok(out);
        }
        let work_group = self.tuning.work_group(levels)?;
        self.upload_table(n, rows_table)?;
        let chunk = self.tuning.max_chunk.min(MAX_CLASSIFY_CHUNK);
        for ((subs, prefixes), out) in subs
            .chunks(chunk)
            .zip(prefixes.chunks(chunk))
            .zip(out.chunks_mut(chunk))
        {
            if let Err(e) = self.classify_chunk(n, subs, prefixes, out, levels, work_group) {
                let _ = self.queue.finish();
                return Err(e);
            }
        }
        Ok(out)
    }

    /// Counts one chunk (at most `max_chunk` sub-problems) into `out`.
    fn count_chunk(
        &mut self,
        n: u32,
        chunk: &[Sub],
        out: &mut [u64],
        levels: usize,
        work_group: usize,
    ) -> Result<(), OpenClError> {
        self.reserve(chunk.len())?;
        let persistent = self.tuning.schedule == Schedule::Persistent;
        let (kernel, next) = if persistent {
            (&self.kernels.persistent, Some(&mut self.next))
        } else {
            (&self.kernels.each, None)
        };
        let buffers = self.buffers.as_mut().expect("reserved above");
        // SAFETY: the buffer holds at least `chunk.len()` elements. The write is non-blocking:
        // the blocking read at the end of the launch (or `finish` on error, in `count`) waits
        // for it on this in-order queue before `chunk` can be released.
        unsafe {
            self.queue
                .enqueue_write_buffer(&mut buffers.subs, CL_NON_BLOCKING, 0, chunk, &[])
                .call("clEnqueueWriteBuffer")?;
        }
        let launch = Launch {
            n,
            subs: &buffers.subs,
            count: u32::try_from(chunk.len()).expect("chunks are at most 2^24"),
            table: &self.table.as_ref().expect("uploaded before").0,
            prefixes: None,
            out: &buffers.out,
            stack_bytes: self.tuning.stack_bytes(levels, work_group),
            next,
            global: self.tuning.global_size(chunk.len(), work_group, persistent),
            work_group,
        };
        // SAFETY: the buffers hold at least `count` elements, and `count_each` and
        // `count_persistent` take the arguments of a launch without prefixes (the persistent
        // one with the counter).
        unsafe { launch::run(&self.queue, kernel, launch, out) }
    }

    /// Classifies one chunk into `out`, with buffers of its own (classification is the rarer
    /// call; its buffers are not kept).
    fn classify_chunk(
        &mut self,
        n: u32,
        subs: &[Sub],
        prefixes: &[[u8; 32]],
        out: &mut [[u64; 3]],
        levels: usize,
        work_group: usize,
    ) -> Result<(), OpenClError> {
        let len = subs.len();
        let flat: Vec<u8> = prefixes.iter().flatten().copied().collect();
        let mut results = vec![0u64; 3 * len];
        // SAFETY: plain device allocations of the sizes written and read below, no host
        // pointer; the writes are blocking. `classify_persistent` takes the arguments of a
        // launch with prefixes and the counter, reads `len` subs and 32 * `len` prefix bytes and
        // writes 3 * `len` ulongs.
        unsafe {
            let mut sub_buf =
                Buffer::<Sub>::create(&self.context, CL_MEM_READ_ONLY, len, ptr::null_mut())
                    .call("clCreateBuffer")?;
            let mut prefix_buf =
                Buffer::<u8>::create(&self.context, CL_MEM_READ_ONLY, 32 * len, ptr::null_mut())
                    .call("clCreateBuffer")?;
            let out_buf =
                Buffer::<u64>::create(&self.context, CL_MEM_WRITE_ONLY, 3 * len, ptr::null_mut())
                    .call("clCreateBuffer")?;
            self.queue
                .enqueue_write_buffer(&mut sub_buf, CL_BLOCKING, 0, subs, &[])
                .call("clEnqueueWriteBuffer")?;
            self.queue
                .enqueue_write_buffer(&mut prefix_buf, CL_BLOCKING, 0, &flat, &[])
                .call("clEnqueueWriteBuffer")?;
            let launch = Launch {
                n,
                subs: &sub_buf,
                count: u32::try_from(len).expect("chunks are at most 2^20"),
                table: &self.table.as_ref().expect("uploaded before").0,
                prefixes: Some(&prefix_buf),
                out: &out_buf,
                stack_bytes: self.tuning.stack_bytes(levels, work_group),
                next: Some(&mut self.next),
                global: self.tuning.global_size(len, work_group, true),
                work_group,
            };
            launch::run(&self.queue, &self.kernels.classify, launch, &mut results)?;
        }
        for (o, r) in out.iter_mut().zip(results.chunks_exact(3)) {
            *o = [r[0], r[1], r[2]];
        }
        Ok(())
    }

    /// Uploads `rows_table`, its masks cut down to the board.
    fn upload_table(&mut self, n: u32, rows_table: &[RowSpec]) -> Result<(), OpenClError> {
        let full = full_mask(n);
        let table: Vec<RowSpec> = rows_table
            .iter()
            .map(|spec| RowSpec {
                allow: spec.allow.map(|a| a & full),
                ..*spec
            })
            .collect();
        if self
            .table
            .as_ref()
            .is_none_or(|(_, cap)| *cap < table.len())
        {
            self.table = None; // free the old buffer first
                               // SAFETY: a plain device allocation, no host pointer.
            let buffer = unsafe {
                Buffer::<RowSpec>::create(
                    &self.context,
                    CL_MEM_READ_ONLY,
                    table.len(),
                    ptr::null_mut(),
                )
                .call("clCreateBuffer")?
            };
            self.table = Some((buffer, table.len()));
        }
        let (buffer, _) = self.table.as_mut().expect("allocated above");
        // SAFETY: blocking write of `table.len()` elements into a buffer at least that large.
        unsafe {
            self.queue
                .enqueue_write_buffer(buffer, CL_BLOCKING, 0, &table, &[])
                .call("clEnqueueWriteBuffer")?;
        }
        Ok(())
    }

    /// Makes sure the sub-problem and result buffers hold `len` elements.
    fn reserve(&mut self, len: usize) -> Result<(), OpenClError> {
        if self.buffers.as_ref().is_some_and(|b| b.capacity >= len) {
            return Ok(());
        }
        self.buffers = None; // free the old buffers first
                             // Round up so that slowly growing batches do not reallocate each time.
        let capacity = len.next_power_of_two().min(self.tuning.max_chunk).max(len);
        // SAFETY: plain device allocations, no host pointer.
        let (subs, out) = unsafe {
            (
                Buffer::<Sub>::create(&self.context, CL_MEM_READ_ONLY, capacity, ptr::null_mut())
                    .call("clCreateBuffer")?,
                Buffer::<u64>::create(&self.context, CL_MEM_WRITE_ONLY, capacity, ptr::null_mut())
                    .call("clCreateBuffer")?,
            )
        };
        self.buffers = Some(Buffers {
            subs,
            out,
            capacity,
        });
        Ok(())
    }
}

/// Checks the arguments of [`Counter::count`]; returns the stack levels the batch needs: the
/// most rows any sub-problem leaves, less the last two (whose nodes are never saved), at least 1.
fn validate(n: u32, rows_table: &[RowSpec], subs: &[Sub]) -> Result<usize, OpenClError> {
    if n > MAX_N {
        return Err(OpenClError::InvalidInput(format!(
            "board size {n} is over {MAX_N}"
        )));
    }
    let mut min_first = n;
    for (i, sub) in subs.iter().enumerate() {
        if sub.first > n {
            return Err(OpenClError::InvalidInput(format!(
                "sub-problem {i} starts at row {} of an {n}-row board",
                sub.first
            )));
        }
        if sub.rows as usize >= rows_table.len() {
            return Err(OpenClError::InvalidInput(format!(
                "sub-problem {i} uses rows spec {} of a table of {}",
                sub.rows,
                rows_table.len()
            )));
        }
        min_first = min_first.min(sub.first);
    }
    Ok(((n - min_first) as usize).saturating_sub(2).max(1))
}

/// Checks the prefixes of [`Counter::classify`]: one per sub-problem, every column of the rows
/// above it on the board.
fn validate_prefixes(n: u32, subs: &[Sub], prefixes: &[[u8; 32]]) -> Result<(), OpenClError> {
    if prefixes.len() != subs.len() {
        return Err(OpenClError::InvalidInput(format!(
            "{} prefixes for {} sub-problems",
            prefixes.len(),
            subs.len()
        )));
    }
    for (i, (sub, prefix)) in subs.iter().zip(prefixes).enumerate() {
        if let Some(c) = prefix[..sub.first as usize]
            .iter()
            .find(|&&c| u32::from(c) >= n)
        {
            return Err(OpenClError::InvalidInput(format!(
                "sub-problem {i} has a queen in column {c} of an {n}-column board"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_is_send() {
        fn send<T: Send>() {}
        send::<Counter>();
    }

    #[test]
    fn validation() {
        let table = [RowSpec::unconstrained(8)];
        assert_eq!(validate(8, &table, &[Sub::root(0)]).unwrap(), 6);
        assert_eq!(validate(8, &table, &[]).unwrap(), 1);
        let mut late = Sub::root(0);
        late.first = 8;
        assert_eq!(validate(8, &table, &[late]).unwrap(), 1);
        assert!(validate(33, &table, &[]).is_err());
        assert!(validate(8, &table, &[Sub::root(1)]).is_err());
        late.first = 9;
        assert!(validate(8, &table, &[late]).is_err());
    }
}
