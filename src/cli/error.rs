//! How the command line ends: the one place that decides exit codes.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | done as asked |
//! | 1 | a count that disagrees (with the published value, a replica or an audit), a failure of the machine (a disk, a device, the threads), a result that reached nowhere, or a board with no solution (`solve 2`) |
//! | 2 | bad input or a refusal: an argument, a file given, a run too long to start unconfirmed, a file in use |
//! | 128 + S | stopped by signal S (the checkpoint saved) |
//!
//! Every error a command meets becomes a [`Failure`] by its class ([`nqueens_count::Classify`]),
//! which the library's errors say themselves: the request's (2), the machine's or a
//! disagreement (1). No error type has a rule of its own here.

use nqueens_count::{Class, Classify};
use std::error::Error as StdError;
use std::process::ExitCode;

/// How a command ended, when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Done as asked.
    Done,
    /// Done, but a count disagrees (with the published value, a replica, a recount).
    Disagreed,
    /// Done, but part of what was asked failed (a save, a device, the output).
    Failed,
    /// There is nothing to print: the board has no solution (with the queens given).
    NoSolution,
    /// Part of the request was refused (a file that cannot be audited).
    Refused,
    /// Stopped by a signal.
    Signal(i32),
}

impl Exit {
    /// [`Exit::Done`], or [`Exit::Failed`] when `failed`.
    pub fn failed_if(failed: bool) -> Exit {
        if failed {
            Exit::Failed
        } else {
            Exit::Done
        }
    }

    /// How a command ends on an error of `class`.
    pub fn of(class: Class) -> Exit {
        match class {
            Class::Request => Exit::Refused,
            Class::Machine => Exit::Failed,
            Class::Disagreement => Exit::Disagreed,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(match exit {
            Exit::Done => 0,
            Exit::Disagreed | Exit::Failed | Exit::NoSolution => 1,
            Exit::Refused => 2,
            Exit::Signal(sig) => u8::try_from(128 + sig).unwrap_or(u8::MAX),
        })
    }
}

/// An error that ends a command: one line on stderr, then its exit code.
#[derive(Debug)]
pub struct Failure {
    error: Box<dyn StdError + Send + Sync>,
    class: Class,
    broken_pipe: bool,
}

/// The result of a command.
pub type Result<T, E = Failure> = std::result::Result<T, E>;

impl Failure {
    /// The exit code of the error's class: 2 for the request's, 1 otherwise.
    pub fn exit(&self) -> ExitCode {
        Exit::of(self.class).into()
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

impl Failure {
    /// The failure of an error that says its class.
    fn classified<E: Classify + StdError + Send + Sync + 'static>(e: E) -> Failure {
        Failure {
            class: e.class(),
            broken_pipe: false,
            error: Box::new(e),
        }
    }
}

/// The errors a command meets, each by its class (the same rule for all: a list, not rules).
macro_rules! by_class {
    ($($t:ty),+ $(,)?) => {
        $(impl From<$t> for Failure {
            fn from(e: $t) -> Failure {
                Failure::classified(e)
            }
        })+
    };
}

by_class!(
    nqueens_count::Error,
    nqueens_count::known::Mismatch,
    nqueens_count::longrun::StoreError,
    nqueens_count::longrun::RunError,
    nqueens_count::longrun::SetError,
    nqueens_count::longrun::ShardSpecError,
    nqueens_count::longrun::StatusError,
    nqueens_count::longrun::LockError,
    nqueens_count::longrun::AuditError,
    nqueens_count::longrun::MergeError,
    nqueens_count::longrun::FileError,
    nqueens_count::longrun::TooLong,
    nqueens_count::longrun::ListingTooLarge,
    nqueens_count::opencl::OpenClError,
    nqueens_count::solutions::uva750::InputError,
    UsageError,
    Undelivered,
);

#[cfg(feature = "bench")]
by_class!(nqueens_count::bench::BenchError);

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        Failure {
            class: Class::Machine,
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

impl Classify for UsageError {
    fn class(&self) -> Class {
        Class::Request
    }
}

/// A finished result that did not reach standard output and is kept nowhere else (a closed
/// pipe included): never a success, unlike a listing cut short by `| head`. The message says
/// where the result is, or what it was.
#[derive(Debug, thiserror::Error)]
#[error("the result could not be written: {0}")]
pub struct Undelivered(pub String);

impl Classify for Undelivered {
    fn class(&self) -> Class {
        Class::Machine
    }
}

impl From<clap::Error> for Failure {
    fn from(e: clap::Error) -> Failure {
        Failure {
            class: Class::Request,
            broken_pipe: false,
            error: Box::new(e),
        }
    }
}

/// A listing's error: an I/O error as such (a closed pipe ends a listing), else by its class.
impl From<nqueens_count::solutions::WriteError> for Failure {
    fn from(e: nqueens_count::solutions::WriteError) -> Failure {
        match e {
            nqueens_count::solutions::WriteError::Io(e) => e.into(),
            nqueens_count::solutions::WriteError::Invalid(e) => e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every class has its exit code, and so has every way a command ends.
    #[test]
    fn exit_codes_follow_the_class() {
        let code = |f: Failure| f.exit();
        assert_eq!(code(UsageError("x".into()).into()), ExitCode::from(2));
        assert_eq!(code(Undelivered("x".into()).into()), ExitCode::from(1));
        let io = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let f: Failure = io.into();
        assert!(f.is_broken_pipe());
        assert_eq!(f.exit(), ExitCode::from(1));
        // Only a closed pipe ends a stream as a success: not a full disk, not a usage error.
        let full: Failure = std::io::Error::from(std::io::ErrorKind::StorageFull).into();
        assert!(!full.is_broken_pipe());
        assert!(!Failure::from(UsageError("x".into())).is_broken_pipe());
        let mismatch = nqueens_count::known::check(
            8,
            false,
            false,
            nqueens_count::Counts {
                total: 93,
                unique: 0,
            },
        )
        .unwrap_err();
        assert_eq!(code(mismatch.into()), ExitCode::from(1));
        assert_eq!(
            code(nqueens_count::Error::ZeroThreads.into()),
            ExitCode::from(2)
        );
        let machine = nqueens_count::Error::ThreadPool { reason: "x".into() };
        assert_eq!(code(machine.into()), ExitCode::from(1));
        let ends = [
            (Exit::Done, 0),
            (Exit::Disagreed, 1),
            (Exit::Failed, 1),
            (Exit::NoSolution, 1),
            (Exit::Refused, 2),
            (Exit::Signal(15), 143),
            (Exit::Signal(2), 130),
        ];
        for (exit, want) in ends {
            assert_eq!(ExitCode::from(exit), ExitCode::from(want), "{exit:?}");
        }
        assert_eq!(Exit::failed_if(true), Exit::Failed);
        assert_eq!(Exit::failed_if(false), Exit::Done);
        for (class, exit) in [
            (Class::Request, Exit::Refused),
            (Class::Machine, Exit::Failed),
            (Class::Disagreement, Exit::Disagreed),
        ] {
            assert_eq!(Exit::of(class), exit);
        }
    }
}
