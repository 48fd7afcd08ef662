//! `nqueens uva750`: the judge problem UVa 750, *8 Queens Chess Problem*, on stdin/stdout.

use super::UsageError;
use anyhow::{Context, Result};
use clap::Args;
use nqueens::format::uva750;
use std::io::{self, BufWriter, Read, Write};
use std::process::ExitCode;

/// The most input read: real judge inputs are far smaller.
const MAX_INPUT: u64 = 16 << 20;

/// Answer the judge problem UVa 750 (8 Queens Chess Problem) from standard input.
///
/// Reads the number of datasets, then a line with the row and column of a queen per dataset
/// (blank lines anywhere), and prints, in the judge's exact format, every 8-queens solution
/// containing each queen.
#[derive(Args, Debug)]
pub struct Uva750Args {}

pub fn run(_args: &Uva750Args) -> Result<ExitCode> {
    let mut bytes = Vec::new();
    io::stdin()
        .take(MAX_INPUT + 1)
        .read_to_end(&mut bytes)
        .context("could not read standard input")?;
    if bytes.len() as u64 > MAX_INPUT {
        return Err(UsageError(format!(
            "standard input is larger than {} MiB; this is not UVa 750 input",
            MAX_INPUT >> 20
        ))
        .into());
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| UsageError("standard input is not UTF-8 text".into()))?;
    let datasets = uva750::parse(&text).map_err(|e| UsageError(e.to_string()))?;
    let mut out = BufWriter::new(io::stdout().lock());
    uva750::write(&mut out, &datasets)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
