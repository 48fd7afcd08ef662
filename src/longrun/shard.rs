//! Shards: a job's units split into M parts that separate machines compute, each writing a
//! result file, and the merge that checks the parts make up the whole job exactly once.
//!
//! The split is deterministic (it depends only on the job), so every machine computes the same
//! assignment without talking to the others, and balanced by the estimated cost of the units
//! ([`crate::plan::cost`]): greedy longest-processing-time first — units by falling estimate (ties by
//! index), each to the least-loaded shard (ties to the lowest shard). Graham (1969) bounds its
//! makespan by 4/3 of the best possible for exact costs.

use crate::longrun::store::{self, Identity, StoreError};
use crate::search::Counts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;
use thiserror::Error;

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShardSpec {
    /// Which shard, `0..count`.
    pub index: u32,
    /// How many shards the job is split into.
    pub count: u32,
}

impl ShardSpec {
    /// The units of `plan` this shard computes, ascending: every machine assigns them alike,
    /// from the units' estimated costs ([`crate::Plan::costs`]), greedy longest first.
    ///
    /// ```
    /// use nqueens::longrun::ShardSpec;
    /// use nqueens::{Job, Plan};
    ///
    /// let plan = Plan::new(Job::new(12)?.with_split_depth(2)?);
    /// let shards: Vec<Vec<u32>> = (0..3).map(|index| ShardSpec { index, count: 3 }.units(&plan)).collect();
    /// let mut all: Vec<u32> = shards.concat();
    /// all.sort_unstable();
    /// assert_eq!(all, (0..plan.units().len() as u32).collect::<Vec<_>>());
    /// # Ok::<(), nqueens::Error>(())
    /// ```
    pub fn units(&self, plan: &crate::Plan) -> Vec<u32> {
        let mut units = assign(&plan.costs(), self.count).swap_remove(self.index as usize);
        units.sort_unstable();
        units
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = String;
    /// Parses `I/M` with `0 <= I < M`: shards are numbered from 0, as Slurm numbers the tasks
    /// of an array.
    fn from_str(s: &str) -> Result<Self, String> {
        let shown = store::short(&s.escape_debug().to_string());
        let bad = || format!("'{shown}' is not a shard I/M with 0 <= I < M (for example 3/8)");
        let (i, m) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = m.trim().parse().map_err(|_| bad())?;
        match count {
            0 => Err(format!("'{shown}': a job is split into one shard at least")),
            _ if index >= count => Err(format!(
                "there is no shard {index} of {count}: shards are numbered 0 to {}",
                count - 1
            )),
            _ => Ok(ShardSpec { index, count }),
        }
    }
}

// Stored as the string "I/M": readable in a file and in a log.
impl Serialize for ShardSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ShardSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Splits units with estimated `costs` (by unit index) into `shards` parts: the unit indices of
/// each part, in falling order of cost (the order to start them in).
pub fn assign(costs: &[u64], shards: u32) -> Vec<Vec<u32>> {
    let shards = shards.max(1) as usize;
    let mut order: Vec<u32> = (0..costs.len() as u32).collect();
    order.sort_by(|&a, &b| costs[b as usize].cmp(&costs[a as usize]).then(a.cmp(&b)));
    let mut parts = vec![Vec::new(); shards];
    // A min-heap of (load, shard): the least-loaded shard, the lowest on ties.
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize)>> =
        (0..shards).map(|s| std::cmp::Reverse((0, s))).collect();
    for i in order {
        let std::cmp::Reverse((load, s)) = heap.pop().expect("at least one shard");
        parts[s].push(i);
        heap.push(std::cmp::Reverse((load + u128::from(costs[i as usize]), s)));
    }
    parts
}

/// The estimated imbalance of a split: the largest part's estimated cost over the mean, minus
/// one (0 is perfect balance; 0.1 means the slowest shard is expected to take 10 % longer than
/// the average).
pub fn imbalance(costs: &[u64], parts: &[Vec<u32>]) -> f64 {
    let loads: Vec<f64> = parts
        .iter()
        .map(|p| p.iter().map(|&i| costs[i as usize] as f64).sum())
        .collect();
    let mean = loads.iter().sum::<f64>() / loads.len().max(1) as f64;
    let max = loads.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean - 1.0
    } else {
        0.0
    }
}

