//! The identity of a job, as every file names it, and the one comparison of a file's identity
//! with the job expected ([`Identity::expect`]) or with the job this program plans from it
//! ([`Identity::replan`]), under an explicit rule for program versions ([`Versions`]).
//!
//! An identity holds everything that decides a job's list of units and what each counts, so
//! counts are only ever added by unit index between files of one identity: a unit can be
//! neither lost nor counted twice.

use super::envelope::capped;
use super::error::Foreign;
use crate::plan::{Job, Plan, Queen, UNITS_VERSION};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The version of this program, stored in every file.
pub const PROGRAM_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything that decides a job's list of units and what each counts.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    /// Board size.
    pub n: u32,
    /// The method asked for.
    pub method: String,
    /// The method the plan actually uses (pre-placed queens may rule out symmetry).
    pub plan_method: String,
    /// Rows fixed by each unit.
    pub split_depth: u32,
    /// Pre-placed queens, 1-based `[row, column]`, sorted.
    #[serde(deserialize_with = "capped")]
    pub placed: Vec<[u32; 2]>,
    /// Whether solutions distinct up to symmetry are counted too.
    pub unique: bool,
    /// Number of units of the job.
    pub units: u32,
    /// Version of the unit enumeration (it changes whenever the units a job yields could change).
    pub units_version: u32,
    /// Version of the program that wrote the file.
    pub program_version: String,
}

/// Which program versions a comparison of identities accepts.
///
/// A file's counts are trusted whoever wrote them: a unit's index means the same unit in every
/// program of one unit enumeration ([`Identity::units_version`]), and a recount, a replica or
/// the published value checks the counts. What the program version decides is whether a file
/// is continued: a checkpoint is resumed only by the program that began it, so that one file
/// never mixes the counts of two builds under one version's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Versions {
    /// Only this program's version: resuming a checkpoint.
    ThisProgram,
    /// Any program of this unit enumeration: merging, auditing, replacing a result file.
    SameUnits,
}

/// One way a file's identity differs from the one expected: the field, and both values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The board size.
    N {
        /// Expected.
        ours: u32,
        /// In the file.
        file: u32,
    },
    /// The method asked for.
    Method {
        /// Expected.
        ours: String,
        /// In the file.
        file: String,
    },
    /// The split depth.
    SplitDepth {
        /// Expected.
        ours: u32,
        /// In the file.
        file: u32,
    },
    /// The pre-placed queens (1-based `[row, column]`).
    Placed {
        /// Expected.
        ours: Vec<[u32; 2]>,
        /// In the file.
        file: Vec<[u32; 2]>,
    },
    /// Whether unique solutions are counted: the file's flag.
    Unique {
        /// Whether the file counts them (and the run does not), or the reverse.
        file: bool,
    },
    /// The method the plan uses.
    PlanMethod {
        /// Expected.
        ours: String,
        /// In the file.
        file: String,
    },
    /// The number of units.
    Units {
        /// Expected.
        ours: u32,
        /// In the file.
        file: u32,
    },
    /// The unit enumeration's version.
    UnitsVersion {
        /// Expected.
        ours: u32,
        /// In the file.
        file: u32,
    },
    /// The program version.
    ProgramVersion {
        /// Expected.
        ours: String,
        /// In the file.
        file: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn both(
            f: &mut fmt::Formatter<'_>,
            what: &str,
            a: &dyn fmt::Debug,
            b: &dyn fmt::Debug,
        ) -> fmt::Result {
            let short = |x: &dyn fmt::Debug| super::envelope::short(&format!("{x:?}"));
            write!(
                f,
                "{what} is {} here but {} in the file",
                short(a),
                short(b)
            )
        }
        match self {
            Difference::N { ours, file } => both(f, "N", ours, file),
            Difference::Method { ours, file } => both(f, "the method", ours, file),
            Difference::SplitDepth { ours, file } => both(f, "the split depth", ours, file),
            Difference::Placed { ours, file } => {
                both(f, "the set of pre-placed queens", ours, file)
            }
            Difference::Unique { file: true } => {
                f.write_str("the file counts unique solutions and this run does not")
            }
            Difference::Unique { file: false } => {
                f.write_str("this run counts unique solutions and the file does not")
            }
            Difference::PlanMethod { ours, file } => both(f, "the method used", ours, file),
            Difference::Units { ours, file } => both(f, "the number of units", ours, file),
            Difference::UnitsVersion { ours, file } => both(f, "the unit version", ours, file),
            Difference::ProgramVersion { ours, file } => both(f, "the program version", ours, file),
        }
    }
}

