//! Counting batches of sub-problems on one OpenCL device.

use std::ptr;
use std::time::{Duration, Instant};

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context as ClContext;
use opencl3::device::Device;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_ONLY, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY};
use opencl3::program::Program;
use opencl3::types::{cl_device_id, CL_BLOCKING, CL_NON_BLOCKING};

use super::device::{enumerate, major_version, DeviceInfo, DeviceKind};
use super::error::{Context, OpenClError};
use super::spec::{full_mask, RowSpec, Sub, MAX_N};

/// The OpenCL C source of the kernels.
const SOURCE: &str = include_str!("count.cl");

/// The most sub-problems one kernel launch takes; bigger batches are split. Bounds the device
/// buffers (20 + 8 bytes a sub-problem) and keeps the kernels' `uint` indices far from overflow.
const MAX_CHUNK: usize = 1 << 24;

/// Bytes of local memory per work-item and stack level: one `uint4`.
const STACK_ENTRY_BYTES: usize = 16;

/// How work-items take their sub-problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// One work-item per sub-problem (`count_each`): a work-item that finishes early idles until
    /// its SIMD group is done.
    OnePerItem,
    /// A fixed number of work-items that take sub-problems from an atomic counter until none is
    /// left (`count_persistent`): keeps every lane busy when sub-problem sizes vary.
    Persistent,
}

/// Where each work-item keeps its search stack (at most 30 entries of 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackMemory {
    /// In local (work-group shared) memory, laid out `[level][work-item]`: on-chip on GPUs,
    /// where private arrays indexed at run time would go to off-chip memory. Bounds the
    /// work-group size by the device's local memory.
    Local,
    /// In a private array of each work-item: better on CPU devices (PoCL), where local memory
    /// is ordinary memory.
    Private,
}

