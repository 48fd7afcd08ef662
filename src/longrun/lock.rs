//! One run per file: an exclusive lock beside a checkpoint or a shard's result file, so that a
//! second run on the same file stops at once instead of repeating the whole job and overwriting
//! the first run's saves.
//!
//! The lock is the operating system's advisory lock (`flock` on Unix, `LockFileEx` on Windows)
//! on a file beside the target, `FILE.lock`. It goes away with the process however the process
//! ends, `kill -9` included: a lock file left behind by a dead process holds no lock and is
//! simply taken over. The file also holds the holder's process ID and host, read only to name
//! the holder in the error message; the operating system's lock is the truth.
//!
//! A run that ends normally removes the lock file (while still holding the lock); a run that
//! takes a lock checks that the file it locked is still the one at the path, so that it cannot
//! lock a file just removed by a finishing holder while a third run locks a new one.
//!
//! What is at the lock path must be a lock file of this program: a symbolic link is never
//! followed (the file is opened with `O_NOFOLLOW`), and a directory, a device, a FIFO, an empty
//! file or a file of other content is refused and left as it is ([`LockError::Foreign`]). A
//! lock file is made whole, its holder line in it before it appears at the path, so that one
//! of this program is never empty.
//!
//! On Unix a run also locks the target file itself once it exists (and again after each save,
//! which replaces it), so that a second name of the same file (a hard link, with a lock file of
//! its own) is refused too ([`LockError::HeldByFile`]). That lock also keeps a second run out
//! when a user removes the lock file of a live run (taking it for one left by `kill -9`): the
//! second run is refused as long as the first runs, and the first makes its lock file again at
//! its next check ([`RunLock::check`], every progress tick). Only before the target exists (a
//! run that has not saved yet), or where files cannot be locked themselves, can a second run
//! take a new lock file first; the first run then stops ([`LockError::Lost`]) and leaves the
//! file to it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;

/// An exclusive lock on the file beside a target; released when dropped (or when the process
/// ends, however it ends).
#[derive(Debug)]
pub struct RunLock {
    file: File,
    path: PathBuf,
    target: PathBuf,
    /// The target itself, locked (on Unix): the file as found and as this run last wrote it,
    /// and every earlier one still linked under some name. A second name of the same file (a
    /// hard link) has another lock file, but not another file.
    files: Vec<File>,
}

/// Who holds a lock, as its lock file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The holder's process ID.
    pub pid: u32,
    /// The host it runs on, when recorded.
    pub host: Option<String>,
}

