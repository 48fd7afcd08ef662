//! What one unit counts: the search of its plan's method ([`crate::search::method::Search`]) on
//! the chosen kernel. The engine calls [`evaluate_on`] for every unit; benchmarks and cost
//! checks call [`evaluate_nodes`]. Unique counts are reported only when the job asks for them,
//! whatever the method knows.

use super::Plan;
use crate::search::{ClassifyPart, Counts, Kernel, Part, Unit};

/// `counts` as the job reports them: the unique count only when it is asked for.
fn reported(plan: &Plan, mut counts: Counts) -> Counts {
    if !plan.job().unique() {
        counts.unique = 0;
    }
    counts
}

/// Counts the solutions of one unit on the fastest kernel of this processor.
#[cfg(test)]
pub fn evaluate(plan: &Plan, unit: &Unit) -> Counts {
    evaluate_on(plan, unit, Kernel::best())
}

/// Counts the solutions of one unit on `kernel` (the depth-first search if this processor
/// cannot run it). Every kernel gives the same counts.
pub fn evaluate_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    reported(plan, plan.search().count(plan.board(), unit, kernel))
}

/// The part of `unit` that is counted without looking at solutions, if any: what an
/// accelerator can take. The unit's counts are this part's plus [`evaluate_rest_on`], exactly.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn count_part(plan: &Plan, unit: &Unit) -> Option<Part> {
    let mut part = plan.search().counted_part(plan.board(), unit)?;
    if !plan.job().unique() {
        part.unique = 0;
    }
    Some(part)
}

/// Whether `unit` leaves work that only the CPU does (a device takes the [`count_part`] and the
/// [`classify_parts`] of all others).
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn has_rest(plan: &Plan, unit: &Unit) -> bool {
    plan.search().rest_on_cpu(plan.board(), unit)
}

/// The parts of `unit` whose solutions are classified one by one.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn classify_parts(plan: &Plan, unit: &Unit) -> Vec<ClassifyPart> {
    plan.search().classified_parts(plan.board(), unit)
}

/// The counts of `unit` outside its [`count_part`] (all of it when it has none).
pub(crate) fn evaluate_rest_on(plan: &Plan, unit: &Unit, kernel: Kernel) -> Counts {
    reported(plan, plan.search().count_rest(plan.board(), unit, kernel))
}

/// The number of search nodes (queens placed, prefix excluded) the search of `unit` visits: an
/// instrumented walk of the same tree as [`evaluate_on`], kept apart so the real kernel pays nothing.
pub fn evaluate_nodes(plan: &Plan, unit: &Unit) -> u64 {
    plan.search().nodes(plan.board(), unit)
}
