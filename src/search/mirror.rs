//! The mirror method: a placement and its left–right mirror image have equally many
//! completions, so only the units whose prefix is not greater than its mirror image are
//! searched, those smaller counted twice. Counting is [`super::plain`]'s with these weights.

use super::method::{Board, Costing, Method, Search, SymmetryNeeded};
use super::plain;
use super::{ClassifiedPart, CountedPart, Counts, Runner, Unit};
use std::cmp::Ordering;

/// The mirror method ([`Method::Mirror`]).
pub(crate) struct Mirror;

impl Search for Mirror {
    fn needs(&self) -> SymmetryNeeded {
        SymmetryNeeded::Mirror
    }
    fn fallback(&self) -> Method {
        Method::Plain
    }
    /// The prefixes not greater than their mirror image: weight 2, or 1 for a prefix that is
    /// its own image (its solutions pair up among themselves).
    fn units(&self, board: &Board, depth: u32) -> Vec<Unit> {
        let last = board.n as u8 - 1;
        plain::units(board, depth, |p| {
            let mirrored = p.iter().map(|&c| last - c);
            match mirrored.cmp(p.iter().copied()) {
                Ordering::Less => None,
                Ordering::Equal => Some(1),
                Ordering::Greater => Some(2),
            }
        })
    }
    fn counted_part(&self, board: &Board, unit: &Unit) -> Option<CountedPart> {
        plain::counted_part(board, unit)
    }
    fn classified_parts(&self, board: &Board, unit: &Unit) -> Vec<ClassifiedPart> {
        plain::classified_parts(board, unit)
    }
    fn has_cpu_only_work(&self, board: &Board, unit: &Unit) -> bool {
        plain::has_cpu_only_work(board, unit)
    }
    fn count_remainder(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        plain::count_remainder(board, unit, run)
    }
    fn nodes(&self, board: &Board, unit: &Unit) -> u64 {
        plain::nodes(board, unit)
    }
}

impl Costing for Mirror {
    fn estimate(&self, board: &Board, unit: &Unit, horizon: u32) -> f64 {
        plain::estimate(board, unit, horizon)
    }
    fn cpu_time_factor(&self, unique: bool) -> f64 {
        // Against edge, one thread, interleaved (`docs/PERFORMANCE.md`); unique counts
        // classify every solution.
        2.5 * plain::unique_factor(unique)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_smaller_half() {
        let units = Mirror.units(&Board::free(4, false), 2);
        let prefixes: Vec<&[u8]> = units.iter().map(|u| u.prefix()).collect();
        assert_eq!(prefixes, [[0, 2], [0, 3], [1, 3]]);
        assert!(units.iter().all(|u| u.weight == 2));
        // Odd N: a first queen in the middle column keeps only second queens left of it.
        let units = Mirror.units(&Board::free(5, false), 2);
        let mid: Vec<u8> = units
            .iter()
            .filter(|u| u.prefix[0] == 2)
            .map(|u| u.prefix[1])
            .collect();
        assert_eq!(mid, [0]);
        // N = 1: the single prefix is its own mirror image.
        let units = Mirror.units(&Board::free(1, false), 1);
        assert_eq!((units.len(), units[0].weight), (1, 1));
    }
}
