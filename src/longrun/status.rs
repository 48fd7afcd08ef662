//! How far a sharded job is, from its files alone ([`status`]): the shards finished (a result
//! file), stopped part way (a checkpoint and no result), not started (neither); the units done
//! of the job's, the estimated share of its work done (by the units' estimated costs, not their
//! number), the time spent and an estimate of the time left.
//!
//! Read-only: no lock is taken (a live run keeps its own) and nothing is written. A file being
//! replaced by a run is read whole, old or new (a save renames a whole file over it); a run's
//! temporary files (`.NAME.XXXXXX.tmp`) and every file that is not a checkpoint or a result
//! file of this program are passed over in a folder.

use super::assign;
use super::checkpoint::Checkpoint;
use super::durable::FileError;
use super::envelope::{self, FileKind, Look};
use super::error::{Foreign, StoreError};
use super::identity::{Identity, Versions};
use super::result::ShardResult;
use crate::{Class, Classify};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// How far a sharded job is.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// The job.
    pub identity: Identity,
    /// Its shards.
    pub shards: u32,
    /// The shards with a result file, ascending.
    pub finished: Vec<u32>,
    /// The shards with a checkpoint and no result file.
    pub stopped: Vec<Partial>,
    /// The shards with neither, ascending.
    pub not_started: Vec<u32>,
    /// The job's units counted (in a result file or a checkpoint; replicas once).
    pub units_done: usize,
    /// The job's units.
    pub units: usize,
    /// The share of the job's estimated work done: the estimated cost of the units done over
    /// that of all ([`crate::Plan::costs`]).
    pub estimated_share_done: f64,
    /// The wall time the shards have taken, summed over the shards (each shard's most
    /// advanced file; machine time, not the time since the job began).
    pub shard_time: Duration,
    /// The shard time still to spend, at the rate of the work done so far; `None` before any.
    pub remaining_shard_time: Option<Duration>,
    /// When the job should be done, where every shard left has started and gone on long
    /// enough to tell: the longest time left of a stopped shard at its own rate.
    pub eta: Option<Duration>,
    /// The files read.
    pub files: usize,
}

/// A shard part way: its checkpoint's units, its share of its estimated work, its time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Partial {
    /// The shard's index.
    pub shard: u32,
    /// Its units counted.
    pub units_done: usize,
    /// Its units.
    pub units: usize,
    /// The share of its estimated work done.
    pub share_done: f64,
    /// The wall time it has taken.
    pub elapsed: Duration,
}

/// Why the status of a job could not be told.
#[derive(Debug, Error)]
pub enum StatusError {
    /// A file is unreadable, damaged, not one of this program's, or of another job.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No checkpoint or result file among the paths given.
    #[error("no checkpoint or result file of nqueens in {}", shown(.0))]
    NoFiles(Vec<PathBuf>),
}

impl Classify for StatusError {
    fn class(&self) -> Class {
        match self {
            StatusError::Store(e) => e.class(),
            StatusError::NoFiles(_) => Class::Request,
        }
    }
}

fn shown(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One file of the job: a result or a checkpoint.
enum Found {
    Result(ShardResult),
    Checkpoint(Checkpoint),
}

impl Found {
    fn identity(&self) -> &Identity {
        match self {
            Found::Result(r) => &r.identity,
            Found::Checkpoint(c) => &c.identity,
        }
    }

    /// The shard the file is of, as `I/M` (a whole job: 0/1).
    fn shard(&self) -> super::ShardSpec {
        match self {
            Found::Result(r) => r.shard,
            Found::Checkpoint(c) => c.shard.unwrap_or(super::ShardSpec::WHOLE),
        }
    }
}

/// The status of the job whose files are at `paths`: folders (their checkpoints and result
/// files; anything else passed over) or files (each one a checkpoint or result file). Refused
/// when a file is damaged or of another job than the one most of the files are of, or when
/// there is none.
pub fn status(paths: &[PathBuf]) -> Result<Status, StatusError> {
    let found = read_all(paths)?;
    let Some((first_path, first)) = most_common(&found) else {
        return Err(StatusError::NoFiles(paths.to_vec()));
    };
    let identity = first.identity().clone();
    let shards = first.shard().count;
    for (path, f) in &found {
        let foreign = |reason| StoreError::Foreign {
            path: path.clone(),
            reason: Foreign::Set {
                with: first_path.clone(),
                reason: Box::new(reason),
            },
        };
        identity
            .expect(f.identity(), Versions::SameUnits)
            .map_err(foreign)?;
        if f.shard().count != shards {
            return Err(foreign(Foreign::ShardCount {
                file: f.shard(),
                count: shards,
            })
            .into());
        }
    }
    let plan = identity
        .replan(Versions::SameUnits)
        .map_err(|reason| StoreError::Foreign {
            path: first_path.clone(),
            reason,
        })?;
    let costs = plan.costs();
    let parts = assign::assigned(&costs, shards);
    Ok(tally(identity, &found, &costs, &parts))
}

/// The file whose job (and number of shards) most of `found` are of, the first such on ties.
fn most_common(found: &[(PathBuf, Found)]) -> Option<&(PathBuf, Found)> {
    let key = |f: &Found| (f.identity().clone(), f.shard().count);
    let mut tally: Vec<((Identity, u32), usize, usize)> = Vec::new();
    for (k, (_, f)) in found.iter().enumerate() {
        let key = key(f);
        match tally.iter_mut().find(|(x, _, _)| x == &key) {
            Some(t) => t.1 += 1,
            None => tally.push((key, 1, k)),
        }
    }
    let best = tally
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)))?;
    found.get(best.2)
}

