//! `nqueens solve`: one solution for any N, by an explicit construction (no search).

use super::{Exit, Result};
use clap::Args;
use nqueens::format::{self, Kind, Printer};
use nqueens::solutions::{construct, MAX_CONSTRUCT_N};

/// Print one solution for an N×N board, for any N up to 4294967295, in time linear in N.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Board size, 1 to 4294967295 (N = 2 and 3 have no solution).
    #[arg(value_parser = parse_big_n, allow_negative_numbers = true)]
    n: u64,
    /// Output format (board and matrix up to N = 1000).
    #[arg(short, long, default_value = "columns", value_parser = super::args::named::<Kind>())]
    format: Kind,
}

fn parse_big_n(s: &str) -> Result<u64, String> {
    let n: u64 = s.trim().parse().map_err(|_| {
        format!("'{s}' is not a board size (a whole number from 1 to {MAX_CONSTRUCT_N})")
    })?;
    if !(1..=MAX_CONSTRUCT_N).contains(&n) {
        return Err(format!(
            "N must be between 1 and {MAX_CONSTRUCT_N}, got {n}"
        ));
    }
    Ok(n)
}

/// What `solve` and `list` say of a board without solutions.
pub(super) fn no_solution(n: u64) -> String {
    format!("N = {n} has no solution (every N except 2 and 3 has one)")
}

pub fn run(args: &SolveArgs) -> Result<Exit> {
    let fmt = args.format.format();
    format::check_size(fmt.as_ref(), args.format.name(), args.n)
        .map_err(|e| super::UsageError(format!("{e} (use --format columns or json)")))?;
    let Some(solution) = construct(args.n)? else {
        note!("nqueens: {}", no_solution(args.n));
        return Ok(Exit::NoSolution);
    };
    let mut printer = Printer::new(fmt, super::stdout());
    // The printer takes 0-based columns.
    printer.solution(args.n, solution.map(|c| c - 1))?;
    drop(printer.finish()?);
    Ok(Exit::Done)
}
