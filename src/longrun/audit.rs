//! Audits: recount a seeded random sample of the units a shard result or a checkpoint records,
//! on any kernel and any machine, and compare each unit's counts with the file's; and, where
//! the files audited record every unit of a job, their sum against the published value.
//!
//! A file of format version 2 keeps every unit's counts, and a checkpoint always did, so any
//! unit of it can be counted again by index. The sample is drawn without replacement by a
//! partial Fisher–Yates shuffle driven by SplitMix64 from the seed: the same seed and the same
//! file pick the same units on every machine, so an audit can be repeated exactly. What a
//! passed sample proves is the hypergeometric probability [`pass_probability`]: a file with `w`
//! wrong units of `n` passes a sample of `k` only if the sample misses all `w` of them.

use super::checkpoint::Checkpoint;
use super::envelope::{self, FileKind, Look};
use super::error::{Foreign, StoreError};
use super::identity::{Identity, Versions};
use super::result::ShardResult;
use super::spec::ShardSpec;
use crate::engine::{Engine, Observer, RunOptions, UnitTiming};
use crate::known::{self, Checked, Mismatch as Published};
use crate::plan::Plan;
use crate::random::SplitMix64;
use crate::search::{Counts, Unit};
use crate::{Class, Classify};
use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// The per-unit counts a file records: a shard result of format version 2 or a checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The job.
    pub identity: Identity,
    /// The shard, if the file is (or checkpoints) one shard of the job.
    pub shard: Option<ShardSpec>,
    /// Which kind of file it is (a checkpoint may hold only part of its units).
    pub kind: FileKind,
    /// The machine that wrote the file (a checkpoint does not say).
    pub host: Option<String>,
    /// Each recorded unit's counts, by index (a unique count not counted is 0).
    pub units: BTreeMap<u32, Counts>,
}

/// Why a file could not be audited.
#[derive(Debug, Error)]
pub enum AuditError {
    /// The file is unreadable, damaged, not a shard result or checkpoint, or names a job this
    /// program cannot plan.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A shard result of format version 1, which keeps only the shard's sum.
    #[error(
        "{} is a result file of format version 1, which keeps only the shard's sum, not each \
         unit's counts: it cannot be audited (count the shard again and compare, or merge it \
         with a replica)",
        .0.display()
    )]
    NoRecords(PathBuf),
    /// The recount failed (an OpenCL device counting alone failed).
    #[error("the recount of {} failed: {source}", path.display())]
    Count {
        /// The file.
        path: PathBuf,
        /// Why.
        source: crate::Error,
    },
}

impl Classify for AuditError {
    fn class(&self) -> Class {
        match self {
            AuditError::Store(e) => e.class(),
            AuditError::NoRecords(_) => Class::Request,
            AuditError::Count { source, .. } => source.class(),
        }
    }
}

impl Recorded {
    /// Reads a shard result file or a checkpoint, whichever it is (by the one sniffer of the envelope), with
    /// every check of [`ShardResult::load`] or [`Checkpoint::load`].
    pub fn load(path: &Path) -> Result<Recorded, AuditError> {
        let bytes = envelope::read(path)?;
        if envelope::look(&bytes) == Look::Ours(Some(FileKind::Checkpoint)) {
            return Ok(Recorded::of_checkpoint(Checkpoint::from_bytes(
                path, &bytes,
            )?));
        }
        let r = ShardResult::from_bytes(path, &bytes)?;
        Recorded::of_shard(&r).ok_or_else(|| AuditError::NoRecords(path.into()))
    }

    /// The records of a shard result; `None` for a file of format version 1.
    pub fn of_shard(r: &ShardResult) -> Option<Recorded> {
        Some(Recorded {
            identity: r.identity.clone(),
            shard: Some(r.shard),
            kind: FileKind::ShardResult,
            // A host name from a file, cut to a line's length (a real one is at most 255 bytes).
            host: Some(envelope::short(&r.host)),
            units: r.unit_counts()?,
        })
    }

