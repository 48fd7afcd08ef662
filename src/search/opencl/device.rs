//! Finding OpenCL platforms and devices.

#[cfg(feature = "opencl")]
use std::sync::Mutex;

#[cfg(feature = "opencl")]
use opencl3::device::{
    Device, CL_DEVICE_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU,
};
#[cfg(feature = "opencl")]
use opencl3::error_codes::CL_PLATFORM_NOT_FOUND_KHR;
#[cfg(feature = "opencl")]
use opencl3::platform::get_platforms;
#[cfg(feature = "opencl")]
use opencl3::types::cl_device_id;

use super::error::OpenClError;
#[cfg(feature = "opencl")]
use super::error::{library_error, Context};

/// The kind of an OpenCL device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceKind {
    /// A graphics processor.
    Gpu,
    /// The host processor (e.g. PoCL).
    Cpu,
    /// A dedicated accelerator.
    Accelerator,
    /// Anything else (custom devices).
    Other,
}

impl std::fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DeviceKind::Gpu => "GPU",
            DeviceKind::Cpu => "CPU",
            DeviceKind::Accelerator => "accelerator",
            DeviceKind::Other => "other",
        })
    }
}

/// One OpenCL device, as found by [`devices`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The device's place among all devices of all platforms, in the order the OpenCL library
    /// lists them: the index a counter is opened with. Stable as long as the installed
    /// drivers do not change.
    pub index: usize,
    /// The platform (driver) name, e.g. "NVIDIA CUDA" or "Portable Computing Language".
    pub platform: String,
    /// The device name.
    pub name: String,
    /// The device type.
    pub kind: DeviceKind,
    /// The OpenCL version the device supports, e.g. "OpenCL 3.0 CUDA".
    pub version: String,
    /// Parallel compute units (streaming multiprocessors, CPU cores).
    pub compute_units: u32,
    /// Global memory, in bytes.
    pub global_mem_bytes: u64,
    /// The largest single buffer, in bytes.
    pub max_alloc_bytes: u64,
    /// Local (work-group shared) memory, in bytes.
    pub local_mem_bytes: u64,
    /// The largest work-group the device runs.
    pub max_work_group_size: usize,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "#{} {} ({}, {}): {} compute units, {} MiB",
            self.index,
            self.name,
            self.kind,
            self.platform,
            self.compute_units,
            self.global_mem_bytes >> 20
        )
    }
}

/// Every device of every OpenCL platform, in a stable order (platforms as the OpenCL library
/// lists them, then each platform's devices).
///
/// Never returns an empty list: when there is no device the error says why, with
/// [`OpenClError::NoLibrary`] (the OpenCL library could not be loaded),
/// [`OpenClError::NoPlatforms`] (no driver installed) or [`OpenClError::NoDevices`].
/// [`OpenClError::is_unavailable`] tells these apart from failures of a present device.
/// Without the `opencl` cargo feature, always [`OpenClError::NoLibrary`].
pub fn devices() -> Result<Vec<DeviceInfo>, OpenClError> {
    #[cfg(feature = "opencl")]
    return Ok(enumerate()?.into_iter().map(|(info, _)| info).collect());
    #[cfg(not(feature = "opencl"))]
    Err(OpenClError::NoLibrary(
        "this nqueens was built without OpenCL (cargo feature `opencl`)".into(),
    ))
}

/// Like [`devices`], with the device ids.
#[cfg(feature = "opencl")]
///
/// Holds a process-wide lock: some drivers set their devices up lazily, on the first
/// `clGetDeviceIDs`, without a lock of their own (PoCL 3.1 crashes, or lists no device, when
/// one thread queries a device while another is still setting it up). Calls made from
/// elsewhere in the process are not covered.
pub(crate) fn enumerate() -> Result<Vec<(DeviceInfo, cl_device_id)>, OpenClError> {
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = crate::sync::lock(&LOCK);
    // Load the library first, so that its absence is reported with the loader's message.
    if let Some(why) = library_error() {
        return Err(OpenClError::NoLibrary(why));
    }
    let platforms = match get_platforms() {
        Ok(p) => p,
        // The ICD loader's answer when it finds no driver (e.g. an empty OCL_ICD_VENDORS).
        Err(e) if e.0 == CL_PLATFORM_NOT_FOUND_KHR => return Err(OpenClError::NoPlatforms),
        Err(e) => return Err(OpenClError::api("clGetPlatformIDs", e)),
    };
    if platforms.is_empty() {
        return Err(OpenClError::NoPlatforms);
    }
    let mut found = Vec::new();
    for platform in &platforms {
        let platform_name = platform.name().call("clGetPlatformInfo")?;
        // `get_devices` reports CL_DEVICE_NOT_FOUND as an empty list.
        for id in platform
            .get_devices(CL_DEVICE_TYPE_ALL)
            .call("clGetDeviceIDs")?
        {
            let info = describe(found.len(), &platform_name, id)?;
            found.push((info, id));
        }
    }
    if found.is_empty() {
        return Err(OpenClError::NoDevices {
            platforms: platforms.len(),
        });
    }
    Ok(found)
}

/// Queries what [`DeviceInfo`] holds.
#[cfg(feature = "opencl")]
fn describe(index: usize, platform: &str, id: cl_device_id) -> Result<DeviceInfo, OpenClError> {
    const INFO: &str = "clGetDeviceInfo";
    let device = Device::new(id);
    let ty = device.dev_type().call(INFO)?;
    let kind = if ty & CL_DEVICE_TYPE_GPU != 0 {
        DeviceKind::Gpu
    } else if ty & CL_DEVICE_TYPE_CPU != 0 {
        DeviceKind::Cpu
    } else if ty & CL_DEVICE_TYPE_ACCELERATOR != 0 {
        DeviceKind::Accelerator
    } else {
        DeviceKind::Other
    };
    Ok(DeviceInfo {
        index,
        platform: platform.trim().to_owned(),
        name: device.name().call(INFO)?.trim().to_owned(),
        kind,
        version: device.version().call(INFO)?.trim().to_owned(),
        compute_units: device.max_compute_units().call(INFO)?,
        global_mem_bytes: device.global_mem_size().call(INFO)?,
        max_alloc_bytes: device.max_mem_alloc_size().call(INFO)?,
        local_mem_bytes: device.local_mem_size().call(INFO)?,
        max_work_group_size: device.max_work_group_size().call(INFO)?,
    })
}

/// The major OpenCL version of a version string such as "OpenCL 3.0 CUDA" (1 if unreadable).
#[cfg(feature = "opencl")]
pub(crate) fn major_version(version: &str) -> u32 {
    version
        .strip_prefix("OpenCL ")
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or(1)
}
