//! How a counter launches its kernels on its device: how work-items take their sub-problems,
//! where their stacks live, the work-group size and the most sub-problems one launch takes.

use super::device::{DeviceInfo, DeviceKind};
use super::error::OpenClError;
use super::spec::Sub;

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
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "the alternative the tests check and measure; counts run Persistent"
        )
    )]
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

/// A counter's launch settings on its device.
#[derive(Clone, Debug)]
pub(super) struct Tuning {
    pub(super) schedule: Schedule,
    /// Fixed when the program is built (it is a build option).
    pub(super) stack: StackMemory,
    /// The preferred work-group size; a launch takes the largest power of two at most this
    /// that the kernels, the device and the stacks allow.
    pub(super) work_group_size: usize,
    /// The most sub-problems one launch takes.
    pub(super) max_chunk: usize,
    /// Work-groups resident per compute unit (for the persistent kernels' global size).
    groups_per_unit: usize,
    /// The largest work-group every kernel of the program takes on the device.
    kernel_max_work_group: usize,
    compute_units: usize,
    local_mem_bytes: usize,
    device_max_work_group: usize,
}

impl Tuning {
    /// The defaults for `device`, whose kernels take work-groups of `kernel_max_work_group` at
    /// most: persistent work-items, work-groups of 128, launches as large as the device's
    /// largest buffer or 2^24 sub-problems.
    pub(super) fn for_device(
        device: &DeviceInfo,
        stack: StackMemory,
        kernel_max_work_group: usize,
    ) -> Tuning {
        // Work-groups resident per compute unit on a GPU (more are harmless for the persistent
        // kernel: they find the counter exhausted). A CPU needs few.
        let groups_per_unit = if device.kind == DeviceKind::Gpu {
            16
        } else {
            4
        };
        Tuning {
            schedule: Schedule::Persistent,
            stack,
            work_group_size: 128,
            max_chunk: Tuning::launch_limit(device),
            groups_per_unit,
            kernel_max_work_group: kernel_max_work_group.max(1),
            compute_units: device.compute_units.max(1) as usize,
            local_mem_bytes: usize::try_from(device.local_mem_bytes).unwrap_or(usize::MAX),
            device_max_work_group: device.max_work_group_size,
        }
    }

    /// The most sub-problems a launch on `device` can take: 2^24, or what its largest buffer
    /// holds.
    pub(super) fn launch_limit(device: &DeviceInfo) -> usize {
        let per_sub = std::mem::size_of::<Sub>().max(std::mem::size_of::<u64>());
        let max_alloc = usize::try_from(device.max_alloc_bytes).unwrap_or(usize::MAX);
        (max_alloc / per_sub).clamp(1, MAX_CHUNK)
    }

    /// The work-group size for stacks of `levels` entries.
    pub(super) fn work_group(&self, levels: usize) -> Result<usize, OpenClError> {
        let fit = self.local_mem_bytes / self.stack_bytes(levels, 1);
        let size = self
            .work_group_size
            .min(self.kernel_max_work_group)
            .min(self.device_max_work_group)
            .min(fit);
        if size == 0 {
            return Err(OpenClError::InvalidInput(format!(
                "a stack of {levels} levels does not fit in {} bytes of local memory",
                self.local_mem_bytes
            )));
        }
        // The largest power of two at most `size`.
        Ok(1 << size.ilog2())
    }

    /// The local memory the stacks of a work-group take (a token 16 bytes for private stacks).
    pub(super) fn stack_bytes(&self, levels: usize, work_group: usize) -> usize {
        match self.stack {
            StackMemory::Local => levels * work_group * STACK_ENTRY_BYTES,
            StackMemory::Private => STACK_ENTRY_BYTES,
        }
    }

    /// The work-items of a launch over `len` sub-problems in groups of `work_group`: one each,
    /// or, for the persistent kernels, no more than the device keeps resident.
    pub(super) fn global_size(&self, len: usize, work_group: usize, persistent: bool) -> usize {
        let each = len.next_multiple_of(work_group);
        if persistent {
            each.min(self.compute_units * self.groups_per_unit * work_group)
        } else {
            each
        }
    }
}