/// The name of the format, the first field of every shard file.
pub const FORMAT: &str = store::SHARD_FORMAT;
/// The version of the shard file format this program writes: 2 keeps each unit's counts
/// (`unit_totals`, `unit_uniques`) and a `run_id`; version 1 kept only the sums. Both are read.
pub const FORMAT_VERSION: u32 = 2;

/// The result of one shard, as written to its file (JSON; the fields in this order; the layout
/// is documented in `docs/CLUSTER.md`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardResult {
    /// Always `nqueens-shard`.
    pub format: String,
    /// 2 when written by this program; 1 for files of earlier versions.
    pub format_version: u32,
    /// The job.
    pub identity: Identity,
    /// Which shard, `I/M`.
    pub shard: ShardSpec,
    /// The indices of the shard's units, ascending.
    #[serde(deserialize_with = "store::capped")]
    pub units: Vec<u32>,
    /// Each unit's solutions, in the order of `units` (version 2; absent from version 1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "store::capped_opt"
    )]
    pub unit_totals: Option<Vec<u128>>,
    /// Each unit's solutions distinct up to symmetry, in the order of `units`, when the job
    /// counts them (version 2).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "store::capped_opt"
    )]
    pub unit_uniques: Option<Vec<u128>>,
    /// Sum of the solutions over the shard's units.
    pub total: u128,
    /// Sum of the solutions distinct up to symmetry, when the job counts them (absent from the
    /// file otherwise; files of earlier versions hold 0 there, which is read as `Some(0)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unique: Option<u128>,
    /// Wall time spent on the shard, over every run, in milliseconds.
    pub elapsed_ms: u64,
    /// The machine that finished it.
    pub host: String,
    /// 16 hex digits drawn at random when the result is made (version 2), so that two
    /// computations of one shard never make the same file and a copy is told from a replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The estimated imbalance of the whole split (the largest shard's estimated cost over the mean, minus 1) in basis points (1/100 of
    /// a percent); an integer, so that the checksum survives reading and writing exactly.
    pub estimated_imbalance_bp: u64,
    /// SHA-256 of this JSON with `checksum` empty.
    pub checksum: String,
}

impl ShardResult {
    /// A result of the units `done` (each unit's counts, by index), with its checksum filled
    /// in.
    pub fn new(
        identity: Identity,
        shard: ShardSpec,
        done: &BTreeMap<u32, Counts>,
        elapsed: Duration,
        estimated_imbalance: f64,
    ) -> ShardResult {
        let mut sum = Counts::default();
        for &c in done.values() {
            sum += c;
        }
        let unique = identity.unique;
        let mut r = ShardResult {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            shard,
            units: done.keys().copied().collect(),
            unit_totals: Some(done.values().map(|c| c.total).collect()),
            unit_uniques: unique.then(|| done.values().map(|c| c.unique).collect()),
            total: sum.total,
            unique: unique.then_some(sum.unique),
            elapsed_ms: store::millis(elapsed),
            host: crate::longrun::store::host_name(),
            run_id: Some(format!("{:016x}", random_u64())),
            estimated_imbalance_bp: (estimated_imbalance * 1e4).round() as u64,
            checksum: String::new(),
            identity,
        };
        r.seal();
        r
    }

    /// Sets the checksum to that of the content (after the fields were changed).
    pub fn seal(&mut self) {
        self.checksum = String::new();
        self.checksum = store::checksum_of(self);
    }

    /// The sums of the shard (a unique count that was not counted is 0 here).
    pub fn counts(&self) -> Counts {
        Counts {
            total: self.total,
            unique: self.unique.unwrap_or(0),
        }
    }

    /// Each unit's counts, by index (a unique count that was not counted is 0); `None` for a
    /// file of version 1, which keeps only the sums.
    pub fn unit_counts(&self) -> Option<BTreeMap<u32, Counts>> {
        self.unit_totals.as_ref()?;
        Some(
            self.units
                .iter()
                .enumerate()
                .map(|(k, &u)| (u, self.unit(k).unwrap_or_default()))
                .collect(),
        )
    }

    /// The counts of the `k`-th unit of `units` (version 2 only).
    fn unit(&self, k: usize) -> Option<Counts> {
        Some(Counts {
            total: *self.unit_totals.as_ref()?.get(k)?,
            unique: self
                .unit_uniques
                .as_ref()
                .and_then(|v| v.get(k).copied())
                .unwrap_or(0),
        })
    }

