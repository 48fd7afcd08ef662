//! `nqueens devices`: the OpenCL platforms and devices that could take counting work.

use super::{Exit, Result};
use clap::Args;
use nqueens_count::{opencl, DeviceRun};
use std::io::Write;

/// List where counts can run: the CPU's kernels and the OpenCL devices.
///
/// The first line (`cpu: ...`) names the processor's search kernels; then one line per OpenCL
/// device: index, platform, name, type, compute units, memory.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens devices                               # the kernels of this processor and the OpenCL devices")]
pub struct DevicesArgs {}

pub fn run(_: &DevicesArgs) -> Result<Exit> {
    let mut out = super::stdout();
    let kernels: Vec<&str> = nqueens_count::Kernel::ALL
        .into_iter()
        .rev()
        .filter(|k| k.available())
        .map(nqueens_count::Kernel::name)
        .collect();
    writeln!(
        out,
        "cpu: kernels {} (auto: {}), {} logical cores",
        kernels.join(", "),
        nqueens_count::Kernel::best(),
        super::default_threads()
    )?;
    match opencl::devices() {
        Ok(list) => {
            for d in &list {
                writeln!(
                    out,
                    "{}: {} ({}), {}, {} compute units, {} MiB",
                    d.index,
                    d.name,
                    d.platform,
                    d.kind,
                    d.compute_units,
                    d.global_mem_bytes >> 20
                )?;
            }
            Ok(Exit::Done)
        }
        Err(e) if e.is_unavailable() => {
            writeln!(out, "no OpenCL devices: {e}")?;
            Ok(Exit::Done)
        }
        Err(e) => Err(e.into()),
    }
}

/// Says on stderr which devices failed during a run, and how many units each had counted
/// (the CPU counted the rest).
pub fn warn_failed(devices: &[DeviceRun]) {
    for d in devices {
        if let Some(e) = &d.error {
            note!(
                "nqueens: OpenCL device {} ({}) failed after counting {} units; the CPU counted \
                 the rest: {}",
                d.device.index,
                d.device.name,
                d.units,
                e.split_whitespace().collect::<Vec<_>>().join(" ")
            );
        }
    }
}
