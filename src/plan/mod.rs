//! The plan of a count: a validated [`Job`] (board, method, pre-placed queens, split depth), its
//! deterministic, versioned list of work units ([`Plan`]), what each unit counts ([`evaluate_on`])
//! and what it is expected to cost ([`cost`]); the ETA of a run learned from its units' times
//! ([`eta`]).

pub(crate) mod cost;
pub(crate) mod eta;
mod evaluate;
mod job;
pub(crate) mod sample;
mod units;

pub(crate) use crate::search::Unit;
#[cfg(test)]
pub(crate) use evaluate::evaluate;
#[cfg_attr(not(feature = "opencl"), allow(unused_imports))]
pub(crate) use evaluate::{
    classified_parts, counted_part, evaluate_remainder_on, has_cpu_only_work,
};
pub(crate) use evaluate::{evaluate_nodes, evaluate_on};
pub(crate) use job::check_threads;
pub use job::{check_n, Job, Method, Queen, MAX_SPLIT_DEPTH, MAX_THREADS};
pub use units::Plan;
pub(crate) use units::UNITS_VERSION;