/// Reads every checkpoint and result file at `paths`.
fn read_all(paths: &[PathBuf]) -> Result<Vec<(PathBuf, Found)>, StoreError> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut names: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|source| FileError::Read {
                    path: path.clone(),
                    source,
                })?
                .flatten()
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .collect();
            names.sort();
            for file in names {
                if let Some(f) = read(&file, true)? {
                    found.push((file, f));
                }
            }
        } else if let Some(f) = read(path, false)? {
            found.push((path.clone(), f));
        }
    }
    Ok(found)
}

/// The checkpoint or result file at `path`; in a folder (`in_folder`), `None` for a file that
/// is none of them or is gone since the folder was listed.
fn read(path: &Path, in_folder: bool) -> Result<Option<Found>, StoreError> {
    let bytes = match envelope::read(path) {
        Err(StoreError::File(FileError::Read { source, .. }))
            if in_folder && source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(None)
        }
        other => other?,
    };
    match envelope::look(&bytes) {
        Look::Ours(Some(FileKind::Checkpoint)) => Ok(Some(Found::Checkpoint(
            Checkpoint::from_bytes(path, &bytes)?,
        ))),
        Look::Ours(_) => Ok(Some(Found::Result(ShardResult::from_bytes(path, &bytes)?))),
        Look::Empty | Look::NotOurs if in_folder => Ok(None),
        Look::Empty => Err(StoreError::Empty {
            path: path.to_path_buf(),
            kind: FileKind::ShardResult,
        }),
        Look::NotOurs => Err(StoreError::NotOurs {
            path: path.to_path_buf(),
            kind: FileKind::ShardResult,
        }),
    }
}

/// The file of each shard that says most: its result file (replicas agree or merge says
/// otherwise, so the first), else its checkpoint that holds the most units.
fn by_shard(
    found: &[(PathBuf, Found)],
) -> (BTreeMap<u32, &ShardResult>, BTreeMap<u32, &Checkpoint>) {
    let mut results: BTreeMap<u32, &ShardResult> = BTreeMap::new();
    let mut checkpoints: BTreeMap<u32, &Checkpoint> = BTreeMap::new();
    for (_, f) in found {
        match f {
            Found::Result(r) => {
                results.entry(r.shard.index).or_insert(r);
            }
            Found::Checkpoint(c) => {
                let i = f.shard().index;
                let keep = checkpoints
                    .get(&i)
                    .is_none_or(|k| k.done.len() < c.done.len());
                if keep {
                    checkpoints.insert(i, c);
                }
            }
        }
    }
    (results, checkpoints)
}

/// The time until every shard is done, once every shard has started and each stopped one has
/// a rate: the slowest of them, each at the rate it went so far.
fn eta(stopped: &[Partial], not_started: &[u32]) -> Option<Duration> {
    if !not_started.is_empty() {
        return None;
    }
    let secs = stopped
        .iter()
        .map(|p| {
            (p.share_done > 0.0)
                .then(|| p.elapsed.as_secs_f64() * (1.0 - p.share_done) / p.share_done)
        })
        .try_fold(0.0f64, |a, b| Some(a.max(b?)))?;
    Duration::try_from_secs_f64(secs).ok()
}

