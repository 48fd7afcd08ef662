//! The hot search of the D4 method: the bitmask depth-first search of [`crate::kernel`], with a
//! mask of allowed squares for every row and a leaf test that sorts solutions by class.
//!
//! Like the plain kernel it knows nothing but bits, does no I/O and no allocation: its stack is
//! a fixed array indexed by absolute row. Rows are absolute (0 = top row); the search places the
//! queens of rows `first..n` below a prefix whose attacks on row `first` are given.

use crate::kernel::{full_mask, Masks, MAX_N};

/// What each row of a search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// `allow[r]`: the squares row `r` may use (the bound masks of the D4 method, and any
    /// pre-placed queens).
    pub allow: [u32; MAX_N as usize],
    /// `need[r]`: columns that must already be occupied *after* row `r` is placed; when row `r`
    /// is reached with one of them still free, the queen of row `r` must go there. Pure pruning:
    /// a column that may not be used below row `r` can never be filled later anyway.
    pub need: [u32; MAX_N as usize],
}

/// What a leaf (a complete solution) tells the caller.
pub trait Leaves {
    /// `last` is the square of the last row, `cols_before[r]` the columns used by rows `0..r`
    /// (valid for `r <= n - 2`), `next_cols` those used by rows `0..n-1`.
    fn solution(&mut self, last: u32, cols_before: &[u32; MAX_N as usize], next_cols: u32);
}

/// Counts leaves; used for the corner branch where every solution is canonical with a class of
/// eight.
#[derive(Default)]
pub struct Count(pub u64);

impl Leaves for Count {
    #[inline(always)]
    fn solution(&mut self, _: u32, _: &[u32; MAX_N as usize], _: u32) {
        self.0 += 1;
    }
}

/// The free squares of row `row` below masks `m`: attacks, the row's allowed squares, and the
/// column deadline of [`Rows::need`].
#[inline(always)]
fn row_free(full: u32, m: Masks, rows: &Rows, row: usize) -> u32 {
    let free = m.free(full) & rows.allow[row & 31];
    let missing = rows.need[row & 31] & !m.cols;
    // Branch-free: no restriction when nothing is missing, else only the missing columns.
    let only = if missing == 0 { u32::MAX } else { missing };
    free & only
}

/// Searches rows `first..n` (with `first + 2 <= n`) below the prefix whose columns before each
/// row are `prefix_cols[..first]` and whose attacks on row `first` are `m`, and reports every
/// solution to `leaves`.
///
/// The last row is settled by one mask test: below rows `0..n-1` exactly one column is left.
#[inline(always)]
pub fn search<L: Leaves>(
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    prefix_cols: &[u32; MAX_N as usize],
    leaves: &mut L,
) {
    debug_assert!(n <= MAX_N && first + 2 <= n);
    let full = full_mask(n);
    let last_allow = rows.allow[(n - 1) as usize & 31];
    let before_last = (n - 2) as usize;
    let first = first as usize;
    // cols[r]: columns used by rows 0..r, for the rows above the current one (prefix included).
    let mut cols = *prefix_cols;
    let mut saved_masks = [Masks::EMPTY; MAX_N as usize];
    let mut saved_free = [0u32; MAX_N as usize];
    let mut row = first;
    let mut cur = m;
    let mut free = row_free(full, cur, rows, row);
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            let next = cur.place(bit);
            if row == before_last {
                let last = next.free(full) & last_allow;
                if last != 0 {
                    cols[row & 31] = cur.cols;
                    leaves.solution(last, &cols, next.cols);
                }
            } else {
                saved_masks[row & 31] = cur;
                saved_free[row & 31] = free;
                cols[row & 31] = cur.cols;
                row += 1;
                cur = next;
                free = row_free(full, cur, rows, row);
            }
        } else if row == first {
            return;
        } else {
            row -= 1;
            cur = saved_masks[row & 31];
            free = saved_free[row & 31];
        }
    }
}

/// The number of nodes (queens placed in rows `first..n`) of the tree [`search`] walks.
pub fn nodes(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let full = full_mask(n);
    let (n, first) = (n as usize, first as usize);
    if first >= n {
        return 0;
    }
    let mut saved_masks = [Masks::EMPTY; MAX_N as usize];
    let mut saved_free = [0u32; MAX_N as usize];
    let mut nodes = 0u64;
    let mut row = first;
    let mut cur = m;
    let mut free = row_free(full, cur, rows, row);
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1;
            if row + 1 < n {
                saved_masks[row & 31] = cur;
                saved_free[row & 31] = free;
                cur = cur.place(bit);
                row += 1;
                free = row_free(full, cur, rows, row);
            }
        } else if row == first {
            return nodes;
        } else {
            row -= 1;
            cur = saved_masks[row & 31];
            free = saved_free[row & 31];
        }
    }
}
