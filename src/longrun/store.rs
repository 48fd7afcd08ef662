//! What checkpoint and shard files share: the identity of a job, checksums, durable atomic
//! writes, and the errors of reading and writing them.
//!
//! A file names its job by an [`Identity`]: everything that decides which units a job has and
//! what they count. Counts are only ever added by unit index between files of the same identity,
//! so a unit can be neither lost nor counted twice.

use crate::plan::{Plan, UNITS_VERSION};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read, Write};
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
    #[serde(deserialize_with = "capped")]
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

    /// The plan of the job this identity names, built again from it (as a file's units are
    /// recounted or checked by their index in it); why not, in words, when no job of this
    /// program has it: a board, method, split depth or pre-placed queens it refuses. The
    /// identity of the plan may still differ from this one (see [`Identity::difference`]).
    pub(crate) fn plan(&self) -> Result<Plan, String> {
        use crate::plan::{Job, Queen};
        if self.placed.len() > crate::search::MAX_N as usize {
            return Err(format!(
                "{} pre-placed queens, more than any board has rows",
                self.placed.len()
            ));
        }
        let placed: Vec<Queen> = self
            .placed
            .iter()
            .map(|&[r, c]| Queen::one_based(r, c))
            .collect::<Option<_>>()
            .ok_or("a pre-placed queen at row or column 0")?;
        let method = self.method.parse().map_err(|e| short(&format!("{e}")))?;
        let job = Job::new(self.n)
            .and_then(|j| {
                j.with_method(method)
                    .with_unique(self.unique)
                    .with_placed(&placed)?
                    .with_split_depth(self.split_depth)
            })
            .map_err(|e| e.to_string())?;
        Ok(Plan::new(job))
    }

    /// The first way `other` (found in a file) differs from `self` (expected), in words; `None`
    /// when they are the same job.
    pub fn difference(&self, other: &Identity) -> Option<String> {
        fn differ<T: PartialEq + std::fmt::Debug>(what: &str, a: &T, b: &T) -> Option<String> {
            (a != b).then(|| {
                let (a, b) = (short(&format!("{a:?}")), short(&format!("{b:?}")));
                format!("{what} is {a} here but {b} in the file")
            })
        }
        differ("N", &self.n, &other.n)
            .or_else(|| differ("the method", &self.method, &other.method))
            .or_else(|| differ("the split depth", &self.split_depth, &other.split_depth))
            .or_else(|| differ("the set of pre-placed queens", &self.placed, &other.placed))
            .or_else(|| {
                (self.unique != other.unique).then(|| {
                    if other.unique {
                        "the file counts unique solutions and this run does not".to_string()
                    } else {
                        "this run counts unique solutions and the file does not".to_string()
                    }
                })
            })
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
    /// The file cannot be written where it was asked for, found before any work: its folder
    /// does not exist, is not a folder, or takes no files (read-only, `/proc`). Bad input.
    #[error("cannot write {}: {source}", path.display())]
    Unwritable {
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
    /// The file is damaged: not the format, truncated, or its checksum does not match. (The
    /// messages of the errors about a file's content do not say that the file was left as it
    /// was: no read changes it; the command line says so where a run would have written it.)
    #[error("{} is corrupt or truncated ({reason})", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The file is the other kind of file this program writes (a shard result given as a
    /// checkpoint, or the reverse).
    #[error("{} is a {found}, not a {expected}", path.display())]
    WrongKind {
        /// The file.
        path: PathBuf,
        /// What it is.
        found: &'static str,
        /// What was expected.
        expected: String,
    },
    /// The file is intact but belongs to another job.
    #[error("{} belongs to another job ({reason})", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// How the jobs differ.
        reason: String,
    },
    /// The file is empty: a file this program writes never is (it writes a whole file or none).
    #[error("{} is empty, not a {kind} (nqueens never writes an empty one)", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
        /// What it should have been.
        kind: String,
    },
    /// The file is not one this program writes at all (it does not begin as they all do).
    #[error("{} is not a {kind} of nqueens (nor any file nqueens writes)", path.display())]
    NotOurs {
        /// The file.
        path: PathBuf,
        /// What it should have been.
        kind: String,
    },
    /// A set of shard files that does not make up one whole job.
    #[error("{0}")]
    ShardSet(String),
    /// The path names something other than a regular file (a directory, a device, a FIFO): it
    /// is neither read nor replaced.
    #[error(
        "{} is {what}, not a regular file; nqueens reads and writes only regular files, and left it untouched",
        path.display()
    )]
    NotRegular {
        /// The path as given.
        path: PathBuf,
        /// What it is ("a directory", "a symbolic link to a character device", ...).
        what: String,
    },
    /// The file is larger than any checkpoint or result file could be (1 GiB: a job with the
    /// most units takes about 100 bytes a unit at most).
    #[error(
        "{} is larger than any checkpoint or result file could be (over {limit} bytes)",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The most bytes a file may hold.
        limit: u64,
    },
    /// The system would not give the memory that reading the file takes (a limit such as
    /// `ulimit -v`): a failure of the machine, not of the file.
    #[error(
        "cannot read {}: not enough memory (reading it may take {} MB)",
        path.display(),
        needed.div_ceil(1 << 20)
    )]
    Memory {
        /// The file.
        path: PathBuf,
        /// The bytes asked for.
        needed: u64,
    },
    /// A symbolic link that is not followed (see [`crate::longrun::Run::prepare`]).
    #[error("{} is a symbolic link that is not followed: {reason}", path.display())]
    Link {
        /// The link.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl StoreError {
    /// Whether the error is in what the user gave (a bad file), as opposed to a failure of the
    /// system (a full disk).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, StoreError::Write { .. } | StoreError::Memory { .. })
    }

    /// Whether the error is about what a file holds (or is): a file the user named that this
    /// program refuses to use, and so leaves as it is.
    pub fn is_about_a_file(&self) -> bool {
        matches!(
            self,
            StoreError::Corrupt { .. }
                | StoreError::WrongKind { .. }
                | StoreError::Foreign { .. }
                | StoreError::Empty { .. }
                | StoreError::NotOurs { .. }
                | StoreError::TooLarge { .. }
        )
    }
}

