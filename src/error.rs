//! Typed errors of the library. The binary turns them into one line on stderr and an exit code.

use thiserror::Error;

/// Everything that can be wrong with a request to the library.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The board size is outside what the operation supports.
    #[error("N must be between {min} and {max}, got {n}")]
    BoardSize {
        /// The size asked for.
        n: u64,
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
    /// Two pre-placed queens on one row or column, or attacking each other (1-based).
    #[error("queens at row {0}, column {1} and row {2}, column {3} {4}")]
    QueensConflict(u32, u32, u32, u32, &'static str),
    /// A combination of options that has no meaning.
    #[error("{0}")]
    Unsupported(String),
    /// OpenCL cannot be used as asked: no OpenCL library, platform or device, or no device of
    /// that index. A usage error: the request cannot be met on this machine.
    #[error("{0}")]
    NoDevice(String),
    /// An OpenCL device that exists failed: its kernels did not build, or a call failed.
    #[error("{0}")]
    Device(String),
    /// The worker pool could not be started.
    #[error("could not start the worker threads: {0}")]
    ThreadPool(String),
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
