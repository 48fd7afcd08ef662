//! The one check of a file's unit records: each unit's index in range and listed once, its
//! counts within what the board allows, a unique count exactly where the job counts them,
//! adding up to the sums the file states ([`Records::check`]); and, against a plan, inside the
//! units assigned to the file's shard, or every one of them ([`Records::check_assigned`]).
//!
//! Checkpoint resume, result-file loading, merge and audit all build their records here, so a
//! rule is enforced the same way on every path that can announce a count.

use super::envelope::MAX_UNITS;
use super::identity::Identity;
use super::spec::ShardSpec;
use crate::search::Counts;
use std::collections::BTreeMap;
use thiserror::Error;

/// What is wrong with a file's unit records.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
    /// A unit index the job does not have.
    #[error("unit {unit} out of range (the job has {units} units)")]
    OutOfRange {
        /// The index.
        unit: u32,
        /// The job's units.
        units: u32,
    },
    /// A job of more units than any job has (see [`MAX_UNITS`]).
    #[error("{0} units, more units than any job has")]
    TooManyUnits(u32),
    /// A unit listed twice.
    #[error("unit {0} listed twice")]
    Twice(u32),
    /// Units out of the ascending order a result file keeps.
    #[error("the units are not ascending ({before} before {after})")]
    NotAscending {
        /// The earlier.
        before: u32,
        /// The later.
        after: u32,
    },
    /// A list of per-unit counts of another length than the list of units.
    #[error("{found} per-unit {what} for {units} units")]
    Length {
        /// Which counts.
        what: Which,
        /// How many.
        found: usize,
        /// The units.
        units: usize,
    },
    /// The per-unit counts a job needs are missing.
    #[error("the per-unit {0} are missing")]
    Missing(Which),
    /// Unique counts in the records of a job that does not count them.
    #[error("unique counts (unit {unit}: {count}) for a job that does not count them")]
    UniqueNotCounted {
        /// The first unit with one.
        unit: u32,
        /// Its unique count.
        count: u128,
    },
    /// A stated unique sum in a file of a job that does not count them.
    #[error("a unique count ({0}) for a job that does not count it")]
    StatedUnique(u128),
    /// More solutions than the board has placements of one queen per row and column.
    #[error("the counts add up to more solutions than an N = {n} board has placements")]
    Impossible {
        /// The board.
        n: u32,
    },
    /// The per-unit counts do not add up to the sum the file states.
    #[error("the per-unit {what} add up to {found}, not to the stated {stated}")]
    Sum {
        /// Which counts.
        what: Which,
        /// Their sum.
        found: u128,
        /// The stated sum.
        stated: u128,
    },
    /// A unit that is not one of the shard's.
    #[error("unit {unit} is not one of the units of {}", shard_words(*shard))]
    NotAssigned {
        /// The unit.
        unit: u32,
        /// The shard (`None`: the whole job).
        shard: Option<ShardSpec>,
    },
    /// One of the shard's units missing from a file that must hold them all.
    #[error("unit {unit} of {} is missing", shard_words(*shard))]
    Unlisted {
        /// The unit.
        unit: u32,
        /// The shard (`None`: the whole job).
        shard: Option<ShardSpec>,
    },
}

fn shard_words(shard: Option<ShardSpec>) -> String {
    shard.map_or("the job".to_string(), |s| format!("shard {s}"))
}

/// Which of a unit's counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// The solutions.
    Totals,
    /// The solutions distinct up to symmetry.
    Uniques,
}

impl std::fmt::Display for Which {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Which::Totals => "totals",
            Which::Uniques => "unique counts",
        })
    }
}

/// What a file says of its units, before it is checked.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Claimed<'a> {
    /// The units' indices, in the file's order.
    pub units: &'a [u32],
    /// Each unit's solutions (`None`: a result file of format version 1, which keeps sums
    /// only).
    pub totals: Option<&'a [u128]>,
    /// Each unit's unique counts, where the file keeps them.
    pub uniques: Option<&'a [u128]>,
    /// The sums the file states (result files), checked against the units' counts.
    pub stated: Option<Stated>,
    /// Whether the units must be ascending (result files).
    pub ascending: bool,
}

/// The sums a result file states: its solutions, and its unique count where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stated {
    /// The solutions.
    pub total: u128,
    /// The unique count, where the file has one.
    pub unique: Option<u128>,
}

/// A file's unit records, checked (by the one check of this module): the units, ascending, each with its
/// counts when the file keeps them, and their sum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Records {
    units: Vec<u32>,
    /// Each unit's counts, in the order of `units` (`None` for a file that keeps sums only).
    counts: Option<Vec<Counts>>,
    sum: Counts,
}

impl Records {
    /// The units, ascending.
    pub fn units(&self) -> &[u32] {
        &self.units
    }

