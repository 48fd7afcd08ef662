//! The engine without OpenCL (the `opencl` cargo feature off): no device can be opened, so no
//! device worker ever runs. The same interface as `accel.rs`.

use super::run::{CpuWork, DeviceLog, DeviceSettings, Shared};
use super::Devices;
use crate::error::{Error, Result};
use crossbeam::channel;
use std::thread::JoinHandle;

/// An opened device: none can be, so none exists.
pub(super) type Handle = std::convert::Infallible;

/// Never called: no device is opened.
pub(super) fn handle(counter: Handle) -> Handle {
    counter
}

/// Never called: no device is opened.
pub(super) fn info(counter: &Handle) -> (crate::search::opencl::DeviceInfo, std::time::Duration) {
    match *counter {}
}

/// Why no device can be opened in this build.
const NO_OPENCL: &str = "this nqueens was built without OpenCL (cargo feature `opencl`)";

/// No device: the CPU alone, or an error saying why.
pub(super) fn open(which: Devices) -> Result<(Vec<Handle>, Option<String>)> {
    match which {
        Devices::Cpu => Ok((Vec::new(), None)),
        Devices::Gpus => Ok((Vec::new(), Some(NO_OPENCL.into()))),
        Devices::Only(_) | Devices::Beside(_) => Err(Error::NoDevice {
            reason: NO_OPENCL.into(),
        }),
    }
}

/// No device worker to start: there is no opened device.
pub(super) fn start(
    counters: &[Handle],
    _first_id: usize,
    _settings: DeviceSettings,
    _shared: &Shared,
    _work: &channel::Sender<CpuWork>,
    _log: &DeviceLog,
) -> Vec<JoinHandle<()>> {
    counters.iter().map(|&counter| match counter {}).collect()
}
