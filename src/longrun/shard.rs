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

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShardSpec {
    /// Which shard, `0..count`.
    pub index: u32,
    /// How many shards the job is split into.
    pub count: u32,
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = String;
    /// Parses `I/M` with `0 <= I < M`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("'{s}' is not a shard I/M with 0 <= I < M (for example 3/8)");
        let (i, m) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = m.trim().parse().map_err(|_| bad())?;
        if index >= count {
            return Err(bad());
        }
        Ok(ShardSpec { index, count })
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
/// The version of the shard file format.
pub const FORMAT_VERSION: u32 = 1;

/// The result of one shard, as written to its file (JSON; the fields in this order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardResult {
    /// Always `nqueens-shard`.
    pub format: String,
    /// The version of the file format.
    pub format_version: u32,
    /// The job.
    pub identity: Identity,
    /// Which shard, `I/M`.
    pub shard: ShardSpec,
    /// The indices of the shard's units, ascending.
    pub units: Vec<u32>,
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
    /// The estimated imbalance of the whole split (the largest shard's estimated cost over the mean, minus 1) in basis points (1/100 of
    /// a percent); an integer, so that the checksum survives reading and writing exactly.
    pub estimated_imbalance_bp: u64,
    /// SHA-256 of this JSON with `checksum` empty.
    pub checksum: String,
}

impl ShardResult {
    /// A result with its checksum filled in.
    pub fn new(
        identity: Identity,
        shard: ShardSpec,
        mut units: Vec<u32>,
        counts: Counts,
        elapsed: Duration,
        estimated_imbalance: f64,
    ) -> ShardResult {
        units.sort_unstable();
        let unique = identity.unique.then_some(counts.unique);
        let mut r = ShardResult {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            identity,
            shard,
            units,
            total: counts.total,
            unique,
            elapsed_ms: elapsed.as_millis() as u64,
            host: gethostname::gethostname().to_string_lossy().into_owned(),
            estimated_imbalance_bp: (estimated_imbalance * 1e4).round() as u64,
            checksum: String::new(),
        };
        r.checksum = store::checksum(&serde_json::to_vec(&r).expect("serializable"));
        r
    }

    /// The sums of the shard (a unique count that was not counted is 0 here).
    pub fn counts(&self) -> Counts {
        Counts {
            total: self.total,
            unique: self.unique.unwrap_or(0),
        }
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

    /// Reads a shard file, checking its format and checksum.
    pub fn load(path: &Path) -> Result<ShardResult, StoreError> {
        ShardResult::from_bytes(path, &store::read(path)?)
    }

    /// Parses shard-file content read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<ShardResult, StoreError> {
        let r: ShardResult =
            store::parse_checked(path, bytes, "shard file", FORMAT, |r: &mut ShardResult| {
                &mut r.checksum
            })?;
        let corrupt = |reason: String| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        if r.format != FORMAT {
            return Err(corrupt(format!("not a shard file but '{}'", r.format)));
        }
        if r.format_version != FORMAT_VERSION {
            return Err(corrupt(format!(
                "format version {} (this program reads {FORMAT_VERSION})",
                r.format_version
            )));
        }
        // Sizes no job has: refused before anything is allocated by them.
        if r.identity.units > store::MAX_UNITS {
            return Err(corrupt(format!(
                "{} units, more than any job has",
                r.identity.units
            )));
        }
        if r.shard.count > store::MAX_UNITS {
            return Err(corrupt(format!(
                "shard {}: more shards than any job has units",
                r.shard
            )));
        }
        match (r.identity.unique, r.unique) {
            (true, None) => {
                return Err(corrupt(
                    "the unique count of a job that counts it is missing".into(),
                ))
            }
            (false, Some(u)) if u != 0 => {
                return Err(corrupt(format!(
                    "a unique count ({u}) for a job that does not count it"
                )))
            }
            _ => {}
        }
        Ok(r)
    }
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
    /// Wall time summed over the shards (machine time, not the time the job took).
    pub elapsed: Duration,
}

/// Reads shard files and adds them up, refusing (with an error naming the file) any that is
/// corrupt, of another job, duplicated, or missing.
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, StoreError> {
    let results = paths
        .iter()
        .map(|p| Ok((p.clone(), ShardResult::load(p)?)))
        .collect::<Result<Vec<_>, StoreError>>()?;
    merge(&results)
}