    /// Each unit's counts, by index (a unique count not counted is 0); `None` for a result file
    /// of format version 1, which keeps only the sums.
    pub fn unit_counts(&self) -> Option<BTreeMap<u32, Counts>> {
        let counts = self.counts.as_ref()?;
        Some(
            self.units
                .iter()
                .copied()
                .zip(counts.iter().copied())
                .collect(),
        )
    }

    /// The counts of the `k`-th unit of [`Records::units`], where the file keeps them.
    pub fn get(&self, k: usize) -> Option<Counts> {
        self.counts.as_ref()?.get(k).copied()
    }

    /// Whether the file keeps each unit's counts.
    pub fn per_unit(&self) -> bool {
        self.counts.is_some()
    }

    /// The sum over the units.
    pub fn sum(&self) -> Counts {
        self.sum
    }

    /// Checks what a file of the job `identity` claims: every unit in range and listed once
    /// (ascending where `ascending` is asked), per-unit counts as long as the units and
    /// unique ones exactly where the job counts them (0 allowed where it does not: checkpoints
    /// write 0), no sum above the board's `N!` placements, and the per-unit counts adding up to
    /// the sums stated.
    pub(crate) fn check(identity: &Identity, c: Claimed<'_>) -> Result<Records, RecordError> {
        if identity.units > MAX_UNITS {
            return Err(RecordError::TooManyUnits(identity.units));
        }
        check_indices(identity.units, c.units, c.ascending)?;
        let totals = c
            .totals
            .map(|t| sized(t, Which::Totals, c.units.len()))
            .transpose()?;
        let uniques = match (identity.unique, c.uniques) {
            (_, Some(u)) => Some(sized(u, Which::Uniques, c.units.len())?),
            (true, None) if totals.is_some() => return Err(RecordError::Missing(Which::Uniques)),
            _ => None,
        };
        if !identity.unique {
            if let Some((k, &count)) = uniques
                .iter()
                .flat_map(|u| u.iter().enumerate())
                .find(|(_, &u)| u != 0)
            {
                return Err(RecordError::UniqueNotCounted {
                    unit: c.units[k],
                    count,
                });
            }
        }
        let counts = totals.map(|t| {
            (0..t.len())
                .map(|k| Counts {
                    total: t[k],
                    unique: uniques.map_or(0, |u| u[k]),
                })
                .collect::<Vec<_>>()
        });
        let stated = c.stated.map(|s| stated(identity.unique, s)).transpose()?;
        let sum = match (&counts, stated) {
            (Some(list), stated) => {
                let sum = add(identity.n, list)?;
                if let Some(stated) = stated {
                    check_sum(Which::Totals, sum.total, stated.total)?;
                    check_sum(Which::Uniques, sum.unique, stated.unique)?;
                }
                sum
            }
            (None, Some(stated)) => add(identity.n, &[stated])?,
            (None, None) => return Err(RecordError::Missing(Which::Totals)),
        };
        let mut order: Vec<usize> = (0..c.units.len()).collect();
        order.sort_unstable_by_key(|&k| c.units[k]);
        Ok(Records {
            units: order.iter().map(|&k| c.units[k]).collect(),
            counts: counts.map(|list| order.iter().map(|&k| list[k]).collect()),
            sum,
        })
    }

    /// Refuses records of the shard `shard` (`None`: the whole job) holding a unit outside
    /// `assigned` (the shard's units by this program's assignment, ascending), or, where
    /// `whole` is asked (a finished result), missing one of them.
    pub(crate) fn check_assigned(
        &self,
        assigned: &[u32],
        shard: Option<ShardSpec>,
        whole: bool,
    ) -> Result<(), RecordError> {
        if let Some(&unit) = self
            .units
            .iter()
            .find(|u| assigned.binary_search(u).is_err())
        {
            return Err(RecordError::NotAssigned { unit, shard });
        }
        if whole {
            if let Some(&unit) = assigned
                .iter()
                .find(|u| self.units.binary_search(u).is_err())
            {
                return Err(RecordError::Unlisted { unit, shard });
            }
        }
        Ok(())
    }
}

/// The stated sums as counts: a unique sum exactly where the job counts them (0 allowed
/// where it does not: files of earlier versions wrote it).
fn stated(unique: bool, s: Stated) -> Result<Counts, RecordError> {
    match (unique, s.unique) {
        (true, None) => Err(RecordError::Missing(Which::Uniques)),
        (false, Some(count)) if count != 0 => Err(RecordError::StatedUnique(count)),
        (_, u) => Ok(Counts {
            total: s.total,
            unique: u.unwrap_or(0),
        }),
    }
}

