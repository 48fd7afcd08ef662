//! The merge of a job's shard result files: the files must make up the whole job, every unit
//! exactly once, replicas of a shard must agree unit by unit, and a whole job with a published
//! count must add up to it.

use super::assign;
use super::durable;
use super::error::{Foreign, StoreError};
use super::identity::{Versions, PROGRAM_VERSION};
use super::records::Records;
use super::result::ShardResult;
use super::spec::ShardSpec;
use crate::known::{self, Mismatch};
use crate::search::Counts;
use crate::{Class, Classify};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use thiserror::Error;

/// The total of a job put together from its shard files.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The job.
    pub identity: super::Identity,
    /// How many shards.
    pub shards: u32,
    /// The sum over all shards.
    pub counts: Counts,
    /// Wall time summed over the files (machine time, not the time the job took).
    pub elapsed: Duration,
    /// How many files were read.
    pub files: usize,
    /// Shards given by more than one file (replicas), whose results agreed: unit by unit, or
    /// by their sums where a file of format version 1 keeps no per-unit records.
    pub replicated: u32,
    /// Of the replicated shards, those whose results came from more than one host.
    pub replicated_across_hosts: u32,
}

/// Why shard files could not be merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// A file is unreadable, corrupt or foreign.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The files are not one whole job's shards, each once.
    #[error(transparent)]
    Set(#[from] SetError),
    /// Replicas of a shard disagree: some machine counted wrong, and there is no total.
    #[error("{}", disagreement_line(.0))]
    Disagree(Vec<Disagreement>),
    /// The shards make up the whole job and add up to a total other than the published one:
    /// some machine counted wrong (an audit of the files finds which).
    #[error(
        "the shards add up to {}, but the published count of N = {} is {}: MISMATCH",
        .mismatch.found_words(),
        .mismatch.n,
        .mismatch.published_words()
    )]
    Mismatch {
        /// What the merge found.
        merged: Box<Merged>,
        /// How it differs from the published count.
        mismatch: Mismatch,
    },
}

impl Classify for MergeError {
    fn class(&self) -> Class {
        match self {
            MergeError::Store(e) => e.class(),
            MergeError::Set(_) => Class::Request,
            MergeError::Disagree(_) | MergeError::Mismatch { .. } => Class::Disagreement,
        }
    }
}

/// How a set of shard files fails to be one whole job's shards, each once.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SetError {
    /// No file at all.
    #[error("no shard files given")]
    NoFiles,
    /// One file given twice, by the same name or by two (a link, `./` before it).
    #[error("{} is given twice{}", path.display(), also_as(path, first))]
    Twice {
        /// The second time.
        path: PathBuf,
        /// The first time.
        first: PathBuf,
    },
    /// A file that is a copy of another (the same content): a replica is computed again.
    #[error(
        "{} is a copy of {} (the same content): a replica of shard {shard} must be computed \
         again, not copied",
        path.display(),
        of.display()
    )]
    Copy {
        /// The copy.
        path: PathBuf,
        /// The file it copies.
        of: PathBuf,
        /// Their shard.
        shard: ShardSpec,
    },
    /// More shards than the job has units.
    #[error("{count} shards, but the job has only {units} units")]
    TooManyShards {
        /// The shards.
        count: u32,
        /// The units.
        units: usize,
    },
    /// Shards with no file.
    #[error(
        "{} of {count} shards missing: {}{} (got {files} files; shards are numbered 0 to {})",
        missing.len(),
        missing.iter().take(10).map(|i| format!("{i}/{count}")).collect::<Vec<_>>().join(", "),
        if missing.len() > 10 { ", ..." } else { "" },
        count - 1
    )]
    Missing {
        /// The shards missing.
        missing: Vec<u32>,
        /// The shards of the job.
        count: u32,
        /// The files given.
        files: usize,
    },
    /// A unit in two shards' files.
    #[error("unit {unit} is in both {} and {}", first.display(), second.display())]
    UnitTwice {
        /// The unit.
        unit: u32,
        /// One file.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// A unit in no file.
    #[error("unit {unit} is in none of the {shards} shard files")]
    UnitMissing {
        /// The unit.
        unit: u32,
        /// The shards given.
        shards: usize,
    },
}

