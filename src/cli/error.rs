//! How the command line ends: the one place that decides exit codes.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | done as asked |
//! | 1 | a count that disagrees (with the published value, a replica or an audit), or a failure of the machine (a disk, a device, the threads); also a result that reached nowhere |
//! | 2 | bad input or a refusal: an argument, a file given, a run too long to start unconfirmed, a file in use |
//! | 128 + S | stopped by signal S (the checkpoint saved) |
//!
//! Every error a command meets becomes a [`Failure`] through [`Blame`], which each error type
//! implements here once: whether the request or the machine is at fault.

use std::error::Error as StdError;
use std::process::ExitCode;

/// How a command ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Done as asked.
    Done,
    /// Done, but a count disagrees, or part of what was asked failed (a save, a device).
    Mismatch,
    /// Part of the request was refused (a file that cannot be audited).
    Refused,
    /// Stopped by a signal.
    Signal(i32),
}

impl Exit {
    /// [`Exit::Done`], or [`Exit::Mismatch`] when `failed`.
    pub fn failed_if(failed: bool) -> Exit {
        if failed {
            Exit::Mismatch
        } else {
            Exit::Done
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(match exit {
            Exit::Done => 0,
            Exit::Mismatch => 1,
            Exit::Refused => 2,
            Exit::Signal(sig) => u8::try_from(128 + sig).unwrap_or(u8::MAX),
        })
    }
}

/// Whose fault an error is: the request's (exit code 2) or the machine's (exit code 1).
pub trait Blame {
    /// Whether the request is at fault: bad input or a refusal.
    fn is_bad_input(&self) -> bool;
}

/// An error that ends a command: one line on stderr, then its exit code.
#[derive(Debug)]
pub struct Failure {
    error: Box<dyn StdError + Send + Sync>,
    bad_input: bool,
    broken_pipe: bool,
}

/// The result of a command.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// The exit code: 2 for bad input, 1 otherwise.
    pub fn exit(&self) -> ExitCode {
        Exit::from_failure(self.bad_input).into()
    }

    /// Whether the error is a write to a closed pipe (`| head`), which ends a stream of output
    /// as a success.
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }

    /// The error and its causes.
    pub fn error(&self) -> &(dyn StdError + 'static) {
        &*self.error
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl Exit {
    fn from_failure(bad_input: bool) -> Exit {
        if bad_input {
            Exit::Refused
        } else {
            Exit::Mismatch
        }
    }
}

impl<E: Blame + StdError + Send + Sync + 'static> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure {
            bad_input: e.is_bad_input(),
            broken_pipe: false,
            error: Box::new(e),
        }
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure {
            bad_input: false,
            broken_pipe: e.kind() == std::io::ErrorKind::BrokenPipe,
            error: Box::new(e),
        }
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        std::io::Error::from(e).into()
    }
}

/// An error in what the user asked for (exit code 2), in the command line's words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl Blame for UsageError {
    fn is_bad_input(&self) -> bool {
        true
    }
}

/// A finished result that did not reach standard output and is kept nowhere else (a closed
/// pipe included): never a success, unlike a listing cut short by `| head`. The message says
/// where the result is, or what it was.
#[derive(Debug, thiserror::Error)]
#[error("the result could not be written: {0}")]
pub struct Undelivered(pub String);

impl Blame for Undelivered {
    fn is_bad_input(&self) -> bool {
        false
    }
}

/// The library's errors, each by its own rule.
macro_rules! blame_by_method {
    ($($t:ty),+) => {
        $(impl Blame for $t {
            fn is_bad_input(&self) -> bool {
                <$t>::is_bad_input(self)
            }
        })+
    };
}

blame_by_method!(
    nqueens::Error,
    nqueens::longrun::StoreError,
    nqueens::longrun::RunError,
    nqueens::longrun::lock::LockError,
    nqueens::longrun::audit::AuditError,
    nqueens::longrun::MergeError
);

#[cfg(feature = "bench")]
impl Blame for nqueens::bench::BenchError {
    fn is_bad_input(&self) -> bool {
        match self {
            nqueens::bench::BenchError::Invalid(_) => true,
            nqueens::bench::BenchError::Engine(e) => e.is_bad_input(),
            _ => false,
        }
    }
}

impl Blame for nqueens::opencl::OpenClError {
    fn is_bad_input(&self) -> bool {
        self.is_unavailable()
    }
}

impl Blame for nqueens::longrun::estimate::TooLong {
    fn is_bad_input(&self) -> bool {
        true
    }
}

impl Blame for nqueens::solutions::uva750::InputError {
    fn is_bad_input(&self) -> bool {
        true
    }
}

impl Blame for clap::Error {
    fn is_bad_input(&self) -> bool {
        true
    }
}

impl From<nqueens::solutions::WriteError> for Failure {
    fn from(e: nqueens::solutions::WriteError) -> Failure {
        match e {
            nqueens::solutions::WriteError::Io(e) => e.into(),
            nqueens::solutions::WriteError::Invalid(e) => e.into(),
        }
    }
}
