//! How a finished count is printed: one line (the total, and the unique count when asked for) or
//! one JSON object. Every subcommand that finishes a count prints it here.

use super::Result;
use nqueens_count::Report;
use serde::Serialize;
use std::io::Write;

/// The JSON form of a count.
#[derive(Serialize)]
struct CountJson {
    /// Board size.
    n: u32,
    /// All solutions.
    total: u128,
    /// Solutions distinct up to symmetry, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<u128>,
    /// Worker threads.
    threads: usize,
    /// Rows fixed by each work unit (with d4, units whose first queen is in a corner fix at
    /// least two); `null` when the job has no units at all (N = 2 and 3: no placement of the
    /// first rows survives, so nothing was split).
    split_depth: Option<u32>,
    /// Number of work units (of the shard, for a shard).
    units: usize,
    /// The shard `I/M` counted, for a shard: the counts are its share of the job.
    #[serde(skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
    /// Method used.
    method: String,
    /// What counted: the CPU kernel (`avx512`, ...), `opencl` when OpenCL devices took every
    /// unit, or both (`avx512+opencl`).
    kernel: String,
    /// Where the CPU workers' searches ran: `lanes` (on the kernel's vector lanes) and
    /// `depth_first` (trees too small for the lanes, or the dfs kernel). Zero lane searches
    /// under a vector kernel means the kernel never ran.
    searches: nqueens_count::Searches,
    /// Wall time in seconds.
    elapsed_s: f64,
    /// The CPU time in seconds that the model estimated before the run for the units it counted
    /// itself (`docs/PERFORMANCE.md`; a resumed run: not those of the checkpoint, whose time
    /// `elapsed_s` includes).
    #[serde(skip_serializing_if = "Option::is_none")]
    estimated_cpu_s: Option<f64>,
    /// The OpenCL devices that counted, and the units each did (absent on the CPU alone).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    devices: Vec<DeviceJson>,
    /// Units taken from a checkpoint rather than computed in this run (long runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    resumed_units: Option<usize>,
}

/// What one OpenCL device did, in the JSON form of a count.
#[derive(Serialize)]
struct DeviceJson {
    /// Its index in `nqueens devices`.
    index: usize,
    /// Its name.
    name: String,
    /// GPU, CPU, accelerator or other.
    kind: String,
    /// Units it took (the CPU classified what needed it).
    units: usize,
    /// Seconds its kernels took to build.
    build_s: f64,
    /// Batches of units it counted.
    batches: usize,
    /// Seconds its worker spent preparing them (the device waiting).
    host_s: f64,
    /// Seconds in its launches (uploads, kernels, downloads).
    launch_s: f64,
    /// Why it stopped, if it failed (the CPU counted its units instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// What counted: the CPU kernel, `opencl` when OpenCL devices took every unit counted in this
/// run (not the `resumed` ones), or both (`avx512+opencl`) when they shared them.
fn kernel_words(r: &Report, resumed: usize) -> String {
    let on_devices: usize = r.devices.iter().map(|d| d.units).sum();
    let on_cpu = r.units.saturating_sub(resumed + on_devices);
    match (on_devices, on_cpu) {
        (0, _) => r.kernel.to_string(),
        (_, 0) => "opencl".into(),
        _ => format!("{}+opencl", r.kernel),
    }
}

/// Prints a finished count: the total (and unique) on one line, or one JSON object.
pub(super) fn print_report(
    out: &mut dyn Write,
    r: &Report,
    json: bool,
    resumed_units: Option<usize>,
) -> Result<()> {
    print_report_of(out, r, json, resumed_units, Of::default())
}

/// Prints a finished count (see [`print_report`]) on standard output, which must take it: the
/// count is kept nowhere else, so a closed pipe is a failure here, unlike for a listing, and
/// the message carries the count.
pub(super) fn print_count(r: &Report, json: bool) -> Result<()> {
    let mut text = Vec::new();
    print_report(&mut text, r, json, None)?;
    let mut stdout = super::stdout();
    stdout
        .write_all(&text)
        .and_then(|()| stdout.flush())
        .map_err(|e| {
            let count = String::from_utf8_lossy(&text);
            super::Undelivered(format!("{e}; the count was {}", count.trim_end())).into()
        })
}

/// What a report is of, beside its counts: a shard of a job, a run with an estimate.
#[derive(Default)]
pub(super) struct Of {
    /// The shard, for a shard.
    pub shard: Option<ShardOf>,
    /// The CPU time estimated before the run.
    pub estimated_cpu: Option<std::time::Duration>,
}

/// Which shard of a job a report is of.
pub(super) struct ShardOf {
    /// `I/M`.
    pub spec: String,
    /// The units of the whole job.
    pub job_units: usize,
}

/// [`print_report`] of a count that may be one shard of a job (`r.units` then its units).
pub(super) fn print_report_of(
    out: &mut dyn Write,
    r: &Report,
    json: bool,
    resumed_units: Option<usize>,
    of: Of,
) -> Result<()> {
    let Of {
        shard,
        estimated_cpu,
    } = of;
    if json {
        let job_units = shard.as_ref().map_or(r.units, |s| s.job_units);
        let j = CountJson {
            n: r.n,
            total: r.counts.total,
            unique: r.unique.then_some(r.counts.unique),
            threads: r.threads,
            split_depth: (job_units > 0).then_some(r.split_depth),
            units: r.units,
            shard: shard.map(|s| s.spec),
            method: r.method.to_string(),
            kernel: kernel_words(r, resumed_units.unwrap_or(0)),
            searches: r.searches,
            elapsed_s: seconds(r.elapsed),
            estimated_cpu_s: estimated_cpu.map(seconds),
            devices: r
                .devices
                .iter()
                .map(|d| DeviceJson {
                    index: d.device.index,
                    name: d.device.name.clone(),
                    kind: d.device.kind.to_string(),
                    units: d.units,
                    build_s: seconds(d.build_time),
                    batches: d.batches,
                    host_s: seconds(d.host_time),
                    launch_s: seconds(d.launch_time),
                    error: d.error.clone(),
                })
                .collect(),
            resumed_units,
        };
        serde_json::to_writer(&mut *out, &j)?;
        writeln!(out)?;
    } else if r.unique {
        writeln!(out, "{} {}", r.counts.total, r.counts.unique)?;
    } else {
        writeln!(out, "{}", r.counts.total)?;
    }
    out.flush()?;
    Ok(())
}
/// A duration in seconds as the JSON outputs write it: to the microsecond, so that it reads as
/// measured (`1.527`, not `1.5270000000000001`).
pub fn seconds(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e6
}
