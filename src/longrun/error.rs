//! What can be wrong with a checkpoint or result file: the file itself ([`FileError`]), its
//! envelope (empty, not ours, the other kind, damaged: [`Damage`]), or the job it names
//! ([`Foreign`]). Every reason is typed; the messages are the library's words, and the command
//! line adds its hints.

use super::durable::FileError;
use super::envelope::FileKind;
use super::identity::Difference;
use super::records::RecordError;
use super::spec::ShardSpec;
use crate::{Class, Classify};
use std::path::PathBuf;
use thiserror::Error;

/// Errors of reading and writing checkpoint and result files.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file could not be read or written ([`FileError`]).
    #[error(transparent)]
    File(#[from] FileError),
    /// The file is empty: a file of this program never is (it writes a whole file or none).
    #[error("{} is empty, not a {kind}", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
        /// What it should have been.
        kind: FileKind,
    },
    /// The file is not one this program writes at all.
    #[error("{} is not a {kind} of nqueens (nor any file nqueens writes)", path.display())]
    NotOurs {
        /// The file.
        path: PathBuf,
        /// What it should have been.
        kind: FileKind,
    },
    /// The file is the other kind of file this program writes (a result file given as a
    /// checkpoint, or the reverse).
    #[error("{} is a {found}, not a {expected}", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// What it is.
        found: FileKind,
        /// What was expected.
        expected: FileKind,
    },
    /// The file is damaged: truncated, changed after it was written, or inconsistent.
    #[error("{} is corrupt or truncated ({reason})", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: Damage,
    },
    /// The file is intact but belongs to another job, or another part of it.
    #[error("{} belongs to another job ({reason})", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// How it differs.
        reason: Foreign,
    },
}

impl Classify for StoreError {
    fn class(&self) -> Class {
        match self {
            StoreError::File(e) => e.class(),
            _ => Class::Request,
        }
    }
}

impl StoreError {
    /// Whether the error is about what a file holds (or is): a file the user named that this
    /// program refuses to use, and so leaves as it is.
    pub fn is_about_a_file(&self) -> bool {
        match self {
            StoreError::File(FileError::TooLarge { .. }) => true,
            StoreError::File(_) => false,
            _ => true,
        }
    }

    /// The identity differences that make the file foreign, when that is why it is refused.
    pub fn differences(&self) -> &[Difference] {
        match self {
            StoreError::Foreign {
                reason: Foreign::Identity(d),
                ..
            } => d,
            _ => &[],
        }
    }
}

/// How a file of ours is damaged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Damage {
    /// It does not parse as its kind of file (truncated, or not JSON of its fields).
    #[error("not a valid {kind}: {reason}")]
    Syntax {
        /// The kind of file.
        kind: FileKind,
        /// The parser's words.
        reason: String,
    },
    /// Its checksum does not match its content.
    #[error("checksum mismatch: the file was changed after nqueens wrote it")]
    Checksum,
    /// A format version this program does not read.
    #[error("format version {found} (this program reads {reads})")]
    Version {
        /// The version in the file.
        found: u32,
        /// The versions this program reads, in words.
        reads: &'static str,
    },
    /// Per-unit records in a result file of format version 1, which had none.
    #[error("per-unit records in a file of format version 1")]
    RecordsInVersion1,
    /// More shards than any job has units.
    #[error("{0} shards, more than any job has units")]
    TooManyShards(u32),
    /// A result file without a run id of 16 hex digits.
    #[error("no run_id of 16 hex digits")]
    RunId,
    /// Its unit records are inconsistent.
    #[error("{0}")]
    Records(#[from] RecordError),
}

/// How a file differs from the job or the part of it expected.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Foreign {
    /// Its identity differs from the one expected (every difference, the first said).
    #[error("{}", .0.first().map(ToString::to_string).unwrap_or_default())]
    Identity(Vec<Difference>),
    /// No job of this program has its identity: a board, method, depth or set of placed
    /// queens this program refuses, or one its plan does not reproduce.
    #[error("no job of this program has its identity: {0}")]
    Unplannable(String),
    /// It is of another shard of the job, or of the whole job where a shard is run (or the
    /// reverse).
    #[error("it is for {} but this run computes {}", shown(*.file), shown(*.run))]
    Shard {
        /// The file's shard (`None`: the whole job).
        file: Option<ShardSpec>,
        /// The run's.
        run: Option<ShardSpec>,
    },
    /// It differs from another file of the same set.
    #[error("compared with {}: {reason}", with.display())]
    Set {
        /// The other file.
        with: PathBuf,
        /// How.
        reason: Box<Foreign>,
    },
    /// It is shard I of another number of shards than the set's.
    #[error("it is shard {file} but the others are of {count}")]
    ShardCount {
        /// The file's shard.
        file: ShardSpec,
        /// The set's number of shards.
        count: u32,
    },
    /// Its units are not those of its shard: a unit the shard does not have, or one of the
    /// shard's units missing.
    #[error("{0}")]
    Units(RecordError),
}

/// A shard, or the whole job, in words.
fn shown(s: Option<ShardSpec>) -> String {
    s.map_or("the whole job".to_string(), |s| format!("shard {s}"))
}
