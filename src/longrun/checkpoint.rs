//! Checkpoints: the units of a job finished so far, with their counts, kept in a file that a
//! crash cannot damage, so that a long run can be resumed where it stopped.
//!
//! The file is JSON sealed by a checksum ([`super::envelope`]), written atomically
//! ([`super::durable::write_atomic`]). Loading checks the envelope and the unit records
//! ([`super::records`]); which job and shard it belongs to is checked by the run that resumes
//! it ([`Checkpoint::check_resume`]). A file that fails any check is refused with a typed error
//! and never modified.

use super::envelope::{self, FileKind};
use super::error::{Damage, Foreign, StoreError};
use super::identity::{Identity, Versions};
use super::records::{Claimed, Records};
use super::spec::ShardSpec;
use crate::search::Counts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The name of the format, the first field of every checkpoint file.
pub const FORMAT: &str = FileKind::Checkpoint.format();
/// The version of the file format.
pub const FORMAT_VERSION: u32 = 1;

/// The state of a run: which units are done and what they counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The job.
    pub identity: Identity,
    /// The shard of the job the run computes, if only one.
    pub shard: Option<ShardSpec>,
    /// Counts of the finished units, by unit index.
    pub done: BTreeMap<u32, Counts>,
    /// Wall time spent on the job so far, over every run.
    pub elapsed: Duration,
}

/// The file form. Field order is the serialization order, which the checksum covers.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckpointFile {
    format: String,
    format_version: u32,
    identity: Identity,
    shard: Option<ShardSpec>,
    elapsed_ms: u64,
    /// `[unit index, total, unique]` for every finished unit, by index.
    #[serde(deserialize_with = "envelope::capped")]
    done: Vec<(u32, u128, u128)>,
    checksum: String,
}

impl Checkpoint {
    /// An empty checkpoint of a job (or of one shard of it).
    pub fn new(identity: Identity, shard: Option<ShardSpec>) -> Checkpoint {
        Checkpoint {
            identity,
            shard,
            done: BTreeMap::new(),
            elapsed: Duration::ZERO,
        }
    }

    /// The sum over the finished units.
    pub fn counts(&self) -> Counts {
        let mut sum = Counts::default();
        for &c in self.done.values() {
            sum += c;
        }
        sum
    }