/// The start of the checksum every file of this program holds (see `parse_checked`).
const CHECKSUM_VALUE: &[u8] = br#""sha256:"#;

/// The SHA-256 of `bytes`, as `sha256:` and 64 lowercase hex digits.
#[cfg(test)]
fn checksum(bytes: &[u8]) -> String {
    hex_digest(&Sha256::digest(bytes))
}

/// A digest as `sha256:` and lowercase hex digits.
fn hex_digest(digest: &[u8]) -> String {
    let mut s = String::with_capacity(7 + 2 * digest.len());
    s.push_str("sha256:");
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Writes `bytes` to `path` atomically and durably: a temporary file in the same directory is
/// written and flushed to disk, renamed over `path`, and the directory is flushed, so that after
/// a crash `path` holds either the old content or the new, never a mix. Something at `path` that
/// is not a regular file (a link, a directory, a device) is refused, never replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !meta.is_file() {
            return Err(StoreError::NotRegular {
                path: path.to_path_buf(),
                what: kind_of(&meta.file_type()).to_string(),
            });
        }
    }
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
/// temporary file is created beside it and removed again. `path` itself is not touched. A
/// path that cannot be written before any work is the request's fault
/// ([`StoreError::Unwritable`]: its folder is missing, read-only, not a folder, `/proc`).
pub fn check_writable(path: &Path) -> Result<(), StoreError> {
    temp_beside(path)
        .map(drop)
        .map_err(|source| StoreError::Unwritable {
            path: path.to_path_buf(),
            source,
        })
}

/// More solutions than any job on an `n`×`n` board has: its placements of one queen in each
/// row and column, `n!` (for `n` up to 34 it fits in `u128`; beyond, `u128::MAX`). A file that
/// adds up to more is not a real count.
pub(crate) fn max_solutions(n: u32) -> u128 {
    (1..=u128::from(n))
        .try_fold(1u128, u128::checked_mul)
        .unwrap_or(u128::MAX)
}

/// `d` in whole milliseconds, as files record it: `u64::MAX` for a time too long for that
/// (never wrapped round to a small one).
pub(crate) fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The directory a file `path` lies in: its parent, or `.` for a bare file name.
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The name of this machine, as result and lock files record it (`gethostname(2)`; on other
/// systems the `COMPUTERNAME` variable); empty when it cannot be told.
pub(crate) fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is ours and its length is passed; gethostname writes within it.
        let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
        let len = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        if ok {
            String::from_utf8_lossy(&buf[..len]).into_owned()
        } else {
            String::new()
        }
    }
    #[cfg(not(unix))]
    {
        std::env::var("COMPUTERNAME").unwrap_or_default()
    }
}

