//! Typed errors of the library. The binary turns them into one line on stderr and an exit code.

use thiserror::Error;

/// Everything that can be wrong with a request to the library.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The board size is outside what the operation supports.
    #[error("N must be between {min} and {max}, got {n}")]
    BoardSize {
        /// The size asked for.
        n: u32,
        /// The smallest supported size.
        min: u32,
        /// The largest supported size.
        max: u32,
    },
    /// The split depth is outside `1..=max` for this board.
    #[error(
        "split depth must be {} for N = {n}, got {depth}",
        if *max == 1 { "1".to_string() } else { format!("between 1 and {max}") }
    )]
    SplitDepth {
        /// The depth asked for.
        depth: u32,
        /// The board size.
        n: u32,
        /// The deepest split allowed for this board.
        max: u32,
    },
    /// A thread count of zero.
    #[error("the thread count must be at least 1")]
    ZeroThreads,
    /// More threads than any machine needs (see [`crate::MAX_THREADS`]): a typo, which
    /// would otherwise spend minutes creating threads.
    #[error("the thread count must be at most {max}, got {threads}")]
    TooManyThreads {
        /// The count asked for.
        threads: usize,
        /// The largest allowed.
        max: usize,
    },
    /// A pre-placed queen outside the board (coordinates 1-based).
    #[error("queen at row {row}, column {col} is off the {n}x{n} board")]
    QueenOffBoard {
        /// Row, 1-based.
        row: u32,
        /// Column, 1-based.
        col: u32,
        /// Board size.
        n: u32,
    },
    /// Two pre-placed queens that cannot both stand (coordinates 1-based).
    #[error(
        "queens at row {}, column {} and row {}, column {} {how}",
        first.0, first.1, second.0, second.1
    )]
    QueensConflict {
        /// The first queen, `(row, column)`.
        first: (u32, u32),
        /// The second queen.
        second: (u32, u32),
        /// How they attack each other.
        how: Attack,
    },
    /// A name of a method, kernel or output format that is none of the known ones.
    #[error("unknown {what} '{name}' (expected {expected})")]
    UnknownName {
        /// What was named: "method", "kernel", "format".
        what: &'static str,
        /// The name given.
        name: String,
        /// The names known, in words ("plain, mirror, d4 or edge").
        expected: String,
    },
    /// A search kernel this processor cannot run.
    #[error(
        "this processor cannot run the {kernel} kernel (it can run: {})",
        runnable()
    )]
    KernelUnavailable {
        /// The kernel asked for.
        kernel: crate::Kernel,
    },
    /// A lane threshold outside what the lane searches take.
    #[error("the lane threshold must be 3 to {max} rows, got {rows}")]
    LaneRows {
        /// The threshold asked for.
        rows: u32,
        /// The largest allowed.
        max: u32,
    },
    /// A device batch outside what a device worker takes ([`crate::Engine::with_device_batch`]).
    #[error("the device batch must be 1 to {max} sub-problems, got {subs}")]
    DeviceBatch {
        /// The batch asked for.
        subs: usize,
        /// The largest allowed.
        max: usize,
    },
    /// A listing of unique solutions with pre-placed queens: a class can have members with and
    /// without them, so which member stands for it is not defined.
    #[error("unique solutions cannot be combined with pre-placed queens")]
    UniqueWithPlaced,
    /// A board too large for an output format that draws it.
    #[error("the {format} format prints N×N characters and stops at N = {max}, got N = {n}")]
    TooLargeToDraw {
        /// The format.
        format: &'static str,
        /// The largest board it draws.
        max: u64,
        /// The board asked for.
        n: u64,
    },
    /// OpenCL cannot be used as asked: no OpenCL library, platform or device, or no device of
    /// that index. A usage error: the request cannot be met on this machine.
    #[error("cannot count on OpenCL: {reason}")]
    NoDevice {
        /// Why, as the OpenCL layer says it.
        reason: String,
    },
    /// An OpenCL device that exists failed: its kernels did not build, or a call failed.
    #[error("{}", device_words(device.as_ref(), *units_done, reason))]
    Device {
        /// The device's index and name, when the failure stopped a count.
        device: Option<(usize, String)>,
        /// The units counted before it stopped, when it stopped a count.
        units_done: Option<usize>,
        /// What failed, as the OpenCL layer says it.
        reason: String,
    },
    /// A count was cancelled ([`crate::Cancel`]) before it had counted every unit: no count
    /// is given (a long run keeps what it finished in its checkpoint).
    #[error("the count was cancelled after {done} of {of} units")]
    Cancelled {
        /// Units counted.
        done: usize,
        /// Units of the count.
        of: usize,
    },
    /// A count over chosen units stopped before it had counted them all (a device counting
    /// alone failed).
    #[error("the recount stopped after {done} of {of} units")]
    Incomplete {
        /// Units counted.
        done: usize,
        /// Units asked for.
        of: usize,
    },
    /// The worker threads could not be started.
    #[error("could not start the worker threads: {reason}")]
    ThreadPool {
        /// The system's reason.
        reason: String,
    },
}

/// How two pre-placed queens attack each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attack {
    /// On one row.
    Row,
    /// On one column.
    Column,
    /// On one diagonal.
    Diagonal,
}

impl std::fmt::Display for Attack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Attack::Row => "share a row",
            Attack::Column => "share a column",
            Attack::Diagonal => "attack each other along a diagonal",
        })
    }
}

/// The kernels this processor runs, in words.
fn runnable() -> String {
    crate::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .map(crate::Kernel::name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn device_words(
    device: Option<&(usize, String)>,
    units_done: Option<usize>,
    reason: &str,
) -> String {
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    match (device, units_done) {
        (Some((d, name)), Some(k)) => format!(
            "OpenCL device {d} ({name}) failed and the count stopped after {k} units: {reason}"
        ),
        (Some((d, name)), None) => format!("OpenCL device {d} ({name}) failed: {reason}"),
        _ => reason,
    }
}

impl Classify for Error {
    fn class(&self) -> Class {
        match self {
            Error::Device { .. } | Error::ThreadPool { .. } | Error::Incomplete { .. } => {
                Class::Machine
            }
            _ => Class::Request,
        }
    }
}

/// Whose fault an error is. Every error of the library says which ([`Classify`]), so that a
/// caller (the command line's exit codes) decides by the class alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// The request: a bad or impossible argument, a file given that cannot be used, a file
    /// in use, a run too long to start unconfirmed. Nothing was counted or changed.
    Request,
    /// The machine: a disk that filled, memory refused, a device or the threads that failed.
    Machine,
    /// A count that disagrees: with the published value, with a replica, or with a recount.
    Disagreement,
}

/// An error that says whose fault it is.
pub trait Classify {
    /// The error's class.
    fn class(&self) -> Class;
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
