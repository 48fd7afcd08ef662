//! Checkpoints: the units of a job finished so far, with their counts, kept in a file that a
//! crash cannot damage, so that a long run can be resumed where it stopped.
//!
//! The file is JSON with a SHA-256 checksum over its content, written by
//! [`store::write_atomic`]. Loading checks the format, the checksum and the job identity; a
//! file that fails any check is refused with a typed error and never modified.

use crate::longrun::shard::ShardSpec;
use crate::longrun::store::{self, Identity, StoreError};
use crate::search::Counts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The name of the format, the first field of every checkpoint file.
pub const FORMAT: &str = store::CHECKPOINT_FORMAT;
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
    #[serde(deserialize_with = "store::capped")]
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
            elapsed_ms: store::millis(self.elapsed),
            done: self
                .done
                .iter()
                .map(|(&i, c)| (i, c.total, c.unique))
                .collect(),
            checksum: String::new(),
        };
        file.checksum = store::checksum_of(&file);
        let mut bytes = serde_json::to_vec(&file).expect("serializable");
        bytes.push(b'\n');
        bytes
    }

    /// Writes the checkpoint to `path`, atomically and durably.
    pub fn save(&self, path: &Path) -> Result<(), StoreError> {
        store::write_atomic(path, &self.to_bytes())
    }

    /// Reads a checkpoint, checking its format, checksum and internal consistency (but not
    /// which job it belongs to: see [`Checkpoint::check_job`]).
    pub fn load(path: &Path) -> Result<Checkpoint, StoreError> {
        let bytes = store::read(path)?;
        Checkpoint::from_bytes(path, &bytes)
    }

    /// Parses checkpoint content read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Checkpoint, StoreError> {
        let corrupt = |reason: String| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason,
        };
        let file: CheckpointFile = store::parse_checked(
            path,
            bytes,
            "checkpoint",
            FORMAT,
            |f: &mut CheckpointFile| &mut f.checksum,
        )?;
        if file.format != FORMAT {
            return Err(corrupt(format!(
                "not a checkpoint but '{}'",
                store::short(&file.format)
            )));
        }
        if file.format_version != FORMAT_VERSION {
            return Err(corrupt(format!(
                "format version {} (this program reads {FORMAT_VERSION})",
                file.format_version
            )));
        }
        let mut done = BTreeMap::new();
        // No job has more solutions than placements of one queen per row and column (N!):
        // the sums stay far from overflowing, whatever the units still to count add.
        let bound = store::max_solutions(file.identity.n);
        let mut sum = Some((0u128, 0u128));
        for (i, total, unique) in file.done {
            sum = sum
                .and_then(|(t, u)| Some((t.checked_add(total)?, u.checked_add(unique)?)))
                .filter(|&(t, u)| t <= bound && u <= bound);
            if sum.is_none() {
                return Err(corrupt(format!(
                    "the counts of the units up to unit {i} add up to more solutions than an \
                     N = {} board has placements",
                    file.identity.n
                )));
            }
            if i >= file.identity.units {
                return Err(corrupt(format!("unit {i} out of range")));
            }
            if done.insert(i, Counts { total, unique }).is_some() {
                return Err(corrupt(format!("unit {i} listed twice")));
            }
        }
        Ok(Checkpoint {
            identity: file.identity,
            shard: file.shard,
            done,
            elapsed: Duration::from_millis(file.elapsed_ms),
        })
    }

    /// Checks that the checkpoint read from `path` is of the job `identity` (and the same
    /// shard of it).
    pub fn check_job(
        &self,
        path: &Path,
        identity: &Identity,
        shard: Option<ShardSpec>,
    ) -> Result<(), StoreError> {
        let foreign = |reason| StoreError::Foreign {
            path: path.to_path_buf(),
            reason,
        };
        if let Some(diff) = identity.difference(&self.identity) {
            return Err(foreign(diff));
        }
        if shard != self.shard {
            let show =
                |s: Option<ShardSpec>| s.map_or("the whole job".to_string(), |s| s.to_string());
            return Err(foreign(format!(
                "it is for {} but this run computes {}",
                show(self.shard),
                show(shard)
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Job, Plan};
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

    #[test]
    fn round_trip() {
        let c = sample();
        let p = PathBuf::from("x");
        assert_eq!(Checkpoint::from_bytes(&p, &c.to_bytes()).unwrap(), c);
        assert_eq!(c.counts().total, 16);
        assert!(c.check_job(&p, &c.identity, None).is_ok());
        let other = Identity {
            n: 9,
            ..c.identity.clone()
        };
        assert!(matches!(
            c.check_job(&p, &other, None),
            Err(StoreError::Foreign { .. })
        ));
        let shard = Some("1/4".parse().unwrap());
        assert!(matches!(
            c.check_job(&p, &c.identity, shard),
            Err(StoreError::Foreign { .. })
        ));
    }

    /// Counts that no board has (their sum past N!, or past `u128::MAX`), sealed with a right
    /// checksum, are refused as corrupt, never summed into a panic (issue 28, item 10); a time
    /// too long for the file's milliseconds stays the longest, never wraps round (item 16).
    #[test]
    fn impossible_counts_are_refused_and_long_times_saturate() {
        let p = PathBuf::from("x");
        for (a, b) in [
            (u128::MAX, 1),
            (40320, 1),
            (u128::MAX / 2 + 1, u128::MAX / 2 + 1),
        ] {
            let mut c = sample();
            c.done.insert(
                0,
                Counts {
                    total: a,
                    unique: 0,
                },
            );
            c.done.insert(
                1,
                Counts {
                    total: b,
                    unique: 0,
                },
            );
            match Checkpoint::from_bytes(&p, &c.to_bytes()) {
                Err(StoreError::Corrupt { reason, .. }) => {
                    assert!(
                        reason.contains("more solutions than an N = 8 board"),
                        "{reason}"
                    )
                }
                other => panic!("{a} + {b}: {other:?}"),
            }
        }
        let mut c = sample();
        c.done.clear();
        c.done.insert(
            0,
            Counts {
                total: 40320,
                unique: 0,
            },
        );
        assert!(Checkpoint::from_bytes(&p, &c.to_bytes()).is_ok());
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
                    "flip of bit {bit} of byte {i} accepted"
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
