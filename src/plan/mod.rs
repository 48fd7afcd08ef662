//! The plan of a count: a validated [`Job`] (board, method, pre-placed queens, split depth), its
//! deterministic, versioned list of work units ([`Plan`]), what each unit counts ([`evaluate_on`])
//! and what it is expected to cost ([`cost`]).
//!
//! ```
//! use nqueens::plan::{Job, Method, Plan};
//!
//! let plan = Plan::new(Job::new(8)?.with_method(Method::Mirror).with_split_depth(2)?);
//! assert_eq!(plan.units().len(), 21);
//! let total: u128 = plan.units().iter().map(|u| nqueens::plan::evaluate(&plan, u).total).sum();
//! assert_eq!(total, 92);
//! # Ok::<(), nqueens::Error>(())
//! ```

pub mod cost;
pub mod eta;
mod evaluate;
mod job;
#[cfg(test)]
mod measure;
mod units;

pub use crate::search::{Counts, Unit};
#[cfg_attr(not(feature = "opencl"), allow(unused_imports))]
pub(crate) use evaluate::{classify_parts, count_part, evaluate_rest_on, has_rest};
pub use evaluate::{evaluate, evaluate_nodes, evaluate_on};
pub use job::{
    check_n, check_threads, Job, Method, Queen, MAX_SPLIT_DEPTH, MAX_THREADS, UNITS_PER_THREAD,
};
pub use units::{allowed_rows, Plan, UNITS_VERSION};
