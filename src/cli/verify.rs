//! `nqueens verify`: counts N = 1..=M and compares each with the published values.

use super::{default_threads, parse_threads, UsageError};
use super::{Exit, Result};
use clap::Args;
use nqueens_count::known::{self, MAX_KNOWN_N};
use nqueens_count::longrun;
use nqueens_count::{Job, Method};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Count N = 1..=M and compare each count with the published value (OEIS A000170, A002562).
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens verify                                # N = 1..16 against the published values\n  \
    nqueens verify --max 18 --unique --json       # one JSON object per N")]
pub struct VerifyArgs {
    /// Largest N to check, 1 to 27 [default: 16, well under a second of CPU time with edge].
    #[arg(long, default_value_t = 16, hide_default_value = true, allow_negative_numbers = true, value_parser = super::whole::<u32>)]
    max: u32,
    /// Worker threads [default: all logical cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Check the number of solutions distinct up to symmetry too.
    #[arg(long)]
    unique: bool,
    /// Search method.
    #[arg(long, default_value = "edge", value_parser = super::args::named::<nqueens_count::Method>())]
    method: Method,
    #[command(flatten)]
    engine: super::args::EngineArgs,
    /// Start even when the counts are estimated to take more than an hour of CPU time (without
    /// it, such a run stops at once and prints the estimate).
    #[arg(long)]
    yes: bool,
    /// Compare with the values in FILE instead of the built-in table: lines `N TOTAL [UNIQUE]`
    /// (an OEIS b-file of A000170 works as it is; `#` starts a comment). Every N checked must
    /// be there, with UNIQUE when --unique is given.
    #[arg(long, value_name = "FILE")]
    table: Option<PathBuf>,
    /// Print one JSON object per N (JSON Lines) instead of the table.
    #[arg(long)]
    json: bool,
}

/// The JSON form of one N's check.
#[derive(serde::Serialize)]
struct VerifyJson {
    n: u32,
    total: u128,
    /// The value compared with (published, or from --table).
    expected_total: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected_unique: Option<u128>,
    /// Wall time of the count, in seconds.
    elapsed_s: f64,
    /// `OK` or `MISMATCH`.
    status: &'static str,
}

/// A value to compare with: the total, and the unique count when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Expected {
    total: u128,
    unique: Option<u128>,
}

/// Reads a table of expected values: lines `N TOTAL [UNIQUE]`, blank lines and `#` comments
/// ignored. A malformed line or an N given twice is a usage error naming the line.
fn read_table(path: &Path) -> Result<BTreeMap<u32, Expected>> {
    use nqueens_count::longrun::{read_bounded, Bound};
    // Through the one bounded reader of regular files: a FIFO or /dev/zero is refused, and a
    // table is far smaller than this (an OEIS b-file of A000170 is under 1 kB).
    const TABLE: Bound = Bound {
        bytes: 1 << 20,
        what: "table of values",
        parse_memory: |bytes| bytes,
    };
    let bytes = read_bounded(path, TABLE)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        UsageError(format!(
            "cannot read the table {}: it is not text (UTF-8)",
            path.display()
        ))
    })?;
    let mut table = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            UsageError(format!(
                "{} line {}: {why} (expected N TOTAL [UNIQUE]): '{}'",
                path.display(),
                i + 1,
                super::shown(line)
            ))
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        if !(2..=3).contains(&words.len()) {
            return Err(bad("not two or three numbers").into());
        }
        let n: u32 = words[0]
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        let total: u128 = words[1]
            .parse()
            .map_err(|_| bad("TOTAL is not a whole number"))?;
        let unique = match words.get(2) {
            Some(w) => Some(w.parse().map_err(|_| bad("UNIQUE is not a whole number"))?),
            None => None,
        };
        if table.insert(n, Expected { total, unique }).is_some() {
            return Err(bad(&format!("N = {n} is given twice")).into());
        }
    }
    Ok(table)
}

