//! A shard's result file: the job, the shard, each of its units' counts and their sums, the
//! host and a random run id, sealed by a checksum. `nqueens merge` adds these files up and
//! `nqueens audit` recounts a sample of their units.

use super::envelope::{self, FileKind, MAX_UNITS};
use super::error::{Damage, StoreError};
use super::identity::Identity;
use super::records::{Claimed, RecordError, Records, Stated};
use super::spec::ShardSpec;
use crate::search::Counts;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The name of the format, the first field of every shard file.
pub const FORMAT: &str = FileKind::ShardResult.format();
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
    #[serde(deserialize_with = "envelope::capped")]
    pub units: Vec<u32>,
    /// Each unit's solutions, in the order of `units` (version 2; absent from version 1).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "envelope::capped_opt"
    )]
    pub unit_totals: Option<Vec<u128>>,
    /// Each unit's solutions distinct up to symmetry, in the order of `units`, when the job
    /// counts them (version 2).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "envelope::capped_opt"
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
    /// The estimated imbalance of the whole split (the largest shard's estimated cost over the
    /// mean, minus 1) in basis points (1/100 of a percent); an integer, so that the checksum
    /// survives reading and writing exactly.
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
            elapsed_ms: envelope::millis(elapsed),
            host: super::host::host_name(),
            run_id: Some(format!("{:016x}", crate::random::random_u64())),
            estimated_imbalance_bp: (estimated_imbalance * 1e4).round() as u64,
            checksum: String::new(),
            identity,
        };
        r.seal();
        r
    }

    /// Sets the checksum to that of the content (after the fields were changed).
    pub fn seal(&mut self) {
        envelope::seal(self, |r| &mut r.checksum);
    }

    /// The sums of the shard (a unique count that was not counted is 0 here).
    pub fn counts(&self) -> Counts {
        Counts {
            total: self.total,
            unique: self.unique.unwrap_or(0),
        }
    }

    /// The file's unit records, checked (the one check of [`Records`]).
    pub fn records(&self) -> Result<Records, RecordError> {
        Records::check(
            &self.identity,
            Claimed {
                units: &self.units,
                totals: self.unit_totals.as_deref(),
                uniques: self.unit_uniques.as_deref(),
                stated: Some(Stated {
                    total: self.total,
                    unique: self.unique,
                }),
                ascending: true,
            },
        )
    }

    /// Each unit's counts, by index (a unique count that was not counted is 0); `None` for a
    /// file of version 1, which keeps only the sums (or for records that do not check).
    pub fn unit_counts(&self) -> Option<BTreeMap<u32, Counts>> {
        self.records().ok()?.unit_counts()
    }

    /// The file content.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).expect("serializable");
        bytes.push(b'\n');
        bytes
    }

    /// Writes the result to `path`, atomically and durably.
    pub fn save(&self, path: &Path) -> Result<(), StoreError> {
        Ok(super::durable::write_atomic(path, &self.to_bytes())?)
    }

    /// Reads a shard file, checking its format, checksum and records.
    pub fn load(path: &Path) -> Result<ShardResult, StoreError> {
        ShardResult::from_bytes(path, &envelope::read(path)?)
    }

    /// Parses shard-file content read from `path`.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<ShardResult, StoreError> {
        let r: ShardResult =
            envelope::open(path, bytes, FileKind::ShardResult, |r: &mut ShardResult| {
                &mut r.checksum
            })?;
        r.check().map_err(|reason| StoreError::Corrupt {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(r)
    }

    /// What is inconsistent in the content: a file whose checksum matches was written so, and
    /// is refused all the same.
    fn check(&self) -> Result<(), Damage> {
        if self.format != FORMAT {
            return Err(Damage::Syntax {
                kind: FileKind::ShardResult,
                reason: format!("its format is '{}'", envelope::short(&self.format)),
            });
        }
        if self.shard.count > MAX_UNITS {
            return Err(Damage::TooManyShards(self.shard.count));
        }
        match self.format_version {
            1 if self.unit_totals.is_some()
                || self.unit_uniques.is_some()
                || self.run_id.is_some() =>
            {
                return Err(Damage::RecordsInVersion1)
            }
            1 => {}
            FORMAT_VERSION => {
                if !self.run_id.as_ref().is_some_and(|id| is_run_id(id)) {
                    return Err(Damage::RunId);
                }
                if self.unit_totals.is_none() {
                    return Err(RecordError::Missing(super::records::Which::Totals).into());
                }
            }
            found => {
                return Err(Damage::Version {
                    found,
                    reads: "1 and 2",
                })
            }
        }
        self.records()?;
        Ok(())
    }
}