/// Letters and digits in the name of a temporary file, between `.NAME.` and `.tmp`.
const TEMP_RANDOM: usize = 6;

/// The most bytes in a file name on the file systems this program writes to (Linux's
/// `NAME_MAX`, and the usual limit elsewhere).
pub(crate) const NAME_MAX: usize = 255;

/// The bytes of a file name (on Unix, exactly; elsewhere its text, unpaired surrogates
/// replaced).
pub(crate) fn name_bytes(name: &OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStrExt::as_bytes(name).to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned().into_bytes()
    }
}

/// A file name made of `bytes` (on Unix, exactly).
fn name_from(bytes: Vec<u8>) -> OsString {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStringExt::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The file name of `path` shortened, where it must be, to at most `room` bytes, so that the
/// names made from it beside the file (its temporary files, its lock file) stay within
/// [`NAME_MAX`]: a name that fits is itself; a longer one keeps its first bytes (whole
/// characters) and ends in `~` and 16 hex digits of the SHA-256 of the whole name, so that two
/// long names never share the names made from them.
pub(crate) fn fitted_name(path: &Path, room: usize) -> OsString {
    let bytes = name_bytes(path.file_name().unwrap_or_default());
    if bytes.len() <= room {
        return name_from(bytes);
    }
    let digest = Sha256::digest(&bytes);
    let mut keep = room.saturating_sub(17).min(bytes.len());
    // Whole characters of a name that is text.
    if let Ok(text) = std::str::from_utf8(&bytes) {
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
    }
    let mut short = bytes[..keep].to_vec();
    short.push(b'~');
    for b in &digest[..8] {
        short.extend_from_slice(format!("{b:02x}").as_bytes());
    }
    name_from(short)
}

/// The start of the names of the temporary files of `path`: `.NAME.`, the name fitted so that
/// a temporary file's whole name (with [`TEMP_RANDOM`] characters and `.tmp`) fits
/// [`NAME_MAX`]. Made of the name's bytes, not its text: two names that are not UTF-8 and
/// differ (`\xfe.ckpt`, `\xff.ckpt`) have different temporary files.
fn temp_prefix(path: &Path) -> OsString {
    let mut prefix = OsString::from(".");
    prefix.push(fitted_name(path, NAME_MAX - TEMP_RANDOM - ".tmp".len() - 2));
    prefix.push(".");
    prefix
}

/// A new temporary file in the directory of `path` (which it returns too), named after it:
/// `.NAME.` and [`TEMP_RANDOM`] letters or digits and `.tmp`.
fn temp_beside(path: &Path) -> io::Result<(&Path, tempfile::NamedTempFile)> {
    let dir = dir_of(path);
    let prefix = temp_prefix(path);
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(&prefix)
        .suffix(".tmp")
        .rand_bytes(TEMP_RANDOM);
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

/// Removes the temporary files that killed runs left beside `path`: regular files named exactly
/// as [`temp_beside`] names those of `path` (`.NAME.`, [`TEMP_RANDOM`] letters or digits,
/// `.tmp`), and nothing else. Only for a caller that holds the lock of `path`
/// ([`crate::longrun::lock::RunLock`]): no live run of this program writes them then. Returns
/// how many were removed.
pub(crate) fn remove_stale_temps(path: &Path) -> usize {
    let prefix = temp_prefix(path);
    let Ok(entries) = fs::read_dir(dir_of(path)) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = name_bytes(&entry.file_name());
        let ours = name
            .strip_prefix(name_bytes(&prefix).as_slice())
            .and_then(|n| n.strip_suffix(b".tmp"))
            .is_some_and(|r| r.len() == TEMP_RANDOM && r.iter().all(u8::is_ascii_alphanumeric));
        // The entry's own type: a link of that name is not followed, nor removed.
        if ours
            && entry.file_type().is_ok_and(|t| t.is_file())
            && fs::remove_file(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// The most units a job can have: the edge method at N = 32 and split depth 4 has 1,942,787,
/// the most of any method, board and depth (checked by a test), rounded up to a power of two.
/// A file that claims more is not one of this program's.
pub const MAX_UNITS: u32 = 1 << 21;

/// The most bytes a checkpoint or result file is read up to: 256 MiB, above the largest real
/// one (a job of [`MAX_UNITS`] units at 90 bytes a unit at most: a unit's index and two counts
/// of up to 39 digits). A larger file is refused before it is read.
pub const MAX_FILE_BYTES: u64 = 256 << 20;

/// The memory that reading a file of `bytes` bytes may take at most, besides the bytes
/// themselves: what its lists of units become in memory (at most [`MAX_UNITS`] entries of
/// under 120 bytes each, however few bytes each takes in the file).
fn parse_memory(bytes: u64) -> usize {
    let entries = (bytes / 2).min(u64::from(MAX_UNITS));
    (entries * 120) as usize
}

/// What a file type is, in words, for messages: "a directory", "a FIFO (named pipe)".
pub(crate) fn kind_of(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The refusal of `path`, which names `meta` (links followed), not a regular file.
fn not_regular(path: &Path, meta: &fs::Metadata) -> StoreError {
    let kind = kind_of(&meta.file_type());
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    StoreError::NotRegular {
        path: path.to_path_buf(),
        what: if link {
            format!("a symbolic link to {kind}")
        } else {
            kind.to_string()
        },
    }
}

/// Opens `path` for reading, refusing anything but a regular file: a FIFO or a device is never
/// read (a FIFO would block, `/dev/zero` never ends). Links are followed: reading through one
/// changes nothing.
fn open_regular(path: &Path) -> Result<fs::File, StoreError> {
    let read_err = |source| StoreError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = fs::metadata(path).map_err(read_err)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    // A FIFO put in its place since the check above does not block the open; it is refused
    // below. (No effect on a regular file.)
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(not_regular(path, &meta));
    }
    Ok(file)
}

/// Reads a checkpoint or result file whole: a regular file of at most [`MAX_FILE_BYTES`]. The
/// memory that reading and parsing it takes is asked for first ([`StoreError::Memory`] when the
/// system refuses it, under `ulimit -v`, rather than an abort half-way).
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    let file = open_regular(path)?;
    let too_large = || StoreError::TooLarge {
        path: path.to_path_buf(),
        limit: MAX_FILE_BYTES,
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let needed = size as usize + parse_memory(size);
    let mut probe: Vec<u8> = Vec::new();
    probe
        .try_reserve_exact(needed)
        .map_err(|_| StoreError::Memory {
            path: path.to_path_buf(),
            needed: needed as u64,
        })?;
    drop(probe);
    let mut bytes = Vec::with_capacity(size as usize);
    // A file still growing stops at the limit.
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| StoreError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The first `n` bytes of the file at `path` (fewer if it is shorter); `None` when nothing is
/// there. Anything but a regular file is refused.
pub(crate) fn head(path: &Path, n: usize) -> Result<Option<Vec<u8>>, StoreError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    let file = open_regular(path)?;
    let mut bytes = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut bytes)
        .map_err(|source| StoreError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(Some(bytes))
}

/// The most symbolic links followed from one path (Linux's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The file a run writes for `path`: `path` itself when it is a regular file or nothing yet,
/// else the file the symbolic link there names, followed through every link (relative ones
/// from the link's directory). What `path` names in the end must be a regular file or nothing
/// yet: a directory, a device, a FIFO or a socket is refused ([`StoreError::NotRegular`]).
/// A link in a directory that every user may write to and that is sticky (`/tmp`) is followed
/// only when it belongs to this process's user or to the directory's owner, the rule of Linux's
/// `fs.protected_symlinks` (Documentation/admin-guide/sysctl/fs.rst): a file replaced through a
/// link another user planted there could be anyone's.
pub(crate) fn resolve_target(path: &Path) -> Result<PathBuf, StoreError> {
    let write_err = |source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    };
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(not_regular(path, &meta)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(write_err(e)),
    }
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match fs::symlink_metadata(&at) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) => return Err(write_err(e)),
        };
        if !meta.file_type().is_symlink() {
            return Ok(at);
        }
        check_link(&at, &meta)?;
        let to = fs::read_link(&at).map_err(write_err)?;
        at = if to.is_absolute() {
            to
        } else {
            dir_of(&at).join(to)
        };
    }
    Err(write_err(io::Error::other(
        "too many levels of symbolic links",
    )))
}