/// ` (also as FIRST)` when a file given twice was named otherwise the first time.
fn also_as(path: &Path, first: &Path) -> String {
    match path == first {
        true => String::new(),
        false => format!(" (also as {})", first.display()),
    }
}

impl Classify for SetError {
    fn class(&self) -> Class {
        Class::Request
    }
}

/// Units (or, without per-unit records, shard sums) that replicas of a shard count
/// differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The shard.
    pub shard: ShardSpec,
    /// The unit, or `None` where the sums of the shard were compared (a file of version 1).
    pub unit: Option<u32>,
    /// What every file of the shard says: its path, its host, its counts.
    pub claims: Vec<(PathBuf, String, Counts)>,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.unit {
            Some(u) => write!(f, "shard {} unit {u}:", self.shard)?,
            None => write!(
                f,
                "shard {} (sums; a file keeps no per-unit records):",
                self.shard
            )?,
        }
        for (k, (path, host, c)) in self.claims.iter().enumerate() {
            let sep = if k == 0 { " " } else { "; " };
            write!(f, "{sep}total {}", c.total)?;
            if self.claims.iter().any(|x| x.2.unique != 0) {
                write!(f, " unique {}", c.unique)?;
            }
            write!(f, " in {} (host {host})", path.display())?;
        }
        Ok(())
    }
}

fn disagreement_line(list: &[Disagreement]) -> String {
    let shards: BTreeSet<ShardSpec> = list.iter().map(|d| d.shard).collect();
    let first = list.first().map(ToString::to_string).unwrap_or_default();
    let more = if list.len() > 1 {
        format!(" (and {} more)", list.len() - 1)
    } else {
        String::new()
    };
    format!(
        "replicas disagree on {} unit(s) of {} shard(s), so there is no total: {first}{more}",
        list.len(),
        shards.len()
    )
}

