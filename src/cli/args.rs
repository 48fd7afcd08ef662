//! The options and values that several subcommands share: where a count runs (the kernel and
//! OpenCL devices), thread counts, board sizes, queen positions, and the choices among the
//! library's named enums (method, kernel, format), whose names and help come from their one
//! definition in the library ([`nqueens_count::Named`]).

use super::{shown, Result, UsageError};
use clap::builder::{PossibleValue, TypedValueParser};
use clap::Args;
use nqueens_count::{Devices, Engine, Named, Queen, MAX_N, MAX_THREADS};
use std::marker::PhantomData;

/// A value parser for a named enum of the library: its names (with their help) are clap's
/// possible values, for `--help`, completions and man pages; a value is parsed by the
/// library, whose error names the choices.
#[derive(Clone)]
pub struct NamedParser<T>(PhantomData<T>);

/// The [`NamedParser`] of `T`.
pub fn named<T>() -> NamedParser<T> {
    NamedParser(PhantomData)
}

impl<T: Named + Send + Sync + Clone> TypedValueParser for NamedParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_string_lossy();
        T::parse_name(text.trim()).map_err(|e| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n")).with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            T::all()
                .iter()
                .map(|v| PossibleValue::new(v.name()).help(v.help())),
        ))
    }
}

/// The options that choose where a count runs: the CPU kernel and OpenCL devices. Shared by
/// `count`, `verify` and `bench`.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Search kernel; all give the same counts. One the processor cannot run is refused.
    #[arg(long, default_value = "auto", value_parser = KernelParser)]
    pub kernel: KernelChoice,
    /// The OpenCL device (an index from `nqueens devices`) for --kernel opencl [default: 0], or
    /// with --gpu the one device (of any type) to count on beside the CPU threads.
    #[arg(long, value_name = "I", value_parser = whole::<usize>, allow_negative_numbers = true)]
    pub opencl_device: Option<usize>,
    /// Count on every OpenCL GPU as well, beside the CPU threads: both take units from one
    /// queue. Without a GPU, says so and counts on the CPU.
    #[arg(long)]
    pub gpu: bool,
    /// Sub-problems a device gathers per launch, for tuning it (1 to 16777216, about 28 bytes
    /// each on the host and the device) [default: 262144]. The counts do not depend on it;
    /// --json's devices[].host_s and launch_s show its effect.
    #[arg(long, value_name = "SUBS", value_parser = parse_batch)]
    pub opencl_batch: Option<usize>,
}

/// Parses `--opencl-batch`: a whole number that [`nqueens_count::check_device_batch`] takes.
fn parse_batch(s: &str) -> Result<usize, String> {
    let subs = whole::<usize>(s)?;
    nqueens_count::check_device_batch(subs).map_err(|e| e.to_string())?;
    Ok(subs)
}

/// A CPU kernel, or OpenCL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelChoice {
    /// The CPU workers search with this kernel.
    Cpu(nqueens_count::Kernel),
    /// One OpenCL device counts; the CPU workers use the fastest kernel for what they do.
    OpenCl,
}

/// The value parser of `--kernel`: `auto`, the CPU kernels (fastest first) and `opencl`, with
/// their help.
#[derive(Clone)]
struct KernelParser;

impl KernelParser {
    fn parse(s: &str) -> Result<KernelChoice, String> {
        if s == "opencl" {
            return Ok(KernelChoice::OpenCl);
        }
        s.parse().map(KernelChoice::Cpu).map_err(|e| match e {
            nqueens_count::Error::UnknownName { name, .. } => format!(
                "unknown kernel '{}' (expected {})",
                shown(&name),
                nqueens_count::Kernel::choices_in_words(&["opencl"])
            ),
            e => e.to_string(),
        })
    }
}

