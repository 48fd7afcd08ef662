//! A run's files before it counts: the checkpoint and the result file resolved to the files
//! they name, checked distinct and writable, the one rule for replacing a result file
//! ([`check_replaceable`]), their locks taken, and what killed runs left beside them removed.

use super::durable::{self, FileError};
use super::envelope::{self, FileKind, Look, FILE_BOUND};
use super::error::{Foreign, StoreError};
use super::identity::{Identity, Versions};
use super::lock::{lock_path, RunLock};
use super::result::ShardResult;
use super::run::RunError;
use super::spec::ShardSpec;
use std::path::{Path, PathBuf};

/// Resolves the checkpoint and result paths to the files they name (links followed: the ones
/// read, locked and replaced), checks that those can be written and are distinct, that the
/// result file may be replaced ([`check_replaceable`], for the job `identity` and shard
/// `shard`), and takes their locks (a second run on either stops here, before the checkpoint is
/// read); then removes what killed runs left beside them.
pub(crate) fn prepare(
    checkpoint: Option<&mut PathBuf>,
    out: Option<&mut PathBuf>,
    identity: &Identity,
    shard: ShardSpec,
    overwrite: bool,
) -> Result<Vec<RunLock>, RunError> {
    let resolve = |p: &mut PathBuf| -> Result<(), StoreError> {
        *p = durable::resolve_target(p)?;
        Ok(())
    };
    let checkpoint: Option<&PathBuf> = match checkpoint {
        Some(p) => {
            resolve(p)?;
            Some(p)
        }
        None => None,
    };
    let out: Option<&PathBuf> = match out {
        Some(p) => {
            resolve(p)?;
            Some(p)
        }
        None => None,
    };
    check_distinct(checkpoint.map(PathBuf::as_path), out.map(PathBuf::as_path))?;
    // Found now, not after hours of counting; each before its lock beside it.
    if let Some(out) = out {
        durable::check_writable(out).map_err(StoreError::from)?;
        check_replaceable(out, identity, shard, overwrite)?;
    }
    if let Some(path) = checkpoint {
        durable::check_writable(path).map_err(StoreError::from)?;
    }
    let targets: Vec<&PathBuf> = [checkpoint, out].into_iter().flatten().collect();
    let locks = targets
        .iter()
        .map(|p| RunLock::acquire(p))
        .collect::<Result<Vec<_>, _>>()?;
    // Also those of the lock files: a run killed between writing its lock file and linking it.
    for target in targets {
        durable::remove_stale_temps(target);
        durable::remove_stale_temps(&lock_path(target));
    }
    Ok(locks)
}

