//! `nqueens list`: every solution, streamed in lexicographic order, in a chosen format.

use super::{parse_n, UsageError};
use anyhow::Result;
use clap::Args;
use nqueens::format::{self, Kind, Printer};
use nqueens::solutions::for_each_solution;
use nqueens::{Job, Queen};
use std::io;
use std::ops::ControlFlow;
use std::process::ExitCode;

/// List every solution for an N×N board, in lexicographic order of the column sequence.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Board size, 1 to 32 (beyond about 20 only useful with --limit).
    #[arg(value_parser = parse_n)]
    n: u32,
    /// Output format: columns (one line per solution), board, matrix or json (JSON Lines).
    #[arg(short, long, default_value = "columns", value_parser = parse_format)]
    format: Kind,
    /// Stop after K solutions.
    #[arg(long, value_name = "K")]
    limit: Option<u64>,
    /// Only one solution per class under rotation and reflection: its lexicographically
    /// smallest member.
    #[arg(long)]
    unique: bool,
    /// Only solutions with a queen at row R, column C (1-based, row 1 at the top); repeatable.
    #[arg(long, value_name = "R,C", value_parser = parse_place)]
    place: Vec<Queen>,
}

/// Parses a format name.
pub fn parse_format(s: &str) -> Result<Kind, String> {
    s.parse().map_err(|e: nqueens::Error| e.to_string())
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

pub fn run(args: &ListArgs) -> Result<ExitCode> {
    check_unique_place(args.unique, &args.place)?;
    let job = Job::new(args.n)?
        .with_split_depth(1)?
        .with_placed(&args.place)?
        .with_unique(args.unique);
    let n = u64::from(args.n);
    let fmt = args.format.format();
    format::check_size(fmt.as_ref(), args.format.name(), n)?;
    if args.limit == Some(0) {
        return Ok(ExitCode::SUCCESS);
    }
    let mut printer = Printer::new(fmt, io::stdout().lock());
    let mut failed: Option<io::Error> = None;
    let _ = for_each_solution(&job, |s| {
        if let Err(e) = printer.solution(n, s.iter().copied()) {
            failed = Some(e);
            return ControlFlow::Break(());
        }
        if Some(printer.written()) == args.limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    drop(printer.finish()?);
    Ok(ExitCode::SUCCESS)
}
