//! What one unit counts: the search of its plan's method ([`crate::search::method::Search`]) on
//! the chosen kernel. The engine calls [`evaluate_on`] for every unit; benchmarks and cost
//! checks call [`evaluate_nodes`]. Unique counts are reported only when the job asks for them,
//! whatever the method knows.

use super::Plan;
use crate::search::{ClassifiedPart, CountedPart, Counts, Runner, Unit};

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
    evaluate_on(plan, unit, crate::Kernel::best())
}

/// Counts the solutions of one unit on `run`'s kernel (the depth-first search if this
/// processor cannot run it). Every kernel gives the same counts.
pub fn evaluate_on<'a>(plan: &Plan, unit: &Unit, run: impl Into<Runner<'a>>) -> Counts {
    reported(plan, plan.search().count(plan.board(), unit, run.into()))
}

/// The part of `unit` that is counted without looking at solutions, if any: what an
/// accelerator can take. The unit's counts are this part's plus [`evaluate_remainder_on`], exactly.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn counted_part(plan: &Plan, unit: &Unit) -> Option<CountedPart> {
    let mut part = plan.search().counted_part(plan.board(), unit)?;
    if !plan.job().unique() {
        part.unique = 0;
    }
    Some(part)
}

/// Whether `unit` leaves work that only the CPU does (a device takes the [`counted_part`] and the
/// [`classified_parts`] of all others).
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn has_cpu_only_work(plan: &Plan, unit: &Unit) -> bool {
    plan.search().has_cpu_only_work(plan.board(), unit)
}

/// The parts of `unit` whose solutions are classified one by one.
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn classified_parts(plan: &Plan, unit: &Unit) -> Vec<ClassifiedPart> {
    plan.search().classified_parts(plan.board(), unit)
}

/// The counts of `unit` outside its [`counted_part`] (all of it when it has none).
#[cfg_attr(not(feature = "opencl"), allow(dead_code))]
pub(crate) fn evaluate_remainder_on<'a>(
    plan: &Plan,
    unit: &Unit,
    run: impl Into<Runner<'a>>,
) -> Counts {
    reported(
        plan,
        plan.search()
            .count_remainder(plan.board(), unit, run.into()),
    )
}

/// The number of search nodes (queens placed, prefix excluded) the search of `unit` visits: an
/// instrumented walk of the same tree as [`evaluate_on`], kept apart so the real kernel pays nothing.
pub fn evaluate_nodes(plan: &Plan, unit: &Unit) -> u64 {
    plan.search().nodes(plan.board(), unit)
}