    /// The records of a checkpoint: its finished units.
    pub fn of_checkpoint(c: Checkpoint) -> Recorded {
        Recorded {
            identity: c.identity,
            shard: c.shard,
            kind: FileKind::Checkpoint,
            host: None,
            units: c.done,
        }
    }

    /// The plan of the records' job, built again from its identity (any program of the same
    /// unit enumeration: [`Versions::SameUnits`]), since a unit is recounted by its index in
    /// this plan. `path` names the file in errors.
    pub fn plan(&self, path: &Path) -> Result<Plan, AuditError> {
        self.identity
            .replan(Versions::SameUnits)
            .map_err(|reason| foreign(path, reason).into())
    }
}

fn foreign(path: &Path, reason: Foreign) -> StoreError {
    StoreError::Foreign {
        path: path.to_path_buf(),
        reason,
    }
}

/// Which units an audit recounts: a share of a file's units, at least a number of them, drawn
/// by a seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The share of the units, in (0, 1]; 1 recounts them all.
    pub fraction: f64,
    /// The fewest units recounted (all, when the file has fewer).
    pub min_units: usize,
    /// The seed of the draw.
    pub seed: u64,
}

impl Sample {
    /// The default share of a file's units recounted: 1 %.
    pub const DEFAULT_FRACTION: f64 = 0.01;

    /// The fewest units recounted per file by default (all of a smaller file): 30 units catch
    /// a fault that spoiled a tenth of a file's units with probability at least
    /// 1 - 0.9^30 = 95.8 %.
    pub const DEFAULT_MIN_UNITS: usize = 30;

    /// A seed drawn at random, for an audit that prints its seed so it can be repeated.
    pub fn random_seed() -> u64 {
        crate::random::random_u64()
    }

    /// How many of `units` units are recounted: the share rounded up, at least `min_units`,
    /// at most all.
    pub fn size(&self, units: usize) -> usize {
        let share = (self.fraction.clamp(0.0, 1.0) * units as f64).ceil() as usize;
        share.max(self.min_units).min(units)
    }

    /// The units of `units` (indices, in any order) to recount, ascending: the first
    /// [`Sample::size`] of a Fisher–Yates shuffle of `units` sorted, by SplitMix64 from the seed.
    pub fn choose(&self, units: &[u32]) -> Vec<u32> {
        let mut pool = units.to_vec();
        pool.sort_unstable();
        let k = self.size(pool.len());
        let mut rng = SplitMix64(self.seed);
        for i in 0..k {
            let j = i + rng.below((pool.len() - i) as u64) as usize;
            pool.swap(i, j);
        }
        pool.truncate(k);
        pool.sort_unstable();
        pool
    }
}

/// A unit whose recount differs from the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// The unit's index.
    pub unit: u32,
    /// What the file says.
    pub recorded: Counts,
    /// What the recount found.
    pub recounted: Counts,
}

/// The outcome of an audit of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audit {
    /// The units the file records.
    pub units: usize,
    /// The units recounted, ascending.
    pub checked: Vec<u32>,
    /// The recounted units whose counts differ from the file's, ascending.
    pub mismatches: Vec<Mismatch>,
}

impl Audit {
    /// The probability that a file with `wrong` wrong units would have passed this sample
    /// ([`pass_probability`]).
    pub fn pass_probability(&self, wrong: usize) -> f64 {
        pass_probability(self.units, self.checked.len(), wrong)
    }

