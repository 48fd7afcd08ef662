//! `nqueens devices`: the OpenCL platforms and devices that could take counting work.

use anyhow::Result;
use clap::Args;
use nqueens::engine::opencl;
use std::io::Write;
use std::process::ExitCode;

/// List the OpenCL devices (index, platform, name, type, compute units, memory).
#[derive(Args, Debug)]
pub struct DevicesArgs {}

pub fn run(_: &DevicesArgs) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
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
            Ok(ExitCode::SUCCESS)
        }
        Err(e) if e.is_unavailable() => {
            writeln!(out, "no OpenCL devices: {e}")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Err(e.into()),
    }
}