/// Refuses an index out of `0..units`, one listed twice, and (when `ascending`) one out of
/// order.
fn check_indices(units: u32, list: &[u32], ascending: bool) -> Result<(), RecordError> {
    if let Some(&unit) = list.iter().find(|&&u| u >= units) {
        return Err(RecordError::OutOfRange { unit, units });
    }
    if ascending {
        if let Some(w) = list.windows(2).find(|w| w[0] >= w[1]) {
            return Err(if w[0] == w[1] {
                RecordError::Twice(w[0])
            } else {
                RecordError::NotAscending {
                    before: w[0],
                    after: w[1],
                }
            });
        }
        return Ok(());
    }
    let mut seen = vec![false; units as usize];
    for &u in list {
        if std::mem::replace(&mut seen[u as usize], true) {
            return Err(RecordError::Twice(u));
        }
    }
    Ok(())
}

/// `list`, refused unless it has `units` entries.
fn sized(list: &[u128], what: Which, units: usize) -> Result<&[u128], RecordError> {
    if list.len() == units {
        Ok(list)
    } else {
        Err(RecordError::Length {
            what,
            found: list.len(),
            units,
        })
    }
}

/// The sum of `counts`, refused when it passes the `n!` placements of an `n`×`n` board (which
/// also keeps every later sum far from overflowing).
fn add(n: u32, counts: &[Counts]) -> Result<Counts, RecordError> {
    let bound = max_solutions(n);
    let mut sum = Counts::default();
    for c in counts {
        sum = Counts {
            total: sum.total.saturating_add(c.total),
            unique: sum.unique.saturating_add(c.unique),
        };
        if sum.total > bound || sum.unique > bound {
            return Err(RecordError::Impossible { n });
        }
    }
    Ok(sum)
}

fn check_sum(what: Which, found: u128, stated: u128) -> Result<(), RecordError> {
    if found == stated {
        Ok(())
    } else {
        Err(RecordError::Sum {
            what,
            found,
            stated,
        })
    }
}