/// Reads shard files and adds them up ([`merge`]).
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let results = paths
        .iter()
        .map(|p| Ok((p.clone(), ShardResult::load(p)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    merge(&results)
}

/// A file of the set: its path, content and checked records.
struct File<'a> {
    path: &'a Path,
    result: &'a ShardResult,
    records: Records,
}

/// The files by shard index, each shard's replicas together.
type Shards<'a> = BTreeMap<u32, Vec<File<'a>>>;

/// Adds up shard results read from the given files.
///
/// Nothing a file says of itself is taken on trust but its counts: the job its identity names
/// is planned again under [`Versions::SameUnits`] (a board, method, depth or set of placed
/// queens no job has is refused, as is an identity the plan does not reproduce); each file's
/// records are checked (the one check of [`Records`]); each shard's units must be the ones this program
/// assigns to that shard (for files of this program's version: the assignment of another may
/// differ); every unit of the job must be counted exactly once; replicas must agree unit by unit
/// (unique counts included); and a whole job with a published count must add up to it
/// ([`crate::known::check`]).
pub fn merge(results: &[(PathBuf, ShardResult)]) -> Result<Merged, MergeError> {
    let Some((first_path, first)) = results.first() else {
        return Err(SetError::NoFiles.into());
    };
    let by_shard = group(results)?;
    let m = first.shard.count;
    let plan = first
        .identity
        .replan(Versions::SameUnits)
        .map_err(|reason| StoreError::Foreign {
            path: first_path.clone(),
            reason,
        })?;
    let units = plan.units().len();
    if m as usize > units.max(1) {
        return Err(SetError::TooManyShards { count: m, units }.into());
    }
    check_assignment(&plan, &by_shard, m)?;
    let disagreements: Vec<Disagreement> = by_shard.values().flat_map(|g| compare(g)).collect();
    if !disagreements.is_empty() {
        return Err(MergeError::Disagree(disagreements));
    }
    check_all_shards(&by_shard, m, results.len())?;
    let counts = add_up(&by_shard, first.identity.units)?;
    let merged = merged(results, &by_shard, counts);
    let id = &merged.identity;
    match known::check(id.n, !id.placed.is_empty(), id.unique, counts) {
        Err(mismatch) => Err(MergeError::Mismatch {
            merged: Box::new(merged),
            mismatch,
        }),
        Ok(_) => Ok(merged),
    }
}

/// The merge of `results`, grouped as `by_shard`, adding up to `counts`.
fn merged(results: &[(PathBuf, ShardResult)], by_shard: &Shards, counts: Counts) -> Merged {
    let (_, first) = &results[0];
    let replicated = by_shard.values().filter(|g| g.len() > 1);
    Merged {
        identity: first.identity.clone(),
        shards: first.shard.count,
        counts,
        elapsed: results.iter().fold(Duration::ZERO, |sum, (_, r)| {
            sum.saturating_add(Duration::from_millis(r.elapsed_ms))
        }),
        files: results.len(),
        replicated: replicated.clone().count() as u32,
        replicated_across_hosts: replicated
            .filter(|g| g.iter().any(|f| f.result.host != g[0].result.host))
            .count() as u32,
    }
}

/// The files by shard index, each shard's replicas together: refused unless every file is of
/// the first one's job (under [`Versions::SameUnits`]) and number of shards, given once, with
/// records that check, no copy of another, and of its shard's units.
fn group(results: &[(PathBuf, ShardResult)]) -> Result<Shards<'_>, MergeError> {
    let (first_path, first) = &results[0];
    let m = first.shard.count;
    let mut seen: Vec<&Path> = Vec::new();
    let mut by_shard: Shards = BTreeMap::new();
    for (path, r) in results {
        let foreign = |reason| StoreError::Foreign {
            path: path.clone(),
            reason,
        };
        let against_first = |reason| {
            foreign(Foreign::Set {
                with: first_path.clone(),
                reason: Box::new(reason),
            })
        };
        first
            .identity
            .expect(&r.identity, Versions::SameUnits)
            .map_err(against_first)?;
        if r.shard.count != m {
            return Err(against_first(Foreign::ShardCount {
                file: r.shard,
                count: m,
            })
            .into());
        }
        if let Some(first) = seen.iter().find(|s| durable::same_file(s, path)) {
            let (path, first) = (path.clone(), first.to_path_buf());
            return Err(SetError::Twice { path, first }.into());
        }
        seen.push(path);
        let records = r.records().map_err(|e| StoreError::Corrupt {
            path: path.clone(),
            reason: e.into(),
        })?;
        let group = by_shard.entry(r.shard.index).or_default();
        if let Some(other) = group.iter().find(|o| o.result.checksum == r.checksum) {
            return Err(SetError::Copy {
                path: path.clone(),
                of: other.path.to_path_buf(),
                shard: r.shard,
            }
            .into());
        }
        if let Some(other) = group.first() {
            if other.records.units() != records.units() {
                let diff = first_difference(records.units(), other.records.units(), r.shard);
                return Err(foreign(Foreign::Set {
                    with: other.path.to_path_buf(),
                    reason: Box::new(Foreign::Units(diff)),
                })
                .into());
            }
        }
        group.push(File {
            path,
            result: r,
            records,
        });
    }
    Ok(by_shard)
}

/// The first way `units` (a file's) differ from `want` (its shard's), as a record error.
fn first_difference(units: &[u32], want: &[u32], shard: ShardSpec) -> super::records::RecordError {
    use super::records::RecordError;
    match units.iter().find(|u| want.binary_search(u).is_err()) {
        Some(&unit) => RecordError::NotAssigned {
            unit,
            shard: Some(shard),
        },
        None => RecordError::Unlisted {
            unit: want
                .iter()
                .copied()
                .find(|u| units.binary_search(u).is_err())
                .unwrap_or_default(),
            shard: Some(shard),
        },
    }
}

