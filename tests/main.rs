//! The integration tests, as one test binary: each file of `tests/` is a module of it, by theme,
//! and the helpers they share are in `tests/common`. One binary links the crate once, where a
//! binary per file linked it fourteen times.

mod common;

mod audit;
// The benchmark's command, with its SVG plots.
#[cfg(feature = "plot")]
mod bench_cli;
mod cli;
mod cli_solutions;
mod confirm;
mod engine;
mod generate;
mod hostile;
mod lock;
mod longrun;
mod methods;
mod opencl;
mod options;
mod solutions;
