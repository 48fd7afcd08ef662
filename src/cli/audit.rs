//! `nqueens audit`: recounts a seeded random sample of the units of shard result files or
//! checkpoints and prints what it found and what the sample proves.

use super::devices::{EngineArgs, KernelChoice};
use super::{default_threads, parse_threads};
use anyhow::Result;
use clap::Args;
use nqueens::longrun::audit::{self, Records, Sample};
use nqueens::longrun::Identity;
use nqueens::{Counts, Plan};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Recount a random sample of the units that shard result files (or checkpoints) record, on
/// this machine's kernel, and compare them unit by unit. Prints each file's units checked, every
/// mismatch (unit, recorded and recounted counts, the host that wrote the file) and the chance
/// that a file with wrong units would have passed. Exit code 1 on any mismatch, 2 for a file
/// that cannot be audited, 0 when every unit checked agrees.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Shard result files (`count --shard I/M --out FILE`) or checkpoints (`--checkpoint FILE`).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The share of each file's units to recount, above 0 and at most 1 (1: every unit).
    #[arg(long, value_name = "FRACTION", default_value_t = Sample::DEFAULT_FRACTION, value_parser = parse_fraction)]
    sample: f64,
    /// Recount at least K units of each file (every unit of a smaller file).
    #[arg(long, value_name = "K", default_value_t = Sample::DEFAULT_MIN_UNITS, value_parser = super::whole::<usize>)]
    min_units: usize,
    /// The seed of the draw, to repeat an audit exactly [default: drawn at random, printed].
    #[arg(long, value_name = "S", value_parser = super::whole::<u64>)]
    seed: Option<u64>,
    /// Worker threads [default: all logical cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    #[command(flatten)]
    engine: EngineArgs,
}

fn parse_fraction(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(f) if f > 0.0 && f <= 1.0 => Ok(f),
        _ => Err(format!(
            "'{}' is not a fraction above 0 and at most 1 (0.01 is 1 %, 1 every unit)",
            super::shown(s)
        )),
    }
}

/// The confidence of the statement printed for each file.
const CONFIDENCE: f64 = 0.95;

pub fn run(args: &AuditArgs) -> Result<ExitCode> {
    let threads = args.threads.unwrap_or_else(default_threads);
    let engine = args.engine.engine(threads)?;
    let seed = args.seed.unwrap_or_else(Sample::random_seed);
    let sample = Sample {
        fraction: args.sample,
        min_units: args.min_units,
        seed,
    };
    let mut out = super::stdout();
    let kernel = match args.engine.kernel {
        KernelChoice::Cpu(_) => engine.kernel().to_string(),
        KernelChoice::OpenCl => "opencl".into(),
    };
    let gpus = if args.engine.gpu { " and the GPUs" } else { "" };
    writeln!(
        out,
        "audit: seed {seed} (repeat with --seed {seed}); {} of each file's units, at least {}; \
         kernel {kernel}{gpus}, {threads} threads",
        percent(args.sample),
        args.min_units
    )?;
    let mut plans: HashMap<Identity, Arc<Plan>> = HashMap::new();
    let (mut recounted, mut mismatches, mut failed_files) = (0, 0, 0);
    let (mut bad_input, mut failure) = (0, 0);
    for path in &args.files {
        let audited = Records::load(path).and_then(|records| {
            let plan = match plans.get(&records.identity) {
                Some(plan) => plan.clone(),
                None => {
                    let plan = Arc::new(records.plan(path)?);
                    plans.insert(records.identity.clone(), plan.clone());
                    plan
                }
            };
            let result = audit::audit(&engine, &plan, &records, &sample, path)?;
            Ok((records, result))
        });
        let (records, result) = match audited {
            Ok(r) => r,
            Err(e) => {
                out.flush()?;
                note!("nqueens: error: {e}");
                if e.is_bad_input() {
                    bad_input += 1;
                } else {
                    failure += 1;
                }
                continue;
            }
        };
        let id = &records.identity;
        let what = match (records.checkpoint, records.shard) {
            (false, Some(s)) => format!("shard {s}"),
            (true, Some(s)) => format!("checkpoint of shard {s}"),
            (_, None) => "checkpoint".into(),
        };
        let host = match &records.host {
            Some(h) => format!("written on host {h}"),
            None => "host not recorded in a checkpoint".into(),
        };
        let found = match result.mismatches.len() {
            0 => "all agree".to_string(),
            k => format!("{k} MISMATCH{}", if k == 1 { "" } else { "ES" }),
        };
        writeln!(
            out,
            "{}: {what} of N = {} ({}, split depth {}), {host}: {} of {} units recounted, {found}",
            path.display(),
            id.n,
            id.plan_method,
            id.split_depth,
            result.checked.len(),
            result.units
        )?;
        for m in &result.mismatches {
            writeln!(
                out,
                "  unit {}: recorded {}, recounted {} ({host})",
                m.unit,
                counts(m.recorded, id.unique),
                counts(m.recounted, id.unique)
            )?;
        }
        writeln!(out, "  {}", proof(&result))?;
        recounted += result.checked.len();
        mismatches += result.mismatches.len();
        failed_files += usize::from(!result.mismatches.is_empty());
    }
    let verdict = if mismatches > 0 {
        format!("{mismatches} mismatch(es) in {failed_files} file(s): FAILED")
    } else if bad_input + failure > 0 {
        format!(
            "no mismatch, but {} file(s) not audited: INCOMPLETE",
            bad_input + failure
        )
    } else {
        "no mismatch: passed".into()
    };
    writeln!(
        out,
        "audit: {} file(s), {recounted} units recounted, {verdict}",
        args.files.len()
    )?;
    out.flush()?;
    Ok(if mismatches > 0 || failure > 0 {
        ExitCode::FAILURE
    } else if bad_input > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// `total T` or `total T unique U`.
fn counts(c: Counts, unique: bool) -> String {
    if unique {
        format!("total {} unique {}", c.total, c.unique)
    } else {
        format!("total {}", c.total)
    }
}

/// A share as a percentage to two decimals, without trailing zeros: 1%, 0.5%, 26.47%.
fn percent(x: f64) -> String {
    let s = format!("{:.2}", x * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// What a passed sample proves about the file it was drawn from.
fn proof(a: &audit::Audit) -> String {
    let (n, k) = (a.units, a.checked.len());
    if n == 0 {
        return "no units recorded: nothing to recount".into();
    }
    if k == n {
        return "every unit recounted: a wrong unit cannot have passed".into();
    }
    // Rounded so that the words stay true: down where a chance is "at least", up where "at most".
    let down = |p: f64| (p * 1e4).floor() / 1e4;
    let up = |p: f64| (p * 1e4).ceil() / 1e4;
    let one = 1.0 - a.pass_probability(1);
    let mut line = format!(
        "one wrong unit is caught with probability at least {}",
        percent(down(one))
    );
    if let Some(d) = a.detects(CONFIDENCE) {
        line.push_str(&format!(
            "; a file with {d} or more wrong units ({} of its units) passes with probability \
             at most {} (hypergeometric: {k} of {n} drawn without replacement)",
            percent(d as f64 / n as f64),
            percent(up(a.pass_probability(d)))
        ));
    }
    line
}
