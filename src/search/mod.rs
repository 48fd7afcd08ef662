//! The searches: everything that walks the tree of one work unit. This room knows nothing but
//! bits: no I/O, no allocation in the hot loops, no threads, no files, nothing of the command
//! line. The rooms above hand it a [`Unit`] and get [`Counts`] back.
//!
//! * [`dfs`]: the iterative bitmask depth-first search (plain counts, solution visits, nodes);
//! * [`bounded`]: the depth-first search with per-row bound masks and a column deadline, one loop
//!   per row, the last two rows settled without branching;
//! * [`lanes`]: the same tree walked sixteen (AVX-512) or eight (AVX2) nodes at a time, one file
//!   per instruction set and one shared scheduler;
//! * [`method`]: the counting methods behind one trait ([`method::Search`]), one module each:
//!   [`plain`], [`mirror`], [`d4`] (the D4 method's branches, units and classification of tied
//!   solutions) and [`edge`] (the four edge queens first, one frame per class of frames, rows
//!   holding a queen skipped); [`lookahead`], the cost estimate they share;
//! * [`symmetry`]: the eight symmetries of the square and canonical forms;
//! * [`Kernel`]: which code walks a tree, chosen at run time.
//!
//! A new kernel is a new file here and a new [`Kernel`] variant; nothing above the engine knows
//! which one ran.

pub mod bounded;
pub mod d4;
pub mod dfs;
pub mod edge;
mod kernel;
pub mod lanes;
pub mod lookahead;
pub mod method;
pub mod mirror;
pub mod opencl;
pub mod plain;
pub mod symmetry;
mod unit;

pub use dfs::MAX_N;
pub use kernel::{Kernel, Runner};
pub use lanes::Searches;
pub use method::Method;
pub use unit::{ClassifiedPart, CountedPart, Counts, SolutionWeight, Unit, MAX_PREFIX};
