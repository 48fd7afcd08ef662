//! The single-threaded reference solver.

use crate::error::Result;
use crate::search::dfs::{self, Masks};

/// The single-threaded reference solver: one bitmask search over the whole board with mirror
/// halving (first-row queen in the left half, counted twice; for odd N the middle column once).
/// It uses no work units and no threads; the parallel engine is measured against it.
pub fn serial_count(n: u32) -> Result<u128> {
    let n = crate::plan::check_n(n)?;
    let mut total: u128 = 0;
    for col in 0..n / 2 {
        let m = Masks::EMPTY.place(1 << col);
        total += 2 * u128::from(dfs::count(n, n - 1, m));
    }
    if n % 2 == 1 {
        let m = Masks::EMPTY.place(1 << (n / 2));
        total += u128::from(dfs::count(n, n - 1, m));
    }
    Ok(total)
}