    /// The file content.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).expect("serializable");
        bytes.push(b'\n');
        bytes
    }

    /// Writes the result to `path`, atomically and durably.
    pub fn save(&self, path: &Path) -> Result<(), StoreError> {
        store::write_atomic(path, &self.to_bytes())
    }

    /// Reads a shard file, checking its format, checksum and sums.
    pub fn load(path: &Path) -> Result<ShardResult, StoreError> {
        ShardResult::from_bytes(path, &store::read(path)?)
    }

    /// Parses shard-file content read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<ShardResult, StoreError> {
        let r: ShardResult =
            store::parse_checked(path, bytes, "shard file", FORMAT, |r: &mut ShardResult| {
                &mut r.checksum
            })?;
        r.check().map_err(|reason| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(r)
    }

    /// What is inconsistent in the content, in words: a file whose checksum matches was
    /// written so, and is refused all the same.
    fn check(&self) -> Result<(), String> {
        self.check_sizes()?;
        self.check_sums()?;
        if let Some(w) = self.units.windows(2).find(|w| w[0] >= w[1]) {
            return Err(format!(
                "the units are not ascending ({} before {})",
                w[0], w[1]
            ));
        }
        if let Some(&u) = self.units.last().filter(|&&u| u >= self.identity.units) {
            return Err(format!("unit {u} out of range"));
        }
        match self.format_version {
            1 if self.unit_totals.is_some()
                || self.unit_uniques.is_some()
                || self.run_id.is_some() =>
            {
                Err("per-unit records in a file of format version 1".into())
            }
            1 => Ok(()),
            FORMAT_VERSION => self.check_records(),
            v => Err(format!(
                "format version {v} (this program reads 1 and {FORMAT_VERSION})"
            )),
        }
    }

    /// The format's name, and sizes no job has: refused before anything is allocated by them.
    fn check_sizes(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!(
                "not a shard file but '{}'",
                store::short(&self.format)
            ));
        }
        if self.identity.units > store::MAX_UNITS {
            return Err(format!(
                "{} units, more than any job has",
                self.identity.units
            ));
        }
        if self.shard.count > store::MAX_UNITS {
            return Err(format!(
                "shard {}: more shards than any job has units",
                self.shard
            ));
        }
        Ok(())
    }

    /// The sums: a unique count exactly where the job counts it, and no more solutions than
    /// the board has placements.
    fn check_sums(&self) -> Result<(), String> {
        match (self.identity.unique, self.unique) {
            (true, None) => {
                return Err("the unique count of a job that counts it is missing".into())
            }
            (false, Some(u)) if u != 0 => {
                return Err(format!(
                    "a unique count ({u}) for a job that does not count it"
                ))
            }
            _ => {}
        }
        let bound = store::max_solutions(self.identity.n);
        if self.total > bound || self.unique.unwrap_or(0) > bound {
            return Err(format!(
                "more solutions than an N = {} board has placements",
                self.identity.n
            ));
        }
        Ok(())
    }

    /// The per-unit records of format version 2: a run id, one count per unit, adding up to
    /// the stated sums.
    fn check_records(&self) -> Result<(), String> {
        if self.run_id.as_ref().is_none_or(|id| {
            id.len() != 16
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        }) {
            return Err("no run_id of 16 hex digits".into());
        }
        let units = self.units.len();
        let sum = |what: &str, list: &Option<Vec<u128>>, stated: u128| -> Result<(), String> {
            let Some(list) = list else {
                return Err(format!("the per-unit {what} are missing"));
            };
            if list.len() != units {
                return Err(format!("{} per-unit {what} for {units} units", list.len()));
            }
            let total = list
                .iter()
                .try_fold(0u128, |a, &b| a.checked_add(b))
                .ok_or_else(|| format!("the per-unit {what} overflow"))?;
            if total != stated {
                return Err(format!(
                    "the per-unit {what} add up to {total}, not to the stated {stated}"
                ));
            }
            Ok(())
        };
        sum("totals", &self.unit_totals, self.total)?;
        match self.unique {
            Some(u) if self.identity.unique => sum("unique counts", &self.unit_uniques, u),
            _ if self.unit_uniques.is_some() => {
                Err("per-unit unique counts for a job that does not count them".into())
            }
            _ => Ok(()),
        }
    }
}

