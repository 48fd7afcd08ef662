//! The counting methods behind one trait: what each does with the symmetries of the square.
//!
//! A method is a module of `search/` ([`super::plain`], [`super::mirror`], [`super::d4`],
//! [`super::edge`]) with a type implementing two traits. [`Search`]: its units, how a unit is
//! counted (whole, or as a counted part any kernel or device may take plus classified parts),
//! its nodes, and which symmetry pre-placed queens must keep for it to apply. [`Costing`]: each
//! unit's cost estimate, its CPU time against edge, its shards' split depth, its unit order in
//! long runs. Everything above `search/` asks [`Method::search`] or [`Method::costing`], from
//! one dispatch; a new method is a new module, a variant here and one arm in that dispatch.

use super::dfs::{unconstrained, MAX_N};
use super::symmetry::Symmetry;
use super::{ClassifiedPart, CountedPart, Counts, Runner, Unit};
use crate::names::named_enum;

named_enum! {
    /// How the search uses the symmetries of the square.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Method as "method" {
        /// No symmetry: every solution is searched. For checking the others.
        Plain = "plain", "no symmetry: every solution searched (for checking)";
        /// Mirror halving: a placement and its left–right mirror image have equally many
        /// completions, so only one of each pair is searched and its count doubled.
        Mirror = "mirror", "halves the search by left-right symmetry";
        /// All eight symmetries of the square: only the canonical member of each class of
        /// equivalent solutions is searched, weighted by the size of its class, which gives the
        /// total and the unique count in one pass (see `docs/ALGORITHM.md`).
        D4 = "d4", "all 8 symmetries, top down";
        /// The four edge queens first: one placement of the queens of the first and last rows
        /// and columns per class of such placements, then the inner rows with the rows that
        /// already hold a queen skipped. Total and unique counts in one pass (see
        /// `docs/ALGORITHM.md`). The fastest, and the default.
        #[default]
        Edge = "edge", "the four edge queens first, one search per class of them; total and unique in one pass; the fastest";
    }
}

impl Method {
    /// The method of the serial solver (`bench::serial_count`: the two halves of the first row,
    /// one depth-first search each), what a like-for-like scaling curve compares with.
    pub const SERIAL: Method = Method::Mirror;

    /// What the method does: the one dispatch from a method to its module.
    pub(crate) fn search(self) -> &'static dyn Search {
        self.module()
    }

    /// What the method's work costs ([`Costing`]), from the same module.
    pub(crate) fn costing(self) -> &'static dyn Costing {
        self.module()
    }

    /// The module of the method: the one dispatch, whose type is both its [`Search`] and its
    /// [`Costing`].
    fn module(self) -> &'static dyn Module {
        match self {
            Method::Plain => &super::plain::Plain,
            Method::Mirror => &super::mirror::Mirror,
            Method::D4 => &super::d4::D4,
            Method::Edge => &super::edge::Edge,
        }
    }

    /// The method that counts a board whose pre-placed queens (0-based `(row, col)`) may break
    /// this one's symmetry: this one, or the first of its fall-backs whose symmetry they keep
    /// (d4 and edge fall back to mirror, mirror to plain).
    pub(crate) fn for_placement(self, n: u32, placed: &[(u32, u32)]) -> Method {
        let mut method = self;
        while !method.search().needs().holds(n, placed) {
            method = method.search().fallback();
        }
        method
    }
}

/// A board as a method sees it: its size, the squares each row may use (all of them, or those
/// pre-placed queens leave), and whether unique counts are wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Board {
    /// Board size.
    pub n: u32,
    /// The squares each row may use.
    pub rows: [u32; MAX_N as usize],
    /// Whether solutions distinct up to symmetry are counted too.
    pub unique: bool,
}

impl Board {
    /// An `n` board with every square allowed.
    #[cfg(test)]
    pub fn free(n: u32, unique: bool) -> Board {
        Board {
            n,
            rows: unconstrained(n),
            unique,
        }
    }

    /// An `n` board whose rows allow `rows` (`None`: every square).
    pub fn new(n: u32, rows: Option<&[u32; MAX_N as usize]>, unique: bool) -> Board {
        Board {
            n,
            rows: rows.copied().unwrap_or_else(|| unconstrained(n)),
            unique,
        }
    }
}

/// The symmetry that pre-placed queens must keep for a method to count exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SymmetryNeeded {
    /// Any placement: no symmetry is used.
    Nothing,
    /// The placement is its own left–right mirror image.
    Mirror,
    /// The placement is its own image under all eight symmetries, on a board of N > 1.
    AllEight,
}

impl SymmetryNeeded {
    /// Whether the queens `placed` (0-based `(row, col)`) on an `n` board keep this symmetry.
    pub fn holds(self, n: u32, placed: &[(u32, u32)]) -> bool {
        let maps_to_itself = |g: &dyn Fn(u32, u32) -> (u32, u32)| {
            placed.iter().all(|&(r, c)| placed.contains(&g(r, c)))
        };
        match self {
            SymmetryNeeded::Nothing => true,
            SymmetryNeeded::Mirror => maps_to_itself(&|r, c| (r, n - 1 - c)),
            SymmetryNeeded::AllEight => {
                n > 1
                    && Symmetry::ALL.iter().all(|g| {
                        maps_to_itself(&|r, c| {
                            let (r, c) = g.map_square(n as usize, r as usize, c as usize);
                            (r as u32, c as u32)
                        })
                    })
            }
        }
    }
}

