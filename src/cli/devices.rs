//! `nqueens devices`: the OpenCL platforms and devices that could take counting work.

use super::UsageError;
use super::{Exit, Result};
use clap::Args;
use nqueens::Engine;
use nqueens::{opencl, DeviceRun, Devices};
use std::io::Write;

/// List where counts can run: the CPU's search kernels (the first line, `cpu: ...`), then the
/// OpenCL devices (index, platform, name, type, compute units, memory).
#[derive(Args, Debug)]
pub struct DevicesArgs {}

pub fn run(_: &DevicesArgs) -> Result<Exit> {
    let mut out = super::stdout();
    let kernels: Vec<&str> = nqueens::Kernel::ALL
        .into_iter()
        .rev()
        .filter(|k| k.available())
        .map(nqueens::Kernel::name)
        .collect();
    writeln!(
        out,
        "cpu: kernels {} (auto: {}), {} logical cores",
        kernels.join(", "),
        nqueens::Kernel::best(),
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

/// The options that choose where a count runs: the CPU kernel and OpenCL devices. Shared by
/// `count`, `verify` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search kernel: auto (the fastest this processor has), avx512 (16 lanes), avx2 (8
    /// lanes), neon (16 lanes, aarch64), portable (8 lanes, any processor: SSE2 on x86-64), dfs
    /// (one node at a time, any processor), or opencl (every unit on one OpenCL device, see
    /// --opencl-device; the CPU threads classify the solutions that need it). All give the
    /// same counts.
    #[arg(long, default_value = "auto", value_parser = parse_kernel_choice)]
    pub kernel: KernelChoice,
    /// The OpenCL device (an index from `nqueens devices`) for --kernel opencl [default: 0], or
    /// with --gpu the one device (of any type) to count on beside the CPU threads.
    #[arg(long, value_name = "I", value_parser = super::whole::<usize>, allow_negative_numbers = true)]
    pub opencl_device: Option<usize>,
    /// Count on every OpenCL GPU as well, beside the CPU threads: both take units from one
    /// queue. Without a GPU, says so and counts on the CPU.
    #[arg(long)]
    pub gpu: bool,
}

/// A CPU kernel, or OpenCL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// The CPU workers search with this kernel.
    Cpu(nqueens::Kernel),
    /// One OpenCL device counts; the CPU workers use the fastest kernel for what they do.
    OpenCl,
}

fn parse_kernel_choice(s: &str) -> Result<KernelChoice, String> {
    if s == "opencl" {
        return Ok(KernelChoice::OpenCl);
    }
    s.parse().map(KernelChoice::Cpu).map_err(|e| match e {
        nqueens::Error::UnknownName { name, .. } => format!(
            "unknown kernel '{name}' (expected {})",
            nqueens::Kernel::choices_in_words(&["opencl"])
        ),
        e => e.to_string(),
    })
}

impl EngineArgs {
    /// The OpenCL devices asked for.
    pub fn devices(&self) -> Result<Devices> {
        match (self.kernel, self.gpu, self.opencl_device) {
            (KernelChoice::OpenCl, true, _) => Err(UsageError(
                "--gpu adds every GPU beside the CPU threads; --kernel opencl counts on one \
                 device: choose one"
                    .into(),
            )
            .into()),
            (KernelChoice::Cpu(_), false, Some(_)) => {
                Err(UsageError("--opencl-device needs --kernel opencl or --gpu".into()).into())
            }
            (KernelChoice::Cpu(_), true, Some(index)) => Ok(Devices::Beside(index)),
            (KernelChoice::OpenCl, false, index) => Ok(Devices::Only(index.unwrap_or(0))),
            (KernelChoice::Cpu(_), true, None) => Ok(Devices::Gpus),
            (KernelChoice::Cpu(_), false, None) => Ok(Devices::Cpu),
        }
    }

    /// The kernel the CPU workers search with (the fastest with --kernel opencl).
    pub fn cpu_kernel(&self) -> nqueens::Kernel {
        match self.kernel {
            KernelChoice::Cpu(kernel) => kernel,
            KernelChoice::OpenCl => nqueens::Kernel::best(),
        }
    }

    /// An engine of `threads` CPU workers with the kernel and devices asked for. With --gpu
    /// and no GPU, says on stderr why and counts on the CPU.
    pub fn engine(&self, threads: usize) -> Result<Engine> {
        let devices = self.devices()?;
        let mut engine = Engine::new(threads)?;
        if let KernelChoice::Cpu(kernel) = self.kernel {
            engine = engine.with_kernel(kernel)?;
        }
        let engine = engine.with_devices(devices)?;
        if let Some(note) = engine.device_note() {
            note!("nqueens: --gpu: {note}; counting on the CPU");
        }
        Ok(engine)
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
