//! What one unit counts: the search of its method on the chosen kernel. The engine calls
//! [`evaluate_on`] for every unit; benchmarks and cost checks call [`evaluate_nodes`].

use super::{Method, Plan};
use crate::search::bounded::Rows;
use crate::search::dfs::{self, MAX_N};
use crate::search::{d4, lanes, symmetry, Counts, Kernel, Part, Unit};
use std::ops::ControlFlow;

/// Counts the solutions of one unit on the fastest kernel of this processor.
pub fn evaluate(plan: &Plan, unit: &Unit) -> Counts {
    evaluate_on(plan, unit, Kernel::best())
}

/// Counts the solutions of one unit on `kernel` (the depth-first search if this processor
/// cannot run it). Every kernel gives the same counts: the unit's [`count_part`] counted on the
/// lanes plus [`evaluate_rest_on`].
pub fn evaluate_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    let mut counts = evaluate_rest_on(plan, unit, kernel);
    if let Some(part) = count_part(plan, unit) {
        counts += part.counts(part.count_on(kernel, plan.job().n()));
    }
    counts
}

/// The per-row allowed squares of a plan: those its pre-placed queens leave, or all.
fn allowed(plan: &Plan) -> [u32; MAX_N as usize] {
    plan.allowed()
        .copied()
        .unwrap_or_else(|| dfs::unconstrained(plan.job().n()))
}

/// The part of `unit` that is counted without looking at solutions, if any: what an
/// accelerator can take. Every completion stands for the same numbers of solutions and classes:
///
/// * d4: the corner unit, or a side unit's clean part (8 solutions, 1 class each);
/// * plain and mirror without unique counts: the whole unit (its weight, no class);
/// * none for units that leave fewer than three rows, and for plain and mirror with unique
///   counts (every solution is classified).
///
/// The unit's counts are this part's plus [`evaluate_rest_on`], exactly.
pub(crate) fn count_part(plan: &Plan, unit: &Unit) -> Option<Part> {
    let n = plan.job().n();
    let allow = allowed(plan);
    let mut part = if plan.method() == Method::D4 {
        d4::count_part(n, unit, &allow)?
    } else {
        let first = u32::from(unit.depth);
        if plan.job().unique() || first + 3 > n {
            return None;
        }
        Part {
            rows: Rows::allowing(allow),
            first,
            masks: unit.masks,
            total: unit.weight,
            unique: 0,
        }
    };
    if !plan.job().unique() {
        // Unique counts come for free with d4; reported only when asked for, like the others.
        part.unique = 0;
    }
    Some(part)
}

/// Whether [`evaluate_rest_on`] has anything to search for `unit` (when not, its
/// [`count_part`] is all of it).
pub(crate) fn has_rest(plan: &Plan, unit: &Unit) -> bool {
    let n = plan.job().n();
    if plan.method() == Method::D4 {
        return d4::has_rest(n, unit);
    }
    plan.job().unique() || u32::from(unit.depth) + 3 > n
}

/// The counts of `unit` outside its [`count_part`] (all of it when it has none): the searches
/// that classify solutions one by one, on `kernel`.
pub(crate) fn evaluate_rest_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    let n = plan.job().n();
    let depth = u32::from(unit.depth);
    let weight = u128::from(unit.weight);
    let allow = allowed(plan);
    if plan.method() == Method::D4 {
        let c = d4::evaluate_rest(n, unit, &allow, kernel);
        return Counts {
            total: c.total,
            unique: if plan.job().unique() { c.unique } else { 0 },
        };
    }
    // The lane kernels need three rows below the prefix; shallower units are tiny.
    let on_lanes = depth + 3 <= n;
    if !plan.job().unique() {
        if on_lanes {
            return Counts::default(); // all in the count part
        }
        let found = dfs::count_constrained(n, depth, unit.masks, &allow);
        return Counts {
            total: u128::from(found) * weight,
            unique: 0,
        };
    }
    let rows = Rows::allowing(allow);
    // Unique counts by classification: every solution is checked for being the smallest of its
    // class. The smallest member s of a class satisfies s <= mirror(s), so its prefix is one the
    // mirror method keeps: counting canonical solutions over the kept units counts each class once.
    let mut cols = [0u8; MAX_N as usize];
    cols[..unit.depth as usize].copy_from_slice(unit.prefix());
    let mut counts = Counts::default();
    let mut found = |s: &[u8]| {
        counts.total += weight;
        counts.unique += u128::from(symmetry::is_canonical(s));
    };
    if on_lanes {
        lanes::visit(kernel, n, depth, unit.masks, &rows, |tail| {
            cols[depth as usize..n as usize].copy_from_slice(tail);
            found(&cols[..n as usize]);
        });
    } else {
        let _ = dfs::visit(n, depth, unit.masks, &allow, &mut cols, |s| {
            found(s);
            ControlFlow::Continue(())
        });
    }
    counts
}

/// The number of search nodes (queens placed, prefix excluded) the search of `unit` visits: an
/// instrumented walk of the same tree as [`evaluate`], kept apart so the real kernel pays nothing.
pub fn evaluate_nodes(plan: &Plan, unit: &Unit) -> u64 {
    let n = plan.job().n();
    let rows = plan
        .allowed()
        .copied()
        .unwrap_or_else(|| dfs::unconstrained(n));
    if plan.method() == Method::D4 {
        return d4::nodes(n, unit, &rows);
    }
    dfs::count_nodes(n, u32::from(unit.depth), unit.masks, &rows)
}
