//! Work units: the search split by the queens of its first rows, reduced by symmetry.
//!
//! A unit is one valid placement of the first `depth` rows (its *prefix*). Units are listed in
//! lexicographic order of their prefix, so the same job always gives the same units with the
//! same indices; checkpoints and shards refer to units by index. [`UNITS_VERSION`] names this
//! enumeration: it changes whenever the list a job yields could change.

use super::{Job, Method, Queen};
use crate::search::dfs::{self, full_mask, Masks, MAX_N};
use crate::search::{Unit, MAX_PREFIX};

/// Version of the unit enumeration; stored in checkpoints and shard files.
pub const UNITS_VERSION: u32 = 1;

/// A job turned into its list of work units.
#[derive(Clone, Debug)]
pub struct Plan {
    job: Job,
    method: Method,
    /// Row masks when queens are pre-placed: the squares each row may use.
    allowed: Option<Box<[u32; MAX_N as usize]>>,
    units: Vec<Unit>,
}

impl Plan {
    /// Enumerates the units of `job`.
    pub fn new(job: Job) -> Plan {
        let n = job.n();
        let allowed = (!job.placed().is_empty()).then(|| Box::new(allowed_rows(n, job.placed())));
        // Mirror halving is exact only when the constraints look the same in the mirror; the D4
        // and edge methods only when they look the same under all eight symmetries (and N > 1).
        // Otherwise they fall back to mirror, and `Plan::method` (and every report) says so.
        let method = match job.method() {
            Method::D4 | Method::Edge if n == 1 || !d4_invariant(n, job.placed()) => Method::Mirror,
            m => m,
        };
        let method = match method {
            Method::Mirror if !mirror_invariant(n, job.placed()) => Method::Plain,
            m => m,
        };
        let rows = allowed
            .as_deref()
            .copied()
            .unwrap_or_else(|| dfs::unconstrained(n));
        let units = match method {
            Method::D4 => crate::search::d4::enumerate(n, job.split_depth(), &rows),
            Method::Edge => crate::search::edge::enumerate(n, job.split_depth(), &rows),
            _ => enumerate(n, job.split_depth(), method, &rows),
        };
        Plan {
            job,
            method,
            allowed,
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
        self.allowed.as_deref()
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

/// Whether the set of placed queens is its own left–right mirror image.
fn mirror_invariant(n: u32, placed: &[Queen]) -> bool {
    placed.iter().all(|q| {
        placed.contains(&Queen {
            row: q.row,
            col: n - 1 - q.col,
        })
    })
}

/// Whether the set of placed queens is mapped to itself by all eight symmetries of the square.
fn d4_invariant(n: u32, placed: &[Queen]) -> bool {
    placed.iter().all(|q| {
        crate::search::symmetry::Symmetry::ALL.iter().all(|g| {
            let (row, col) = g.map_square(n as usize, q.row as usize, q.col as usize);
            placed.contains(&Queen {
                row: row as u32,
                col: col as u32,
            })
        })
    })
}

/// Lists the valid placements of the first `depth` rows in lexicographic order, keeping, for the
/// mirror method, only those not greater than their mirror image.
fn enumerate(n: u32, depth: u32, method: Method, rows: &[u32; MAX_N as usize]) -> Vec<Unit> {
    let depth = depth.min(n) as usize;
    let full = full_mask(n);
    let mut units = Vec::new();
    let mut prefix = [0u8; MAX_PREFIX];
    // Depth-first over at most MAX_PREFIX rows: an explicit stack of (masks, untried squares).
    let mut stack = [(Masks::EMPTY, 0u32); MAX_PREFIX + 1];
    let mut level = 0usize;
    stack[0] = (Masks::EMPTY, Masks::EMPTY.free(full) & rows[0]);
    if depth == 0 {
        return units;
    }
    loop {
        let (masks, free) = stack[level];
        if free == 0 {
            if level == 0 {
                break;
            }
            level -= 1;
            continue;
        }
        let bit = free & free.wrapping_neg();
        stack[level].1 = free & (free - 1);
        prefix[level] = bit.trailing_zeros() as u8;
        let next = masks.place(bit);
        if level + 1 < depth {
            level += 1;
            stack[level] = (next, next.free(full) & rows[level]);
            continue;
        }
        let weight = match method {
            Method::Plain => 1,
            Method::D4 => unreachable!("D4 units come from crate::search::d4"),
            Method::Edge => unreachable!("edge units come from crate::search::edge"),
            Method::Mirror => {
                let p = &prefix[..depth];
                let mirrored = p.iter().map(|&c| n as u8 - 1 - c);
                match mirrored.cmp(p.iter().copied()) {
                    std::cmp::Ordering::Less => continue,
                    std::cmp::Ordering::Equal => 1,
                    std::cmp::Ordering::Greater => 2,
                }
            }
        };
        units.push(Unit {
            index: units.len() as u32,
            prefix,
            depth: depth as u8,
            masks: next,
            weight,
            frame: [0; 4],
        });
    }
    units
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
    fn plain_units_are_all_prefixes_in_order() {
        let p = plan(4, 2, Method::Plain);
        let prefixes: Vec<Vec<u8>> = p.units().iter().map(|u| u.prefix().to_vec()).collect();
        assert_eq!(
            prefixes,
            vec![
                vec![0, 2],
                vec![0, 3],
                vec![1, 3],
                vec![2, 0],
                vec![3, 0],
                vec![3, 1]
            ]
        );
        assert!(p
            .units()
            .iter()
            .enumerate()
            .all(|(i, u)| u.index as usize == i && u.weight == 1));
    }

    #[test]
    fn mirror_keeps_the_smaller_half() {
        let p = plan(4, 2, Method::Mirror);
        let prefixes: Vec<Vec<u8>> = p.units().iter().map(|u| u.prefix().to_vec()).collect();
        assert_eq!(prefixes, vec![vec![0, 2], vec![0, 3], vec![1, 3]]);
        assert!(p.units().iter().all(|u| u.weight == 2));
        // Odd N: a first queen in the middle column keeps only second queens left of it.
        let p = plan(5, 2, Method::Mirror);
        let mid: Vec<u8> = p
            .units()
            .iter()
            .filter(|u| u.prefix[0] == 2)
            .map(|u| u.prefix[1])
            .collect();
        assert_eq!(mid, vec![0]);
        // N = 1: the single prefix is its own mirror image.
        let p = plan(1, 1, Method::Mirror);
        assert_eq!(p.units().len(), 1);
        assert_eq!(p.units()[0].weight, 1);
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