/// A random number from the operating system's seed of the standard library's hasher (a fresh
/// one per call); for run identifiers and audit seeds, never for anything secret.
pub(crate) fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// The total of a job put together from its shard files.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The job.
    pub identity: Identity,
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
    /// A file is unreadable, corrupt, foreign, a copy, or the set is incomplete (bad input).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Replicas of a shard disagree: some machine counted wrong, and there is no total.
    #[error("{}", disagreement_line(.0))]
    Disagree(Vec<Disagreement>),
    /// The shards make up the whole job and add up to a total other than the published one:
    /// some machine counted wrong (an audit of the files finds which).
    #[error(
        "the shards add up to {}, but the published count of N = {} is {}: MISMATCH",
        counts_words(merged.counts, merged.identity.unique),
        merged.identity.n,
        counts_words(*expected, merged.identity.unique)
    )]
    Mismatch {
        /// What the merge found.
        merged: Box<Merged>,
        /// The published counts (the unique count 0 where the job does not count it).
        expected: Counts,
    },
}

impl MergeError {
    /// Whether the error is in the files given (unreadable, corrupt, foreign, an incomplete
    /// set), as opposed to counts that disagree or a failure of the system.
    pub fn is_bad_input(&self) -> bool {
        match self {
            MergeError::Store(e) => e.is_bad_input(),
            MergeError::Disagree(_) | MergeError::Mismatch { .. } => false,
        }
    }
}

