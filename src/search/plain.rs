//! The plain method: no symmetry, every solution searched; the reference the others are checked
//! against. Also what the methods with one search per unit share ([`super::mirror`] is this with
//! half the units and weight 2): each unit is the tree below its prefix, counted on the lanes,
//! or, when unique counts are asked for, walked with every solution classified.

use super::bounded::Rows;
use super::dfs::{self, MAX_N};
use super::lookahead::lookahead;
use super::method::{Board, Costing, Method, Search, SymmetryNeeded};
use super::{
    push_units, symmetry, ClassifiedPart, CountedPart, Counts, Runner, SolutionWeight, Unit,
};
use std::ops::ControlFlow;

/// The plain method ([`Method::Plain`]).
pub(crate) struct Plain;

impl Search for Plain {
    fn needs(&self) -> SymmetryNeeded {
        SymmetryNeeded::Nothing
    }
    fn fallback(&self) -> Method {
        Method::Plain
    }
    fn units(&self, board: &Board, depth: u32) -> Vec<Unit> {
        units(board, depth, |_| Some(1))
    }
    fn counted_part(&self, board: &Board, unit: &Unit) -> Option<CountedPart> {
        counted_part(board, unit)
    }
    fn classified_parts(&self, board: &Board, unit: &Unit) -> Vec<ClassifiedPart> {
        classified_parts(board, unit)
    }
    fn has_cpu_only_work(&self, board: &Board, unit: &Unit) -> bool {
        has_cpu_only_work(board, unit)
    }
    fn count_remainder(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        count_remainder(board, unit, run)
    }
    fn nodes(&self, board: &Board, unit: &Unit) -> u64 {
        nodes(board, unit)
    }
}

impl Costing for Plain {
    fn estimate(&self, board: &Board, unit: &Unit, horizon: u32) -> f64 {
        estimate(board, unit, horizon)
    }
    fn cpu_time_factor(&self, unique: bool) -> f64 {
        // Against edge, one thread, interleaved (`docs/PERFORMANCE.md`); unique counts
        // classify every solution.
        5.8 * unique_factor(unique)
    }
}

/// The CPU time of classifying every solution, against counting them: a method with one search
/// per unit and unique counts visits each solution's columns (`docs/PERFORMANCE.md`).
pub(crate) fn unique_factor(unique: bool) -> f64 {
    if unique {
        3.2
    } else {
        1.0
    }
}

/// The valid placements of the first `depth` rows of `board` (at most N) in lexicographic order,
/// each as a unit of the weight `keep` gives its prefix (`None`: left out).
pub(crate) fn units(board: &Board, depth: u32, keep: impl Fn(&[u8]) -> Option<u8>) -> Vec<Unit> {
    let depth = depth.min(board.n) as usize;
    let mut units = Vec::new();
    if depth == 0 {
        return units;
    }
    let rows = Rows::allowing(board.rows);
    push_units(&mut units, board.n, &rows, depth, [0; 4], keep);
    units
}

/// Whether a unit's prefix leaves at least the three rows the lanes need.
fn searchable(board: &Board, unit: &Unit) -> bool {
    u32::from(unit.depth) + 3 <= board.n
}

/// Without unique counts, all of a unit that leaves three rows or more: every completion
/// stands for the unit's weight in solutions.
pub(crate) fn counted_part(board: &Board, unit: &Unit) -> Option<CountedPart> {
    (!board.unique && searchable(board, unit)).then(|| CountedPart {
        rows: Rows::allowing(board.rows),
        first: u32::from(unit.depth),
        masks: unit.masks,
        total: unit.weight,
        unique: 0,
    })
}

/// With unique counts, all of a unit that leaves three rows or more: every solution is checked
/// for being the smallest of its class. The smallest member `s` of a class satisfies
/// `s <= mirror(s)`, so its prefix is one the mirror method keeps: counting canonical solutions
/// over the kept units counts each class once.
pub(crate) fn classified_parts(board: &Board, unit: &Unit) -> Vec<ClassifiedPart> {
    if !board.unique || !searchable(board, unit) {
        return Vec::new();
    }
    let mut prefix = [0u8; MAX_N as usize];
    prefix[..unit.depth as usize].copy_from_slice(unit.prefix());
    vec![ClassifiedPart {
        rows: Rows::allowing(board.rows),
        first: u32::from(unit.depth),
        masks: unit.masks,
        prefix,
        weight: SolutionWeight::Weighted(unit.weight),
        unique: true,
    }]
}

/// Units that leave fewer than three rows are finished on the CPU.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn has_cpu_only_work(board: &Board, unit: &Unit) -> bool {
    !searchable(board, unit)
}

/// The classified part on `run`'s kernel, or the whole of a unit that leaves fewer than three rows,
/// depth first.
pub(crate) fn count_remainder(board: &Board, unit: &Unit, run: Runner) -> Counts {
    if searchable(board, unit) {
        let mut counts = Counts::default();
        for part in classified_parts(board, unit) {
            counts += part.evaluate_on(run, board.n);
        }
        return counts;
    }
    let (n, depth) = (board.n, u32::from(unit.depth));
    let weight = u128::from(unit.weight);
    if !board.unique {
        let found = dfs::count_constrained(n, depth, unit.masks, &board.rows);
        return Counts {
            total: u128::from(found) * weight,
            unique: 0,
        };
    }
    let mut cols = [0u8; MAX_N as usize];
    cols[..unit.depth as usize].copy_from_slice(unit.prefix());
    let mut counts = Counts::default();
    let _ = dfs::visit(n, depth, unit.masks, &board.rows, &mut cols, |s| {
        counts.total += weight;
        counts.unique += u128::from(symmetry::is_canonical(s));
        ControlFlow::Continue(())
    });
    counts
}

/// The nodes of the tree below the unit's prefix.
pub(crate) fn nodes(board: &Board, unit: &Unit) -> u64 {
    dfs::count_nodes(board.n, u32::from(unit.depth), unit.masks, &board.rows)
}

/// The look-ahead estimate of the tree below the unit's prefix ([`lookahead`]).
pub(crate) fn estimate(board: &Board, unit: &Unit, horizon: u32) -> f64 {
    let rows = &board.rows;
    lookahead(
        board.n,
        u32::from(unit.depth),
        unit.masks,
        horizon,
        rows,
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_all_prefixes_in_order() {
        let units = Plain.units(&Board::free(4, false), 2);
        let prefixes: Vec<&[u8]> = units.iter().map(|u| u.prefix()).collect();
        assert_eq!(prefixes, [[0, 2], [0, 3], [1, 3], [2, 0], [3, 0], [3, 1]]);
        assert!(units
            .iter()
            .enumerate()
            .all(|(i, u)| u.index as usize == i && u.weight == 1));
    }
}