/// Errors of taking a [`RunLock`].
#[derive(Debug, Error)]
pub enum LockError {
    /// Another process holds the lock: another run is using the file.
    #[error(
        "{} is in use by another nqueens run ({}); wait for it to end or stop it (lock file {})",
        target.display(),
        holder_words(holder),
        lock.display()
    )]
    Held {
        /// The file the runs share (a checkpoint or a result file).
        target: PathBuf,
        /// The lock file beside it.
        lock: PathBuf,
        /// The holder, when its lock file could be read.
        holder: Option<Holder>,
    },
    /// Another process holds the lock of the file itself: another run is using the file,
    /// through another name of it (a hard link), or after its lock file was removed.
    #[error(
        "{} is in use by another nqueens run, which {}; wait for it to end or stop it",
        target.display(),
        if *hard_links {
            "may name it otherwise (the file has hard links, each name with a lock file of its \
             own)"
        } else {
            "holds the file itself: its lock file was removed while it runs (it makes it \
             again), or it named this file otherwise (a hard link) before its last save \
             replaced it there"
        }
    )]
    HeldByFile {
        /// The file, as this run names it.
        target: PathBuf,
        /// Whether the file has other names (hard links).
        hard_links: bool,
    },
    /// Something other than a lock file of this program is at the lock path: it is left as it
    /// is, neither written nor removed.
    #[error(
        "cannot lock {}: {} is {what}, not a lock file of nqueens; it was left untouched \
         (move it away if it is not needed)",
        target.display(),
        lock.display()
    )]
    Foreign {
        /// The file the lock is for.
        target: PathBuf,
        /// The lock path.
        lock: PathBuf,
        /// What is there ("a symbolic link", "a file of other content").
        what: &'static str,
    },
    /// The lock file was removed while this run held it, and another run has taken the new one
    /// since: this run must stop writing the target.
    #[error(
        "the lock file {} was removed while this run held it, and another nqueens run ({}) has \
         taken {} since; this run stops here and leaves the file to it",
        lock.display(),
        holder_words(holder),
        target.display()
    )]
    Lost {
        /// The file the lock is for.
        target: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// The run that holds it now.
        holder: Option<Holder>,
    },
    /// The lock file could not be created or locked (a directory that does not exist or cannot
    /// be written, a file system without locks).
    #[error("cannot lock {} (lock file {}): {source}", target.display(), lock.display())]
    Io {
        /// The file the lock is for.
        target: PathBuf,
        /// The lock file.
        lock: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// The request's fault (a file in use, something else at the lock path), but for a lock file
/// that could not be made or locked: the machine's.
impl crate::Classify for LockError {
    fn class(&self) -> crate::Class {
        match self {
            LockError::Io { .. } => crate::Class::Machine,
            _ => crate::Class::Request,
        }
    }
}

impl LockError {
    /// Whether another run holds the lock (as opposed to a failure of the system).
    pub fn is_held(&self) -> bool {
        matches!(
            self,
            LockError::Held { .. } | LockError::HeldByFile { .. } | LockError::Lost { .. }
        )
    }
}

fn holder_words(holder: &Option<Holder>) -> String {
    match holder {
        Some(Holder {
            pid,
            host: Some(host),
        }) => format!("process {pid} on {host}"),
        Some(Holder { pid, host: None }) => format!("process {pid}"),
        None => "process ID unknown".to_string(),
    }
}

/// The lock file of `target`: the same path with `.lock` added to the file name (a name too
/// long for that is shortened first, as the store shortens it for its temporary files).
pub(crate) fn lock_path(target: &Path) -> PathBuf {
    use crate::longrun::durable::{fitted_name, NAME_MAX};
    let mut name = fitted_name(target, NAME_MAX - ".lock".len());
    name.push(".lock");
    target.with_file_name(name)
}

/// The most bytes a lock file of this program holds (a process ID and a host name are far
/// less): a larger file is not one.
const MAX_LOCK_BYTES: u64 = 4096;

impl RunLock {
    /// Takes the lock of `target` (a `.lock` file beside it) without waiting: another process
    /// holding it is [`LockError::Held`], naming its process ID. The target itself is not touched.
    pub fn acquire(target: &Path) -> Result<RunLock, LockError> {
        let path = lock_path(target);
        let file = take(target, &path)?;
        let mut lock = RunLock {
            file,
            path,
            target: target.to_path_buf(),
            files: Vec::new(),
        };
        lock.lock_target()?;
        Ok(lock)
    }

    /// Locks the file now at the target, if any, besides the lock file (on Unix): call it after
    /// each write of the target, which replaces the file. The files locked before stay locked
    /// while another name still links them (a run could start from that name); the others,
    /// gone from every directory, are let go.
    pub(crate) fn lock_target(&mut self) -> Result<(), LockError> {
        #[cfg(unix)]
        {
            let io_err = |source| LockError::Io {
                target: self.target.clone(),
                lock: self.target.clone(),
                source,
            };
            let file = match File::open(&self.target) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
                Err(e) => return Err(io_err(e)),
            };
            if !file.metadata().map_err(io_err)?.is_file() {
                return Ok(());
            }
            use std::os::unix::fs::MetadataExt;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let links = file.metadata().map_or(1, |m| m.nlink());
                    return Err(LockError::HeldByFile {
                        target: self.target.clone(),
                        hard_links: links > 1,
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io_err(e)),
            }
            self.files
                .retain(|f| f.metadata().is_ok_and(|m| m.nlink() > 0));
            self.files.push(file);
        }
        Ok(())
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file the lock is for.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Checks that the lock file is still at its path, and when it is not (a user removed it),
    /// makes and locks a new one at once. Fails only when another run has taken the new file
    /// first while this run does not hold the target file itself ([`LockError::Lost`]): this
    /// run must then stop writing the target. A lock file that cannot be made again now (its
    /// directory removed, or another run holding it for the moment that it takes to be refused
    /// the target) is tried again at the next check.
    pub fn check(&mut self) -> Result<(), LockError> {
        if still_at(&self.file, &self.path) {
            return Ok(());
        }
        match take(&self.target, &self.path) {
            Ok(file) => {
                // The old file, no longer at the path, is unlocked as it is dropped.
                self.file = file;
                Ok(())
            }
            Err(LockError::Held { .. }) if self.holds_target() => Ok(()),
            Err(LockError::Held {
                target,
                lock,
                holder,
            }) => Err(LockError::Lost {
                target,
                lock,
                holder,
            }),
            Err(_) => Ok(()),
        }
    }

    /// Whether this run holds the lock of the file now at the target (so that no other run
    /// can write it, whatever became of the lock file).
    fn holds_target(&self) -> bool {
        self.files.iter().any(|f| still_at(f, &self.target))
    }
}

/// Locks the lock file `path` of `target`, making it if needed.
fn take(target: &Path, path: &Path) -> Result<File, LockError> {
    let io_err = |source| LockError::Io {
        target: target.to_path_buf(),
        lock: path.to_path_buf(),
        source,
    };
    let foreign = |what| LockError::Foreign {
        target: target.to_path_buf(),
        lock: path.to_path_buf(),
        what,
    };
    let holder = format!(
        "{} {}\n",
        std::process::id(),
        crate::longrun::host::host_name()
    );
    // A finishing holder removes the file; a few tries find the one at the path.
    for _ in 0..100 {
        // Made whole, its holder line in it: a lock file of this program is never empty, so
        // that an empty file at the path is someone else's.
        if std::fs::symlink_metadata(path).is_err() {
            crate::longrun::durable::create_whole(path, holder.as_bytes()).map_err(io_err)?;
        }
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if !meta.is_file() {
                return Err(foreign(crate::longrun::durable::kind_of(&meta.file_type())));
            }
        }
        let mut file = match open_no_follow(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) if is_link_error(&e) => return Err(foreign("a symbolic link")),
            Err(e) => return Err(io_err(e)),
        };
        let meta = file.metadata().map_err(io_err)?;
        if !meta.is_file() {
            return Err(foreign(crate::longrun::durable::kind_of(&meta.file_type())));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held {
                    target: target.to_path_buf(),
                    holder: read_holder(&mut file),
                    lock: path.to_path_buf(),
                })
            }
            Err(TryLockError::Error(e)) => return Err(io_err(e)),
        }
        if !still_at(&file, path) {
            continue;
        }
        // A holder line (this run's, or a dead run's to take over): anything else, an empty
        // file too, is some other file of that name, left as it is.
        let mut text = String::new();
        let read = (&file).take(MAX_LOCK_BYTES + 1).read_to_string(&mut text);
        if read.is_err() || text.len() as u64 > MAX_LOCK_BYTES || parse_holder(&text).is_none() {
            let what = match read.is_ok() && text.is_empty() {
                true => "an empty file",
                false => "a file of other content",
            };
            return Err(foreign(what));
        }
        // Written over in place, then cut to length, so never empty. Only for the message of
        // a second run: a full disk that cannot take the PID leaves the lock held, and the
        // run's own first save reports the disk, naming its file.
        let write = |f: &mut File| -> io::Result<()> {
            f.rewind()?;
            f.write_all(holder.as_bytes())?;
            f.set_len(holder.len() as u64)?;
            f.flush()
        };
        let _ = write(&mut file);
        return Ok(file);
    }
    Err(io_err(io::Error::other(
        "the lock file keeps being replaced",
    )))
}

