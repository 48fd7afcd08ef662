//! Durable files: the one way this program writes a file that matters and the one way it reads
//! a file it is given.
//!
//! * Writes are atomic and durable ([`write_atomic`]): a temporary file beside the target is
//!   written, flushed to disk and renamed over it, and the directory is flushed, so that after a
//!   crash the target holds the old content or the new, never a mix. Something at the target
//!   that is not a regular file is never replaced.
//! * Reads are bounded and of regular files only ([`read_bounded`]): a FIFO would block, a
//!   device such as `/dev/zero` never ends, and a file larger than the caller's limit is refused
//!   before it is read; the memory that reading it takes is asked for first, so that a limit
//!   such as `ulimit -v` gives an error rather than an abort.
//! * Targets are resolved through symbolic links by Linux's `fs.protected_symlinks` rule
//!   (`resolve_target`), and temporary files that killed runs left behind are recognised by
//!   their exact names and nothing else (`remove_stale_temps`).
//!
//! The benchmark's files, checkpoints, result files and `verify --table` all go through here.

use sha2::{Digest, Sha256};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a file could not be read or written (its content aside: see
/// [`crate::longrun::StoreError`]).
#[derive(Debug, Error)]
pub enum FileError {
    /// The file could not be read (missing, unreadable).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file cannot be written where it was asked for, found before any work: its folder
    /// does not exist, is not a folder, or takes no files (read-only, `/proc`).
    #[error("cannot write {}: {source}", path.display())]
    Unwritable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The file could not be written (the old one, if any, is intact): a full disk, say.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
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
    /// The file is larger than any file of its kind could be.
    #[error(
        "{} is larger than any {what} could be (over {limit} bytes)",
        path.display()
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// What it should have been ("checkpoint or result file", "table").
        what: &'static str,
        /// The most bytes it may hold.
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
    /// A symbolic link that is not followed (see `resolve_target`: a link of another user in a sticky directory, or a loop).
    #[error("{} is a symbolic link that is not followed: {reason}", path.display())]
    Link {
        /// The link.
        path: PathBuf,
        /// Why.
        reason: LinkRefusal,
    },
}

/// Why a symbolic link is not followed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LinkRefusal {
    /// Another user's link in a sticky directory every user may write to (`/tmp`).
    #[error(
        "it belongs to another user (uid {uid}) and lies in {}, a sticky directory every \
         user may write to, where Linux's protected_symlinks would not follow it either",
        dir.display()
    )]
    OtherUser {
        /// The link's owner.
        uid: u32,
        /// The directory.
        dir: PathBuf,
    },
    /// A chain of more links than the system follows (a loop of links, most likely).
    #[error("it leads through more than {MAX_LINKS} links (a loop of links?)")]
    TooMany,
}

/// The machine's fault for a write or memory that failed; the request's for a path that names
/// nothing readable, something other than a file, or a file too large.
impl crate::Classify for FileError {
    fn class(&self) -> crate::Class {
        match self {
            FileError::Write { .. } | FileError::Memory { .. } => crate::Class::Machine,
            _ => crate::Class::Request,
        }
    }
}

impl FileError {
    /// The error as an I/O error, for a caller whose errors carry the path themselves (the
    /// benchmark's files): the system's reason where there is one, else these words.
    pub fn into_io(self) -> io::Error {
        match self {
            FileError::Read { source, .. }
            | FileError::Unwritable { source, .. }
            | FileError::Write { source, .. } => source,
            other => io::Error::other(other.to_string()),
        }
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            FileError::Read { path, .. }
            | FileError::Unwritable { path, .. }
            | FileError::Write { path, .. }
            | FileError::NotRegular { path, .. }
            | FileError::TooLarge { path, .. }
            | FileError::Memory { path, .. }
            | FileError::Link { path, .. } => path,
        }
    }
}

/// Writes `bytes` to `path` atomically and durably: a temporary file in the same directory is
/// written and flushed to disk, renamed over `path`, and the directory is flushed, so that after
/// a crash `path` holds either the old content or the new, never a mix. Something at `path` that
/// is not a regular file (a link, a directory, a device) is refused, never replaced. The file
/// is readable by all, as a plainly created one would be (tempfile's default is owner-only).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if let Ok(meta) = fs::symlink_metadata(path) {
        if !meta.is_file() {
            return Err(FileError::NotRegular {
                path: path.to_path_buf(),
                what: kind_of(&meta.file_type()).to_string(),
            });
        }
    }
    let write = || -> io::Result<()> {
        let (dir, mut tmp) = temp_beside(path)?;
        tmp.write_all(bytes).map_err(reason_only)?;
        tmp.as_file().sync_all().map_err(reason_only)?;
        tmp.persist(path).map_err(|e| reason_only(e.error))?;
        sync_dir(dir)
    };
    write().map_err(|source| FileError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Makes `path` holding `bytes` unless something is there already (`Ok(false)`): written
/// beside it first, then linked at the path without replacing anything, so that no reader
/// ever finds it empty or half written. Not flushed to disk: for a small file whose loss in a
/// crash costs nothing (a lock file). Where the file system cannot link without replacing
/// (no hard links, no `RENAME_NOREPLACE`), the file is created in place and then written.
pub(crate) fn create_whole(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let (_, mut tmp) = temp_beside(path)?;
    tmp.write_all(bytes).map_err(reason_only)?;
    match tmp.persist_noclobber(path) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(_) => match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut file) => file.write_all(bytes).map(|()| true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        },
    }
}