impl Identity {
    /// The identity of the job `plan` runs.
    pub fn of(plan: &Plan) -> Identity {
        let job = plan.job();
        Identity {
            n: job.n(),
            method: job.method().to_string(),
            plan_method: plan.method().to_string(),
            split_depth: job.split_depth(),
            placed: job
                .placed()
                .iter()
                .map(|q| [q.row + 1, q.col + 1])
                .collect(),
            unique: job.unique(),
            units: plan.units().len() as u32,
            units_version: UNITS_VERSION,
            program_version: PROGRAM_VERSION.to_string(),
        }
    }

    /// Every way `file` (found in a file) differs from `self` (expected), in the order of the
    /// fields, the program version only under [`Versions::ThisProgram`]; empty when they are
    /// the same job.
    pub fn differences(&self, file: &Identity, versions: Versions) -> Vec<Difference> {
        let mut d = Vec::new();
        let mut differ = |same: bool, diff: &dyn Fn() -> Difference| {
            if !same {
                d.push(diff());
            }
        };
        differ(self.n == file.n, &|| Difference::N {
            ours: self.n,
            file: file.n,
        });
        differ(self.method == file.method, &|| Difference::Method {
            ours: self.method.clone(),
            file: file.method.clone(),
        });
        differ(self.split_depth == file.split_depth, &|| {
            Difference::SplitDepth {
                ours: self.split_depth,
                file: file.split_depth,
            }
        });
        differ(self.placed == file.placed, &|| Difference::Placed {
            ours: self.placed.clone(),
            file: file.placed.clone(),
        });
        differ(self.unique == file.unique, &|| Difference::Unique {
            file: file.unique,
        });
        differ(self.plan_method == file.plan_method, &|| {
            Difference::PlanMethod {
                ours: self.plan_method.clone(),
                file: file.plan_method.clone(),
            }
        });
        differ(self.units == file.units, &|| Difference::Units {
            ours: self.units,
            file: file.units,
        });
        differ(self.units_version == file.units_version, &|| {
            Difference::UnitsVersion {
                ours: self.units_version,
                file: file.units_version,
            }
        });
        let same_program =
            versions == Versions::SameUnits || self.program_version == file.program_version;
        differ(same_program, &|| Difference::ProgramVersion {
            ours: self.program_version.clone(),
            file: file.program_version.clone(),
        });
        d
    }

    /// Refuses `file` (an identity read from a file) unless it is this job under `versions`:
    /// the one comparison of a file's identity with the job expected.
    pub fn expect(&self, file: &Identity, versions: Versions) -> Result<(), Foreign> {
        let d = self.differences(file, versions);
        if d.is_empty() {
            Ok(())
        } else {
            Err(Foreign::Identity(d))
        }
    }

    /// The plan of the job this identity names, built again from it (as a file's units are
    /// recounted or checked by their index in it), refused unless this program plans such a
    /// job to this very identity under `versions` ([`Identity::expect`]).
    pub fn replan(&self, versions: Versions) -> Result<Plan, Foreign> {
        let plan = Plan::new(self.job()?);
        let mut ours = Identity::of(&plan);
        if versions == Versions::SameUnits {
            ours.program_version.clone_from(&self.program_version);
        }
        match ours.expect(self, versions) {
            Ok(()) => Ok(plan),
            Err(Foreign::Identity(d)) => Err(Foreign::Unplannable(
                d.first().map(ToString::to_string).unwrap_or_default(),
            )),
            Err(e) => Err(e),
        }
    }