/// A method's module: its search and its costing, by one type.
trait Module: Search + Costing {}

impl<T: Search + Costing> Module for T {}

/// How a method searches: its units and how each is counted. Counts are exact whatever the
/// kernel; `unique` counts are those of the board's classes when `board.unique` (callers report
/// 0 otherwise).
pub(crate) trait Search: Sync {
    /// The symmetry pre-placed queens must keep for this method ([`Method::for_placement`]).
    fn needs(&self) -> SymmetryNeeded;

    /// The method to use when the placement breaks [`Search::needs`].
    fn fallback(&self) -> Method;

    /// The work units of `board` split at `depth` (1 to 4), in index order: deterministic, so
    /// that checkpoints and shards can name units by index.
    fn units(&self, board: &Board, depth: u32) -> Vec<Unit>;

    /// The counts of one unit on `run`'s kernel.
    fn count(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        let mut counts = self.count_remainder(board, unit, run);
        if let Some(part) = self.counted_part(board, unit) {
            counts += part.counts(part.count_on(run, board.n));
        }
        counts
    }

    /// The part of a unit counted without looking at solutions, if any: what any kernel or an
    /// OpenCL device can take. The unit's counts are this part's plus [`Search::count_remainder`].
    fn counted_part(&self, board: &Board, unit: &Unit) -> Option<CountedPart>;

    /// The parts of a unit whose solutions are classified one by one (a device can take them).
    #[cfg_attr(not(feature = "opencl"), allow(dead_code))]
    fn classified_parts(&self, board: &Board, unit: &Unit) -> Vec<ClassifiedPart>;

    /// Whether a unit leaves work that only the CPU does, beyond its counted and classified
    /// parts (see [`Search::count_remainder`]).
    #[cfg_attr(not(feature = "opencl"), allow(dead_code))]
    fn has_cpu_only_work(&self, board: &Board, unit: &Unit) -> bool;

    /// The counts of a unit outside its counted part: its classified parts and whatever only
    /// the CPU does.
    fn count_remainder(&self, board: &Board, unit: &Unit, run: Runner) -> Counts;

    /// The nodes (queens placed below the prefix) the search of a unit visits.
    fn nodes(&self, board: &Board, unit: &Unit) -> u64;
}

/// What a method's work costs, for planning: each unit's estimated time, the CPU time of a whole
/// count, how shards split it, the order of a long run's units. Deterministic, so that shards on
/// different machines plan alike.
pub(crate) trait Costing: Sync {
    /// An estimate proportional to the time a unit takes, cheap and deterministic (exact IEEE
    /// operations in a fixed order: shards on different machines must agree). `horizon`: rows
    /// below the prefix searched exactly, for methods whose estimate looks ahead.
    fn estimate(&self, board: &Board, unit: &Unit, horizon: u32) -> f64;

    /// The class of a unit for learning how its estimate relates to its real time: units of
    /// one class are estimated alike.
    fn cost_class(&self, unit: &Unit) -> u32 {
        u32::from(unit.prefix[0])
    }

    /// The CPU time of a whole count against the default method's (edge, total and unique in
    /// one pass) on the same board and kernel (`docs/PERFORMANCE.md`).
    fn cpu_time_factor(&self, unique: bool) -> f64;

    /// The split depth of a job split into `shards` shards, when none is given: it depends on
    /// the shard count only, never on the machine, so that every shard splits alike.
    fn shard_depth(&self, shards: u32) -> u32 {
        if shards > 64 {
            4
        } else {
            3
        }
    }

    /// Whether long runs take the units in a fixed scrambled order rather than largest
    /// estimate first (units of nearly equal cost: the ETA then learns from a fair sample).
    fn scrambled_order(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_errors_list_them() {
        for m in Method::ALL {
            assert_eq!(m.name().parse::<Method>().unwrap(), m);
        }
        assert_eq!(Method::default(), Method::Edge);
        let err = "d5".parse::<Method>().unwrap_err().to_string();
        assert!(err.contains("expected d4, edge, mirror or plain"), "{err}");
    }

    #[test]
    fn placements_choose_the_method() {
        // The centre of an odd board keeps every symmetry; a queen on the centre column only
        // the mirror; any other queen none.
        assert_eq!(Method::Edge.for_placement(9, &[(4, 4)]), Method::Edge);
        assert_eq!(Method::D4.for_placement(9, &[(1, 4)]), Method::Mirror);
        assert_eq!(Method::Edge.for_placement(9, &[(1, 3)]), Method::Plain);
        assert_eq!(Method::Mirror.for_placement(8, &[(1, 3)]), Method::Plain);
        assert_eq!(Method::Plain.for_placement(8, &[(1, 3)]), Method::Plain);
        // N = 1: d4 and edge need two squares at least.
        assert_eq!(Method::D4.for_placement(1, &[]), Method::Mirror);
        assert_eq!(Method::Edge.for_placement(12, &[]), Method::Edge);
    }
}