/// The status of the job of `found`, whose units cost `costs` and are split into `parts`.
fn tally(
    identity: Identity,
    found: &[(PathBuf, Found)],
    costs: &[u64],
    parts: &[Vec<u32>],
) -> Status {
    let (results, checkpoints) = by_shard(found);
    let cost = |units: &mut dyn Iterator<Item = u32>| -> f64 {
        units
            .map(|u| costs.get(u as usize).copied().unwrap_or(0) as f64)
            .sum()
    };
    let mut done: BTreeSet<u32> = BTreeSet::new();
    let mut time = Duration::ZERO;
    let (mut finished, mut stopped, mut not_started) = (Vec::new(), Vec::new(), Vec::new());
    for (i, part) in parts.iter().enumerate() {
        let i = i as u32;
        if let Some(r) = results.get(&i) {
            finished.push(i);
            done.extend(r.units.iter().copied());
            time += Duration::from_millis(r.elapsed_ms);
        } else if let Some(c) = checkpoints.get(&i) {
            let mine: Vec<u32> = c
                .done
                .keys()
                .copied()
                .filter(|u| part.binary_search(u).is_ok())
                .collect();
            let whole = cost(&mut part.iter().copied());
            stopped.push(Partial {
                shard: i,
                units_done: mine.len(),
                units: part.len(),
                share_done: if whole > 0.0 {
                    cost(&mut mine.iter().copied()) / whole
                } else {
                    0.0
                },
                elapsed: c.elapsed,
            });
            done.extend(mine);
            time += c.elapsed;
        } else {
            not_started.push(i);
        }
    }
    let all = cost(&mut (0..costs.len() as u32));
    let share = if all > 0.0 {
        cost(&mut done.iter().copied()) / all
    } else {
        1.0
    };
    let remaining_shard_time = (share > 0.0)
        .then(|| Duration::try_from_secs_f64(time.as_secs_f64() * (1.0 - share) / share).ok())
        .flatten();
    let eta = eta(&stopped, &not_started);
    Status {
        identity,
        shards: parts.len() as u32,
        finished,
        stopped,
        not_started,
        units_done: done.len(),
        units: costs.len(),
        estimated_share_done: share,
        shard_time: time,
        remaining_shard_time,
        eta,
        files: found.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::longrun::ShardSpec;
    use crate::plan::{Job, Plan};
    use crate::Counts;

    /// A job of 4 shards: shards 0 and 1 finished (1 twice, replicas), shard 2 a checkpoint of
    /// a few of its units, shard 3 nothing; with a stray file and a run's temporary file.
    #[test]
    fn a_folder_of_a_sharded_job_tells_how_far_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let plan = Plan::new(Job::new(10).unwrap().with_split_depth(2).unwrap());
        let id = Identity::of(&plan);
        let costs = plan.costs();
        let parts = assign::assigned(&costs, 4);
        let spec = |i| ShardSpec { index: i, count: 4 };
        let counts = |units: &[u32]| -> BTreeMap<u32, Counts> {
            units
                .iter()
                .map(|&u| {
                    (
                        u,
                        Counts {
                            total: 1,
                            unique: 0,
                        },
                    )
                })
                .collect()
        };
        for (i, name) in [(0, "s0.json"), (1, "s1.json"), (1, "s1.r1.json")] {
            let mut r = ShardResult::new(
                id.clone(),
                spec(i),
                &counts(&parts[i as usize]),
                Duration::from_secs(10),
                0.0,
            );
            r.seal();
            r.save(&d.join(name)).unwrap();
        }
        let mut c = Checkpoint::new(id.clone(), Some(spec(2)));
        c.done = counts(&parts[2][..2]);
        c.elapsed = Duration::from_secs(4);
        c.save(&d.join("s2.ckpt")).unwrap();
        std::fs::write(d.join("result.json"), "{\"n\":10}\n").unwrap();
        std::fs::write(d.join(".s3.json.AbC123.tmp"), "{\"format\":\"nqueens-sh").unwrap();
        let s = status(&[d.to_path_buf()]).unwrap();
        assert_eq!((s.shards, s.files), (4, 4));
        assert_eq!(
            (s.finished.clone(), s.not_started.clone()),
            (vec![0, 1], vec![3])
        );
        assert_eq!(s.stopped.len(), 1);
        let p = s.stopped[0];
        assert_eq!((p.shard, p.units_done, p.units), (2, 2, parts[2].len()));
        assert_eq!(s.units_done, parts[0].len() + parts[1].len() + 2);
        assert_eq!(s.units, costs.len());
        let done: f64 = parts[0]
            .iter()
            .chain(&parts[1])
            .chain(&parts[2][..2])
            .map(|&u| costs[u as usize] as f64)
            .sum();
        let all: f64 = costs.iter().map(|&c| c as f64).sum();
        assert!((s.estimated_share_done - done / all).abs() < 1e-12);
        assert_eq!(s.shard_time, Duration::from_secs(24));
        assert!(s.remaining_shard_time.is_some());
        // Shard 3 not started: no ETA yet.
        assert_eq!(s.eta, None);
        let mut c3 = Checkpoint::new(id.clone(), Some(spec(3)));
        c3.done = counts(&parts[3][..1]);
        c3.elapsed = Duration::from_secs(1);
        c3.save(&d.join("s3.ckpt")).unwrap();
        let s = status(&[d.to_path_buf()]).unwrap();
        assert!(s.not_started.is_empty() && s.eta.is_some(), "{s:?}");
        // Files given one by one; a file of another job refused; nothing at all refused.
        let s = status(&[d.join("s0.json"), d.join("s2.ckpt")]).unwrap();
        assert_eq!((s.finished, s.not_started), (vec![0], vec![1, 3]));
        let other = Plan::new(Job::new(11).unwrap().with_split_depth(2).unwrap());
        let r = ShardResult::new(
            Identity::of(&other),
            spec(0),
            &BTreeMap::new(),
            Duration::ZERO,
            0.0,
        );
        r.save(&d.join("z.json")).unwrap();
        let e = status(&[d.to_path_buf()]).unwrap_err();
        assert!(
            e.to_string().contains("z.json belongs to another job"),
            "{e}"
        );
        assert!(
            e.to_string().contains("N is 10 here but 11 in the file"),
            "{e}"
        );
        let empty = d.join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert!(matches!(status(&[empty]), Err(StatusError::NoFiles(_))));
        assert!(status(&[d.join("result.json")]).is_err());
    }
}