    /// The job this identity names, refused when no job of this program has it: a board,
    /// method, split depth or pre-placed queens it refuses.
    fn job(&self) -> Result<Job, Foreign> {
        let refuse = |why: String| Foreign::Unplannable(why);
        if self.placed.len() > crate::search::MAX_N as usize {
            return Err(refuse(format!(
                "{} pre-placed queens, more than any board has rows",
                self.placed.len()
            )));
        }
        let placed: Vec<Queen> = self
            .placed
            .iter()
            .map(|&[r, c]| Queen::one_based(r, c))
            .collect::<Option<_>>()
            .ok_or_else(|| refuse("a pre-placed queen at row or column 0".into()))?;
        let method = self
            .method
            .parse()
            .map_err(|e| refuse(super::envelope::short(&format!("{e}"))))?;
        Job::new(self.n)
            .and_then(|j| {
                j.with_method(method)
                    .with_unique(self.unique)
                    .with_placed(&placed)?
                    .with_split_depth(self.split_depth)
            })
            .map_err(|e| refuse(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change to an identity.
    type Edit = fn(&mut Identity);

    fn id(n: u32, depth: u32) -> Identity {
        Identity::of(&Plan::new(
            Job::new(n).unwrap().with_split_depth(depth).unwrap(),
        ))
    }

    #[test]
    fn every_field_of_an_identity_is_compared_and_named() {
        let a = id(8, 2);
        assert_eq!(a.differences(&a, Versions::ThisProgram), vec![]);
        let b = id(8, 3);
        let d = a.differences(&b, Versions::ThisProgram);
        assert_eq!(d[0], Difference::SplitDepth { ours: 2, file: 3 });
        assert_eq!(
            d[0].to_string(),
            "the split depth is 2 here but 3 in the file"
        );
        let edits: [(Edit, &str); 9] = [
            (|i| i.n = 9, "N is 8 here but 9"),
            (|i| i.method = "plain".into(), "the method is"),
            (|i| i.split_depth = 1, "the split depth"),
            (|i| i.placed = vec![[1, 1]], "pre-placed queens"),
            (|i| i.unique = true, "the file counts unique solutions"),
            (|i| i.plan_method = "plain".into(), "the method used"),
            (|i| i.units += 1, "the number of units"),
            (|i| i.units_version += 1, "the unit version"),
            (
                |i| i.program_version = "0.0.1".into(),
                "the program version",
            ),
        ];
        for (edit, words) in edits {
            let mut f = a.clone();
            edit(&mut f);
            let d = a.differences(&f, Versions::ThisProgram);
            assert_eq!(d.len(), 1, "{words}: {d:?}");
            assert!(d[0].to_string().contains(words), "{}", d[0]);
            assert!(a.expect(&f, Versions::ThisProgram).is_err());
            // Only the program version is let through across versions.
            let across = a.differences(&f, Versions::SameUnits);
            assert_eq!(across.is_empty(), words == "the program version", "{words}");
        }
        let mut f = a.clone();
        f.unique = true;
        let mut g = f.clone();
        g.unique = false;
        assert_eq!(
            f.differences(&g, Versions::SameUnits)[0].to_string(),
            "this run counts unique solutions and the file does not"
        );
    }

    /// Placed queens are named 1-based, sorted, as people write them.
    #[test]
    fn placed_queens_are_named_one_based() {
        let queens = [
            Queen::one_based(7, 2).unwrap(),
            Queen::one_based(1, 3).unwrap(),
        ];
        let job = Job::new(8).unwrap().with_placed(&queens).unwrap();
        let id = Identity::of(&Plan::new(job));
        assert_eq!(id.placed, vec![[1, 3], [7, 2]]);
        assert_eq!(Identity::of(&id.replan(Versions::ThisProgram).unwrap()), id);
    }

    /// As many placed queens as the largest board has rows (a whole solution of N = 32) is a
    /// job like any other.
    #[test]
    fn a_whole_board_of_placed_queens_is_replanned() {
        let n = crate::search::MAX_N;
        let columns: Vec<u32> = crate::solutions::construct(n).unwrap().unwrap().collect();
        let queens: Vec<Queen> = (1..=n)
            .zip(columns)
            .map(|(r, c)| Queen::one_based(r, c).unwrap())
            .collect();
        let job = Job::new(n).unwrap().with_placed(&queens).unwrap();
        let id = Identity::of(&Plan::new(job));
        assert_eq!(id.placed.len(), n as usize);
        assert_eq!(Identity::of(&id.replan(Versions::ThisProgram).unwrap()), id);
    }

    #[test]
    fn a_file_is_replanned_to_its_very_identity_or_refused() {
        let a = id(10, 2);
        assert_eq!(Identity::of(&a.replan(Versions::ThisProgram).unwrap()), a);
        let mut old = a.clone();
        old.program_version = "0.0.1".into();
        assert!(old.replan(Versions::SameUnits).is_ok());
        assert!(matches!(
            old.replan(Versions::ThisProgram),
            Err(Foreign::Unplannable(_))
        ));
        let refused: [(Edit, &str); 6] = [
            (|i| i.n = 0, "N must be"),
            (|i| i.method = "fast".into(), "unknown method"),
            (|i| i.split_depth = 11, "split depth"),
            (|i| i.placed = vec![[0, 1]], "row or column 0"),
            (|i| i.placed = vec![[1, 1]; 40], "more than any board"),
            (|i| i.units += 1, "the number of units"),
        ];
        for (edit, words) in refused {
            let mut f = a.clone();
            edit(&mut f);
            let e = f.replan(Versions::SameUnits).unwrap_err();
            assert!(e.to_string().contains(words), "{words}: {e}");
        }
        // As many placed queens as the largest board has rows pass the count check (and are
        // refused here for another reason: they are not a placement of this board).
        let mut f = a.clone();
        f.placed = vec![[1, 1]; crate::search::MAX_N as usize];
        let e = f.replan(Versions::SameUnits).unwrap_err();
        assert!(!e.to_string().contains("more than any board"), "{e}");
    }
}