/// More solutions than any job on an `n`×`n` board has: its placements of one queen in each
/// row and column, `n!` (for `n` up to 34 it fits in `u128`; beyond, `u128::MAX`).
pub(crate) fn max_solutions(n: u32) -> u128 {
    (1..=u128::from(n))
        .try_fold(1u128, u128::checked_mul)
        .unwrap_or(u128::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Job, Plan};

    fn identity(unique: bool) -> Identity {
        let job = Job::new(8).unwrap().with_split_depth(2).unwrap();
        Identity::of(&Plan::new(job.with_unique(unique)))
    }

    fn claimed<'a>(
        units: &'a [u32],
        totals: &'a [u128],
        uniques: Option<&'a [u128]>,
    ) -> Claimed<'a> {
        Claimed {
            units,
            totals: Some(totals),
            uniques,
            stated: None,
            ascending: false,
        }
    }

    #[test]
    fn good_records_pass_and_are_kept_ascending() {
        let id = identity(true);
        let r = Records::check(&id, claimed(&[5, 0, 3], &[4, 2, 6], Some(&[1, 1, 1]))).unwrap();
        assert_eq!(r.units(), &[0, 3, 5]);
        assert_eq!(
            r.get(0),
            Some(Counts {
                total: 2,
                unique: 1
            })
        );
        assert_eq!(
            r.sum(),
            Counts {
                total: 12,
                unique: 3
            }
        );
        let mut c = claimed(&[0, 3, 5], &[2, 6, 4], Some(&[1, 1, 1]));
        c.stated = Some(Stated {
            total: 12,
            unique: Some(3),
        });
        c.ascending = true;
        assert!(Records::check(&id, c).is_ok());
        // A job without unique counts: none, or zeros as checkpoints write them.
        let plain = identity(false);
        assert!(Records::check(&plain, claimed(&[1], &[3], None)).is_ok());
        assert!(Records::check(&plain, claimed(&[1], &[3], Some(&[0]))).is_ok());
        // The last unit, and sums up to N! exactly.
        let last = id.units - 1;
        assert!(Records::check(&plain, claimed(&[last], &[40320], None)).is_ok());
        // Sums alone (a result file of format version 1).
        let v1 = Claimed {
            units: &[0, 1],
            totals: None,
            uniques: None,
            stated: Some(Stated {
                total: 5,
                unique: Some(0),
            }),
            ascending: true,
        };
        let r = Records::check(&plain, v1).unwrap();
        assert_eq!(
            (r.per_unit(), r.sum().total, r.unit_counts()),
            (false, 5, None)
        );
    }

    #[test]
    fn each_way_to_break_the_records_is_refused() {
        let id = identity(true);
        let plain = identity(false);
        let units = id.units;
        let refused = |id: &Identity, c: Claimed<'_>, want: RecordError| {
            assert_eq!(Records::check(id, c), Err(want.clone()), "{want}");
        };
        refused(
            &id,
            claimed(&[units], &[1], Some(&[1])),
            RecordError::OutOfRange { unit: units, units },
        );
        refused(
            &id,
            claimed(&[2, 1, 2], &[1, 1, 1], Some(&[1, 1, 1])),
            RecordError::Twice(2),
        );
        let mut asc = claimed(&[1, 1], &[1, 1], Some(&[1, 1]));
        asc.ascending = true;
        refused(&id, asc, RecordError::Twice(1));
        asc.units = &[2, 1];
        refused(
            &id,
            asc,
            RecordError::NotAscending {
                before: 2,
                after: 1,
            },
        );
        refused(
            &id,
            claimed(&[1, 2], &[1], Some(&[1, 1])),
            RecordError::Length {
                what: Which::Totals,
                found: 1,
                units: 2,
            },
        );
        refused(
            &id,
            claimed(&[1, 2], &[1, 1], Some(&[1])),
            RecordError::Length {
                what: Which::Uniques,
                found: 1,
                units: 2,
            },
        );
        refused(
            &id,
            claimed(&[1], &[1], None),
            RecordError::Missing(Which::Uniques),
        );
        refused(
            &plain,
            claimed(&[1, 4], &[1, 1], Some(&[0, 2])),
            RecordError::UniqueNotCounted { unit: 4, count: 2 },
        );
        refused(
            &plain,
            claimed(&[1, 2], &[40320, 1], None),
            RecordError::Impossible { n: 8 },
        );
        refused(
            &plain,
            claimed(&[1, 2], &[u128::MAX, u128::MAX], None),
            RecordError::Impossible { n: 8 },
        );
        refused(
            &id,
            claimed(&[1], &[1], Some(&[40321])),
            RecordError::Impossible { n: 8 },
        );
        let mut off = claimed(&[1, 2], &[3, 4], Some(&[1, 1]));
        off.stated = Some(Stated {
            total: 8,
            unique: Some(2),
        });
        refused(
            &id,
            off,
            RecordError::Sum {
                what: Which::Totals,
                found: 7,
                stated: 8,
            },
        );
        off.stated = Some(Stated {
            total: 7,
            unique: Some(3),
        });
        refused(
            &id,
            off,
            RecordError::Sum {
                what: Which::Uniques,
                found: 2,
                stated: 3,
            },
        );
        off.stated = Some(Stated {
            total: 7,
            unique: None,
        });
        refused(&id, off, RecordError::Missing(Which::Uniques));
        let mut zero = claimed(&[1], &[3], None);
        zero.stated = Some(Stated {
            total: 3,
            unique: Some(1),
        });
        refused(&plain, zero, RecordError::StatedUnique(1));
        let none = Claimed {
            units: &[],
            totals: None,
            uniques: None,
            stated: None,
            ascending: false,
        };
        refused(&id, none, RecordError::Missing(Which::Totals));
    }

    #[test]
    fn records_stay_inside_their_shard_and_a_result_holds_all_of_it() {
        let id = identity(false);
        let r = Records::check(&id, claimed(&[1, 4], &[1, 1], None)).unwrap();
        let shard = Some(ShardSpec { index: 1, count: 2 });
        assert_eq!(r.check_assigned(&[1, 4, 6], shard, false), Ok(()));
        assert_eq!(r.check_assigned(&[1, 4], shard, true), Ok(()));
        assert_eq!(
            r.check_assigned(&[1, 4, 6], shard, true),
            Err(RecordError::Unlisted { unit: 6, shard })
        );
        assert_eq!(
            r.check_assigned(&[1, 3, 6], shard, false),
            Err(RecordError::NotAssigned { unit: 4, shard })
        );
        assert_eq!(
            r.check_assigned(&[0, 1, 6], None, false)
                .unwrap_err()
                .to_string(),
            "unit 4 is not one of the units of the job"
        );
    }

    /// A job of the most units any job has is one; one more is not.
    #[test]
    fn the_most_units_are_allowed_and_no_more() {
        let mut id = identity(false);
        id.units = MAX_UNITS;
        let last = MAX_UNITS - 1;
        assert!(Records::check(&id, claimed(&[0, last], &[1, 1], None)).is_ok());
        id.units = MAX_UNITS + 1;
        assert_eq!(
            Records::check(&id, claimed(&[0], &[1], None)),
            Err(RecordError::TooManyUnits(MAX_UNITS + 1))
        );
    }

    #[test]
    fn the_bound_is_n_factorial() {
        assert_eq!(max_solutions(8), 40320);
        assert_eq!(max_solutions(1), 1);
        assert_eq!(max_solutions(40), u128::MAX);
    }
}
