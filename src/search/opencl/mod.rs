//! OpenCL counting core of the N-Queens solver: counts the completions of many partial
//! placements (sub-problems) on an OpenCL device, one work-item each.
//!
//! - [`devices`] lists the devices (or says why there are none);
//! - [`Counter`] builds the kernels once for a device and counts batches of [`Sub`]s;
//! - [`expand`] splits a sub-problem on the host into smaller ones for the device.
//!
//! Boards have up to [`MAX_N`] = 32 columns; bit `c` of a mask is column `c`. The OpenCL
//! library is loaded at run time (`opencl3`'s `dynamic` feature): a program without OpenCL
//! installed runs, and only gets [`OpenClError::NoLibrary`] when it asks for a device.
//!
//! Not yet wired into the engine (`count --kernel opencl`, `--gpu` are the next steps of issue
//! #12); `nqueens devices` lists the devices, and the tests check every count against a CPU
//! reference on whatever OpenCL device is present (PoCL in CI).
#![allow(dead_code, unused_imports)]

mod counter;
mod device;
mod error;
mod spec;
#[cfg(test)]
mod tests;

pub use counter::{Counter, Schedule, StackMemory};
pub use device::{devices, DeviceInfo, DeviceKind};
pub use error::OpenClError;
pub use spec::{expand, expand_into, full_mask, RowSpec, Sub, MAX_N, NO_DEADLINE};
