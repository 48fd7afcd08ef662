//! The errors of the OpenCL back end.

#[cfg(feature = "opencl")]
use opencl3::error_codes::{error_text, ClError, DLOPEN_RUNTIME_LOAD_FAILED};

/// The OpenCL name of an error code (the code alone without the `opencl` feature).
fn code_text(code: i32) -> String {
    #[cfg(feature = "opencl")]
    return error_text(code).to_owned();
    #[cfg(not(feature = "opencl"))]
    format!("OpenCL error {code}")
}

/// Everything that can go wrong when finding an OpenCL device or counting on one.
///
/// The first three variants say why no device can be used at all (see
/// [`OpenClError::is_unavailable`]); the others are failures of a device that exists.
#[derive(Debug, thiserror::Error)]
pub enum OpenClError {
    /// The OpenCL library (the ICD loader, `libOpenCL.so.1` on Linux) could not be loaded. It is
    /// loaded at run time, the first time OpenCL is used; `OPENCL_DYLIB_PATH` (a `;`-separated
    /// list of paths) may name another library to try first.
    #[error(
        "the OpenCL library could not be loaded ({0}); install an OpenCL ICD loader \
         (e.g. ocl-icd-libopencl1) and a driver, or set OPENCL_DYLIB_PATH"
    )]
    NoLibrary(String),
    /// The library loaded, but no OpenCL platform (driver) is installed.
    #[error("no OpenCL platform is installed (the OpenCL library found no driver)")]
    NoPlatforms,
    /// Platforms exist but none has a device.
    #[error("no OpenCL device found on the {platforms} OpenCL platform(s) installed")]
    NoDevices {
        /// How many platforms were found.
        platforms: usize,
    },
    /// A device index out of range.
    #[error("there is no OpenCL device {index}: {available} device(s) found")]
    NoSuchDevice {
        /// The index asked for.
        index: usize,
        /// How many devices there are.
        available: usize,
    },
    /// An OpenCL call failed.
    #[error("OpenCL call {call} failed: {} ({code})", code_text(*.code))]
    Api {
        /// What was being done.
        call: &'static str,
        /// The OpenCL error code.
        code: i32,
    },
    /// The kernels did not compile for the device.
    #[error("building the OpenCL kernels for {device} failed: {} ({code}); build log:\n{log}", code_text(*.code))]
    Build {
        /// The device name.
        device: String,
        /// The OpenCL error code of the build.
        code: i32,
        /// The compiler's log.
        log: String,
    },
    /// Arguments that the kernel cannot take (bad board size, sub-problem or rows index).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A failure asked for, after this many batches, to check how failures are handled
    /// (`Engine::fail_devices_after`).
    #[error("failure injected on purpose after {0} batches")]
    Injected(usize),
}

/// The request's fault where no device is present at all (it cannot be met on this
/// machine); the machine's where a device that exists failed.
impl crate::Classify for OpenClError {
    fn class(&self) -> crate::Class {
        if self.is_unavailable() {
            crate::Class::Request
        } else {
            crate::Class::Machine
        }
    }
}

impl OpenClError {
    /// Whether the error says that no OpenCL device is present at all (no library, no
    /// platform, no device), as opposed to a failure of a device that exists.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            OpenClError::NoLibrary(_) | OpenClError::NoPlatforms | OpenClError::NoDevices { .. }
        )
    }

    /// The error for a failed OpenCL call. A failure to load the library (which any call can
    /// report, as the library is loaded on first use) becomes [`OpenClError::NoLibrary`].
    #[cfg(feature = "opencl")]
    pub(crate) fn api(call: &'static str, e: ClError) -> OpenClError {
        if e.0 == DLOPEN_RUNTIME_LOAD_FAILED {
            OpenClError::NoLibrary(library_error().unwrap_or_else(|| error_text(e.0).to_owned()))
        } else {
            OpenClError::Api { call, code: e.0 }
        }
    }
}

/// Why the OpenCL library did not load, or `None` if it did. Loads it on the first call.
#[cfg(feature = "opencl")]
pub(crate) fn library_error() -> Option<String> {
    if cfg!(target_feature = "crt-static") {
        // glibc's static dlopen loads a second C library beside the built-in one: the OpenCL
        // drivers crash in it. Say so instead of trying.
        return Some(
            "this nqueens is statically linked (crt-static), which cannot load shared \
             libraries; use a dynamically linked build (see docs/GPU.md)"
                .into(),
        );
    }
    cl3::load_library().as_ref().err().map(ToString::to_string)
}

/// Attaches the name of the call to an OpenCL error.
#[cfg(feature = "opencl")]
pub(crate) trait Context<T> {
    /// Maps the error to [`OpenClError::api`] with `call`.
    fn call(self, call: &'static str) -> Result<T, OpenClError>;
}

#[cfg(feature = "opencl")]
impl<T> Context<T> for Result<T, ClError> {
    fn call(self, call: &'static str) -> Result<T, OpenClError> {
        self.map_err(|e| OpenClError::api(call, e))
    }
}
