//! OpenCL counting core of the N-Queens solver: counts the completions of many partial
//! placements (sub-problems) on an OpenCL device, one work-item each.
//!
//! - [`devices`] lists the devices (or says why there are none);
//! - [`Counter`] builds the kernels once for a device and counts batches of [`Sub`]s;
//! - [`expand`] splits a sub-problem on the host into smaller ones for the device.
//!
//! Boards have up to 32 columns; bit `c` of a mask is column `c`. The OpenCL
//! library is loaded at run time (`opencl3`'s `dynamic` feature): a program without OpenCL
//! installed runs, and only gets [`OpenClError::NoLibrary`] when it asks for a device.
//!
//! Without the `opencl` cargo feature only the types are here: [`devices`] says that this
//! build has no OpenCL.
//!
//! The engine's device workers (`count --kernel opencl`, `--gpu`) batch units' counted parts
//! into sub-problems for a [`Counter`]; `nqueens devices` lists the devices. The tests check
//! every count against a CPU reference on whatever OpenCL device is present (PoCL in CI).
// The tuning knobs (schedule, stack placement, launch and work-group sizes) and the helpers the
// engine does not call are used by the tests and kept for measurements on GPUs.
#![cfg_attr(
    any(not(test), not(feature = "opencl")),
    allow(dead_code, unused_imports)
)]

#[cfg(feature = "opencl")]
mod counter;
mod device;
mod error;
mod spec;
#[cfg(all(test, feature = "opencl"))]
pub(crate) mod tests;

#[cfg(feature = "opencl")]
pub use counter::{Counter, Schedule, StackMemory};
pub use device::{devices, DeviceInfo, DeviceKind};
pub use error::OpenClError;
pub use spec::{expand, expand_into, full_mask, RowSpec, Sub, NO_DEADLINE};
