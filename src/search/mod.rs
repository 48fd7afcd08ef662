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

/// Calls `$m!` with the levels of a search written as one loop per row: `name k inner;` for
/// `k` from 3 to 31 rows left (`level{k}` nests `level{k-1}`), then whatever follows the comma
/// (`level32 32 level31;` where a search can have 32 rows left). The list is written here
/// once; each search's `$m` writes its level functions and the match that picks one.
macro_rules! row_levels {
    ($m:ident $(, $($more:tt)*)?) => {
        $m! {
            level3 3 level2;
            level4 4 level3;
            level5 5 level4;
            level6 6 level5;
            level7 7 level6;
            level8 8 level7;
            level9 9 level8;
            level10 10 level9;
            level11 11 level10;
            level12 12 level11;
            level13 13 level12;
            level14 14 level13;
            level15 15 level14;
            level16 16 level15;
            level17 17 level16;
            level18 18 level17;
            level19 19 level18;
            level20 20 level19;
            level21 21 level20;
            level22 22 level21;
            level23 23 level22;
            level24 24 level23;
            level25 25 level24;
            level26 26 level25;
            level27 27 level26;
            level28 28 level27;
            level29 29 level28;
            level30 30 level29;
            level31 31 level30;
            $($($more)*)?
        }
    };
}

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
pub(crate) use unit::push_units;
pub use unit::{ClassifiedPart, CountedPart, Counts, SolutionWeight, Unit, MAX_PREFIX};
