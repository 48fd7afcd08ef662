//! What checkpoint and shard files share: the identity of a job, checksums, durable atomic
//! writes, and the errors of reading and writing them.
//!
//! A file names its job by an [`Identity`]: everything that decides which units a job has and
//! what they count. Counts are only ever added by unit index between files of the same identity,
//! so a unit can be neither lost nor counted twice.

use crate::plan::{Plan, UNITS_VERSION};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The version of this program, stored in every file: units and counts from another build are
/// not trusted.
pub const PROGRAM_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `format` field of a checkpoint ([`crate::longrun::checkpoint`]).
pub const CHECKPOINT_FORMAT: &str = "nqueens-checkpoint";
/// The `format` field of a shard result file ([`crate::longrun::shard`]).
pub const SHARD_FORMAT: &str = "nqueens-shard";

/// Everything that decides a job's list of units and what each counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// Board size.
    pub n: u32,
    /// The method asked for.
    pub method: String,
    /// The method the plan actually uses (pre-placed queens may rule out symmetry).
    pub plan_method: String,
    /// Rows fixed by each unit.
    pub split_depth: u32,
    /// Pre-placed queens, 1-based `[row, column]`, sorted.
    pub placed: Vec<[u32; 2]>,
    /// Whether solutions distinct up to symmetry are counted too.
    pub unique: bool,
    /// Number of units of the job.
    pub units: u32,
    /// Version of the unit enumeration (it changes whenever the units a job yields could change).
    pub units_version: u32,
    /// Version of the program that wrote the file.
    pub program_version: String,
}

impl Identity {
    /// The identity of the job `plan` runs.
    pub fn of(plan: &Plan) -> Identity {
        let job = plan.job();
        Identity {
            n: job.n(),
            method: job.method().to_string(),
            plan_method: plan.method().to_string(),
            split_depth: job.split_depth(),
            placed: job
                .placed()
                .iter()
                .map(|q| [q.row + 1, q.col + 1])
                .collect(),
            unique: job.unique(),
            units: plan.units().len() as u32,
            units_version: UNITS_VERSION,
            program_version: PROGRAM_VERSION.to_string(),
        }
    }

    /// The first way `other` (found in a file) differs from `self` (expected), in words; `None`
    /// when they are the same job.
    pub fn difference(&self, other: &Identity) -> Option<String> {
        fn differ<T: PartialEq + std::fmt::Debug>(what: &str, a: &T, b: &T) -> Option<String> {
            (a != b).then(|| format!("{what} is {a:?} here but {b:?} in the file"))
        }
        differ("N", &self.n, &other.n)
            .or_else(|| differ("the method", &self.method, &other.method))
            .or_else(|| differ("the split depth", &self.split_depth, &other.split_depth))
            .or_else(|| differ("the set of pre-placed queens", &self.placed, &other.placed))
            .or_else(|| differ("counting unique solutions", &self.unique, &other.unique))
            .or_else(|| differ("the method used", &self.plan_method, &other.plan_method))
            .or_else(|| differ("the number of units", &self.units, &other.units))
            .or_else(|| {
                differ(
                    "the unit version",
                    &self.units_version,
                    &other.units_version,
                )
            })
            .or_else(|| {
                differ(
                    "the program version",
                    &self.program_version,
                    &other.program_version,
                )
            })
    }
}

/// Errors of reading and writing checkpoint and shard files.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file could not be written (the old one, if any, is intact).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file is damaged: not the format, truncated, or its checksum does not match.
    #[error("{} is corrupt or truncated ({reason}); it was left untouched", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The file is the other kind of file this program writes (a shard result given as a
    /// checkpoint, or the reverse).
    #[error("{} is a {found}, not a {expected}; it was left untouched", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// What it is.
        found: &'static str,
        /// What was expected.
        expected: String,
    },
    /// The file is intact but belongs to another job.
    #[error("{} belongs to another job ({reason}); it was left untouched", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// How the jobs differ.
        reason: String,
    },
    /// A set of shard files that does not make up one whole job.
    #[error("{0}")]
    ShardSet(String),
}

impl StoreError {
    /// Whether the error is in what the user gave (a bad file), as opposed to a failure of the
    /// system (a full disk).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, StoreError::Write { .. })
    }
}