/// Refuses to follow the link `link` (its own metadata `meta`) where Linux's
/// `fs.protected_symlinks` would (see [`resolve_target`]).
#[cfg(unix)]
fn check_link(link: &Path, meta: &fs::Metadata) -> Result<(), StoreError> {
    use std::os::unix::fs::MetadataExt;
    let dir = dir_of(link);
    let dir_meta = fs::metadata(dir).map_err(|source| StoreError::Write {
        path: link.to_path_buf(),
        source,
    })?;
    // SAFETY: geteuid takes nothing, cannot fail and touches no memory of ours.
    let me = unsafe { libc::geteuid() };
    let shared = dir_meta.mode() & 0o1002 == 0o1002;
    if shared && meta.uid() != me && meta.uid() != dir_meta.uid() {
        return Err(StoreError::Link {
            path: link.to_path_buf(),
            reason: format!(
                "it belongs to another user (uid {}) and lies in {}, a sticky directory every \
                 user may write to, where Linux's protected_symlinks would not follow it either",
                meta.uid(),
                dir.display()
            ),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_link(_link: &Path, _meta: &fs::Metadata) -> Result<(), StoreError> {
    Ok(())
}

/// Whether two paths name the same file: the same file on disk when both exist (hard links
/// included), else the same directory (links and `..` resolved) and file name.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            if (x.dev(), x.ino()) == (y.dev(), y.ino()) {
                return true;
            }
        }
    }
    let resolve =
        |p: &Path| -> Option<PathBuf> { Some(dir_of(p).canonicalize().ok()?.join(p.file_name()?)) };
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The value of the `format` field that every file of this program begins with, whitespace
/// allowed (a file pretty-printed by an editor): `nqueens-checkpoint` in
/// `{"format":"nqueens-checkpoint",...`; `None` when the file does not begin so.
fn leading_format(bytes: &[u8]) -> Option<&str> {
    fn token<'a>(rest: &'a [u8], what: &[u8]) -> Option<&'a [u8]> {
        rest.trim_ascii_start().strip_prefix(what)
    }
    let rest = token(bytes, b"{")?;
    let rest = token(rest, br#""format""#)?;
    let rest = token(rest, b":")?;
    let rest = token(rest, b"\"")?;
    let end = rest.iter().take(64).position(|&b| b == b'"')?;
    std::str::from_utf8(&rest[..end]).ok()
}

