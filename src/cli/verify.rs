//! `nqueens verify`: counts N = 1..=M and compares each with the published values.

use super::{default_threads, parse_threads, UsageError};
use anyhow::Result;
use clap::Args;
use nqueens::known::{self, MAX_KNOWN_N};
use nqueens::longrun::estimate;
use nqueens::{Job, Method};
use std::io::Write;
use std::process::ExitCode;

/// Count N = 1..=M and compare each count with the published value (OEIS A000170, A002562).
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// Largest N to check, 1 to 27 [default: 16, about a second on two cores with d4].
    #[arg(long, default_value_t = 16, hide_default_value = true, allow_negative_numbers = true, value_parser = super::whole::<u32>)]
    max: u32,
    /// Worker threads [default: all logical cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Check the number of solutions distinct up to symmetry too.
    #[arg(long)]
    unique: bool,
    /// Search method: edge (the fastest), d4, mirror or plain.
    #[arg(long, default_value = "edge", value_parser = super::count::parse_method_arg)]
    method: Method,
    #[command(flatten)]
    engine: super::devices::EngineArgs,
    /// Start even when the counts are estimated to take more than an hour of CPU time (without
    /// it, such a run stops at once and prints the estimate).
    #[arg(long)]
    yes: bool,
}

pub fn run(args: &VerifyArgs) -> Result<ExitCode> {
    if !(1..=MAX_KNOWN_N).contains(&args.max) {
        return Err(UsageError(format!(
            "--max must be between 1 and {MAX_KNOWN_N} (the largest N with a published count), got {}",
            args.max
        ))
        .into());
    }
    let threads = args.threads.unwrap_or_else(default_threads);
    let cpu = (1..=args.max)
        .map(|n| estimate::cpu_time_of(n, args.method, args.unique, args.engine.cpu_kernel()))
        .sum();
    super::longrun::confirm(cpu, threads, args.yes, "add --yes to start it anyway")?;
    let engine = args.engine.engine(threads)?;
    let mut out = std::io::stdout().lock();
    if args.unique {
        writeln!(
            out,
            "{:>3} {:>12} {:>12} {:>10} {:>10} {:>9}  status",
            "N", "total", "published", "unique", "published", "time"
        )?;
    } else {
        writeln!(
            out,
            "{:>3} {:>12} {:>12} {:>9}  status",
            "N", "total", "published", "time"
        )?;
    }
    let mut mismatches = 0;
    for n in 1..=args.max {
        let published = known::published(n).expect("table covers 1..=27");
        let job = Job::new(n)?
            .with_method(args.method)
            .with_unique(args.unique)
            .with_default_split_depth(threads);
        let r = engine.count(&job);
        super::devices::warn_failed(&r.devices);
        let ok = r.counts.total == published.total
            && (!args.unique || r.counts.unique == published.unique);
        mismatches += usize::from(!ok);
        let status = if ok { "OK" } else { "MISMATCH" };
        let secs = r.elapsed.as_secs_f64();
        if args.unique {
            writeln!(
                out,
                "{n:>3} {:>12} {:>12} {:>10} {:>10} {secs:>8.3}s  {status}",
                r.counts.total, published.total, r.counts.unique, published.unique
            )?;
        } else {
            writeln!(
                out,
                "{n:>3} {:>12} {:>12} {secs:>8.3}s  {status}",
                r.counts.total, published.total
            )?;
        }
        out.flush()?;
    }
    if mismatches > 0 {
        eprintln!(
            "nqueens: {mismatches} of {} counts differ from the published values",
            args.max
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