/// Refuses a run two of whose files (the checkpoint, the result file, their lock files) are
/// one: a save would replace the other, or a lock's removal delete it.
fn check_distinct(checkpoint: Option<&Path>, out: Option<&Path>) -> Result<(), RunError> {
    let mut files: Vec<(&'static str, PathBuf)> = Vec::new();
    if let Some(path) = checkpoint {
        files.push(("the checkpoint", path.to_path_buf()));
        files.push(("the checkpoint's lock file", lock_path(path)));
    }
    if let Some(out) = out {
        files.push(("the result file", out.to_path_buf()));
        files.push(("the result file's lock file", lock_path(out)));
    }
    for (i, (first, a)) in files.iter().enumerate() {
        for (second, b) in &files[i + 1..] {
            if durable::same_file(a, b) {
                return Err(RunError::SamePath {
                    path: a.clone(),
                    first,
                    second,
                });
            }
        }
    }
    Ok(())
}

/// The one rule for replacing what is at a run's result file `out`: nothing, a file of no
/// bytes at all (as `mktemp` makes), or a result file of this very job and shard (of any
/// program of the same unit enumeration) is replaced without a word; a result file of another
/// job or shard, or a damaged one of ours, only when `overwrite` is asked; a checkpoint, or a
/// file this program did not write (white space alone included), never. A refusal is
/// [`RunError::Occupied`] and leaves the file untouched.
pub(crate) fn check_replaceable(
    out: &Path,
    identity: &Identity,
    shard: ShardSpec,
    overwrite: bool,
) -> Result<(), RunError> {
    let bytes = match durable::read_bounded(out, FILE_BOUND) {
        Ok(bytes) => bytes,
        Err(FileError::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(())
        }
        Err(e) => return Err(StoreError::from(e).into()),
    };
    let occupied = |source: StoreError, overwritable: bool| RunError::Occupied {
        source: Box::new(source),
        overwritable,
    };
    let error = match envelope::look(&bytes) {
        Look::Empty if bytes.is_empty() => return Ok(()),
        Look::Empty | Look::NotOurs => StoreError::NotOurs {
            path: out.to_path_buf(),
            kind: FileKind::ShardResult,
        },
        Look::Ours(Some(FileKind::Checkpoint)) => StoreError::WrongKind {
            path: out.to_path_buf(),
            found: FileKind::Checkpoint,
            expected: FileKind::ShardResult,
        },
        Look::Ours(_) => match same_job_and_shard(out, &bytes, identity, shard) {
            Ok(()) => return Ok(()),
            Err(e) => e,
        },
    };
    let overwritable = matches!(
        error,
        StoreError::Foreign { .. } | StoreError::Corrupt { .. }
    );
    if overwrite && overwritable {
        return Ok(());
    }
    Err(occupied(error, overwritable))
}

/// Refuses the result file `bytes` (read from `path`) unless it is sound and of the job
/// `identity` and shard `shard`.
fn same_job_and_shard(
    path: &Path,
    bytes: &[u8],
    identity: &Identity,
    shard: ShardSpec,
) -> Result<(), StoreError> {
    let r = ShardResult::from_bytes(path, bytes)?;
    let foreign = |reason| StoreError::Foreign {
        path: path.to_path_buf(),
        reason,
    };
    identity
        .expect(&r.identity, Versions::SameUnits)
        .map_err(foreign)?;
    if r.shard != shard {
        return Err(foreign(Foreign::Shard {
            file: Some(r.shard),
            run: Some(shard),
        }));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Job, Plan};
    use std::collections::BTreeMap;
    use std::time::Duration;

    fn result(n: u32, shard: ShardSpec) -> (Identity, ShardResult) {
        let plan = Plan::new(Job::new(n).unwrap().with_split_depth(2).unwrap());
        let id = Identity::of(&plan);
        let done: BTreeMap<u32, crate::Counts> = shard
            .units(&plan)
            .into_iter()
            .map(|u| (u, crate::Counts::default()))
            .collect();
        (
            id.clone(),
            ShardResult::new(id, shard, &done, Duration::ZERO, 0.0),
        )
    }

    /// Before any work: links resolved to the files they name, the two files distinct, both
    /// writable, both locked (a second run refused), a path through a file refused.
    #[cfg(unix)]
    #[test]
    fn a_runs_files_are_resolved_checked_and_locked() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (id, _) = result(8, ShardSpec::WHOLE);
        let whole = ShardSpec::WHOLE;
        std::os::unix::fs::symlink("real.ckpt", d.join("link.ckpt")).unwrap();
        let mut ckpt = d.join("link.ckpt");
        let mut out = d.join("r.json");
        let locks = prepare(Some(&mut ckpt), Some(&mut out), &id, whole, false).unwrap();
        assert_eq!(ckpt, d.join("real.ckpt"));
        assert_eq!(locks.len(), 2);
        assert!(crate::longrun::lock::lock_path(&ckpt).exists());
        // A second run on either file.
        let mut again = d.join("real.ckpt");
        let e = prepare(Some(&mut again), None, &id, whole, false).unwrap_err();
        assert!(matches!(e, RunError::Lock(_)), "{e}");
        let mut again = d.join("r.json");
        assert!(prepare(None, Some(&mut again), &id, whole, false).is_err());
        drop(locks);
        // One file for both, by name or through a link.
        for (c, o) in [("x.json", "x.json"), ("link.ckpt", "real.ckpt")] {
            let (mut c, mut o) = (d.join(c), d.join(o));
            let e = prepare(Some(&mut c), Some(&mut o), &id, whole, false).unwrap_err();
            assert!(matches!(e, RunError::SamePath { .. }), "{e}");
        }
        // A folder that does not exist; a path through a file.
        std::fs::write(d.join("plain"), "x").unwrap();
        for bad in ["no/such/dir/c.ckpt", "plain/c.ckpt"] {
            let mut c = d.join(bad);
            assert!(
                prepare(Some(&mut c), None, &id, whole, false).is_err(),
                "{bad}"
            );
            let mut o = d.join(bad);
            assert!(
                prepare(None, Some(&mut o), &id, whole, false).is_err(),
                "{bad}"
            );
        }
        // Nothing there is nothing to refuse; a path that cannot be read is not "nothing".
        assert!(check_replaceable(&d.join("no/such/dir/x.json"), &id, whole, false).is_ok());
        assert!(check_replaceable(&d.join("plain/x.json"), &id, whole, true).is_err());
    }

    /// What killed runs left beside a run's files, its temporary files and its lock file's,
    /// is removed once the run holds the lock; anything else of a like name stays.
    #[test]
    fn stale_temporary_files_of_a_file_and_of_its_lock_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (id, _) = result(8, ShardSpec::WHOLE);
        let left = [".r.json.aB3xY9.tmp", ".r.json.lock.Qw12eR.tmp"];
        let kept = [
            ".r.json.lock.tmp",
            ".r.json.lock.Qw12e.tmp",
            "r.json.lock.Qw12eR.tmp",
        ];
        for name in left.iter().chain(&kept) {
            std::fs::write(d.join(name), "x").unwrap();
        }
        let mut out = d.join("r.json");
        let locks = prepare(None, Some(&mut out), &id, ShardSpec::WHOLE, false).unwrap();
        for name in left {
            assert!(!d.join(name).exists(), "{name}");
        }
        for name in kept {
            assert!(d.join(name).exists(), "{name}");
        }
        drop(locks);
    }

    /// The `--out` rule, case by case (issue 33, item 4): what is replaced silently, what only
    /// with `overwrite`, what never; a refused file is never changed.
    #[test]
    fn a_result_file_is_replaced_only_by_its_own_job_and_shard() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("s0.json");
        let half = |i| ShardSpec { index: i, count: 2 };
        let (id8, r8) = result(8, half(0));
        let (id9, _) = result(9, half(0));
        // Nothing there, a file of no bytes.
        assert!(check_replaceable(&out, &id8, half(0), false).is_ok());
        std::fs::write(&out, "").unwrap();
        assert!(check_replaceable(&out, &id8, half(0), false).is_ok());
        // The same job and shard, pretty-printed or not.
        std::fs::write(&out, r8.to_bytes()).unwrap();
        assert!(check_replaceable(&out, &id8, half(0), false).is_ok());
        let value: serde_json::Value = serde_json::from_slice(&r8.to_bytes()).unwrap();
        std::fs::write(&out, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
        assert!(check_replaceable(&out, &id8, half(0), false).is_ok());
        let kept = std::fs::read(&out).unwrap();
        let refused = |id: &Identity, shard, overwrite, overwritable: bool, words: &str| {
            match check_replaceable(&out, id, shard, overwrite) {
                Err(RunError::Occupied {
                    source,
                    overwritable: o,
                }) => {
                    assert_eq!(o, overwritable, "{source}");
                    assert!(source.to_string().contains(words), "{source} lacks {words}");
                }
                other => panic!("{words}: {other:?}"),
            }
            assert_eq!(std::fs::read(&out).unwrap(), kept);
        };
        // Another job, another shard: only with overwrite.
        refused(&id9, half(0), false, true, "N is 9 here but 8 in the file");
        refused(
            &id8,
            half(1),
            false,
            true,
            "it is for shard 0/2 but this run computes shard 1/2",
        );
        assert!(check_replaceable(&out, &id9, half(0), true).is_ok());
        assert!(check_replaceable(&out, &id8, half(1), true).is_ok());
        // A file that merely begins as ours, a damaged one: ours, but only with overwrite.
        let mut damaged = br#"{"format":"nqueens-shard""#.to_vec();
        damaged.extend_from_slice(b" anything at all");
        std::fs::write(&out, &damaged).unwrap();
        let kept = std::fs::read(&out).unwrap();
        let refused_now = |overwrite| check_replaceable(&out, &id8, half(0), overwrite);
        assert!(matches!(
            refused_now(false),
            Err(RunError::Occupied {
                overwritable: true,
                ..
            })
        ));
        assert!(refused_now(true).is_ok());
        assert_eq!(std::fs::read(&out).unwrap(), kept);
        // A checkpoint, or a file of someone else's: never.
        let ckpt = super::super::Checkpoint::new(id8.clone(), None);
        for (bytes, words) in [
            (ckpt.to_bytes(), "is a checkpoint, not a shard result file"),
            (
                b"my notes\n".to_vec(),
                "is not a shard result file of nqueens",
            ),
            // White space alone, a byte-order mark: bytes someone put there.
            (b" \t\r\n".to_vec(), "is not a shard result file of nqueens"),
            (
                b"\xef\xbb\xbf".to_vec(),
                "is not a shard result file of nqueens",
            ),
        ] {
            std::fs::write(&out, &bytes).unwrap();
            for overwrite in [false, true] {
                match check_replaceable(&out, &id8, half(0), overwrite) {
                    Err(RunError::Occupied {
                        source,
                        overwritable: false,
                    }) => assert!(source.to_string().contains(words), "{source}"),
                    other => panic!("{words}: {other:?}"),
                }
            }
            assert_eq!(std::fs::read(&out).unwrap(), bytes);
        }
    }
}