/// A writer that hashes what is written to it.
struct HashWriter(Sha256);

impl Write for HashWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The SHA-256 of the JSON form of `value` (as `sha256:` and hex digits), without the JSON
/// itself in memory.
pub(crate) fn checksum_of<T: Serialize>(value: &T) -> String {
    let mut w = HashWriter(Sha256::new());
    serde_json::to_writer(&mut w, value).expect("serializable");
    hex_digest(&w.0.finalize())
}

/// Parses `bytes` as JSON of type `T` with the checksum of its content checked: the JSON of the
/// value with its `checksum_field` blanked must hash to the stored checksum. The checksum is
/// over the content, not the layout: a file an editor pretty-printed, its content unchanged,
/// is read as it was written. `kind` names the file in messages; `expected_format` is the
/// value of its `format` field.
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
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(StoreError::Empty {
            path: path.to_path_buf(),
            kind: kind.to_string(),
        });
    }
    // Every file this program writes begins with its format's name, `{"format":"nqueens-`, and
    // holds a `"sha256:` checksum: a file with neither is someone else's. One with either is a
    // damaged one of ours (no single flipped bit or cut takes both), said corrupt.
    let format = leading_format(bytes);
    if !format.is_some_and(|f| f.starts_with("nqueens-"))
        && !bytes
            .windows(CHECKSUM_VALUE.len())
            .any(|w| w == CHECKSUM_VALUE)
    {
        return Err(StoreError::NotOurs {
            path: path.to_path_buf(),
            kind: kind.to_string(),
        });
    }
    let mut value: T = serde_json::from_slice(bytes).map_err(|e| {
        // The other kind of file of this program, given in the wrong place, is named as such.
        let other = match format {
            Some(f) if f == expected_format => None,
            Some(CHECKPOINT_FORMAT) => Some("checkpoint"),
            Some(SHARD_FORMAT) => Some("shard result file"),
            _ => None,
        };
        match other {
            Some(found) => StoreError::WrongKind {
                path: path.to_path_buf(),
                found,
                expected: kind.to_string(),
            },
            _ => corrupt(format!("not a valid {kind}: {}", short(&e.to_string()))),
        }
    })?;
    let stored = std::mem::take(checksum_field(&mut value));
    if checksum_of(&value) != stored {
        return Err(corrupt(
            "checksum mismatch: the file was changed after nqueens wrote it".into(),
        ));
    }
    *checksum_field(&mut value) = stored;
    Ok(value)
}

