//! What one unit counts: the search of its method on the chosen kernel. The engine calls
//! [`evaluate_on`] for every unit; benchmarks and cost checks call [`evaluate_nodes`].

use super::{Method, Plan};
use crate::search::bounded::Rows;
use crate::search::dfs::{self, MAX_N};
use crate::search::{d4, edge, symmetry, ClassifyPart, Counts, Kernel, Part, Tally, Unit};
use std::ops::ControlFlow;

/// Counts the solutions of one unit on the fastest kernel of this processor.
pub fn evaluate(plan: &Plan, unit: &Unit) -> Counts {
    evaluate_on(plan, unit, Kernel::best())
}

/// Counts the solutions of one unit on `kernel` (the depth-first search if this processor
/// cannot run it). Every kernel gives the same counts: the unit's counted part on the
/// lanes plus the rest of it, its classified parts.
pub fn evaluate_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    if plan.method() == Method::Edge {
        // Its own search, which skips the rows of the edge queens rather than walking them.
        return edge_unit(plan, unit, kernel);
    }
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
    } else if plan.method() == Method::Edge {
        edge::count_part(n, unit, &allow)?
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

/// Whether `unit` leaves work that only the CPU does: units whose prefix leaves fewer than
/// three rows (a device takes the [`count_part`] and the [`classify_parts`] of all others).
pub(crate) fn has_rest(plan: &Plan, unit: &Unit) -> bool {
    let n = plan.job().n();
    if plan.method() == Method::Edge {
        // Symmetric frames classify under the frame's stabiliser: on the CPU.
        return edge::count_part(n, unit, &allowed(plan)).is_none();
    }
    u32::from(unit.depth) + 3 > n
}

/// The parts of `unit` whose solutions are classified one by one: d4's tied parts, or all of
/// a plain or mirror unit when unique counts are asked for. None for units that leave fewer
/// than three rows ([`has_rest`]).
pub(crate) fn classify_parts(plan: &Plan, unit: &Unit) -> Vec<ClassifyPart> {
    let n = plan.job().n();
    let first = u32::from(unit.depth);
    if first + 3 > n {
        return Vec::new();
    }
    let allow = allowed(plan);
    let unique = plan.job().unique();
    if plan.method() == Method::D4 {
        return d4::classify_parts(n, unit, &allow, unique).collect();
    }
    if !unique || plan.method() == Method::Edge {
        return Vec::new();
    }
    let mut prefix = [0u8; MAX_N as usize];
    prefix[..unit.depth as usize].copy_from_slice(unit.prefix());
    // Unique counts by classification: every solution is checked for being the smallest of its
    // class. The smallest member s of a class satisfies s <= mirror(s), so its prefix is one the
    // mirror method keeps: counting canonical solutions over the kept units counts each class once.
    vec![ClassifyPart {
        rows: Rows::allowing(allow),
        first,
        masks: unit.masks,
        prefix,
        tally: Tally::Weighted(unit.weight),
        unique,
    }]
}

/// The counts of `unit` outside its [`count_part`] (all of it when it has none): its
/// [`classify_parts`] walked on `kernel`, or the whole of a unit that leaves fewer than three
/// rows.
pub(crate) fn evaluate_rest_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    let n = plan.job().n();
    let depth = u32::from(unit.depth);
    let allow = allowed(plan);
    if plan.method() == Method::Edge {
        // A unit with a counted part has nothing else; the others are all rest.
        return match edge::count_part(n, unit, &allow) {
            Some(_) => Counts::default(),
            None => edge_unit(plan, unit, kernel),
        };
    }
    if depth + 3 > n {
        return short_unit(plan, unit, &allow);
    }
    let mut counts = Counts::default();
    for part in classify_parts(plan, unit) {
        counts += part.evaluate_on(kernel, n);
    }
    counts
}

/// An edge unit, whole, on its own search (unique counts reported only when asked for).
fn edge_unit(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    let c = edge::evaluate(plan.job().n(), unit, &allowed(plan), kernel);
    Counts {
        total: c.total,
        unique: if plan.job().unique() { c.unique } else { 0 },
    }
}

/// A unit that leaves fewer than three rows, too few for the lanes: depth first.
fn short_unit(plan: &Plan, unit: &Unit, allow: &[u32; MAX_N as usize]) -> Counts {
    let n = plan.job().n();
    let depth = u32::from(unit.depth);
    if plan.method() == Method::D4 {
        let c = d4::evaluate_rest(n, unit, allow, Kernel::Dfs);
        return Counts {
            total: c.total,
            unique: if plan.job().unique() { c.unique } else { 0 },
        };
    }
    let weight = u128::from(unit.weight);
    if !plan.job().unique() {
        let found = dfs::count_constrained(n, depth, unit.masks, allow);
        return Counts {
            total: u128::from(found) * weight,
            unique: 0,
        };
    }
    let mut cols = [0u8; MAX_N as usize];
    cols[..unit.depth as usize].copy_from_slice(unit.prefix());
    let mut counts = Counts::default();
    let _ = dfs::visit(n, depth, unit.masks, allow, &mut cols, |s| {
        counts.total += weight;
        counts.unique += u128::from(symmetry::is_canonical(s));
        ControlFlow::Continue(())
    });
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
    match plan.method() {
        Method::D4 => return d4::nodes(n, unit, &rows),
        Method::Edge => return edge::nodes(n, unit, &rows),
        _ => {}
    }
    dfs::count_nodes(n, u32::from(unit.depth), unit.masks, &rows)
}