/// Adds up shard results read from the given files (see [`merge_files`]).
pub fn merge(results: &[(PathBuf, ShardResult)]) -> Result<Merged, StoreError> {
    let Some((first_path, first)) = results.first() else {
        return Err(StoreError::ShardSet("no shard files given".into()));
    };
    let m = first.shard.count;
    let mut by_index: BTreeMap<u32, &Path> = BTreeMap::new();
    let mut owner: Vec<Option<&Path>> = vec![None; first.identity.units as usize];
    let mut counts = Counts::default();
    let mut elapsed = Duration::ZERO;
    for (path, r) in results {
        if let Some(diff) = first.identity.difference(&r.identity) {
            return Err(StoreError::Foreign {
                path: path.clone(),
                reason: format!("compared with {}: {diff}", first_path.display()),
            });
        }
        if r.shard.count != m {
            return Err(StoreError::Foreign {
                path: path.clone(),
                reason: format!(
                    "it is shard {} but {} is one of {m}",
                    r.shard,
                    first_path.display()
                ),
            });
        }
        if let Some(other) = by_index.insert(r.shard.index, path) {
            return Err(StoreError::ShardSet(if other == path {
                format!("{} is given twice", path.display())
            } else {
                format!(
                    "{} and {} are both shard {}",
                    other.display(),
                    path.display(),
                    r.shard
                )
            }));
        }
        for &u in &r.units {
            let slot = owner
                .get_mut(u as usize)
                .ok_or_else(|| StoreError::Corrupt {
                    path: path.clone(),
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
        counts += r.counts();
        elapsed += Duration::from_millis(r.elapsed_ms);
    }
    let missing: Vec<String> = (0..m)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| format!("{i}/{m}"))
        .collect();
    if !missing.is_empty() {
        let shown = missing
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        let more = if missing.len() > 10 { ", ..." } else { "" };
        return Err(StoreError::ShardSet(format!(
            "{} of {m} shards missing: {shown}{more} (got {} files)",
            missing.len(),
            results.len()
        )));
    }
    if let Some(u) = owner.iter().position(Option::is_none) {
        return Err(StoreError::ShardSet(format!(
            "unit {u} is in none of the {m} shard files"
        )));
    }
    Ok(Merged {
        identity: first.identity.clone(),
        shards: m,
        counts,
        elapsed,
    })
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

    #[test]
    fn result_files_round_trip_and_refuse_every_bit_flip() {
        use crate::{Job, Plan};
        let plan = Plan::new(Job::new(6).unwrap().with_split_depth(2).unwrap());
        let id = Identity::of(&plan);
        let spec = ShardSpec { index: 0, count: 1 };
        let all: Vec<u32> = (0..plan.units().len() as u32).collect();
        let counts = Counts {
            total: 4,
            unique: 0,
        };
        let r = ShardResult::new(id, spec, all, counts, Duration::from_millis(7), 0.123);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        r.save(&p).unwrap();
        assert_eq!(ShardResult::load(&p).unwrap(), r);
        let merged = merge_files(std::slice::from_ref(&p)).unwrap();
        assert_eq!(merged.counts, counts);
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
    fn a_job_without_unique_writes_none_and_older_files_with_zero_still_merge() {
        use crate::{Job, Plan};
        let spec = ShardSpec { index: 0, count: 1 };
        let counts = Counts {
            total: 92,
            unique: 0,
        };
        let p = PathBuf::from("r.json");
        for unique in [false, true] {
            let plan = Plan::new(Job::new(8).unwrap().with_unique(unique));
            let all: Vec<u32> = (0..plan.units().len() as u32).collect();
            let r = ShardResult::new(Identity::of(&plan), spec, all, counts, Duration::ZERO, 0.0);
            assert_eq!(r.unique, unique.then_some(0));
            let text = String::from_utf8(r.to_bytes()).unwrap();
            assert_eq!(text.contains(r#""unique":0,"#), unique, "{text}");
            assert_eq!(ShardResult::from_bytes(&p, &r.to_bytes()).unwrap(), r);
        }
        // Written by the version before, for a job without unique: "unique":0.
        let old = br#"{"format":"nqueens-shard","format_version":1,"identity":{"n":8,"method":"d4","plan_method":"d4","split_depth":3,"placed":[],"unique":false,"units":44,"units_version":1,"program_version":"0.1.0"},"shard":"0/1","units":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43],"total":92,"unique":0,"elapsed_ms":2,"host":"vm","estimated_imbalance_bp":0,"checksum":"sha256:0e218fe078918799c87dda04abb5597f32fe9804a75c6ea024fca77d86c0a69d"}"#;
        let r = ShardResult::from_bytes(&p, old).unwrap();
        assert_eq!(r.unique, Some(0));
        let merged = merge(&[(p.clone(), r)]).unwrap();
        assert_eq!(merged.counts.total, 92);
        assert!(!merged.identity.unique);
    }
}