/// Refuses a shard whose units are not the ones this program assigns to it, in the files this
/// program's version wrote (another version's assignment may differ; its units are still each
/// counted once, [`add_up`]).
fn check_assignment(plan: &crate::Plan, by_shard: &Shards, m: u32) -> Result<(), MergeError> {
    let ours = |f: &&File| f.result.identity.program_version == PROGRAM_VERSION;
    if !by_shard.values().flatten().any(|f| ours(&f)) {
        return Ok(());
    }
    let parts = assign::assigned(&plan.costs(), m);
    for (&index, group) in by_shard {
        let Some(file) = group.iter().find(ours) else {
            continue;
        };
        file.records
            .check_assigned(&parts[index as usize], Some(file.result.shard), true)
            .map_err(|e| StoreError::Foreign {
                path: file.path.to_path_buf(),
                reason: Foreign::Units(e),
            })?;
    }
    Ok(())
}

/// Refuses a set in which a shard has no file.
fn check_all_shards(by_shard: &Shards, m: u32, files: usize) -> Result<(), SetError> {
    let missing: Vec<u32> = (0..m).filter(|i| !by_shard.contains_key(i)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(SetError::Missing {
        missing,
        count: m,
        files,
    })
}

/// The sum over one file of each shard, every unit of the job counted exactly once.
fn add_up(by_shard: &Shards, units: u32) -> Result<Counts, SetError> {
    let mut owner: Vec<Option<&Path>> = vec![None; units as usize];
    let mut counts = Counts::default();
    for group in by_shard.values() {
        let file = &group[0];
        for &u in file.records.units() {
            // In range: the records were checked against the identity.
            if let Some(other) = owner[u as usize].replace(file.path) {
                return Err(SetError::UnitTwice {
                    unit: u,
                    first: other.to_path_buf(),
                    second: file.path.to_path_buf(),
                });
            }
        }
        let sum = file.records.sum();
        // Within N! each, so far from overflowing.
        counts = Counts {
            total: counts.total.saturating_add(sum.total),
            unique: counts.unique.saturating_add(sum.unique),
        };
    }
    match owner.iter().position(Option::is_none) {
        Some(u) => Err(SetError::UnitMissing {
            unit: u as u32,
            shards: by_shard.len(),
        }),
        None => Ok(counts),
    }
}

/// The units (or sums) that the files of one shard count differently.
fn compare(group: &[File]) -> Vec<Disagreement> {
    if group.len() < 2 {
        return Vec::new();
    }
    let shard = group[0].result.shard;
    let claims = |of: &dyn Fn(&File) -> Counts| -> Vec<(PathBuf, String, Counts)> {
        group
            .iter()
            .map(|f| {
                let host = super::envelope::short(&f.result.host);
                (f.path.to_path_buf(), host, of(f))
            })
            .collect()
    };
    if group.iter().all(|f| f.records.per_unit()) {
        // Every file keeps each unit's counts, of the same units: compare unit by unit.
        let first = &group[0].records;
        return (0..first.units().len())
            .filter(|&k| group.iter().any(|f| f.records.get(k) != first.get(k)))
            .map(|k| Disagreement {
                shard,
                unit: Some(first.units()[k]),
                claims: claims(&|f: &File| f.records.get(k).unwrap_or_default()),
            })
            .collect();
    }
    // A file of version 1 keeps only the sums: compare those, unique counts included.
    let c = claims(&|f: &File| f.records.sum());
    if c.iter().all(|x| x.2 == c[0].2) {
        return Vec::new();
    }
    vec![Disagreement {
        shard,
        unit: None,
        claims: c,
    }]
}

#[cfg(test)]
mod tests;