/// The operating system's reason for an I/O error, without tempfile's note of its random file
/// name ("... at path \"/dir/.q.ckpt.HuUSXk.tmp\""): the user only knows the file they named.
pub(crate) fn reason_only(e: io::Error) -> io::Error {
    let text = e.to_string();
    match text.split_once(" at path ") {
        Some((reason, _)) => io::Error::new(e.kind(), reason.to_string()),
        None => e,
    }
}

/// Checks, before hours of work, that `path` can later be written by [`write_atomic`]: a
/// temporary file is created beside it and removed again. `path` itself is not touched. A
/// path that cannot be written before any work is the request's fault
/// ([`FileError::Unwritable`]: its folder is missing, read-only, not a folder, `/proc`).
pub fn check_writable(path: &Path) -> Result<(), FileError> {
    temp_beside(path)
        .map(drop)
        .map_err(|source| FileError::Unwritable {
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
fn not_regular(path: &Path, meta: &fs::Metadata) -> FileError {
    let kind = kind_of(&meta.file_type());
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    FileError::NotRegular {
        path: path.to_path_buf(),
        what: if link {
            format!("a symbolic link to {kind}")
        } else {
            kind.to_string()
        },
    }
}

/// Whether `e` says that a path leads through too many symbolic links (a loop).
fn is_link_loop(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Opens `path` for reading, refusing anything but a regular file: a FIFO or a device is never
/// read (a FIFO would block, `/dev/zero` never ends). Links are followed: reading through one
/// changes nothing.
fn open_regular(path: &Path) -> Result<fs::File, FileError> {
    let read_err = |source: io::Error| {
        if is_link_loop(&source) {
            return FileError::Link {
                path: path.to_path_buf(),
                reason: LinkRefusal::TooMany,
            };
        }
        FileError::Read {
            path: path.to_path_buf(),
            source,
        }
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

/// How much a read may take: the most bytes of the file, what the file is called in messages,
/// and the memory its parsing may take besides its bytes.
#[derive(Clone, Copy, Debug)]
pub struct Bound {
    /// The most bytes the file may hold.
    pub bytes: u64,
    /// What the file is, for messages ("checkpoint or result file").
    pub what: &'static str,
    /// The memory that parsing a file of `bytes` bytes may take, asked for before the read.
    pub parse_memory: fn(u64) -> u64,
}

/// Reads the file at `path` whole: a regular file of at most `bound.bytes` bytes (refused
/// before it is read when larger, and a file still growing stops at the bound). The memory
/// that reading and parsing it takes is asked for first ([`FileError::Memory`] when the system
/// refuses it, under `ulimit -v`, rather than an abort half-way).
pub fn read_bounded(path: &Path, bound: Bound) -> Result<Vec<u8>, FileError> {
    let file = open_regular(path)?;
    let too_large = || FileError::TooLarge {
        path: path.to_path_buf(),
        what: bound.what,
        limit: bound.bytes,
    };
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > bound.bytes {
        return Err(too_large());
    }
    let needed = size.saturating_add((bound.parse_memory)(size));
    if !memory_available(needed) {
        return Err(FileError::Memory {
            path: path.to_path_buf(),
            needed,
        });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(bound.bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > bound.bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Whether the system gives `bytes` of memory now: on Unix, whether that much address space can
/// be mapped (and it is unmapped at once, never touched), so that the probe goes through no
/// allocator (an allocator that ends the process on a refusal, as the `nqueens` binary's does,
/// is not asked); elsewhere, whether a vector of that capacity can be reserved.
pub fn memory_available(bytes: u64) -> bool {
    let Ok(bytes) = usize::try_from(bytes) else {
        return false;
    };
    if bytes == 0 {
        return true;
    }
    #[cfg(unix)]
    {
        // SAFETY: a new private anonymous mapping that nothing else refers to, never read or
        // written, and unmapped before returning.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                bytes,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return false;
            }
            libc::munmap(p, bytes);
            true
        }
    }
    #[cfg(not(unix))]
    {
        Vec::<u8>::new().try_reserve_exact(bytes).is_ok()
    }
}

/// The most symbolic links followed from one path (Linux's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// The file a run writes for `path`: `path` itself when it is a regular file or nothing yet,
/// else the file the symbolic link there names, followed through every link (relative ones
/// from the link's directory). What `path` names in the end must be a regular file or nothing
/// yet: a directory, a device, a FIFO or a socket is refused ([`FileError::NotRegular`]), and
/// so is a loop of links ([`LinkRefusal::TooMany`]). A link in a directory that every user may
/// write to and that is sticky (`/tmp`) is followed only when it belongs to this process's user
/// or to the directory's owner, the rule of Linux's `fs.protected_symlinks`
/// (Documentation/admin-guide/sysctl/fs.rst): a file replaced through a link another user
/// planted there could be anyone's.
pub(crate) fn resolve_target(path: &Path) -> Result<PathBuf, FileError> {
    let write_err = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let too_many = || FileError::Link {
        path: path.to_path_buf(),
        reason: LinkRefusal::TooMany,
    };
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(not_regular(path, &meta)),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) if is_link_loop(&e) => return Err(too_many()),
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
    Err(too_many())
}

/// Refuses to follow the link `link` (its own metadata `meta`) where Linux's
/// `fs.protected_symlinks` would (see [`resolve_target`]).
#[cfg(unix)]
fn check_link(link: &Path, meta: &fs::Metadata) -> Result<(), FileError> {
    use std::os::unix::fs::MetadataExt;
    let dir = dir_of(link);
    let dir_meta = fs::metadata(dir).map_err(|source| FileError::Write {
        path: link.to_path_buf(),
        source,
    })?;
    // SAFETY: geteuid takes nothing, cannot fail and touches no memory of ours.
    let me = unsafe { libc::geteuid() };
    let shared = dir_meta.mode() & 0o1002 == 0o1002;
    if shared && meta.uid() != me && meta.uid() != dir_meta.uid() {
        return Err(FileError::Link {
            path: link.to_path_buf(),
            reason: LinkRefusal::OtherUser {
                uid: meta.uid(),
                dir: dir.to_path_buf(),
            },
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_link(_link: &Path, _meta: &fs::Metadata) -> Result<(), FileError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Classify;

    const SMALL: Bound = Bound {
        bytes: 16,
        what: "test file",
        parse_memory: |b| b,
    };

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
        // A directory, directly or through a link; a loop of links is the request's fault.
        let err = resolve_target(&d.join("real")).unwrap_err();
        assert_eq!(err.class(), crate::Class::Request);
        assert!(err.to_string().contains("is a directory"), "{err}");
        symlink("real", d.join("r")).unwrap();
        let err = resolve_target(&d.join("r")).unwrap_err();
        assert!(
            err.to_string().contains("a symbolic link to a directory"),
            "{err}"
        );
        symlink("loop", d.join("loop")).unwrap();
        let err = resolve_target(&d.join("loop")).unwrap_err();
        assert!(
            matches!(
                err,
                FileError::Link {
                    reason: LinkRefusal::TooMany,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(err.class(), crate::Class::Request);
        let err = read_bounded(&d.join("loop"), SMALL).unwrap_err();
        assert_eq!(err.class(), crate::Class::Request, "{err:?}");
        // write_atomic itself never replaces a link or a directory.
        assert!(matches!(
            write_atomic(&d.join("a"), b"y"),
            Err(FileError::NotRegular { .. })
        ));
        assert!(matches!(
            write_atomic(&d.join("real"), b"y"),
            Err(FileError::NotRegular { .. })
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
    fn reads_refuse_fifos_devices_and_files_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            // Refused at once: no writer would ever come.
            let err = read_bounded(&fifo, SMALL).unwrap_err();
            assert!(err.to_string().contains("is a FIFO"), "{err}");
        }
        let err = read_bounded(Path::new("/dev/zero"), SMALL).unwrap_err();
        assert!(err.to_string().contains("a character device"), "{err}");
        let big = dir.path().join("big");
        std::fs::write(&big, [b'x'; 17]).unwrap();
        let err = read_bounded(&big, SMALL).unwrap_err();
        assert!(
            matches!(err, FileError::TooLarge { limit: 16, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("any test file"), "{err}");
        assert_eq!(err.class(), crate::Class::Request);
        std::fs::write(&big, [b'x'; 16]).unwrap();
        assert_eq!(read_bounded(&big, SMALL).unwrap().len(), 16);
        let err = read_bounded(&dir.path().join("none"), SMALL).unwrap_err();
        assert!(matches!(err, FileError::Read { .. }), "{err}");
        // Memory that no system gives is asked for before the read.
        let greedy = Bound {
            parse_memory: |_| u64::MAX / 2,
            ..SMALL
        };
        let err = read_bounded(&big, greedy).unwrap_err();
        assert!(matches!(err, FileError::Memory { .. }), "{err}");
        assert_eq!(err.class(), crate::Class::Machine);
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
        assert_eq!(e.class(), crate::Class::Machine);
        assert!(check_writable(&dir.path().join("no/such/dir/f")).is_err());
        assert!(check_writable(&p).is_ok());
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
    }

    /// A file made whole appears with all its bytes, never replaces what is there, and leaves
    /// no temporary file; what the system refuses (a name too long) is its error, not "there".
    #[cfg(unix)]
    #[test]
    fn a_file_made_whole_never_replaces_anything() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        assert!(create_whole(&p, b"12 host\n").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"12 host\n");
        assert!(!create_whole(&p, b"34 other\n").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"12 host\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let long = dir.path().join("n".repeat(NAME_MAX + 1));
        let e = create_whole(&long, b"x").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENAMETOOLONG), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