/// `text` cut to a length that fits one line of a message (a parser's error can quote a
/// long stretch of a file).
pub(crate) fn short(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// Deserializes a list of at most [`MAX_UNITS`] items: a longer one is refused as it is read,
/// before it takes more memory than any real file's (`#[serde(deserialize_with)]`).
pub(crate) fn capped<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Visit<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "a list of at most {MAX_UNITS} items")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
            while let Some(item) = seq.next_element()? {
                if items.len() == MAX_UNITS as usize {
                    return Err(serde::de::Error::custom(format!(
                        "a list of more than {MAX_UNITS} items, more than any job has units"
                    )));
                }
                items.push(item);
            }
            Ok(items)
        }
    }
    d.deserialize_seq(Visit(std::marker::PhantomData))
}

/// [`capped`] for an optional list.
pub(crate) fn capped_opt<'de, D, T>(d: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Wrap<T>(Vec<T>);
    impl<'de, T: Deserialize<'de>> Deserialize<'de> for Wrap<T> {
        fn deserialize<E: serde::Deserializer<'de>>(d: E) -> Result<Self, E::Error> {
            capped(d).map(Wrap)
        }
    }
    Option::<Wrap<T>>::deserialize(d).map(|w| w.map(|w| w.0))
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

    #[cfg(unix)]
    #[test]
    fn targets_resolve_through_links_and_anything_but_a_file_is_refused() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("real")).unwrap();
        // A chain of links, relative to each link's directory, ending at nothing yet.
        symlink("real/b", d.join("a")).unwrap();
        symlink("c", d.join("real/b")).unwrap();
        assert_eq!(resolve_target(&d.join("a")).unwrap(), d.join("real/c"));
        write_atomic(&resolve_target(&d.join("a")).unwrap(), b"x").unwrap();
        assert_eq!(std::fs::read(d.join("a")).unwrap(), b"x");
        assert!(d
            .join("a")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink());
        // A plain path is itself.
        assert_eq!(resolve_target(&d.join("f")).unwrap(), d.join("f"));
        // A directory, directly or through a link; a loop of links.
        let err = resolve_target(&d.join("real")).unwrap_err();
        assert!(
            err.is_bad_input() && err.to_string().contains("is a directory"),
            "{err}"
        );
        symlink("real", d.join("r")).unwrap();
        let err = resolve_target(&d.join("r")).unwrap_err();
        assert!(
            err.to_string().contains("a symbolic link to a directory"),
            "{err}"
        );
        symlink("loop", d.join("loop")).unwrap();
        assert!(resolve_target(&d.join("loop")).is_err());
        // write_atomic itself never replaces a link or a directory.
        assert!(matches!(
            write_atomic(&d.join("a"), b"y"),
            Err(StoreError::NotRegular { .. })
        ));
        assert!(matches!(
            write_atomic(&d.join("real"), b"y"),
            Err(StoreError::NotRegular { .. })
        ));
        assert_eq!(std::fs::read(d.join("real/c")).unwrap(), b"x");
        // One file under two names.
        std::fs::hard_link(d.join("real/c"), d.join("h")).unwrap();
        assert!(same_file(&d.join("h"), &d.join("real/c")));
        assert!(same_file(&d.join("new"), &d.join("real/../new")));
        assert!(!same_file(&d.join("new"), &d.join("real/new")));
    }

    #[cfg(unix)]
    #[test]
    fn reads_refuse_fifos_and_files_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Refused at once: no writer would ever come.
            let err = read(&fifo).unwrap_err();
            assert!(err.to_string().contains("is a FIFO"), "{err}");
            assert_eq!(head(&fifo, 8).unwrap_err().to_string(), err.to_string());
        }
        let big = dir.path().join("big");
        // Sparse: no disk space taken.
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_FILE_BYTES + 1)
            .unwrap();
        let err = read(&big).unwrap_err();
        assert!(matches!(err, StoreError::TooLarge { .. }), "{err}");
        assert!(err.is_bad_input());
        assert_eq!(head(&dir.path().join("none"), 8).unwrap(), None);
    }

    /// The bound on units that sizes the reading of result files is above every real job's.
    /// (Planning N = 32 takes a while unoptimised: run with `--release`.)
    #[cfg_attr(debug_assertions, ignore)]
    #[test]
    fn no_job_has_more_units_than_the_bound() {
        use crate::Method;
        for method in [Method::Plain, Method::Mirror, Method::D4, Method::Edge] {
            let job = Job::new(32)
                .unwrap()
                .with_method(method)
                .with_split_depth(4)
                .unwrap();
            let units = Plan::new(job).units().len();
            assert!(units <= MAX_UNITS as usize, "{method:?}: {units}");
        }
    }

    #[test]
    fn only_our_own_leftover_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.ckpt");
        // One of our own, made as a save makes them.
        let (_, tmp) = temp_beside(&target).unwrap();
        let (_, kept) = tmp.keep().unwrap();
        let others = [
            ".c.ckpt.ab.tmp",
            ".c.ckpt.abcdef.tmpx",
            ".d.ckpt.abcdef.tmp",
        ];
        for name in others {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        assert!(kept.exists());
        assert_eq!(remove_stale_temps(&target), 1);
        assert!(!kept.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), others.len());
    }

    /// Names that are not UTF-8 keep their bytes: two of them never share temporary files,
    /// and the clean-up of one leaves the other's alone (issue 28, item 9).
    #[cfg(unix)]
    #[test]
    fn names_that_are_not_text_have_their_own_temporaries() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join(OsStr::from_bytes(b"\xfe.ckpt"));
        let b = dir.path().join(OsStr::from_bytes(b"\xff.ckpt"));
        assert_ne!(temp_prefix(&a), temp_prefix(&b));
        let (_, live) = temp_beside(&a).unwrap();
        assert_eq!(remove_stale_temps(&b), 0);
        assert!(live.path().exists());
        assert_eq!(remove_stale_temps(&a), 1);
    }

    /// A name of up to 255 bytes can be written, locked and cleaned up after: the names made
    /// from it fit too, and two long names that differ only at their end do not share them
    /// (issue 28, item 16).
    #[test]
    fn the_longest_names_fit_with_their_temporaries_and_locks() {
        let dir = tempfile::tempdir().unwrap();
        for len in [243, 244, 250, 251, 255] {
            let name = format!("{}{}", "é".repeat(100), "q".repeat(len - 200));
            assert_eq!(name.len(), len);
            let p = dir.path().join(&name);
            write_atomic(&p, b"x").unwrap();
            write_atomic(&p, b"y").unwrap();
            assert_eq!(std::fs::read(&p).unwrap(), b"y");
            let lock = crate::longrun::lock::lock_path(&p);
            assert!(name_bytes(lock.file_name().unwrap()).len() <= NAME_MAX);
            let taken = crate::longrun::lock::RunLock::acquire(&p).unwrap();
            drop(taken);
            let (_, tmp) = temp_beside(&p).unwrap();
            assert!(name_bytes(tmp.path().file_name().unwrap()).len() <= NAME_MAX);
            let (_, kept) = tmp.keep().unwrap();
            assert_eq!(remove_stale_temps(&p), 1, "{len}");
            assert!(!kept.exists());
            std::fs::remove_file(&p).unwrap();
        }
        let one = dir.path().join(format!("{}1", "q".repeat(250)));
        let two = dir.path().join(format!("{}2", "q".repeat(250)));
        assert_ne!(temp_prefix(&one), temp_prefix(&two));
        assert_ne!(
            crate::longrun::lock::lock_path(&one),
            crate::longrun::lock::lock_path(&two)
        );
        // A name that fits is kept as it is.
        assert_eq!(
            temp_prefix(Path::new("/d/c.ckpt")),
            OsString::from(".c.ckpt.")
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
