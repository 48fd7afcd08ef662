//! `nqueens audit`: recounts a seeded random sample of the units of shard result files or
//! checkpoints and prints what it found and what the sample proves.

use super::args::{EngineArgs, KernelChoice};
use super::{default_threads, parse_threads};
use super::{Exit, Result};
use clap::Args;
use nqueens_count::longrun::Identity;
use nqueens_count::longrun::{self as audit, FileKind, Recorded, Sample};
use nqueens_count::{Class, Classify, Counts, Plan};
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// Recount a random sample of the units that result files or checkpoints record.
///
/// The sample is recounted on this machine's kernel and compared unit by unit. Prints each file's units checked, every
/// mismatch (unit, recorded and recounted counts, the host that wrote the file) and the chance
/// that a file with wrong units would have passed. Exit code 1 on any mismatch, 2 for a file
/// that cannot be audited, 0 when every unit checked agrees.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens audit shards/*.json                   # recount a random sample of each file's units\n  \
    nqueens audit s3.json --sample 1              # recount every unit of one shard")]
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

pub fn run(args: &AuditArgs) -> Result<Exit> {
    let threads = args.threads.unwrap_or_else(default_threads);
    let engine = args.engine.engine(threads, false)?;
    let seed = args.seed.unwrap_or_else(Sample::random_seed);
    let sample = Sample {
        fraction: args.sample,
        min_units: args.min_units,
        seed,
    };
    let mut tally = Tally::default();
    // Every file read and planned first: one that cannot be audited is said before any report,
    // and with none left there is no report at all.
    let files = load_all(&args.files, &mut tally);
    if files.is_empty() {
        return Ok(tally.exit_code());
    }
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
    for file in &files {
        match audit::audit(&engine, &file.plan, &file.records, &sample, &file.path) {
            Ok(result) => {
                report_file(&mut out, file, &result)?;
                tally.add(&result);
            }
            Err(e) => {
                out.flush()?;
                tally.refused(&e);
            }
        }
    }
    for line in whole_jobs(&files, &mut tally) {
        writeln!(out, "audit: {line}")?;
    }
    writeln!(
        out,
        "audit: {} file(s), {} units recounted, {}",
        args.files.len(),
        tally.recounted,
        tally.verdict()
    )?;
    out.flush()?;
    Ok(tally.exit_code())
}

/// A file to audit: its records and the plan they are recounted with.
struct File {
    path: PathBuf,
    records: Recorded,
    plan: Arc<Plan>,
}

/// Reads and plans every file (one plan per job), saying on stderr why a file cannot be
/// audited.
fn load_all(paths: &[PathBuf], tally: &mut Tally) -> Vec<File> {
    let mut plans: HashMap<Identity, Arc<Plan>> = HashMap::new();
    let mut files = Vec::new();
    for path in paths {
        let loaded = Recorded::load(path).and_then(|records| {
            let plan = match plans.get(&records.identity) {
                Some(plan) => plan.clone(),
                None => Arc::new(records.plan(path)?),
            };
            plans.insert(records.identity.clone(), plan.clone());
            Ok(File {
                path: path.clone(),
                records,
                plan,
            })
        });
        match loaded {
            Ok(file) => files.push(file),
            Err(e) => tally.refused(&e),
        }
    }
    files
}

/// Prints what the audit of one file found: its units recounted, each mismatch, and what the
/// sample proves. Paths and hosts come from the user and the files: escaped.
fn report_file(out: &mut dyn Write, file: &File, result: &audit::Audit) -> Result<()> {
    let (records, id) = (&file.records, &file.records.identity);
    let what = match (records.kind, records.shard) {
        (FileKind::ShardResult, Some(s)) => format!("shard {s}"),
        (FileKind::Checkpoint, Some(s)) => format!("checkpoint of shard {s}"),
        (_, None) => "checkpoint".into(),
    };
    let host = match &records.host {
        Some(h) => format!("written on host {}", super::escape(h)),
        None => "host not recorded in a checkpoint".into(),
    };
    let found = match result.mismatches.len() {
        0 => "all agree".to_string(),
        k => format!("{k} MISMATCH{}", if k == 1 { "" } else { "ES" }),
    };
    writeln!(
        out,
        "{}: {what} of N = {} ({}, split depth {}), {host}: {} of {} units recounted, {found}",
        super::escape(&file.path.display().to_string()),
        id.n,
        super::escape(&id.plan_method),
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
    writeln!(out, "  {}", proof(result))?;
    Ok(())
}

/// For each job whose files together record every one of its units (a whole set of shards, or
/// a finished checkpoint) and that has a published count: the sum of the recorded units (each
/// once) against it ([`audit::whole_jobs`]), as a line; a difference counts as a mismatch.
fn whole_jobs(files: &[File], tally: &mut Tally) -> Vec<String> {
    let mut lines = Vec::new();
    for job in audit::whole_jobs(files.iter().map(|f| &f.records)) {
        let id = &job.identity;
        let verdict = match job.verdict {
            Ok(nqueens_count::known::Checked::AsPublished) => "as published".to_string(),
            Ok(nqueens_count::known::Checked::Unpublished) => continue,
            Err(m) => {
                tally.jobs_off += 1;
                format!(
                    "MISMATCH with the published {}",
                    counts(m.published, id.unique)
                )
            }
        };
        lines.push(format!(
            "N = {}: the files record every unit of the job: {}, {verdict}",
            id.n,
            counts(job.counts, id.unique)
        ));
    }
    lines
}

/// What an audit found over its files, and its exit code.
#[derive(Default)]
struct Tally {
    recounted: usize,
    mismatches: usize,
    failed_files: usize,
    /// Jobs whose files record every unit and add up to other than the published count.
    jobs_off: usize,
    bad_input: usize,
    failure: usize,
}

impl Tally {
    fn add(&mut self, result: &audit::Audit) {
        self.recounted += result.checked.len();
        self.mismatches += result.mismatches.len();
        self.failed_files += usize::from(!result.mismatches.is_empty());
    }

    /// A file that could not be audited, said on stderr.
    fn refused(&mut self, e: &audit::AuditError) {
        note!("nqueens: error: {}", super::escape(&e.to_string()));
        if e.class() == Class::Request {
            self.bad_input += 1;
        } else {
            self.failure += 1;
        }
    }

    fn verdict(&self) -> String {
        let skipped = self.bad_input + self.failure;
        if self.mismatches > 0 {
            format!(
                "{} mismatch(es) in {} file(s): FAILED",
                self.mismatches, self.failed_files
            )
        } else if self.jobs_off > 0 {
            "every unit recounted agrees, but the sum differs from the published count: FAILED"
                .into()
        } else if skipped > 0 {
            format!("no mismatch, but {skipped} file(s) not audited: INCOMPLETE")
        } else {
            "no mismatch: passed".into()
        }
    }

    /// 1 on a mismatch or a failed recount, 2 for a file that cannot be audited, else 0.
    fn exit_code(&self) -> Exit {
        if self.mismatches > 0 || self.jobs_off > 0 {
            Exit::Disagreed
        } else if self.failure > 0 {
            Exit::Failed
        } else if self.bad_input > 0 {
            Exit::Refused
        } else {
            Exit::Done
        }
    }
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
