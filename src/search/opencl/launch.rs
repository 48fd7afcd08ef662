//! One launch of a kernel of `count.cl`: its arguments, in the one order every kernel takes
//! them, and the commands around it (the shared counter reset, the launch, the results read).

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem};
use opencl3::types::{cl_uint, CL_BLOCKING};

use super::error::{Context, OpenClError};
use super::spec::{RowSpec, Sub};

/// What a launch reads and writes, in the order of the kernels' parameters: `(uint n,
/// __global const sub_t *subs, uint count, __global const rows_t *rows, [__global const uchar
/// *prefixes,] __global ulong *out, __local uint4 *stack, [volatile __global uint *next])`.
pub(super) struct Launch<'a> {
    /// The board size.
    pub(super) n: u32,
    /// The sub-problems, `count` of them.
    pub(super) subs: &'a Buffer<Sub>,
    pub(super) count: u32,
    /// The rows specs the sub-problems name.
    pub(super) table: &'a Buffer<RowSpec>,
    /// The columns above each sub-problem, 32 bytes each: the classifying kernel only.
    pub(super) prefixes: Option<&'a Buffer<u8>>,
    /// Where the kernel writes its results.
    pub(super) out: &'a Buffer<u64>,
    /// The local memory of a work-group's stacks.
    pub(super) stack_bytes: usize,
    /// The counter the persistent kernels take sub-problems from, reset to 0 first.
    pub(super) next: Option<&'a mut Buffer<u32>>,
    /// Work-items in all and per work-group.
    pub(super) global: usize,
    pub(super) work_group: usize,
}

/// The arguments of a kernel, set in order.
struct Arguments<'k> {
    kernel: &'k Kernel,
    index: cl_uint,
}

impl Arguments<'_> {
    /// Sets the next argument to `value`.
    ///
    /// # Safety
    /// `T` must be the type of the kernel's parameter at this place.
    unsafe fn push<T>(&mut self, value: &T) -> Result<(), OpenClError> {
        self.kernel
            .set_arg(self.index, value)
            .call("clSetKernelArg")?;
        self.index += 1;
        Ok(())
    }

    /// Sets the next argument to `bytes` of local memory.
    ///
    /// # Safety
    /// The kernel's parameter at this place must be a `__local` pointer.
    unsafe fn local(&mut self, bytes: usize) -> Result<(), OpenClError> {
        self.kernel
            .set_arg_local_buffer(self.index, bytes)
            .call("clSetKernelArg")?;
        self.index += 1;
        Ok(())
    }
}

/// Launches `kernel` as `launch` says on `queue` and reads its results into `results` (a
/// blocking read: when it returns, the launch and every command before it on this in-order
/// queue are done).
///
/// # Safety
/// `kernel` takes exactly `launch`'s arguments (prefixes and counter as it has them); the
/// buffers hold what the kernel reads for `count` sub-problems (`count` subs, 32 * `count`
/// prefix bytes) and `results.len()` ulongs, and the kernel writes no more than that. `Sub`
/// and `RowSpec` are `#[repr(C)]` copies of `sub_t` and `rows_t`.
pub(super) unsafe fn run(
    queue: &CommandQueue,
    kernel: &Kernel,
    launch: Launch<'_>,
    results: &mut [u64],
) -> Result<(), OpenClError> {
    let mut args = Arguments { kernel, index: 0 };
    args.push(&launch.n)?;
    args.push(&launch.subs.get())?;
    args.push(&launch.count)?;
    args.push(&launch.table.get())?;
    if let Some(prefixes) = launch.prefixes {
        args.push(&prefixes.get())?;
    }
    args.push(&launch.out.get())?;
    args.local(launch.stack_bytes)?;
    if let Some(next) = launch.next {
        // The fill pattern is copied by OpenCL when enqueued.
        queue
            .enqueue_fill_buffer(next, &[0u32], 0, 4, &[])
            .call("clEnqueueFillBuffer")?;
        args.push(&next.get())?;
    }
    let (global, work_group) = (launch.global, launch.work_group);
    queue
        .enqueue_nd_range_kernel(kernel.get(), 1, ptr::null(), &global, &work_group, &[])
        .call("clEnqueueNDRangeKernel")?;
    queue
        .enqueue_read_buffer(launch.out, CL_BLOCKING, 0, results, &[])
        .call("clEnqueueReadBuffer")?;
    Ok(())
}