/// Opens a lock file for reading and writing, never through a symbolic link, and without
/// blocking on a FIFO put there.
fn open_no_follow(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    options.open(path)
}

/// Whether opening failed because the path is a symbolic link (`O_NOFOLLOW`).
fn is_link_error(e: &io::Error) -> bool {
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

impl Drop for RunLock {
    fn drop(&mut self) {
        // Removed while still locked (the lock goes with the file handle, right after): a run
        // that opened the old file sees it is no longer at the path and tries again. Only our
        // own file: what a user put at the path after removing ours stays.
        if cfg!(unix) && still_at(&self.file, &self.path) {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

/// Whether `path` still names the file open as `file` (on Unix: the same device and inode; a
/// link at the path is not followed).
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_at(_file: &File, _path: &Path) -> bool {
    true
}

/// The holder recorded in a lock file, waiting briefly for a holder that has just taken the
/// lock to write it.
fn read_holder(file: &mut File) -> Option<Holder> {
    let start = Instant::now();
    loop {
        let mut text = String::new();
        let parsed = file
            .rewind()
            .and_then(|()| (&*file).take(MAX_LOCK_BYTES).read_to_string(&mut text))
            .ok()
            .and_then(|_| parse_holder(&text));
        if parsed.is_some() || start.elapsed() > Duration::from_millis(200) {
            return parsed;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Parses a lock file: the process ID, then the host, on one line.
fn parse_holder(text: &str) -> Option<Holder> {
    let line = text.lines().next()?;
    let mut words = line.split_whitespace();
    let pid = words.next()?.parse().ok()?;
    let host = words.next().map(str::to_string);
    Some(Holder { pid, host })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("q.ckpt");
        let lock = RunLock::acquire(&target).unwrap();
        assert_eq!(lock.path(), dir.path().join("q.ckpt.lock"));
        assert!(!target.exists());
        let err = RunLock::acquire(&target).unwrap_err();
        let LockError::Held { holder, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(holder.as_ref().unwrap().pid, std::process::id());
        assert!(err.is_held());
        let text = err.to_string();
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        assert!(text.contains("q.ckpt.lock"), "{text}");
        drop(lock);
        assert!(!dir.path().join("q.ckpt.lock").exists());
        let again = RunLock::acquire(&target).unwrap();
        drop(again);
    }

    #[test]
    fn a_stale_lock_file_without_a_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.json");
        std::fs::write(lock_path(&target), "4000000000 gone-host\n").unwrap();
        let lock = RunLock::acquire(&target).unwrap();
        let text = std::fs::read_to_string(lock.path()).unwrap();
        assert!(
            text.starts_with(&format!("{} ", std::process::id())),
            "{text}"
        );
    }

    #[test]
    fn an_unwritable_directory_is_an_io_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = RunLock::acquire(&dir.path().join("no/such/dir/q.ckpt")).unwrap_err();
        assert!(!err.is_held());
        assert!(err.to_string().starts_with("cannot lock"), "{err}");
        // The system's reason, at once: not a retry that gives up.
        assert!(
            matches!(&err, LockError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound),
            "{err:?}"
        );
    }

    /// A lock file is at most [`MAX_LOCK_BYTES`]: one of that size whose first line names a
    /// holder is taken over; one byte more is someone else's file.
    #[test]
    fn a_lock_file_is_bounded_in_size() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("r.json");
        let padded = |len: u64| {
            let mut text = b"4000000000 gone-host\n".to_vec();
            text.resize(len as usize, b'#');
            text
        };
        std::fs::write(lock_path(&target), padded(MAX_LOCK_BYTES)).unwrap();
        drop(RunLock::acquire(&target).unwrap());
        let big = padded(MAX_LOCK_BYTES + 1);
        std::fs::write(lock_path(&target), &big).unwrap();
        let err = RunLock::acquire(&target).unwrap_err();
        assert!(
            matches!(&err, LockError::Foreign { what, .. } if *what == "a file of other content"),
            "{err}"
        );
        assert_eq!(std::fs::read(lock_path(&target)).unwrap(), big);
    }

    #[cfg(unix)]
    #[test]
    fn what_is_at_the_lock_path_and_not_ours_is_refused_and_left_untouched() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("v.ckpt");
        let lock = lock_path(&target);
        let precious = dir.path().join("precious");
        std::fs::write(&precious, "keep me").unwrap();
        let foreign = |what: &str| {
            let err = RunLock::acquire(&target).unwrap_err();
            assert!(
                matches!(&err, LockError::Foreign { what: w, .. } if *w == what),
                "{err}"
            );
            assert!(!err.is_held());
            assert!(err.to_string().contains("left untouched"), "{err}");
        };
        // A link, to a file or to nothing: not followed, not removed.
        symlink(&precious, &lock).unwrap();
        foreign("a symbolic link");
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
        assert!(lock.symlink_metadata().unwrap().file_type().is_symlink());
        std::fs::remove_file(&lock).unwrap();
        symlink(dir.path().join("nothing"), &lock).unwrap();
        foreign("a symbolic link");
        assert!(!dir.path().join("nothing").exists());
        std::fs::remove_file(&lock).unwrap();
        // A directory, a FIFO.
        std::fs::create_dir(&lock).unwrap();
        foreign("a directory");
        std::fs::remove_dir(&lock).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&lock).status();
        if made.is_ok_and(|s| s.success()) {
            foreign("a FIFO (named pipe)");
            std::fs::remove_file(&lock).unwrap();
        }
        // A file of someone else's.
        std::fs::write(&lock, "notes of mine\n").unwrap();
        foreign("a file of other content");
        assert_eq!(std::fs::read_to_string(&lock).unwrap(), "notes of mine\n");
        // An empty one (a lock file of this program never is).
        std::fs::write(&lock, "").unwrap();
        foreign("an empty file");
        assert!(lock.exists() && std::fs::read(&lock).unwrap().is_empty());
    }

    #[test]
    fn a_removed_lock_file_is_made_again_or_the_run_learns_it_lost_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.ckpt");
        // Removed, then checked: a new lock file, and a second run is refused again.
        let mut first = RunLock::acquire(&target).unwrap();
        std::fs::remove_file(first.path()).unwrap();
        first.check().unwrap();
        let text = std::fs::read_to_string(first.path()).unwrap();
        assert!(
            text.starts_with(&format!("{} ", std::process::id())),
            "{text}"
        );
        assert!(RunLock::acquire(&target).unwrap_err().is_held());
        // Removed, and another run takes the new file first: the first learns it lost.
        std::fs::remove_file(first.path()).unwrap();
        let second = RunLock::acquire(&target).unwrap();
        let err = first.check().unwrap_err();
        assert!(matches!(err, LockError::Lost { .. }), "{err}");
        assert!(err.is_held());
        // The first, dropped, leaves the second's lock file in place.
        drop(first);
        assert!(second.path().exists());
        assert!(RunLock::acquire(&target).unwrap_err().is_held());
        drop(second);
        assert!(!lock_path(&target).exists());
        // A lock file that cannot be made again (its directory gone) is no loss of the lock.
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let mut lock = RunLock::acquire(&sub.join("r.json")).unwrap();
        std::fs::remove_dir_all(&sub).unwrap();
        lock.check().unwrap();
    }

    /// A second run is refused while the first holds the file itself, whether the lock file
    /// was removed under it or the file has another name; the message says which, and the
    /// first run never takes the second's brief lock file for a loss (issue 33, item 7).
    #[cfg(unix)]
    #[test]
    fn the_file_itself_keeps_a_second_run_out_and_the_message_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("c.ckpt");
        let mut first = RunLock::acquire(&target).unwrap();
        std::fs::write(&target, "saved").unwrap();
        first.lock_target().unwrap();
        std::fs::remove_file(first.path()).unwrap();
        let err = RunLock::acquire(&target).unwrap_err();
        assert!(
            matches!(
                err,
                LockError::HeldByFile {
                    hard_links: false,
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("its lock file was removed while it runs"),
            "{err}"
        );
        // A second run holding the new lock file for a moment is no loss for the first.
        std::fs::remove_file(first.path()).ok();
        let held = take(&target, &lock_path(&target)).unwrap();
        first.check().unwrap();
        drop(held);
        first.check().unwrap();
        assert!(lock_path(&target).exists());
        // A hard link: its own lock file, the same file.
        let other = dir.path().join("other.ckpt");
        std::fs::hard_link(&target, &other).unwrap();
        let err = RunLock::acquire(&other).unwrap_err();
        assert!(
            matches!(
                err,
                LockError::HeldByFile {
                    hard_links: true,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("the file has hard links"), "{err}");
    }

    #[test]
    fn holders_parse() {
        assert_eq!(
            parse_holder("12 host\n"),
            Some(Holder {
                pid: 12,
                host: Some("host".into())
            })
        );
        assert_eq!(
            parse_holder("12"),
            Some(Holder {
                pid: 12,
                host: None
            })
        );
        assert_eq!(parse_holder(""), None);
        assert_eq!(parse_holder("x y"), None);
    }
}
