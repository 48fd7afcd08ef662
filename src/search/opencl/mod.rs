//! OpenCL counting core of the N-Queens solver: counts the completions of many partial
//! placements (sub-problems) on an OpenCL device, one work-item each.
//!
//! - [`devices`] lists the devices (or says why there are none): `device.rs`;
//! - `Counter` opens a device, keeps its buffers and counts batches of `Sub`s (`counter.rs`),
//!   with the kernels of `count.cl` built once (`program.rs`), launched with their arguments
//!   in one order (`launch.rs`) under the device's settings (`tuning.rs`);
//! - `expand_into` splits a sub-problem on the host into smaller ones for the device
//!   (`spec.rs`, with the sub-problems and rows specs the kernels read).
//!
//! Boards have up to 32 columns; bit `c` of a mask is column `c`. The OpenCL
//! library is loaded at run time (`opencl3`'s `dynamic` feature): a program without OpenCL
//! installed runs, and only gets [`OpenClError::NoLibrary`] when it asks for a device.
//!
//! Without the `opencl` cargo feature only the device list and its types are here:
//! [`devices`] says that this build has no OpenCL.
//!
//! The engine's device workers (`count --kernel opencl`, `--gpu`) batch units' counted parts
//! into sub-problems for a `Counter`; `nqueens devices` lists the devices. The tests check
//! every count against a CPU reference on whatever OpenCL device is present (PoCL in CI).

#[cfg(feature = "opencl")]
mod counter;
mod device;
mod error;
#[cfg(feature = "opencl")]
mod launch;
#[cfg(feature = "opencl")]
mod program;
#[cfg(feature = "opencl")]
mod spec;
#[cfg(all(test, feature = "opencl"))]
pub(crate) mod tests;
#[cfg(feature = "opencl")]
mod tuning;

#[cfg(feature = "opencl")]
pub use counter::Counter;
pub use device::{devices, DeviceInfo, DeviceKind};
pub use error::OpenClError;
#[cfg(feature = "opencl")]
pub use spec::{expand_into, RowSpec, Sub, NO_DEADLINE};
