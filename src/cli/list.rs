//! `nqueens list`: every solution, streamed in lexicographic order, in a chosen format.

use super::{default_threads, parse_n, parse_threads};
use super::{Exit, Result, UsageError};
use clap::Args;
use nqueens_count::format::Kind;
use nqueens_count::solutions::{write_solutions, WriteError, WriteOptions};
use nqueens_count::{Job, Queen};

/// List every solution for an N×N board, in lexicographic order of the column sequence.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens list 8 --format board                 # the 92 boards of rows of . and Q\n  \
    nqueens list 10 --unique --limit 5            # the first five classes under symmetry\n  \
    nqueens list 8 --place 1,1                    # the solutions holding that queen")]
pub struct ListArgs {
    /// Board size, 1 to 32 (beyond about 18 only useful with --limit).
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
    /// Start a listing estimated to take more than an hour of CPU time, or to write more than
    /// the disk that standard output goes to has free (without it, such a listing stops at
    /// once with its estimate: solutions, bytes, time).
    #[arg(long)]
    yes: bool,
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
    if !args.yes {
        nqueens_count::longrun::listing_estimate(&job, args.format, args.limit, threads)
            .check(room_of_stdout())
            .map_err(|e| {
                UsageError(format!(
                    "{e}; add --limit K to write the first K solutions, or --yes to start it \
                     anyway"
                ))
            })?;
    }
    grow_stdout_pipe();
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
            Ok(Exit::NoSolution)
        }
        Ok(_) => Ok(Exit::Done),
        Err(WriteError::Invalid(e)) => Err(e.into()),
        Err(WriteError::Io(e)) => Err(e.into()),
    }
}

/// Standard output as a file of its own (a duplicate descriptor), with what it is.
#[cfg(unix)]
fn stdout_file() -> Option<(std::fs::File, std::fs::Metadata)> {
    use std::os::fd::AsFd;
    let file = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
    let metadata = file.metadata().ok()?;
    Some((file, metadata))
}

/// The bytes free on the disk that standard output writes to, when it is a regular file (a
/// pipe, a terminal or `/dev/null` has no such limit).
#[cfg(unix)]
fn room_of_stdout() -> Option<u64> {
    use std::os::fd::AsRawFd;
    let (file, metadata) = stdout_file()?;
    if !metadata.is_file() {
        return None;
    }
    let mut vfs = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: fstatvfs fills the statvfs it is given, for a descriptor this function owns.
    let rc = unsafe { libc::fstatvfs(file.as_raw_fd(), vfs.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: the call succeeded, so it filled the struct.
    let vfs = unsafe { vfs.assume_init() };
    // A file system that reports no blocks at all (some FUSE mounts) says nothing of its room.
    if vfs.f_blocks == 0 {
        return None;
    }
    // The fields are u64 on 64-bit Linux, narrower on some other targets.
    #[allow(clippy::useless_conversion)]
    let (blocks, size) = (u64::from(vfs.f_bavail), u64::from(vfs.f_frsize));
    Some(blocks.saturating_mul(size))
}

/// Unknown elsewhere: only the time limit applies.
#[cfg(not(unix))]
fn room_of_stdout() -> Option<u64> {
    None
}

/// The pipe buffer a listing asks for: the most an unprivileged process may set by default
/// (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Grows the pipe that standard output is, if it is one, to [`PIPE_BYTES`]: a listing writes
/// chunks of 256 KiB, and through the default 64 KiB the writer and the reader wake each other
/// every 64 KiB (`results/2026-12-04-listing-speed/NOTE.md`). The pipe holds the same bytes in
/// the same order either way; where the kernel refuses (a user over their pipe quota), the
/// pipe stays as it was.
#[cfg(target_os = "linux")]
fn grow_stdout_pipe() {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::FileTypeExt;
    let Some((file, metadata)) = stdout_file() else {
        return;
    };
    if !metadata.file_type().is_fifo() {
        return;
    }
    // The duplicate shares the pipe, so its capacity is standard output's.
    let fd = file.as_raw_fd();
    // SAFETY: F_GETPIPE_SZ and F_SETPIPE_SZ read and set the capacity of a pipe, nothing else.
    unsafe {
        let size = libc::fcntl(fd, libc::F_GETPIPE_SZ);
        if (0..PIPE_BYTES).contains(&size) {
            libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE_BYTES);
        }
    }
}

/// Elsewhere the pipe keeps its size.
#[cfg(not(target_os = "linux"))]
fn grow_stdout_pipe() {}