impl StackMemory {
    /// The better placement for a kind of device: private on CPUs, local elsewhere.
    pub fn for_kind(kind: DeviceKind) -> StackMemory {
        if kind == DeviceKind::Cpu {
            StackMemory::Private
        } else {
            StackMemory::Local
        }
    }
}

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
    // Fields drop in order: kernels and buffers before the program, queue and context.
    kernel_each: Kernel,
    kernel_persistent: Kernel,
    kernel_classify: Kernel,
    buffers: Option<Buffers>,
    table: Option<(Buffer<RowSpec>, usize)>,
    next: Buffer<u32>,
    queue: CommandQueue,
    _program: Program,
    context: ClContext,
    device: DeviceInfo,
    kernel_max_work_group: usize,
    max_chunk: usize,
    max_launch_limit: usize,
    work_group_size: usize,
    groups_per_unit: usize,
    schedule: Schedule,
    stack: StackMemory,
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
        let (program, [kernel_each, kernel_persistent, kernel_classify]) =
            build(&context, &device, id, stack)?;
        let build_time = started.elapsed();

        let kernel_max_work_group = kernel_each
            .get_work_group_size(id)
            .call("clGetKernelWorkGroupInfo")?
            .min(
                kernel_persistent
                    .get_work_group_size(id)
                    .call("clGetKernelWorkGroupInfo")?,
            )
            .min(
                kernel_classify
                    .get_work_group_size(id)
                    .call("clGetKernelWorkGroupInfo")?,
            )
            .max(1);
        // SAFETY: a plain device allocation, no host pointer.
        let next = unsafe {
            Buffer::<u32>::create(&context, CL_MEM_READ_WRITE, 1, ptr::null_mut())
                .call("clCreateBuffer")?
        };
        let per_sub = std::mem::size_of::<Sub>().max(std::mem::size_of::<u64>());
        let max_alloc = usize::try_from(device.max_alloc_bytes).unwrap_or(usize::MAX);
        let max_chunk = (max_alloc / per_sub).clamp(1, MAX_CHUNK);
        // Work-groups resident per compute unit on a GPU (more are harmless for the
        // persistent kernel: they find the counter exhausted). A CPU needs few.
        let groups_per_unit = if device.kind == DeviceKind::Gpu {
            16
        } else {
            4
        };
        Ok(Counter {
            kernel_each,
            kernel_persistent,
            kernel_classify,
            buffers: None,
            table: None,
            next,
            queue,
            _program: program,
            context,
            device,
            kernel_max_work_group,
            max_chunk,
            max_launch_limit: max_chunk,
            work_group_size: 128,
            groups_per_unit,
            schedule: Schedule::Persistent,
            stack,
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
    pub fn stack_memory(&self) -> StackMemory {
        self.stack
    }

    /// Sets how work-items take their sub-problems.
    pub fn set_schedule(&mut self, schedule: Schedule) {
        self.schedule = schedule;
    }

    /// Sets the preferred work-group size (128 unless set). A launch uses the largest power of
    /// two at most this size that the kernel and the local memory (the stacks) allow.
    pub fn set_work_group_size(&mut self, size: usize) {
        self.work_group_size = size.max(1);
    }

    /// Sets the most sub-problems one kernel launch takes (at most 2^24, the default, or what
    /// the device's largest buffer holds); bigger batches are counted in several launches. A
    /// smaller value bounds the run time of one launch, for devices with a watchdog.
    pub fn set_max_launch(&mut self, subs: usize) {
        self.max_chunk = subs.clamp(1, self.max_launch_limit);
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
        let work_group = self.work_group(levels)?;
        self.upload_table(n, rows_table)?;
        for (chunk, out) in subs
            .chunks(self.max_chunk)
            .zip(counts.chunks_mut(self.max_chunk))
        {
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
        let mut out = vec![[0u64; 3]; subs.len()];
        if subs.is_empty() {
            return Ok(out);
        }
        let work_group = self.work_group(levels)?;
        self.upload_table(n, rows_table)?;
        let chunk = self.max_chunk.min(1 << 20);
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
        let count = u32::try_from(len).expect("chunks are at most 2^20");
        let flat: Vec<u8> = prefixes.iter().flatten().copied().collect();
        let mut results = vec![0u64; 3 * len];
        // SAFETY: plain device allocations of the sizes written and read below, no host
        // pointer. The kernel reads `count` subs and 32 * `count` prefix bytes and writes
        // 3 * `count` ulongs; the argument types match `classify_persistent` (uint, sub_t*,
        // uint, rows_t*, uchar*, ulong*, __local uint4*, volatile uint*). Writes are blocking.
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
            self.queue
                .enqueue_fill_buffer(&mut self.next, &[0u32], 0, 4, &[])
                .call("clEnqueueFillBuffer")?;
            let table = &self.table.as_ref().expect("uploaded before").0;
            let kernel = &self.kernel_classify;
            kernel.set_arg(0, &n).call("clSetKernelArg")?;
            kernel.set_arg(1, &sub_buf.get()).call("clSetKernelArg")?;
            kernel.set_arg(2, &count).call("clSetKernelArg")?;
            kernel.set_arg(3, &table.get()).call("clSetKernelArg")?;
            kernel
                .set_arg(4, &prefix_buf.get())
                .call("clSetKernelArg")?;
            kernel.set_arg(5, &out_buf.get()).call("clSetKernelArg")?;
            kernel
                .set_arg_local_buffer(6, self.stack_bytes(levels, work_group))
                .call("clSetKernelArg")?;
            kernel.set_arg(7, &self.next.get()).call("clSetKernelArg")?;
            let resident =
                self.device.compute_units.max(1) as usize * self.groups_per_unit * work_group;
            let global = len.next_multiple_of(work_group).min(resident);
            self.queue
                .enqueue_nd_range_kernel(kernel.get(), 1, ptr::null(), &global, &work_group, &[])
                .call("clEnqueueNDRangeKernel")?;
            self.queue
                .enqueue_read_buffer(&out_buf, CL_BLOCKING, 0, &mut results, &[])
                .call("clEnqueueReadBuffer")?;
        }
        for (o, r) in out.iter_mut().zip(results.chunks_exact(3)) {
            *o = [r[0], r[1], r[2]];
        }
        Ok(())
    }

    /// The work-group size for stacks of `levels` entries.
    fn work_group(&self, levels: usize) -> Result<usize, OpenClError> {
        let local = usize::try_from(self.device.local_mem_bytes).unwrap_or(usize::MAX);
        let fit = local / self.stack_bytes(levels, 1);
        let size = self
            .work_group_size
            .min(self.kernel_max_work_group)
            .min(self.device.max_work_group_size)
            .min(fit);
        if size == 0 {
            return Err(OpenClError::InvalidInput(format!(
                "a stack of {levels} levels does not fit in {local} bytes of local memory"
            )));
        }
        // The largest power of two at most `size`.
        Ok(1 << size.ilog2())
    }

    /// The local memory the stacks of a work-group take (a token 16 bytes for private stacks).
    fn stack_bytes(&self, levels: usize, work_group: usize) -> usize {
        match self.stack {
            StackMemory::Local => levels * work_group * STACK_ENTRY_BYTES,
            StackMemory::Private => STACK_ENTRY_BYTES,
        }
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
        let capacity = len.next_power_of_two().min(self.max_chunk).max(len);
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
        let count = u32::try_from(chunk.len()).expect("chunks are at most 2^24");
        let stack_bytes = self.stack_bytes(levels, work_group);
        let buffers = self.buffers.as_mut().expect("reserved above");
        let table = &self.table.as_ref().expect("uploaded before").0;
        let (kernel, global) = match self.schedule {
            Schedule::OnePerItem => (&self.kernel_each, chunk.len().next_multiple_of(work_group)),
            Schedule::Persistent => {
                let resident =
                    self.device.compute_units.max(1) as usize * self.groups_per_unit * work_group;
                (
                    &self.kernel_persistent,
                    chunk.len().next_multiple_of(work_group).min(resident),
                )
            }
        };
        // SAFETY: the buffers hold at least `count` elements and the kernel reads and writes
        // only indices below `count`; the argument types match the kernel's signature
        // (uint, __global sub_t*, uint, __global rows_t*, __global ulong*, __local uint4*,
        // volatile __global uint*), `Sub` and `RowSpec` being #[repr(C)] copies of `sub_t` and
        // `rows_t`. The write of `chunk` is non-blocking: the blocking read at the end (or
        // `finish` on error, in `count`) waits for it on this in-order queue before `chunk`
        // can be released. The fill pattern is copied by OpenCL when enqueued.
        unsafe {
            self.queue
                .enqueue_write_buffer(&mut buffers.subs, CL_NON_BLOCKING, 0, chunk, &[])
                .call("clEnqueueWriteBuffer")?;
            kernel.set_arg(0, &n).call("clSetKernelArg")?;
            kernel
                .set_arg(1, &buffers.subs.get())
                .call("clSetKernelArg")?;
            kernel.set_arg(2, &count).call("clSetKernelArg")?;
            kernel.set_arg(3, &table.get()).call("clSetKernelArg")?;
            kernel
                .set_arg(4, &buffers.out.get())
                .call("clSetKernelArg")?;
            kernel
                .set_arg_local_buffer(5, stack_bytes)
                .call("clSetKernelArg")?;
            if self.schedule == Schedule::Persistent {
                self.queue
                    .enqueue_fill_buffer(&mut self.next, &[0u32], 0, 4, &[])
                    .call("clEnqueueFillBuffer")?;
                kernel.set_arg(6, &self.next.get()).call("clSetKernelArg")?;
            }
            self.queue
                .enqueue_nd_range_kernel(kernel.get(), 1, ptr::null(), &global, &work_group, &[])
                .call("clEnqueueNDRangeKernel")?;
            self.queue
                .enqueue_read_buffer(&buffers.out, CL_BLOCKING, 0, out, &[])
                .call("clEnqueueReadBuffer")?;
        }
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

/// The program of the counting kernels built for the device `id` of `context` (its stack in
/// local or private memory), and its three kernels: `count_each`, `count_persistent`,
/// `classify_persistent`. A build that fails gives the compiler's log.
fn build(
    context: &ClContext,
    device: &DeviceInfo,
    id: cl_device_id,
    stack: StackMemory,
) -> Result<(Program, [Kernel; 3]), OpenClError> {
    let mut program =
        Program::create_from_source(context, SOURCE).call("clCreateProgramWithSource")?;
    let options = match stack {
        StackMemory::Local => "",
        StackMemory::Private => "-D NQ_PRIVATE_STACK",
    };
    if let Err(e) = program.build(&[id], options) {
        let log = program
            .get_build_log(id)
            .unwrap_or_else(|l| format!("(no build log: {l})"));
        return Err(OpenClError::Build {
            device: device.name.clone(),
            code: e.0,
            log,
        });
    }
    let kernel = |name| Kernel::create(&program, name).call("clCreateKernel");
    let kernels = [
        kernel("count_each")?,
        kernel("count_persistent")?,
        kernel("classify_persistent")?,
    ];
    Ok((program, kernels))
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