    /// The fewest wrong units that a sample of this size finds with probability at least
    /// `confidence`; `None` when even a file with every unit wrong would pass that often (an
    /// empty sample).
    pub fn detects(&self, confidence: f64) -> Option<usize> {
        let (n, k) = (self.units, self.checked.len());
        if k == 0 || n == 0 {
            return None;
        }
        // pass_probability falls as `wrong` grows, and is 0 once wrong > n - k: a file with
        // every unit wrong is always found.
        let (mut lo, mut hi) = (1, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if 1.0 - pass_probability(n, k, mid) >= confidence {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        Some(lo)
    }
}

/// The probability that a sample of `checked` of `units` units, drawn without replacement,
/// misses every one of `wrong` wrong units (hypergeometric: the product over the draws of the
/// share of right units left). 0 once the sample must hit one.
pub fn pass_probability(units: usize, checked: usize, wrong: usize) -> f64 {
    if wrong == 0 {
        return 1.0;
    }
    if wrong + checked > units {
        return 0.0;
    }
    (0..checked)
        .map(|i| (units - wrong - i) as f64 / (units - i) as f64)
        .product()
}

/// Recounts the units of `records` chosen by `sample` on `engine`, with `plan` (from
/// [`Recorded::plan`]), and compares each with the file. `path` names the file in errors.
pub fn audit(
    engine: &Engine,
    plan: &Arc<Plan>,
    records: &Recorded,
    sample: &Sample,
    path: &Path,
) -> Result<Audit, AuditError> {
    let mut ours = Identity::of(plan);
    ours.program_version
        .clone_from(&records.identity.program_version);
    ours.expect(&records.identity, Versions::SameUnits)
        .map_err(|reason| foreign(path, reason))?;
    let all: Vec<u32> = records.units.keys().copied().collect();
    let checked = sample.choose(&all);
    let recount = recount(engine, plan, &checked).map_err(|source| AuditError::Count {
        path: path.to_path_buf(),
        source,
    })?;
    let unique = records.identity.unique;
    let mismatches = checked
        .iter()
        .filter_map(|u| {
            let recorded = records.units[u];
            let recounted = recount[u];
            let differ = recorded.total != recounted.total
                || (unique && recorded.unique != recounted.unique);
            differ.then_some(Mismatch {
                unit: *u,
                recorded,
                recounted,
            })
        })
        .collect();
    Ok(Audit {
        units: all.len(),
        checked,
        mismatches,
    })
}

/// Counts the units `units` of `plan` on `engine`: each unit's counts, by index.
pub(crate) fn recount(
    engine: &Engine,
    plan: &Arc<Plan>,
    units: &[u32],
) -> crate::Result<BTreeMap<u32, Counts>> {
    struct Collect(BTreeMap<u32, Counts>);
    impl Observer for Collect {
        fn unit_done(&mut self, unit: &Unit, counts: Counts, _: UnitTiming) -> ControlFlow<()> {
            self.0.insert(unit.index, counts);
            ControlFlow::Continue(())
        }
    }
    let mut seen = Collect(BTreeMap::new());
    let opts = RunOptions {
        units: Some(units.to_vec()),
        ..RunOptions::default()
    };
    let outcome = engine.run(plan, &opts, &mut seen);
    if let Some(e) = outcome.device_failure() {
        return Err(e);
    }
    if seen.0.len() != units.len() {
        return Err(crate::Error::Incomplete {
            done: seen.0.len(),
            of: units.len(),
        });
    }
    Ok(seen.0)
}

/// A job whose audited files together record every one of its units: their sum (each unit
/// once) and how it stands against the published value ([`known::check`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WholeJob {
    /// The job.
    pub identity: Identity,
    /// The sum of its units' recorded counts.
    pub counts: Counts,
    /// The sum against the published value.
    pub verdict: Result<Checked, Published>,
}

/// The jobs whose files among `files` record every unit (a whole set of shards, or a finished
/// checkpoint), each unit counted once, with their sums checked against the published values;
/// ordered by board, then by the rest of the identity.
pub fn whole_jobs<'a>(files: impl IntoIterator<Item = &'a Recorded>) -> Vec<WholeJob> {
    let mut jobs: HashMap<&Identity, BTreeMap<u32, Counts>> = HashMap::new();
    for f in files {
        let units = jobs.entry(&f.identity).or_default();
        for (&u, &c) in &f.units {
            units.entry(u).or_insert(c);
        }
    }
    let mut whole: Vec<WholeJob> = jobs
        .into_iter()
        .filter(|(id, units)| units.len() == id.units as usize)
        .map(|(id, units)| {
            let counts = units.values().fold(Counts::default(), |a, c| Counts {
                total: a.total.saturating_add(c.total),
                unique: a.unique.saturating_add(c.unique),
            });
            WholeJob {
                identity: id.clone(),
                counts,
                verdict: known::check(id.n, !id.placed.is_empty(), id.unique, counts),
            }
        })
        .collect();
    whole.sort_by_key(|j| (j.identity.n, format!("{:?}", j.identity)));
    whole
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn samples_are_reproducible_uniform_and_of_the_stated_size() {
        let units: Vec<u32> = (0..200).rev().collect();
        let s = |fraction, min_units, seed| Sample {
            fraction,
            min_units,
            seed,
        };
        assert_eq!(s(0.01, 30, 1).size(200), 30);
        assert_eq!(s(0.5, 30, 1).size(200), 100);
        assert_eq!(s(0.001, 0, 1).size(200), 1);
        assert_eq!(s(1.0, 0, 1).size(200), 200);
        assert_eq!(s(0.01, 30, 1).size(12), 12);
        assert_eq!(s(0.01, 30, 1).size(0), 0);
        let a = s(0.1, 0, 7).choose(&units);
        assert_eq!(a, s(0.1, 0, 7).choose(&units));
        assert_ne!(a, s(0.1, 0, 8).choose(&units));
        assert_eq!(a.len(), 20);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(s(1.0, 0, 3).choose(&units), (0..200).collect::<Vec<_>>());
        // Each unit is drawn with probability 20/200 = 0.1: over 2000 seeds, 200 times on
        // average, binomial standard deviation 13.4; every unit within 5 of them.
        let mut hits = [0u32; 200];
        for seed in 0..2000 {
            for u in s(0.1, 0, seed).choose(&units) {
                hits[u as usize] += 1;
            }
        }
        assert!(hits.iter().all(|&h| (133..=267).contains(&h)), "{hits:?}");
    }

    /// Files that record every unit of a job are summed each unit once and checked against
    /// the published value, unique counts included (a planted fault compared totals only, and
    /// no test saw it); a job not wholly recorded is not judged.
    #[test]
    fn whole_jobs_are_checked_total_and_unique() {
        use crate::plan::Job;
        let plan = Plan::new(Job::new(8).unwrap().with_unique(true));
        let id = Identity::of(&plan);
        let all: BTreeMap<u32, Counts> = plan
            .units()
            .iter()
            .map(|u| {
                (
                    u.index,
                    crate::plan::evaluate_on(&plan, u, crate::Kernel::Dfs),
                )
            })
            .collect();
        let file = |units: BTreeMap<u32, Counts>| Recorded {
            identity: id.clone(),
            shard: None,
            kind: FileKind::Checkpoint,
            host: None,
            units,
        };
        let whole = file(all.clone());
        let jobs = whole_jobs([&whole]);
        assert_eq!(jobs.len(), 1);
        assert_eq!(
            jobs[0].counts,
            Counts {
                total: 92,
                unique: 12
            }
        );
        assert_eq!(jobs[0].verdict, Ok(Checked::AsPublished));
        // Two halves, overlapping: each unit once.
        let (lo, hi): (Vec<_>, Vec<_>) = all.iter().partition(|(&u, _)| u % 2 == 0);
        let lo = file(lo.into_iter().map(|(&u, &c)| (u, c)).collect());
        let mut hi: BTreeMap<u32, Counts> = hi.into_iter().map(|(&u, &c)| (u, c)).collect();
        hi.insert(0, all[&0]);
        let hi = file(hi);
        assert_eq!(whole_jobs([&lo, &hi])[0].verdict, Ok(Checked::AsPublished));
        assert!(whole_jobs([&lo]).is_empty());
        // A unique count off by one: the totals agree, the job does not.
        let mut off = all.clone();
        let k = *off.keys().find(|k| off[k].unique > 0).unwrap();
        off.get_mut(&k).unwrap().unique += 1;
        let jobs = whole_jobs([&file(off)]);
        let m = jobs[0].verdict.unwrap_err();
        assert_eq!((m.found.unique, m.published.unique), (13, 12));
    }

    /// The recount finds a unit recorded wrong in its total, or in its unique count where the
    /// job counts them (and only there), and recounts each unit as the engine counts it.
    #[test]
    fn an_audit_finds_units_off_in_total_or_unique() {
        use crate::plan::Job;
        let engine = Engine::new(2).unwrap();
        for unique in [true, false] {
            let job = Job::new(9)
                .unwrap()
                .with_split_depth(2)
                .unwrap()
                .with_unique(unique);
            let plan = Arc::new(Plan::new(job));
            let all: Vec<u32> = (0..plan.units().len() as u32).collect();
            let honest = recount(&engine, &plan, &all).unwrap();
            for u in &all {
                let unit = &plan.units()[*u as usize];
                assert_eq!(
                    honest[u],
                    crate::plan::evaluate_on(&plan, unit, crate::Kernel::Dfs)
                );
            }
            let part = recount(&engine, &plan, &all[2..5]).unwrap();
            assert_eq!(part.keys().copied().collect::<Vec<_>>(), all[2..5]);
            let every = Sample {
                fraction: 1.0,
                min_units: 0,
                seed: 1,
            };
            let file = |units: BTreeMap<u32, Counts>| Recorded {
                identity: Identity::of(&plan),
                shard: None,
                kind: FileKind::Checkpoint,
                host: None,
                units,
            };
            let path = Path::new("f");
            let a = audit(&engine, &plan, &file(honest.clone()), &every, path).unwrap();
            assert_eq!(
                (a.units, a.checked.len(), a.mismatches.len()),
                (all.len(), all.len(), 0)
            );
            let k = *honest.keys().find(|k| honest[k].total > 0).unwrap();
            for (dt, du) in [(1, 0), (0, 1)] {
                let mut off = honest.clone();
                off.get_mut(&k).unwrap().total += dt;
                off.get_mut(&k).unwrap().unique += du;
                let a = audit(&engine, &plan, &file(off.clone()), &every, path).unwrap();
                let caught = a.mismatches.iter().map(|m| m.unit).collect::<Vec<_>>();
                // A unique count off is a mismatch only where the job counts them.
                let want = if dt == 1 || unique { vec![k] } else { vec![] };
                assert_eq!(caught, want, "unique {unique}, {dt} {du}");
                if let Some(m) = a.mismatches.first() {
                    assert_eq!((m.recorded, m.recounted), (off[&k], honest[&k]));
                }
            }
        }
    }

    /// A file is read as what it is: a checkpoint's units, a result's per-unit records; a
    /// result of format version 1, which has none, cannot be audited.
    #[test]
    fn records_load_from_checkpoints_and_results() {
        use crate::longrun::ShardSpec;
        use crate::plan::Job;
        let dir = tempfile::tempdir().unwrap();
        let plan = Plan::new(Job::new(8).unwrap().with_split_depth(2).unwrap());
        let id = Identity::of(&plan);
        let one = Counts {
            total: 4,
            unique: 0,
        };
        let mut c = Checkpoint::new(id.clone(), Some(ShardSpec { index: 1, count: 2 }));
        c.done.insert(3, one);
        let ckpt = dir.path().join("c.ckpt");
        c.save(&ckpt).unwrap();
        let r = Recorded::load(&ckpt).unwrap();
        assert_eq!(
            (r.kind, r.shard, r.host.clone()),
            (FileKind::Checkpoint, c.shard, None)
        );
        assert_eq!(r.units, c.done);
        let done: BTreeMap<u32, Counts> = [(3, one), (5, one)].into();
        let mut result =
            ShardResult::new(id, ShardSpec::WHOLE, &done, std::time::Duration::ZERO, 0.0);
        result.host = "h".into();
        result.seal();
        let file = dir.path().join("r.json");
        result.save(&file).unwrap();
        let r = Recorded::load(&file).unwrap();
        assert_eq!(
            (r.kind, r.host.as_deref()),
            (FileKind::ShardResult, Some("h"))
        );
        assert_eq!(r.units, done);
        assert_eq!(Recorded::of_shard(&result).unwrap().units, done);
        (result.format_version, result.unit_totals, result.run_id) = (1, None, None);
        result.seal();
        assert_eq!(Recorded::of_shard(&result), None);
        result.save(&file).unwrap();
        assert!(matches!(
            Recorded::load(&file),
            Err(AuditError::NoRecords(_))
        ));
        // Seeds drawn at random differ (the same seed twice: one chance in 2^64).
        assert_ne!(Sample::random_seed(), Sample::random_seed());
    }

    #[test]
    fn pass_probabilities_are_hypergeometric() {
        assert_eq!(pass_probability(10, 3, 0), 1.0);
        // One wrong unit of 10, three drawn: missed with probability 7/10.
        assert!((pass_probability(10, 3, 1) - 0.7).abs() < 1e-12);
        // Two wrong of 10, three drawn: (8/10)(7/9)(6/8) = 7/15.
        assert!((pass_probability(10, 3, 2) - 7.0 / 15.0).abs() < 1e-12);
        assert_eq!(pass_probability(10, 3, 8), 0.0);
        // Seven wrong of 10, three drawn: (3/10)(2/9)(1/8) = 1/120, the last case not 0.
        assert!((pass_probability(10, 3, 7) - 1.0 / 120.0).abs() < 1e-12);
        assert_eq!(pass_probability(10, 10, 1), 0.0);
        let a = Audit {
            units: 1000,
            checked: (0..30).collect(),
            mismatches: Vec::new(),
        };
        // 30 of 1000: found with 95 % confidence once 94 units (9.4 %) are wrong.
        let d = a.detects(0.95).unwrap();
        assert!(a.pass_probability(d) <= 0.05 && a.pass_probability(d - 1) > 0.05);
        assert_eq!(d, 94);
        let all = Audit {
            units: 5,
            checked: (0..5).collect(),
            mismatches: Vec::new(),
        };
        assert_eq!(all.detects(0.999_999), Some(1));
        // One unit of 10 drawn: only a file with every unit wrong is caught for certain.
        let one = Audit {
            units: 10,
            checked: vec![4],
            mismatches: Vec::new(),
        };
        assert_eq!(one.detects(0.999_999), Some(10));
        assert_eq!(one.detects(0.5), Some(5));
        let none = Audit {
            units: 5,
            checked: Vec::new(),
            mismatches: Vec::new(),
        };
        assert_eq!(none.detects(0.5), None);
    }

    #[test]
    fn detects_is_the_first_size_found_often_enough() {
        // The bisection against a plain scan, for every small file and sample.
        for units in 1..=12 {
            for checked in 1..=units {
                let a = Audit {
                    units,
                    checked: (0..checked as u32).collect(),
                    mismatches: Vec::new(),
                };
                for confidence in [0.1, 0.5, 0.9, 0.99, 0.999_999] {
                    let scan = (1..=units)
                        .find(|&w| 1.0 - pass_probability(units, checked, w) >= confidence);
                    assert_eq!(
                        a.detects(confidence),
                        scan,
                        "{checked} of {units}, {confidence}"
                    );
                }
            }
        }
    }
}