impl TypedValueParser for KernelParser {
    type Value = KernelChoice;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<KernelChoice, clap::Error> {
        KernelParser::parse(value.to_string_lossy().trim()).map_err(|e| {
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, format!("{e}\n")).with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        let auto = PossibleValue::new("auto").help("the fastest this processor has");
        let cpu = nqueens_count::Kernel::ALL
            .into_iter()
            .rev()
            .map(|k| PossibleValue::new(k.name()).help(k.help()));
        let opencl = PossibleValue::new("opencl").help(
            "every unit on one OpenCL device (--opencl-device); the CPU threads classify the \
             solutions that need it",
        );
        Some(Box::new(
            std::iter::once(auto)
                .chain(cpu)
                .chain(std::iter::once(opencl)),
        ))
    }
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
            (KernelChoice::Cpu(_), false, None) if self.opencl_batch.is_some() => {
                Err(UsageError("--opencl-batch needs --kernel opencl or --gpu".into()).into())
            }
            (KernelChoice::Cpu(_), true, Some(index)) => Ok(Devices::Beside(index)),
            (KernelChoice::OpenCl, false, index) => Ok(Devices::Only(index.unwrap_or(0))),
            (KernelChoice::Cpu(_), true, None) => Ok(Devices::Gpus),
            (KernelChoice::Cpu(_), false, None) => Ok(Devices::Cpu),
        }
    }

    /// The kernel the CPU workers search with (the fastest with --kernel opencl).
    pub fn cpu_kernel(&self) -> nqueens_count::Kernel {
        match self.kernel {
            KernelChoice::Cpu(kernel) => kernel,
            KernelChoice::OpenCl => nqueens_count::Kernel::best(),
        }
    }

    /// An engine of `threads` CPU workers with the kernel and devices asked for. With --gpu
    /// and no GPU, says on stderr why (unless `quiet`) and counts on the CPU.
    pub fn engine(&self, threads: usize, quiet: bool) -> Result<Engine> {
        let devices = self.devices()?;
        let mut engine = Engine::new(threads)?;
        if let KernelChoice::Cpu(kernel) = self.kernel {
            engine = engine.with_kernel(kernel)?;
        }
        let mut engine = engine.with_devices(devices)?;
        if let Some(subs) = self.opencl_batch {
            engine = engine.with_device_batch(subs)?;
        }
        if let Some(note) = engine.device_note().filter(|_| !quiet) {
            note!("nqueens: --gpu: {note}; counting on the CPU");
        }
        if devices != Devices::Cpu {
            if let Some(batches) = injected_failure()? {
                engine = engine.fail_devices_after(batches);
            }
        }
        Ok(engine)
    }
}

/// The variable that makes every OpenCL device fail on purpose after K batches, for the tests
/// of how a failing device is handled (`tests/opencl.rs` runs this binary). Read here, by the
/// binary, when devices are asked for; the library only has the hidden
/// [`Engine::fail_devices_after`], which nothing else calls.
const FAIL_AFTER: &str = "NQUEENS_OPENCL_FAIL_AFTER";

/// The batches after which every device fails on purpose, from [`FAIL_AFTER`] (unset: never);
/// a value that is not a number is refused, not ignored.
fn injected_failure() -> Result<Option<usize>> {
    let Some(value) = std::env::var_os(FAIL_AFTER) else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    match text.trim().parse() {
        Ok(batches) => Ok(Some(batches)),
        Err(_) => Err(UsageError(format!(
            "{FAIL_AFTER} must be a number of batches, got '{}'",
            shown(&text)
        ))
        .into()),
    }
}

/// Parses a thread count: an integer from 1 to [`MAX_THREADS`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("the thread count must be at least 1".into()),
        Ok(t) if t > MAX_THREADS => Err(format!(
            "the thread count must be at most {MAX_THREADS}, got {t}"
        )),
        Ok(t) => Ok(t),
        Err(_) => Err(format!(
            "'{}' is not a thread count (a whole number from 1 to {MAX_THREADS})",
            shown(s)
        )),
    }
}

/// Parses a positive integer (an option's value, or one item of a comma-separated list).
#[cfg(feature = "bench")]
pub fn positive<T: std::str::FromStr + PartialEq + Default>(s: &str) -> Result<T, String> {
    match s.trim().parse::<T>() {
        Ok(v) if v != T::default() => Ok(v),
        _ => Err(format!("'{}' is not a positive integer", shown(s))),
    }
}

/// Parses a whole number (zero included).
pub fn whole<T: std::str::FromStr<Err = std::num::ParseIntError>>(s: &str) -> Result<T, String> {
    s.trim().parse::<T>().map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => format!("'{}' is too large", shown(s)),
        _ => format!("'{}' is not a whole number", shown(s)),
    })
}

/// Parses a board size: an integer in 1..=32.
pub fn parse_n(s: &str) -> Result<u32, String> {
    // Parsed wider than N, so that a number past `u32` gets the range in the message too.
    let n: u64 = s.trim().parse().map_err(|_| {
        format!(
            "'{}' is not a board size (a whole number from 1 to {MAX_N})",
            shown(s)
        )
    })?;
    let n = u32::try_from(n).map_err(|_| format!("N must be between 1 and {MAX_N}, got {n}"))?;
    nqueens_count::check_n(n).map_err(|e| e.to_string())
}

/// Parses a queen position `R,C` (1-based row and column).
pub fn parse_place(s: &str) -> Result<Queen, String> {
    let bad = || format!("'{s}' is not a queen position: expected ROW,COLUMN, 1-based, like 1,2");
    let (r, c) = s.split_once(',').ok_or_else(bad)?;
    let r: u32 = r.trim().parse().map_err(|_| bad())?;
    let c: u32 = c.trim().parse().map_err(|_| bad())?;
    Queen::one_based(r, c)
        .ok_or_else(|| format!("'{s}': rows and columns count from 1, so 0 is not a position"))
}

/// Refuses `--unique` with `--place`: a class can have members with and without the placed
/// queens, so "one per class" has no single meaning there.
pub fn check_unique_place(unique: bool, place: &[Queen]) -> Result<()> {
    if unique && !place.is_empty() {
        return Err(UsageError("--unique cannot be combined with --place".into()).into());
    }
    Ok(())
}
