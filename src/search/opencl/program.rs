//! The counting kernels of `count.cl`, built for one device.

use opencl3::context::Context as ClContext;
use opencl3::kernel::Kernel;
use opencl3::program::Program;
use opencl3::types::cl_device_id;

use super::device::DeviceInfo;
use super::error::{Context, OpenClError};
use super::tuning::StackMemory;

/// The OpenCL C source of the kernels.
const SOURCE: &str = include_str!("count.cl");

/// The program of the counting kernels and its three kernels. Fields drop in order: the
/// kernels before the program.
pub(super) struct Kernels {
    /// `count_each`: one work-item per sub-problem.
    pub(super) each: Kernel,
    /// `count_persistent`: work-items take sub-problems from a shared counter.
    pub(super) persistent: Kernel,
    /// `classify_persistent`: classifies the solutions of each sub-problem.
    pub(super) classify: Kernel,
    _program: Program,
}

impl Kernels {
    /// Builds the program for the device `id` of `context`, its stacks in `stack` memory. A
    /// build that fails gives the compiler's log.
    pub(super) fn build(
        context: &ClContext,
        device: &DeviceInfo,
        id: cl_device_id,
        stack: StackMemory,
    ) -> Result<Kernels, OpenClError> {
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
        Ok(Kernels {
            each: kernel("count_each")?,
            persistent: kernel("count_persistent")?,
            classify: kernel("classify_persistent")?,
            _program: program,
        })
    }

    /// The largest work-group every kernel takes on device `id`.
    pub(super) fn max_work_group(&self, id: cl_device_id) -> Result<usize, OpenClError> {
        let mut max = usize::MAX;
        for kernel in [&self.each, &self.persistent, &self.classify] {
            let size = kernel
                .get_work_group_size(id)
                .call("clGetKernelWorkGroupInfo")?;
            max = max.min(size);
        }
        Ok(max)
    }
}
