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
        holder.as_ref().map_or_else(|| "process ID unknown".to_string(), describe),
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

impl LockError {
    /// Whether another run holds the lock (as opposed to a failure of the system).
    pub fn is_held(&self) -> bool {
        matches!(self, LockError::Held { .. })
    }
}

fn describe(h: &Holder) -> String {
    match &h.host {
        Some(host) => format!("process {} on {host}", h.pid),
        None => format!("process {}", h.pid),
    }
}

/// The lock file of `target`: the same path with `.lock` added to the file name.
pub fn lock_path(target: &Path) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    target.with_file_name(name)
}

impl RunLock {
    /// Takes the lock of `target` (see [`lock_path`]) without waiting: another process holding
    /// it is [`LockError::Held`], naming its process ID. The target itself is not touched.
    pub fn acquire(target: &Path) -> Result<RunLock, LockError> {
        let path = lock_path(target);
        let io_err = |source| LockError::Io {
            target: target.to_path_buf(),
            lock: path.clone(),
            source,
        };
        // A finishing holder removes the file; a few tries find the one at the path.
        for _ in 0..100 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io_err)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Held {
                        target: target.to_path_buf(),
                        holder: read_holder(&mut file),
                        lock: path,
                    })
                }
                Err(TryLockError::Error(e)) => return Err(io_err(e)),
            }
            if !still_at(&file, &path) {
                continue;
            }
            let host = gethostname::gethostname().to_string_lossy().into_owned();
            let write = |f: &mut File| -> io::Result<()> {
                f.set_len(0)?;
                f.rewind()?;
                f.write_all(format!("{} {host}\n", std::process::id()).as_bytes())?;
                f.flush()
            };
            // Only for the message of a second run: a full disk that cannot take the PID leaves
            // the lock held, and the run's own first save reports the disk, naming its file.
            let _ = write(&mut file);
            return Ok(RunLock { file, path });
        }
        Err(io_err(io::Error::other(
            "the lock file keeps being replaced",
        )))
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        // Removed while still locked (the lock goes with the file handle, right after): a run
        // that opened the old file sees it is no longer at the path and tries again.
        if cfg!(unix) {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

/// Whether `path` still names the file open as `file` (on Unix: the same device and inode).
#[cfg(unix)]
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
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
            .and_then(|()| file.read_to_string(&mut text))
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
