//! `nqueens count` and the standard-input form.

use super::report::print_count;
use super::{default_threads, parse_n, parse_threads, UsageError};
use super::{Exit, Result};
use clap::Args;
use nqueens_count::{Job, Method};

/// Count the solutions for an N×N board.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens count 16                              # 14772512\n  \
    nqueens count 12 --unique                     # 14200 1787: total and distinct up to symmetry\n  \
    nqueens count 8 --place 1,1                   # the solutions with a queen in row 1, column 1\n  \
    nqueens count 20 --checkpoint q20.ckpt        # stopped, the same command resumes\n  \
    nqueens count 21 --shard 3/64 --out s3.json   # one shard of a job; nqueens merge sums them")]
pub struct CountArgs {
    /// Board size, 1 to 32.
    #[arg(value_parser = parse_n, allow_negative_numbers = true)]
    n: u32,
    /// Worker threads [default: all logical cores].
    #[arg(short, long, value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Rows whose queens define the work units, 1 to 4 [default: 2 to 4, the shallowest with at
    /// least 16 units per thread]. With edge, a unit is one placement of the four edge queens
    /// and of the top row (K = 1 to 3) or the top two rows (K = 4). With d4, units whose first
    /// queen is in the corner always fix two rows (the second queen sets the corner's bound).
    #[arg(long, value_name = "K", allow_negative_numbers = true, value_parser = super::whole::<u32>)]
    split_depth: Option<u32>,
    /// Search method. With --place, a method whose
    /// symmetry the queens break falls back: edge and d4 to mirror when the queens are their own
    /// mirror image, else to plain, and mirror to plain; a note on stderr and the report name the
    /// method that ran. [default: edge, or the method of the checkpoint being resumed]
    #[arg(long, value_parser = super::args::named::<Method>())]
    method: Option<Method>,
    /// Also count the solutions distinct up to rotation and reflection (printed after the total).
    #[arg(long)]
    unique: bool,
    /// Print one JSON object instead of the bare count.
    #[arg(long)]
    json: bool,
    /// Count only solutions with a queen at row R, column C (1-based); repeatable.
    #[arg(long, value_name = "R,C", value_parser = super::args::parse_place)]
    place: Vec<nqueens_count::Queen>,
    #[command(flatten)]
    engine: super::args::EngineArgs,
    #[command(flatten)]
    long: super::longrun::LongRunArgs,
}

pub fn run(args: &CountArgs) -> Result<Exit> {
    // Before anything else: a signal from now on stops the count cleanly.
    let signals = super::longrun::catch_signals()?;
    let threads = args.threads.unwrap_or_else(default_threads);
    let (method, depth) = args.long.defaults(args.n, args.method);
    let job = Job::new(args.n)?
        .with_method(method)
        .with_unique(args.unique)
        .with_placed(&args.place)?;
    let job = match args.split_depth.or(depth) {
        Some(depth) => job.with_split_depth(depth)?,
        None => job.with_default_split_depth(threads),
    };
    super::args::check_unique_place(args.unique, &args.place)?;
    let engine = args.engine.engine(threads, args.long.quiet())?;
    super::longrun::run(&args.long, job, &engine, args.json, signals)
}

/// Reads N from standard input (the BOJ 9663 form) and prints the count.
pub fn from_stdin() -> Result<Exit> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        // A person at a terminal, not a judge's pipe: say what is awaited (on stderr, so the
        // output stays the judge form).
        note!(
            "nqueens: reading N from standard input: type a board size, then Enter and Ctrl-D \
             (or run `nqueens count N`; see nqueens --help)"
        );
    }
    // Far more than a board size with any whitespace around it.
    let input = super::read_stdin(1 << 20, "a board size")?;
    let words: Vec<&str> = input.split_whitespace().collect();
    let text =
        match words[..] {
            [word] => word,
            [] => return Err(UsageError(
                "expected N on standard input (for example: echo 8 | nqueens); see nqueens --help"
                    .into(),
            )
            .into()),
            [first, ..] => {
                return Err(UsageError(format!(
                    "expected one board size on standard input, found {} words (the first: '{}')",
                    words.len(),
                    super::shown(first)
                ))
                .into())
            }
        };
    let n = parse_n(text).map_err(|e| UsageError(format!("standard input: {e}")))?;
    let threads = default_threads();
    let job = Job::new(n)?.with_default_split_depth(threads);
    let cpu = nqueens_count::longrun::cpu_time(&job, None, nqueens_count::Kernel::best());
    let hint = format!("run `nqueens count {n} --yes` to start it anyway");
    super::longrun::confirm(cpu, threads, false, &hint)?;
    let report = nqueens_count::Engine::new(threads)?.count(&job)?;
    print_count(&report, false)?;
    Ok(Exit::Done)
}
