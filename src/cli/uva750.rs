//! `nqueens uva750`: the judge problem UVa 750, *8 Queens Chess Problem*, on stdin/stdout.

use super::UsageError;
use super::{Exit, Result};
use clap::Args;
use nqueens_count::solutions::uva750;
use std::io::{BufWriter, Write};

/// The most input read: real judge inputs are far smaller.
const MAX_INPUT: u64 = 16 << 20;

/// Answer the judge problem UVa 750 (8 Queens Chess Problem) from standard input.
///
/// Reads the number of datasets, then a line with the row and column of a queen per dataset
/// (blank lines anywhere), and prints, in the judge's exact format, every 8-queens solution
/// containing each queen.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    printf '1\\n\\n1 1\\n' | nqueens uva750       # the solutions with a queen in row 1, column 1")]
pub struct Uva750Args {}

pub fn run(_args: &Uva750Args) -> Result<Exit> {
    let text = super::read_stdin(MAX_INPUT, "UVa 750 input")?;
    let datasets = uva750::parse(&text).map_err(|e| UsageError(e.to_string()))?;
    let mut out = BufWriter::new(super::stdout());
    uva750::write(&mut out, &datasets)?;
    out.flush()?;
    Ok(Exit::Done)
}