/// The values to compare N = 1..=`max` with: from `table`, or the published ones.
fn expected_values(args: &VerifyArgs) -> Result<Vec<Expected>> {
    let Some(path) = &args.table else {
        return Ok((1..=args.max)
            .map(|n| {
                let p = known::published(n).expect("--max is checked against the table");
                Expected {
                    total: p.total,
                    unique: Some(p.unique),
                }
            })
            .collect());
    };
    let table = read_table(path)?;
    (1..=args.max)
        .map(|n| match table.get(&n) {
            Some(e) if args.unique && e.unique.is_none() => Err(UsageError(format!(
                "{} has no unique count for N = {n}, which --unique checks",
                path.display()
            ))
            .into()),
            Some(&e) => Ok(e),
            None => Err(UsageError(format!(
                "{} has no value for N = {n} (verify checks N = 1 to {})",
                path.display(),
                args.max
            ))
            .into()),
        })
        .collect()
}

/// The table's header (none for JSON Lines).
fn write_header(out: &mut dyn Write, args: &VerifyArgs) -> Result<()> {
    if args.json {
        // One object per line, no table header.
    } else if args.unique {
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
    Ok(())
}

/// The line of one N: its count `r` against the `expected` (OK when `ok`), as a table row or
/// a JSON object.
fn write_line(
    out: &mut dyn Write,
    args: &VerifyArgs,
    r: &nqueens_count::Report,
    expected: nqueens_count::Counts,
    ok: bool,
) -> Result<()> {
    let (n, status) = (r.n, if ok { "OK" } else { "MISMATCH" });
    let secs = r.elapsed.as_secs_f64();
    if args.json {
        let j = VerifyJson {
            n,
            total: r.counts.total,
            expected_total: expected.total,
            unique: args.unique.then_some(r.counts.unique),
            expected_unique: args.unique.then_some(expected.unique),
            elapsed_s: super::report::seconds(r.elapsed),
            status,
        };
        serde_json::to_writer(&mut *out, &j)?;
        writeln!(out)?;
    } else if args.unique {
        writeln!(
            out,
            "{n:>3} {:>12} {:>12} {:>10} {:>10} {secs:>8.3}s  {status}",
            r.counts.total, expected.total, r.counts.unique, expected.unique
        )?;
    } else {
        writeln!(
            out,
            "{n:>3} {:>12} {:>12} {secs:>8.3}s  {status}",
            r.counts.total, expected.total
        )?;
    }
    Ok(())
}

pub fn run(args: &VerifyArgs) -> Result<Exit> {
    if !(1..=MAX_KNOWN_N).contains(&args.max) {
        return Err(UsageError(format!(
            "--max must be between 1 and {MAX_KNOWN_N} (the largest N with a published count), got {}",
            args.max
        ))
        .into());
    }
    let expected = expected_values(args)?;
    let threads = args.threads.unwrap_or_else(default_threads);
    let cpu = (1..=args.max)
        .map(|n| longrun::cpu_time_of(n, args.method, args.unique, args.engine.cpu_kernel()))
        .sum();
    super::longrun::confirm(cpu, threads, args.yes, "add --yes to start it anyway")?;
    let engine = args.engine.engine(threads, false)?;
    let mut out = super::stdout();
    write_header(&mut out, args)?;
    let mut mismatches = 0;
    for (n, published) in (1..=args.max).zip(expected) {
        let job = Job::new(n)?
            .with_method(args.method)
            .with_unique(args.unique)
            .with_default_split_depth(threads);
        let r = engine.count(&job)?;
        super::devices::warn_failed(&r.devices);
        let expected = nqueens_count::Counts {
            total: published.total,
            unique: published.unique.unwrap_or_default(),
        };
        let ok = known::compare(n, args.unique, r.counts, expected).is_ok();
        mismatches += usize::from(!ok);
        write_line(&mut out, args, &r, expected, ok)?;
        out.flush()?;
    }
    if mismatches > 0 {
        note!(
            "nqueens: {mismatches} of {} counts differ from the {}",
            args.max,
            match &args.table {
                Some(path) => format!("values in {}", path.display()),
                None => "published values".into(),
            }
        );
        return Ok(Exit::Disagreed);
    }
    Ok(Exit::Done)
}