/// Counts in words: "14200 solutions, 1787 unique" or "14200 solutions".
fn counts_words(c: Counts, unique: bool) -> String {
    if unique {
        format!("{} solutions, {} unique", c.total, c.unique)
    } else {
        format!("{} solutions", c.total)
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
    let shards: std::collections::BTreeSet<ShardSpec> = list.iter().map(|d| d.shard).collect();
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

/// Reads shard files and adds them up, refusing (with an error naming the file) any that is
/// corrupt, of another job, given twice, a copy of another, or missing. Files of the same
/// shard are replicas: where they agree the shard counts once; where they differ the merge
/// fails with [`MergeError::Disagree`].
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let results = paths
        .iter()
        .map(|p| Ok((p.clone(), ShardResult::load(p)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    merge(&results)
}

/// Adds up shard results read from the given files (see [`merge_files`]).
///
/// Nothing a file says of itself is taken on trust but its counts: the job its identity names
/// is planned again (a board, method, depth or set of placed queens no job has is refused, as
/// is an identity the plan does not reproduce), each shard's units must be the ones this
/// program assigns to that shard, every unit of the job must be counted exactly once, replicas
/// must agree unit by unit (unique counts included), and a whole job with a published count
/// must add up to it ([`MergeError::Mismatch`]).
pub fn merge(results: &[(PathBuf, ShardResult)]) -> Result<Merged, MergeError> {
    let Some((first_path, first)) = results.first() else {
        return Err(StoreError::ShardSet("no shard files given".into()).into());
    };
    let by_shard = group(results)?;
    let m = first.shard.count;
    let plan = planned(first_path, &first.identity)?;
    if m as usize > plan.units().len().max(1) {
        return Err(StoreError::ShardSet(format!(
            "{m} shards, but the job has only {} units",
            plan.units().len()
        ))
        .into());
    }
    if first.identity.program_version == store::PROGRAM_VERSION {
        check_assignment(&plan, &by_shard, m)?;
    }
    let disagreements: Vec<Disagreement> = by_shard.values().flat_map(|g| compare(g)).collect();
    if !disagreements.is_empty() {
        return Err(MergeError::Disagree(disagreements));
    }
    check_all_shards(&by_shard, m, results.len())?;
    let counts = add_up(&by_shard, first.identity.units)?;
    let replicated = by_shard.values().filter(|g| g.len() > 1);
    let merged = Merged {
        identity: first.identity.clone(),
        shards: m,
        counts,
        elapsed: results.iter().fold(Duration::ZERO, |sum, (_, r)| {
            sum.saturating_add(Duration::from_millis(r.elapsed_ms))
        }),
        files: results.len(),
        replicated: replicated.clone().count() as u32,
        replicated_across_hosts: replicated
            .filter(|g| g.iter().any(|(_, r)| r.host != g[0].1.host))
            .count() as u32,
    };
    match published_mismatch(&merged) {
        Some(expected) => Err(MergeError::Mismatch {
            merged: Box::new(merged),
            expected,
        }),
        None => Ok(merged),
    }
}

/// The files by shard index, each shard's replicas together: refused unless every file is of
/// the first one's job and split, given once, no copy of another, and of its shard's units.
fn group(results: &[(PathBuf, ShardResult)]) -> Result<Shards<'_>, StoreError> {
    let (first_path, first) = &results[0];
    let m = first.shard.count;
    let mut seen: std::collections::BTreeSet<&Path> = std::collections::BTreeSet::new();
    let mut by_shard: Shards = BTreeMap::new();
    for (path, r) in results {
        let foreign = |reason: String| StoreError::Foreign {
            path: path.clone(),
            reason,
        };
        if let Some(diff) = first.identity.difference(&r.identity) {
            return Err(foreign(format!(
                "compared with {}: {diff}",
                first_path.display()
            )));
        }
        if r.shard.count != m {
            return Err(foreign(format!(
                "it is shard {} but {} is one of {m}",
                r.shard,
                first_path.display()
            )));
        }
        if !seen.insert(path) {
            return Err(StoreError::ShardSet(format!(
                "{} is given twice",
                path.display()
            )));
        }
        let group = by_shard.entry(r.shard.index).or_default();
        if let Some((other, _)) = group.iter().find(|(_, o)| o.checksum == r.checksum) {
            return Err(StoreError::ShardSet(format!(
                "{} is a copy of {} (the same content): a replica of shard {} must be \
                 computed again, not copied",
                path.display(),
                other.display(),
                r.shard
            )));
        }
        if let Some((other, o)) = group.first() {
            if o.units != r.units {
                return Err(foreign(format!(
                    "it is shard {} like {}, but with other units",
                    r.shard,
                    other.display()
                )));
            }
        }
        group.push((path, r));
    }
    Ok(by_shard)
}

/// A set of shard files by shard index: each file's path and content.
type Shards<'a> = BTreeMap<u32, Vec<(&'a Path, &'a ShardResult)>>;

/// The plan of the job `identity` (read from `path`) names, refused unless this program plans
/// such a job to that very identity (the program's version aside: files of an earlier version
/// of the same unit enumeration merge).
fn planned(path: &Path, identity: &Identity) -> Result<crate::Plan, StoreError> {
    let foreign = |reason: String| StoreError::Foreign {
        path: path.to_path_buf(),
        reason: format!("no job of this program has its identity: {reason}"),
    };
    let plan = identity.plan().map_err(foreign)?;
    let ours = Identity {
        program_version: identity.program_version.clone(),
        ..Identity::of(&plan)
    };
    match ours.difference(identity) {
        Some(diff) => Err(foreign(diff)),
        None => Ok(plan),
    }
}

/// Refuses a shard whose units are not the ones this program assigns to it.
fn check_assignment(plan: &crate::Plan, by_shard: &Shards, m: u32) -> Result<(), StoreError> {
    let mut parts = assign(&plan.costs(), m);
    for (&index, group) in by_shard {
        let want = &mut parts[index as usize];
        want.sort_unstable();
        let (path, r) = group[0];
        if r.units != *want {
            let odd = r
                .units
                .iter()
                .find(|u| want.binary_search(u).is_err())
                .map(|u| format!("unit {u} is not one of its units"))
                .or_else(|| {
                    want.iter()
                        .find(|u| r.units.binary_search(u).is_err())
                        .map(|u| format!("unit {u} of the shard is missing"))
                })
                .unwrap_or_default();
            return Err(StoreError::Foreign {
                path: path.to_path_buf(),
                reason: format!(
                    "its units are not those of shard {} of this job ({odd})",
                    r.shard
                ),
            });
        }
    }
    Ok(())
}

/// Refuses a set in which a shard has no file.
fn check_all_shards(by_shard: &Shards, m: u32, files: usize) -> Result<(), StoreError> {
    let missing: Vec<String> = (0..m)
        .filter(|i| !by_shard.contains_key(i))
        .map(|i| format!("{i}/{m}"))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let shown = missing
        .iter()
        .take(10)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if missing.len() > 10 { ", ..." } else { "" };
    Err(StoreError::ShardSet(format!(
        "{} of {m} shards missing: {shown}{more} (got {files} files; shards are numbered 0 to {})",
        missing.len(),
        m - 1
    )))
}

/// The sum over one file of each shard, every unit of the job counted exactly once.
fn add_up(by_shard: &Shards, units: u32) -> Result<Counts, StoreError> {
    let mut owner: Vec<Option<&Path>> = vec![None; units as usize];
    let mut counts = Counts::default();
    for group in by_shard.values() {
        let (path, r) = group[0];
        for &u in &r.units {
            let slot = owner
                .get_mut(u as usize)
                .ok_or_else(|| StoreError::Corrupt {
                    path: path.to_path_buf(),
                    reason: format!("unit {u} out of range"),
                })?;
            if let Some(other) = slot.replace(path) {
                return Err(StoreError::ShardSet(format!(
                    "unit {u} is in both {} and {}",
                    other.display(),
                    path.display()
                )));
            }
        }
        counts = checked_add(counts, r.counts()).ok_or_else(|| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: "the sum over the shards overflows".into(),
        })?;
    }
    match owner.iter().position(Option::is_none) {
        Some(u) => Err(StoreError::ShardSet(format!(
            "unit {u} is in none of the {} shard files",
            by_shard.len()
        ))),
        None => Ok(counts),
    }
}

/// The published counts of the merged job when they differ from the merge: a whole board with
/// no pre-placed queens and a published value ([`crate::known`]); the unique count only where
/// the job counts it.
fn published_mismatch(merged: &Merged) -> Option<Counts> {
    let id = &merged.identity;
    if !id.placed.is_empty() {
        return None;
    }
    let known = crate::known::published(id.n)?;
    let expected = Counts {
        total: known.total,
        unique: if id.unique { known.unique } else { 0 },
    };
    (expected != merged.counts).then_some(expected)
}

fn checked_add(a: Counts, b: Counts) -> Option<Counts> {
    Some(Counts {
        total: a.total.checked_add(b.total)?,
        unique: a.unique.checked_add(b.unique)?,
    })
}

/// The units (or sums) that the files of one shard count differently.
fn compare(group: &[(&Path, &ShardResult)]) -> Vec<Disagreement> {
    if group.len() < 2 {
        return Vec::new();
    }
    let shard = group[0].1.shard;
    let claims = |of: &dyn Fn(&ShardResult) -> Counts| -> Vec<(PathBuf, String, Counts)> {
        group
            .iter()
            .map(|(p, r)| (p.to_path_buf(), store::short(&r.host), of(r)))
            .collect()
    };
    let differ = |c: &[(PathBuf, String, Counts)]| c.iter().any(|x| x.2 != c[0].2);
    if group.iter().all(|(_, r)| r.unit_totals.is_some()) {
        // Every file keeps each unit's counts, of the same units: compare unit by unit.
        return (0..group[0].1.units.len())
            .filter(|&k| group.iter().any(|(_, r)| r.unit(k) != group[0].1.unit(k)))
            .map(|k| Disagreement {
                shard,
                unit: Some(group[0].1.units[k]),
                claims: claims(&|r: &ShardResult| r.unit(k).unwrap_or_default()),
            })
            .collect();
    }
    // A file of version 1 keeps only the sums: compare those.
    let c = claims(&ShardResult::counts);
    if !differ(&c) {
        return Vec::new();
    }
    vec![Disagreement {
        shard,
        unit: None,
        claims: c,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse() {
        let s: ShardSpec = "3/8".parse().unwrap();
        assert_eq!((s.index, s.count), (3, 8));
        assert_eq!(s.to_string(), "3/8");
        for bad in ["8/8", "1", "a/2", "0/0", "-1/3", "1/2/3"] {
            assert!(bad.parse::<ShardSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn assignment_is_a_balanced_partition() {
        let costs = [5u64, 1, 9, 3, 3, 7, 2, 8];
        let parts = assign(&costs, 3);
        let mut all: Vec<u32> = parts.concat();
        all.sort_unstable();
        assert_eq!(all, (0..8).collect::<Vec<_>>());
        // LPT: 9->s0, 8->s1, 7->s2, 5->s2 (7 < 8 < 9)... loads end at 13, 13, 12 (total 38).
        let loads: Vec<u64> = parts
            .iter()
            .map(|p| p.iter().map(|&i| costs[i as usize]).sum())
            .collect();
        assert_eq!(loads.iter().sum::<u64>(), 38);
        assert!(loads.iter().max().unwrap() - loads.iter().min().unwrap() <= 1);
        assert_eq!(parts, assign(&costs, 3));
        // Each part lists its units by falling cost.
        for p in &parts {
            assert!(p
                .windows(2)
                .all(|w| costs[w[0] as usize] >= costs[w[1] as usize]));
        }
        assert!(imbalance(&costs, &parts) < 0.03);
        // More shards than units: some shards are empty, none is lost.
        let parts = assign(&[1, 1], 4);
        assert_eq!(parts.iter().map(Vec::len).sum::<usize>(), 2);
    }

    use crate::{Job, Plan};

    /// The counts of every unit of `plan`, by index.
    fn records(plan: &Plan) -> BTreeMap<u32, Counts> {
        plan.units()
            .iter()
            .map(|u| {
                (
                    u.index,
                    crate::plan::evaluate_on(plan, u, crate::Kernel::Dfs),
                )
            })
            .collect()
    }

    #[test]
    fn result_files_round_trip_and_refuse_every_bit_flip() {
        let plan = Plan::new(Job::new(6).unwrap().with_split_depth(2).unwrap());
        let id = Identity::of(&plan);
        let spec = ShardSpec { index: 0, count: 1 };
        let done = records(&plan);
        let r = ShardResult::new(id, spec, &done, Duration::from_millis(7), 0.123);
        assert_eq!(r.format_version, 2);
        assert_eq!(r.unit_counts().unwrap(), done);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        r.save(&p).unwrap();
        assert_eq!(ShardResult::load(&p).unwrap(), r);
        let merged = merge_files(std::slice::from_ref(&p)).unwrap();
        assert_eq!(merged.counts.total, 4);
        assert_eq!((merged.files, merged.replicated), (1, 0));
        let bytes = r.to_bytes();
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(
                    ShardResult::from_bytes(&p, &b).is_err(),
                    "flip of bit {bit} of byte {i} accepted"
                );
            }
        }
    }

    #[test]
    fn a_file_whose_unit_counts_do_not_add_up_is_refused_though_its_checksum_matches() {
        let plan = Plan::new(Job::new(8).unwrap().with_unique(true));
        let spec = ShardSpec { index: 0, count: 1 };
        let r = ShardResult::new(
            Identity::of(&plan),
            spec,
            &records(&plan),
            Duration::ZERO,
            0.0,
        );
        let p = PathBuf::from("r.json");
        let refused = |edit: &dyn Fn(&mut ShardResult), why: &str| {
            let mut bad = r.clone();
            edit(&mut bad);
            bad.seal();
            match ShardResult::from_bytes(&p, &bad.to_bytes()) {
                Err(StoreError::Corrupt { reason, .. }) => {
                    assert!(reason.contains(why), "{reason} lacks {why}")
                }
                other => panic!("{why}: {other:?}"),
            }
        };
        refused(&|b| b.unit_totals.as_mut().unwrap()[3] += 1, "add up to");
        refused(&|b| b.unit_uniques.as_mut().unwrap()[0] = 5, "add up to");
        refused(
            &|b| {
                b.unit_totals.as_mut().unwrap().pop();
            },
            "per-unit totals for",
        );
        refused(&|b| b.unit_uniques = None, "unique counts are missing");
        refused(&|b| b.run_id = None, "run_id");
        refused(&|b| b.units.swap(0, 1), "not ascending");
        refused(&|b| b.format_version = 3, "format version 3");
        refused(
            &|b| {
                b.format_version = 1;
            },
            "version 1",
        );
        // Changed consistently (the unit, the sum, the checksum), as a faulty machine would
        // write it: the file is accepted; only a recount or a replica can tell.
        let mut forged = r.clone();
        forged.unit_totals.as_mut().unwrap()[3] += 1;
        forged.total += 1;
        forged.seal();
        assert!(ShardResult::from_bytes(&p, &forged.to_bytes()).is_ok());
    }

    #[test]
    fn replicas_that_agree_count_once_and_those_that_differ_name_units_and_hosts() {
        let plan = Plan::new(Job::new(8).unwrap().with_split_depth(2).unwrap());
        let costs = crate::plan::cost::estimate(&plan);
        let parts = assign(&costs, 2);
        let counts = records(&plan);
        let result = |i: u32, host: &str| {
            let done = parts[i as usize].iter().map(|&u| (u, counts[&u])).collect();
            let spec = ShardSpec { index: i, count: 2 };
            let mut r = ShardResult::new(Identity::of(&plan), spec, &done, Duration::ZERO, 0.0);
            r.host = host.into();
            r.seal();
            r
        };
        let file = |name: &str, r: &ShardResult| (PathBuf::from(name), r.clone());
        let (a0, a1, b1) = (result(0, "a"), result(1, "a"), result(1, "b"));
        let whole: u128 = counts.values().map(|c| c.total).sum();
        let m = merge(&[file("a0", &a0), file("a1", &a1), file("b1", &b1)]).unwrap();
        assert_eq!((m.counts.total, m.files, m.replicated), (whole, 3, 1));
        assert_eq!(m.replicated_across_hosts, 1);
        let a1bis = result(1, "a");
        let m = merge(&[file("a0", &a0), file("a1", &a1), file("a1bis", &a1bis)]).unwrap();
        assert_eq!((m.replicated, m.replicated_across_hosts), (1, 0));
        // A copy is not a replica.
        let e = merge(&[file("a0", &a0), file("a1", &a1), file("copy", &a1)]).unwrap_err();
        assert!(e.to_string().contains("copy is a copy of a1"), "{e}");
        // One unit counted wrong on host b, sum and checksum made to match.
        let mut bad = b1.clone();
        let k = 2;
        bad.unit_totals.as_mut().unwrap()[k] += 10;
        bad.total += 10;
        bad.seal();
        let unit = bad.units[k];
        match merge(&[file("a0", &a0), file("a1", &a1), file("bad", &bad)]) {
            Err(MergeError::Disagree(d)) => {
                assert_eq!(d.len(), 1);
                assert_eq!((d[0].shard.index, d[0].unit), (1, Some(unit)));
                let right = counts[&unit].total;
                assert_eq!(
                    d[0].claims,
                    vec![
                        (PathBuf::from("a1"), "a".into(), counts[&unit]),
                        (
                            PathBuf::from("bad"),
                            "b".into(),
                            Counts {
                                total: right + 10,
                                unique: 0
                            }
                        ),
                    ]
                );
                let line = MergeError::Disagree(d).to_string();
                assert!(line.contains(&format!("shard 1/2 unit {unit}: total {right} in a1 (host a); total {} in bad (host b)", right + 10)), "{line}");
            }
            other => panic!("{other:?}"),
        }
        // Without per-unit records (a file of version 1) the sums are compared.
        let mut old = a1.clone();
        (old.format_version, old.unit_totals, old.run_id) = (1, None, None);
        old.seal();
        let m = merge(&[file("a0", &a0), file("old", &old), file("b1", &b1)]).unwrap();
        assert_eq!(m.replicated, 1);
        match merge(&[file("a0", &a0), file("old", &old), file("bad", &bad)]) {
            Err(MergeError::Disagree(d)) => assert_eq!((d.len(), d[0].unit), (1, None)),
            other => panic!("{other:?}"),
        }
        // A replica with other units is refused.
        let mut other = b1.clone();
        other.units[0] = a0.units[0];
        other.units.sort_unstable();
        other.seal();
        assert!(matches!(
            merge(&[file("a0", &a0), file("a1", &a1), file("other", &other)]),
            Err(MergeError::Store(StoreError::Foreign { .. }))
        ));
    }

    #[test]
    fn a_job_without_unique_writes_none_and_older_files_with_zero_still_merge() {
        let spec = ShardSpec { index: 0, count: 1 };
        let p = PathBuf::from("r.json");
        for unique in [false, true] {
            let plan = Plan::new(Job::new(8).unwrap().with_unique(unique));
            let r = ShardResult::new(
                Identity::of(&plan),
                spec,
                &records(&plan),
                Duration::ZERO,
                0.0,
            );
            assert_eq!(r.unique, unique.then_some(12));
            assert_eq!(r.unit_uniques.is_some(), unique);
            let text = String::from_utf8(r.to_bytes()).unwrap();
            // The identity's flag, and the sum only when counted.
            assert_eq!(
                text.matches(r#""unique":"#).count(),
                1 + usize::from(unique)
            );
            assert_eq!(text.contains(r#""unit_uniques":"#), unique, "{text}");
            assert_eq!(ShardResult::from_bytes(&p, &r.to_bytes()).unwrap(), r);
        }
        // Written by the version before, for a job without unique: "unique":0.
        let old = br#"{"format":"nqueens-shard","format_version":1,"identity":{"n":8,"method":"d4","plan_method":"d4","split_depth":3,"placed":[],"unique":false,"units":44,"units_version":1,"program_version":"0.1.0"},"shard":"0/1","units":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43],"total":92,"unique":0,"elapsed_ms":2,"host":"vm","estimated_imbalance_bp":0,"checksum":"sha256:0e218fe078918799c87dda04abb5597f32fe9804a75c6ea024fca77d86c0a69d"}"#;
        let r = ShardResult::from_bytes(&p, old).unwrap();
        assert_eq!(r.unique, Some(0));
        assert_eq!(r.unit_counts(), None);
        let merged = merge(&[(p.clone(), r)]).unwrap();
        assert_eq!(merged.counts.total, 92);
        assert!(!merged.identity.unique);
    }
}