/// The SHA-256 of `bytes`, as `sha256:` and 64 lowercase hex digits.
pub fn checksum(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(71);
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Writes `bytes` to `path` atomically and durably: a temporary file in the same directory is
/// written and flushed to disk, renamed over `path`, and the directory is flushed, so that after
/// a crash `path` holds either the old content or the new, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_file_atomic(path, bytes).map_err(|source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// [`write_atomic`] with a plain I/O error, for files that are not part of a job (benchmark
/// results). The file is readable by all, as a plainly created one would be (tempfile's default
/// is owner-only).
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, mut tmp) = temp_beside(path)?;
    tmp.write_all(bytes).map_err(reason_only)?;
    tmp.as_file().sync_all().map_err(reason_only)?;
    tmp.persist(path).map_err(|e| reason_only(e.error))?;
    sync_dir(dir)
}

/// The operating system's reason for an I/O error, without tempfile's note of its random file
/// name ("... at path \"/dir/.q.ckpt.HuUSXk.tmp\""): the user only knows the file they named.
fn reason_only(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((reason, _)) => io::Error::new(e.kind(), reason.to_string()),
        None => e,
    }
}

/// Checks, before hours of work, that `path` can later be written by [`write_atomic`]: a
/// temporary file is created beside it and removed again. `path` itself is not touched.
pub fn check_writable(path: &Path) -> Result<(), StoreError> {
    temp_beside(path)
        .map(drop)
        .map_err(|source| StoreError::Write {
            path: path.to_path_buf(),
            source,
        })
}

/// The directory a file `path` lies in: its parent, or `.` for a bare file name.
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A new temporary file in the directory of `path` (which it returns too), named after it.
fn temp_beside(path: &Path) -> io::Result<(&Path, tempfile::NamedTempFile)> {
    let dir = dir_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let tmp = builder.tempfile_in(dir).map_err(reason_only)?;
    Ok((dir, tmp))
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Reads a file whole.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    std::fs::read(path).map_err(|source| StoreError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Parses `bytes` as JSON of type `T` with the checksum of its content checked: the JSON of the
/// value with its `checksum_field` blanked must hash to the stored checksum. `kind` names the
/// file in messages; `expected_format` is the value of its `format` field.
pub(crate) fn parse_checked<T>(
    path: &Path,
    bytes: &[u8],
    kind: &str,
    expected_format: &str,
    checksum_field: impl Fn(&mut T) -> &mut String,
) -> Result<T, StoreError>
where
    T: Serialize + for<'de> Deserialize<'de>,
{
    let corrupt = |reason: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let mut value: T = serde_json::from_slice(bytes).map_err(|e| {
        // The other kind of file of this program, given in the wrong place, is named as such.
        let format = serde_json::from_slice::<serde_json::Value>(bytes)
            .ok()
            .and_then(|v| Some(v.get("format")?.as_str()?.to_owned()));
        let other = match format.as_deref() {
            Some(f) if f == expected_format => None,
            Some(CHECKPOINT_FORMAT) => Some("checkpoint (made by --checkpoint)"),
            Some(SHARD_FORMAT) => Some("shard result file (made by --shard or --out)"),
            _ => None,
        };
        match other {
            Some(found) => StoreError::WrongKind {
                path: path.to_path_buf(),
                found,
                expected: kind.to_string(),
            },
            _ => corrupt(format!("not a valid {kind}: {e}")),
        }
    })?;
    let stored = std::mem::take(checksum_field(&mut value));
    let body = serde_json::to_vec(&value).map_err(|e| corrupt(e.to_string()))?;
    if checksum(&body) != stored {
        return Err(corrupt("checksum mismatch".into()));
    }
    *checksum_field(&mut value) = stored;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Job;

    #[test]
    fn identity_differences_are_named() {
        let a = Identity::of(&Plan::new(
            Job::new(8).unwrap().with_split_depth(2).unwrap(),
        ));
        let b = Identity::of(&Plan::new(
            Job::new(8).unwrap().with_split_depth(3).unwrap(),
        ));
        assert_eq!(a.difference(&a), None);
        assert_eq!(
            a.difference(&b).unwrap(),
            "the split depth is 2 here but 3 in the file"
        );
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let e = write_atomic(&dir.path().join("no/such/dir/f"), b"x").unwrap_err();
        assert!(!e.is_bad_input());
        assert_eq!(
            checksum(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
