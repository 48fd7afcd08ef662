//! `nqueens solve`: one solution for any N, by an explicit construction (no search).

use super::{Exit, Result};
use clap::Args;
use nqueens_count::format::{self, Kind, Printer};
use nqueens_count::solutions::{construct, MAX_CONSTRUCT_N};

/// Print one solution for an N×N board, for any N up to 4294967295, in time linear in N.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens solve 8 --format board                # one solution, at once for any N\n  \
    nqueens solve 1000000 > q.txt                 # a million columns")]
pub struct SolveArgs {
    /// Board size, 1 to 4294967295 (N = 2 and 3 have no solution).
    #[arg(value_parser = parse_big_n, allow_negative_numbers = true)]
    n: u32,
    /// Output format (board and matrix up to N = 1000).
    #[arg(short, long, default_value = "columns", value_parser = super::args::named::<Kind>())]
    format: Kind,
}

fn parse_big_n(s: &str) -> Result<u32, String> {
    // Parsed wider than N, so that a number past the largest N gets the range in the message.
    let n: u64 = s.trim().parse().map_err(|_| {
        format!("'{s}' is not a board size (a whole number from 1 to {MAX_CONSTRUCT_N})")
    })?;
    match u32::try_from(n) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "N must be between 1 and {MAX_CONSTRUCT_N}, got {n}"
        )),
    }
}

/// What `solve` and `list` say of a board without solutions.
pub(super) fn no_solution(n: u64) -> String {
    format!("N = {n} has no solution (every N except 2 and 3 has one)")
}

pub fn run(args: &SolveArgs) -> Result<Exit> {
    let fmt = args.format.format();
    format::check_size(fmt.as_ref(), args.format.name(), u64::from(args.n))
        .map_err(|e| super::UsageError(format!("{e} (use --format columns or json)")))?;
    let Some(solution) = construct(args.n)? else {
        note!("nqueens: {}", no_solution(u64::from(args.n)));
        return Ok(Exit::NoSolution);
    };
    let mut printer = Printer::new(fmt, super::stdout());
    // The printer takes 0-based columns.
    printer.solution(u64::from(args.n), solution.map(|c| c - 1))?;
    printer.finish()?;
    Ok(Exit::Done)
}
