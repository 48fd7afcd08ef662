//! Work units: the search split by the queens of its first rows, reduced by symmetry.
//!
//! A unit is one valid placement of the first `depth` rows (its *prefix*). Units are listed in
//! lexicographic order of their prefix, so the same job always gives the same units with the
//! same indices; checkpoints and shards refer to units by index. [`UNITS_VERSION`] names this
//! enumeration: it changes whenever the list a job yields could change.

use super::{Job, Method, Queen};
use crate::search::dfs::{self, full_mask, MAX_N};
use crate::search::method::{Board, Costing, Search};
use crate::search::Unit;

/// Version of the unit enumeration; stored in checkpoints and shard files.
pub const UNITS_VERSION: u32 = 1;

/// A job turned into its list of work units: deterministic (the same job gives the same units
/// with the same indices, on every machine), so checkpoints and shards name units by index.
///
/// ```
/// use nqueens_count::{Job, Kernel, Method, Plan};
///
/// let plan = Plan::new(Job::new(8)?.with_method(Method::Mirror).with_split_depth(2)?);
/// assert_eq!(plan.units().len(), 21);
/// let total: u128 = plan.units().iter().map(|u| plan.count_unit(u, Kernel::Dfs).total).sum();
/// assert_eq!(total, 92);
/// # Ok::<(), nqueens_count::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Plan {
    job: Job,
    method: Method,
    /// The board as the method sees it: allowed squares per row, unique counts or not.
    board: Board,
    /// Whether queens are pre-placed (the board's rows then hold their constraints).
    placed: bool,
    units: Vec<Unit>,
}

impl Plan {
    /// Enumerates the units of `job`.
    pub fn new(job: Job) -> Plan {
        let n = job.n();
        let placed = !job.placed().is_empty();
        let rows = placed.then(|| allowed_rows(n, job.placed()));
        let board = Board::new(n, rows.as_ref(), job.unique());
        // A method whose symmetry the placed queens break falls back to one whose symmetry
        // they keep, and `Plan::method` (and every report) says so.
        let squares: Vec<(u32, u32)> = job.placed().iter().map(|q| (q.row, q.col)).collect();
        let method = job.method().for_placement(n, &squares);
        let units = method.search().units(&board, job.split_depth());
        Plan {
            job,
            method,
            board,
            placed,
            units,
        }
    }

    /// The job.
    pub fn job(&self) -> &Job {
        &self.job
    }
    /// The method actually used: the job's, or a weaker one where pre-placed queens break its
    /// symmetry (d4 and edge fall back to mirror, mirror to plain) or N = 1 (d4 and edge fall
    /// back to mirror).
    pub fn method(&self) -> Method {
        self.method
    }
    /// The units, in index order.
    pub fn units(&self) -> &[Unit] {
        &self.units
    }
    /// Per-row allowed squares, when queens are pre-placed.
    pub fn allowed(&self) -> Option<&[u32; MAX_N as usize]> {
        self.placed.then_some(&self.board.rows)
    }
    /// The board as the method sees it.
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }
    /// What the method does.
    pub(crate) fn search(&self) -> &'static dyn Search {
        self.method.search()
    }

    /// What its method's work costs.
    pub(crate) fn costing(&self) -> &'static dyn Costing {
        self.method.costing()
    }

    /// Counts the solutions of one of its units on `kernel` (the depth-first search if this
    /// processor cannot run it): what the engine does for every unit. Every kernel gives the same
    /// counts.
    pub fn count_unit(&self, unit: &Unit, kernel: crate::Kernel) -> crate::Counts {
        super::evaluate_on(self, unit, kernel)
    }

    /// The search nodes (queens placed below the prefix) the search of one of its units
    /// visits: a measure of its work that no machine's speed blurs.
    pub fn nodes(&self, unit: &Unit) -> u64 {
        super::evaluate_nodes(self, unit)
    }

    /// The estimated cost of every unit, in index order: positive integers proportional to the
    /// estimated time (the largest about 10^12), the same on every machine. Shards are balanced
    /// by them and progress is measured in them.
    pub fn costs(&self) -> Vec<u64> {
        super::cost::estimate(self)
    }
}

/// The squares each row may use given pre-placed queens: a row with a placed queen allows only
/// that square; any other row allows every square no placed queen attacks.
pub fn allowed_rows(n: u32, placed: &[Queen]) -> [u32; MAX_N as usize] {
    let full = full_mask(n);
    let mut rows = [0u32; MAX_N as usize];
    for (r, mask) in rows.iter_mut().enumerate().take(n as usize) {
        let r = r as u32;
        *mask = full;
        for q in placed {
            if q.row == r {
                *mask = 1 << q.col;
                break;
            }
            *mask &= !dfs::attacked_at(n, q.col, q.row.abs_diff(r));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(n: u32, k: u32, m: Method) -> Plan {
        Plan::new(
            Job::new(n)
                .unwrap()
                .with_method(m)
                .with_split_depth(k)
                .unwrap(),
        )
    }

    #[test]
    fn units_are_deterministic() {
        let a = plan(12, 3, Method::Mirror);
        let b = plan(12, 3, Method::Mirror);
        assert_eq!(a.units(), b.units());
    }

    #[test]
    fn placements_restrict_and_may_disable_mirror() {
        let q = |r, c| Queen::one_based(r, c).unwrap();
        let job = Job::new(8)
            .unwrap()
            .with_split_depth(2)
            .unwrap()
            .with_placed(&[q(1, 2)])
            .unwrap();
        let p = Plan::new(job);
        assert_eq!(p.method(), Method::Plain);
        assert!(p.units().iter().all(|u| u.prefix[0] == 1));
        let job = Job::new(8).unwrap().with_placed(&[q(3, 2), q(3, 7)]);
        assert!(job.is_err());
        let job = Job::new(8)
            .unwrap()
            .with_placed(&[q(3, 4), q(5, 5)])
            .unwrap();
        assert_eq!(Plan::new(job).method(), Method::Plain);
        let rows = allowed_rows(8, &[q(3, 4)]);
        assert_eq!(rows[2], 1 << 3);
        // Row 1 (0-based 0) is two rows above: column 3 and its diagonals 1 and 5 are taken.
        assert_eq!(rows[0], 0xff & !(1 << 3 | 1 << 1 | 1 << 5));
    }
}
