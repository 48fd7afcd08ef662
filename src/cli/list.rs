//! `nqueens list`: every solution, streamed in lexicographic order, in a chosen format.

use super::{default_threads, parse_n, parse_threads};
use super::{Exit, Result};
use clap::Args;
use nqueens::format::Kind;
use nqueens::solutions::{write_solutions, WriteError, WriteOptions};
use nqueens::{Job, Queen};

/// List every solution for an N×N board, in lexicographic order of the column sequence.
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Board size, 1 to 32 (beyond about 20 only useful with --limit).
    #[arg(value_parser = parse_n, allow_negative_numbers = true)]
    n: u32,
    /// Output format.
    #[arg(short, long, default_value = "columns", value_parser = super::args::named::<Kind>())]
    format: Kind,
    /// Stop after K solutions.
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = super::whole::<u64>)]
    limit: Option<u64>,
    /// Only one solution per class under rotation and reflection: its lexicographically
    /// smallest member.
    #[arg(long)]
    unique: bool,
    /// Only solutions with a queen at row R, column C (1-based, row 1 at the top); repeatable.
    #[arg(long, value_name = "R,C", value_parser = super::args::parse_place)]
    place: Vec<Queen>,
    /// Worker threads [default: all logical cores]; the output is the same for any number.
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
}

pub fn run(args: &ListArgs) -> Result<Exit> {
    super::args::check_unique_place(args.unique, &args.place)?;
    let threads = args.threads.unwrap_or_else(default_threads);
    let job = Job::new(args.n)?
        // Units from the first 3 rows: small enough to keep every thread busy in order.
        .with_split_depth(3.min(args.n))?
        .with_placed(&args.place)?
        .with_unique(args.unique);
    let opts = WriteOptions {
        format: args.format,
        limit: args.limit,
        threads,
    };
    match write_solutions(&job, &opts, super::stdout()) {
        // No solution at all is said as `solve` says it: a line on stderr and exit code 1.
        Ok(0) if opts.limit != Some(0) => {
            if args.place.is_empty() {
                note!("nqueens: {}", super::solve::no_solution(u64::from(args.n)));
            } else {
                note!(
                    "nqueens: no solution of N = {} contains the given queens",
                    args.n
                );
            }
            Ok(Exit::Mismatch)
        }
        Ok(_) => Ok(Exit::Done),
        Err(WriteError::Invalid(e)) => Err(e.into()),
        Err(WriteError::Io(e)) => Err(e.into()),
    }
}
