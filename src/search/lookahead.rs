//! The look-ahead estimate of a subtree's cost, for the methods whose units differ in cost by
//! orders of magnitude (plain, mirror, d4): every placement of the next rows is found exactly,
//! and each is weighted by the product, over every row below, of the square of the number of
//! squares the queens placed so far leave free in that row. Squaring weights the rows by how
//! much they constrain; it ranked units best among the powers tried, where the plain count of
//! nodes a few rows ahead ranked them *inversely* (a first queen near the corner leaves more of
//! the next rows free but has fewer completions). Measurements: `docs/ETA.md`.
//!
//! Exact IEEE operations in a fixed order: every machine computes the same estimates.

use super::dfs::{full_mask, Masks, MAX_N};

/// How many rows below a unit's prefix are searched exactly: down to row 5, at least one
/// (best for split depths 2, 3 and 4 in the measurements of `docs/ETA.md`).
pub fn horizon(depth: u32) -> u32 {
    5u32.saturating_sub(depth).max(1)
}

/// The estimate of the subtree at `row` with attacks `m`: exact for `ahead` rows within `walk`
/// (the squares each row may use), then [`free_product`] over `guess`.
pub(crate) fn lookahead(
    n: u32,
    row: u32,
    m: Masks,
    ahead: u32,
    walk: &[u32; MAX_N as usize],
    guess: &[u32; MAX_N as usize],
) -> f64 {
    if ahead == 0 || row >= n {
        return free_product(n, row, m, guess);
    }
    let mut free = m.free(full_mask(n)) & walk[row as usize];
    let mut sum = 0.0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        sum += lookahead(n, row + 1, m.place(bit), ahead - 1, walk, guess);
    }
    sum
}

/// The product over rows `row..n` of the squared number of squares the queens placed so far
/// leave free in each row (a row with none counts as 1/4: it ends most branches).
fn free_product(n: u32, row: u32, m: Masks, rows: &[u32; MAX_N as usize]) -> f64 {
    let full = full_mask(n);
    let mut p = 1.0f64;
    for r in row..n {
        let k = r - row;
        let up = ((u64::from(m.diag_up)) << k) as u32;
        let down = m.diag_down.checked_shr(k).unwrap_or(0);
        let free = (full & !(m.cols | up | down) & rows[r as usize]).count_ones();
        p *= if free == 0 {
            0.25
        } else {
            f64::from(free * free)
        };
    }
    p
}
