//! What one unit counts: the search of its method on the chosen kernel. The engine calls
//! [`evaluate_on`] for every unit; benchmarks and cost checks call [`evaluate_nodes`].

use super::{Method, Plan};
use crate::search::bounded::Rows;
use crate::search::dfs::{self, MAX_N};
use crate::search::{d4, lanes, symmetry, Counts, Kernel, Unit};
use std::ops::ControlFlow;

/// Counts the solutions of one unit on the fastest kernel of this processor.
pub fn evaluate(plan: &Plan, unit: &Unit) -> Counts {
    evaluate_on(plan, unit, Kernel::best())
}

/// Counts the solutions of one unit on `kernel` (the depth-first search if this processor
/// cannot run it). Every kernel gives the same counts.
pub fn evaluate_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    let n = plan.job().n();
    let depth = u32::from(unit.depth);
    let weight = u128::from(unit.weight);
    let allow = plan
        .allowed()
        .copied()
        .unwrap_or_else(|| dfs::unconstrained(n));
    if plan.method() == Method::D4 {
        let c = d4::evaluate(n, unit, &allow, kernel);
        // Unique counts come for free; reported only when asked for, like the other methods.
        return Counts {
            total: c.total,
            unique: if plan.job().unique() { c.unique } else { 0 },
        };
    }
    // The lane kernels need three rows below the prefix; shallower units are tiny.
    let on_lanes = depth + 3 <= n;
    let rows = Rows::allowing(allow);
    if !plan.job().unique() {
        let found = if on_lanes {
            lanes::count(kernel, n, depth, unit.masks, &rows)
        } else {
            dfs::count_constrained(n, depth, unit.masks, &allow)
        };
        return Counts {
            total: u128::from(found) * weight,
            unique: 0,
        };
    }
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