/// Whether `id` is a run id as this program draws them: 16 lowercase hex digits.
fn is_run_id(id: &str) -> bool {
    id.len() == 16
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Job, Plan};
    use std::path::PathBuf;

    /// The counts of every unit of `plan`, by index.
    pub(crate) fn records(plan: &Plan) -> BTreeMap<u32, Counts> {
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
        let done = records(&plan);
        let r = ShardResult::new(id, ShardSpec::WHOLE, &done, Duration::from_millis(7), 0.123);
        assert_eq!(r.format_version, 2);
        assert_eq!(r.estimated_imbalance_bp, 1230);
        assert_eq!(
            r.counts(),
            Counts {
                total: 4,
                unique: 0
            }
        );
        assert_eq!(r.unit_counts().unwrap(), done);
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        r.save(&p).unwrap();
        assert_eq!(ShardResult::load(&p).unwrap(), r);
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
        for len in 0..bytes.len() - 1 {
            assert!(
                ShardResult::from_bytes(&p, &bytes[..len]).is_err(),
                "cut at {len}"
            );
        }
    }

    #[test]
    fn a_file_whose_records_are_wrong_is_refused_though_its_checksum_matches() {
        let plan = Plan::new(Job::new(8).unwrap().with_unique(true));
        let r = ShardResult::new(
            Identity::of(&plan),
            ShardSpec::WHOLE,
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
                    assert!(reason.to_string().contains(why), "{reason} lacks {why}")
                }
                other => panic!("{why}: {other:?}"),
            }
        };
        let units = r.identity.units;
        refused(&|b| b.unit_totals.as_mut().unwrap()[3] += 1, "add up to");
        refused(&|b| b.unit_uniques.as_mut().unwrap()[0] = 5, "add up to");
        refused(
            &|b| {
                b.unit_totals.as_mut().unwrap().pop();
            },
            "per-unit totals for",
        );
        refused(&|b| b.unit_totals = None, "per-unit totals are missing");
        refused(&|b| b.unit_uniques = None, "unique counts are missing");
        refused(&|b| b.unique = None, "unique counts are missing");
        refused(&|b| b.run_id = None, "run_id");
        refused(&|b| b.run_id = Some("0123456789ABCDEF".into()), "run_id");
        refused(&|b| b.units.swap(0, 1), "not ascending");
        refused(&|b| b.units[1] = b.units[0], "listed twice");
        refused(&|b| *b.units.last_mut().unwrap() = units, "out of range");
        refused(&|b| b.format_version = 3, "format version 3");
        refused(&|b| b.format_version = 1, "version 1");
        refused(&|b| b.format = "nqueens-shards".into(), "its format is");
        refused(
            &|b| {
                b.shard = ShardSpec {
                    index: 0,
                    count: MAX_UNITS + 1,
                }
            },
            "units",
        );
        refused(&|b| b.identity.units = u32::MAX, "more units than any job");
        // A file of version 1 has no per-unit records and no run ID: any one of them refuses it.
        refused(
            &|b| {
                (b.format_version, b.unit_totals, b.unit_uniques) = (1, None, None);
            },
            "version 1",
        );
        refused(
            &|b| {
                (b.format_version, b.unit_uniques, b.run_id) = (1, None, None);
            },
            "version 1",
        );
        refused(
            &|b| {
                (b.format_version, b.unit_totals, b.run_id) = (1, None, None);
            },
            "version 1",
        );
        // The most shards a job may have is allowed.
        let mut most = r.clone();
        most.shard = ShardSpec {
            index: 0,
            count: MAX_UNITS,
        };
        most.seal();
        if let Err(e) = ShardResult::from_bytes(&p, &most.to_bytes()) {
            assert!(!e.to_string().contains("shards"), "{e}");
        }
        // Changed consistently (the unit, the sum, the checksum), as a faulty machine would
        // write it: the file is accepted; only a recount, a replica or the published value can
        // tell.
        let mut forged = r.clone();
        forged.unit_totals.as_mut().unwrap()[3] += 1;
        forged.total += 1;
        forged.seal();
        assert!(ShardResult::from_bytes(&p, &forged.to_bytes()).is_ok());
    }

    #[test]
    fn a_job_without_unique_writes_none_and_older_files_with_zero_still_load() {
        let p = PathBuf::from("r.json");
        for unique in [false, true] {
            let plan = Plan::new(Job::new(8).unwrap().with_unique(unique));
            let r = ShardResult::new(
                Identity::of(&plan),
                ShardSpec::WHOLE,
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
        assert_eq!(r.records().unwrap().sum().total, 92);
    }
}