    /// The file content, checksum included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut file = CheckpointFile {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            identity: self.identity.clone(),
            shard: self.shard,
            elapsed_ms: envelope::millis(self.elapsed),
            done: self
                .done
                .iter()
                .map(|(&i, c)| (i, c.total, c.unique))
                .collect(),
            checksum: String::new(),
        };
        envelope::seal(&mut file, |f| &mut f.checksum)
    }

    /// Writes the checkpoint to `path`, atomically and durably.
    pub fn save(&self, path: &Path) -> Result<(), StoreError> {
        Ok(super::durable::write_atomic(path, &self.to_bytes())?)
    }

    /// Reads a checkpoint, checking its envelope and its unit records (but not which job it
    /// belongs to: see [`Checkpoint::check_resume`]).
    pub fn load(path: &Path) -> Result<Checkpoint, StoreError> {
        Checkpoint::from_bytes(path, &envelope::read(path)?)
    }

    /// Parses checkpoint content read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Checkpoint, StoreError> {
        let corrupt = |reason| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        let file: CheckpointFile = envelope::open(
            path,
            bytes,
            FileKind::Checkpoint,
            |f: &mut CheckpointFile| &mut f.checksum,
        )?;
        if file.format != FORMAT {
            return Err(corrupt(Damage::Syntax {
                kind: FileKind::Checkpoint,
                reason: format!("its format is '{}'", envelope::short(&file.format)),
            }));
        }
        if file.format_version != FORMAT_VERSION {
            return Err(corrupt(Damage::Version {
                found: file.format_version,
                reads: "1",
            }));
        }
        let units: Vec<u32> = file.done.iter().map(|d| d.0).collect();
        let totals: Vec<u128> = file.done.iter().map(|d| d.1).collect();
        let uniques: Vec<u128> = file.done.iter().map(|d| d.2).collect();
        let records = Records::check(
            &file.identity,
            Claimed {
                units: &units,
                totals: Some(&totals),
                uniques: Some(&uniques),
                stated: None,
                ascending: false,
            },
        )
        .map_err(|e| corrupt(e.into()))?;
        Ok(Checkpoint {
            identity: file.identity,
            shard: file.shard,
            done: records.unit_counts().unwrap_or_default(),
            elapsed: Duration::from_millis(file.elapsed_ms),
        })
    }

    /// The checkpoint's records, checked as when it was read (the one check of [`Records`]).
    pub fn records(&self) -> Result<Records, super::records::RecordError> {
        let units: Vec<u32> = self.done.keys().copied().collect();
        let totals: Vec<u128> = self.done.values().map(|c| c.total).collect();
        let uniques: Vec<u128> = self.done.values().map(|c| c.unique).collect();
        Records::check(
            &self.identity,
            Claimed {
                units: &units,
                totals: Some(&totals),
                uniques: Some(&uniques),
                stated: None,
                ascending: true,
            },
        )
    }

    /// Refuses the checkpoint read from `path` for a run of the job `identity` and shard
    /// `shard` (`None`: the whole job), whose units are `assigned` (ascending), unless it is of
    /// that very job (this program's version: [`Versions::ThisProgram`]) and shard, and holds
    /// only units of it.
    pub fn check_resume(
        &self,
        path: &Path,
        identity: &Identity,
        shard: Option<ShardSpec>,
        assigned: &[u32],
    ) -> Result<(), StoreError> {
        let foreign = |reason| StoreError::Foreign {
            path: path.to_path_buf(),
            reason,
        };
        identity
            .expect(&self.identity, Versions::ThisProgram)
            .map_err(foreign)?;
        if shard != self.shard {
            return Err(foreign(Foreign::Shard {
                file: self.shard,
                run: shard,
            }));
        }
        let records = self.records().map_err(|e| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: e.into(),
        })?;
        records
            .check_assigned(assigned, shard, false)
            .map_err(|e| foreign(Foreign::Units(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Job, Plan};
    use std::path::PathBuf;

    fn sample() -> Checkpoint {
        let plan = Plan::new(Job::new(8).unwrap().with_split_depth(2).unwrap());
        let mut c = Checkpoint::new(Identity::of(&plan), None);
        c.done.insert(
            3,
            Counts {
                total: 12,
                unique: 0,
            },
        );
        c.done.insert(
            0,
            Counts {
                total: 4,
                unique: 0,
            },
        );
        c.elapsed = Duration::from_millis(1234);
        c
    }

    /// The file of `c` with its `done` list replaced by `done` and sealed again.
    fn with_done(c: &Checkpoint, done: Vec<(u32, u128, u128)>) -> Vec<u8> {
        let mut file = CheckpointFile {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            identity: c.identity.clone(),
            shard: c.shard,
            elapsed_ms: 0,
            done,
            checksum: String::new(),
        };
        envelope::seal(&mut file, |f| &mut f.checksum)
    }

    #[test]
    fn round_trip_and_the_resume_checks() {
        let c = sample();
        let p = PathBuf::from("x");
        assert_eq!(Checkpoint::from_bytes(&p, &c.to_bytes()).unwrap(), c);
        assert_eq!(c.counts().total, 16);
        let all: Vec<u32> = (0..c.identity.units).collect();
        assert!(c.check_resume(&p, &c.identity, None, &all).is_ok());
        let other = Identity {
            n: 9,
            ..c.identity.clone()
        };
        let e = c.check_resume(&p, &other, None, &all).unwrap_err();
        assert!(
            matches!(&e, StoreError::Foreign { reason: Foreign::Identity(d), .. } if d.len() == 1),
            "{e:?}"
        );
        let older = Identity {
            program_version: "0.0.1".into(),
            ..c.identity.clone()
        };
        assert!(c.check_resume(&p, &older, None, &all).is_err());
        // Another shard, or the whole job where a shard runs: refused, empty or not.
        let one: ShardSpec = "1/4".parse().unwrap();
        let zero: ShardSpec = "0/4".parse().unwrap();
        let e = c
            .check_resume(&p, &c.identity, Some(one), &all)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("it is for the whole job but this run computes shard 1/4"),
            "{e}"
        );
        let empty = Checkpoint::new(c.identity.clone(), Some(one));
        let e = empty
            .check_resume(&p, &c.identity, Some(zero), &all)
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("it is for shard 1/4 but this run computes shard 0/4"),
            "{e}"
        );
        // A unit outside the run's own.
        let e = c
            .check_resume(&p, &c.identity, None, &[0, 1, 2])
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("unit 3 is not one of the units of the job"),
            "{e}"
        );
    }

    /// Records that no job has are refused as corrupt, never summed into a panic: out of range
    /// (the first index past the end), listed twice, unique counts of a job that does not count
    /// them, sums past N! or `u128::MAX`; a time too long for the file's milliseconds stays the
    /// longest, never wraps round.
    #[test]
    fn impossible_records_are_refused_and_long_times_saturate() {
        let p = PathBuf::from("x");
        let c = sample();
        let units = c.identity.units;
        let refused = |done: Vec<(u32, u128, u128)>, why: &str| match Checkpoint::from_bytes(
            &p,
            &with_done(&c, done.clone()),
        ) {
            Err(StoreError::Corrupt { reason, .. }) => {
                assert!(reason.to_string().contains(why), "{reason} lacks {why}")
            }
            other => panic!("{done:?}: {other:?}"),
        };
        refused(vec![(units, 1, 0)], "out of range");
        refused(vec![(1, 1, 0), (1, 2, 0)], "listed twice");
        refused(
            vec![(1, 1, 1)],
            "unique counts (unit 1: 1) for a job that does not count them",
        );
        refused(
            vec![(0, u128::MAX, 0), (1, 1, 0)],
            "more solutions than an N = 8 board",
        );
        refused(
            vec![(0, 40320, 0), (1, 1, 0)],
            "more solutions than an N = 8 board",
        );
        let last = Checkpoint::from_bytes(&p, &with_done(&c, vec![(units - 1, 40320, 0)]));
        assert_eq!(last.unwrap().done.len(), 1);
        let mut c = sample();
        c.elapsed = Duration::from_millis(u64::MAX) + Duration::from_secs(5);
        let back = Checkpoint::from_bytes(&p, &c.to_bytes()).unwrap();
        assert_eq!(back.elapsed, Duration::from_millis(u64::MAX));
    }

    #[test]
    fn every_single_bit_flip_and_every_truncation_is_refused() {
        let bytes = sample().to_bytes();
        let p = PathBuf::from("x");
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                let r = Checkpoint::from_bytes(&p, &b);
                assert!(
                    matches!(r, Err(StoreError::Corrupt { .. })),
                    "flip of bit {bit} of byte {i}: {r:?}"
                );
            }
        }
        // Cutting the final newline leaves the content whole; any shorter cut is refused.
        for len in 0..bytes.len() - 1 {
            assert!(
                Checkpoint::from_bytes(&p, &bytes[..len]).is_err(),
                "cut at {len}"
            );
        }
    }
}
