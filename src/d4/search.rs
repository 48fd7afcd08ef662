//! The hot search of the D4 method: the bitmask depth-first search of [`crate::kernel`], with a
//! mask of allowed squares for every row, a column deadline, the last two rows settled without
//! branching, and a leaf hook that sorts solutions by class.
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
    /// A column deadline `(row, cols)`: every column of `cols` must be taken once row `row` is
    /// placed (because the rows below may not use them). Pure pruning: without it the search
    /// would find the same solutions, later. `(MAX_N, 0)` for none.
    pub deadline: (usize, u32),
}

/// One saved level of the search: the attacks on its row and its squares not yet tried. Sixteen
/// bytes, so that a level is saved and restored with one vector move.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(16))]
pub struct Frame {
    /// Columns taken by the rows above this one.
    pub cols: u32,
    up: u32,
    down: u32,
    free: u32,
}

/// The columns taken above each row, for the leaf hook: `cols_before(frames, r)` for
/// `r <= n - 2`.
#[inline(always)]
pub fn cols_before(frames: &[Frame; MAX_N as usize], row: usize) -> u32 {
    frames[row & 31].cols
}

/// Receives the solutions of a search, two rows before the end.
pub trait Leaves {
    /// Rows `0..n-2` are placed (their columns: [`cols_before`], valid up to row `n - 2`), and
    /// the two remaining columns are `x < y`. `xy`: placing `x` in row `n - 2` and `y` in row
    /// `n - 1` is a solution; `yx`: the other way round is one.
    fn pair(&mut self, frames: &[Frame; MAX_N as usize], x: u32, y: u32, xy: bool, yx: bool);
}

/// Counts solutions; used where every solution found is canonical with a class of eight.
#[derive(Default)]
pub struct Count(pub u64);

impl Leaves for Count {
    #[inline(always)]
    fn pair(&mut self, _: &[Frame; MAX_N as usize], _: u32, _: u32, xy: bool, yx: bool) {
        self.0 += u64::from(xy) + u64::from(yx);
    }
}

/// The last two rows below masks `next` (rows `0..n-2` placed): the two free columns `x < y`
/// and whether `x` then `y` (`xy`), or `y` then `x` (`yx`), completes the board.
///
/// Squares of the last row that the rows above `n - 2` leave free are `last`; the queen of row
/// `n - 2` then only removes its two diagonal neighbours, so two adjacent free columns never
/// complete the board and two apart always avoid each other. `&` on the booleans, not `&&`:
/// no branches.
#[inline(always)]
fn last_two(full: u32, next: Masks, allow_pen: u32, allow_last: u32) -> (bool, bool, u32, u32) {
    let rest = full & !next.cols;
    let x = rest & rest.wrapping_neg();
    let y = rest ^ x;
    let pen = !(next.cols | next.diag_up | next.diag_down) & allow_pen;
    let last = allow_last & !(next.diag_up << 1 | next.diag_down >> 1);
    let apart = x << 1 != y;
    let xy = (pen & x != 0) & (last & y != 0) & apart;
    let yx = (pen & y != 0) & (last & x != 0) & apart;
    (xy, yx, x, y)
}

/// Searches rows `first..n` (with `first + 7 <= n`) below the prefix whose columns before each
/// row `r < first` are `prefix_cols[r]` and whose attacks on row `first` are `m`, and reports
/// every solution to `leaves`.
///
/// Two rows before the end exactly two columns `x < y` are left, so the last two rows have at
/// most two completions (`x` then `y`, or `y` then `x`), tested with a few mask operations and
/// no branch ([`last_two`]): the two deepest levels of the tree cost no loop iterations at all,
/// and the third and fourth deepest are tight inner loops that save no stack frames.
///
/// Not inlined into its callers, so that its loop gets the registers to itself.
#[inline(never)]
pub fn search<L: Leaves>(
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    prefix_cols: &[u32; MAX_N as usize],
    leaves: &mut L,
) {
    // Checked for real: the unchecked indexing below relies on it.
    assert!(n <= MAX_N && first + 7 <= n);
    let full = full_mask(n);
    let allow = &rows.allow;
    let (dead_row, dead_cols) = rows.deadline;
    let allow_pen = allow[(n - 2) as usize & 31];
    let allow_last = allow[(n - 1) as usize & 31];
    // The level whose children are the last five rows.
    let seventh_last = (n - 7) as usize;
    let allow_sixth = allow[(n - 6) as usize & 31];
    let allow_fifth = allow[(n - 5) as usize & 31];
    let allow_fourth = allow[(n - 4) as usize & 31];
    let allow_third = allow[(n - 3) as usize & 31];
    let first = first as usize;
    let mut frames = [Frame::default(); MAX_N as usize];
    for (f, &c) in frames.iter_mut().zip(prefix_cols).take(first) {
        f.cols = c;
    }
    let mut row = first;
    let mut cur = m;
    // SAFETY (every `get_unchecked` below): `first <= row <= n - 7 < MAX_N` = the length of
    // `allow` and `frames`: `row` only grows below `seventh_last` and only shrinks above `first`.
    // `allow` lies inside the board, so `!attacks & allow` needs no `& full`.
    let mut free = !(cur.cols | cur.diag_up | cur.diag_down) & unsafe { *allow.get_unchecked(row) };
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            let next = cur.place(bit);
            if row == dead_row && next.cols & dead_cols != dead_cols {
                continue;
            }
            if row == seventh_last {
                // Rows `n - 5` to `n - 3` in tight inner loops, the last two rows without
                // branches: the five deepest levels need no stack frames.
                frames[row & 31].cols = cur.cols;
                frames[(row + 1) & 31].cols = next.cols;
                let mut free6 = !(next.cols | next.diag_up | next.diag_down) & allow_sixth;
                while free6 != 0 {
                    let bit6 = free6 & free6.wrapping_neg();
                    free6 &= free6 - 1;
                    let n6 = next.place(bit6);
                    let mut free5 = !(n6.cols | n6.diag_up | n6.diag_down) & allow_fifth;
                    while free5 != 0 {
                        let bit5 = free5 & free5.wrapping_neg();
                        free5 &= free5 - 1;
                        let n5 = n6.place(bit5);
                        let mut free4 = !(n5.cols | n5.diag_up | n5.diag_down) & allow_fourth;
                        while free4 != 0 {
                            let bit4 = free4 & free4.wrapping_neg();
                            free4 &= free4 - 1;
                            let n4 = n5.place(bit4);
                            let mut free3 = !(n4.cols | n4.diag_up | n4.diag_down) & allow_third;
                            while free3 != 0 {
                                let bit3 = free3 & free3.wrapping_neg();
                                free3 &= free3 - 1;
                                let n3 = n4.place(bit3);
                                let (xy, yx, x, y) = last_two(full, n3, allow_pen, allow_last);
                                if xy | yx {
                                    frames[(row + 2) & 31].cols = n6.cols;
                                    frames[(row + 3) & 31].cols = n5.cols;
                                    frames[(row + 4) & 31].cols = n4.cols;
                                    frames[(row + 5) & 31].cols = n3.cols;
                                    leaves.pair(&frames, x, y, xy, yx);
                                }
                            }
                        }
                    }
                }
            } else {
                *unsafe { frames.get_unchecked_mut(row) } = Frame {
                    cols: cur.cols,
                    up: cur.diag_up,
                    down: cur.diag_down,
                    free,
                };
                row += 1;
                cur = next;
                free = !(cur.cols | cur.diag_up | cur.diag_down)
                    & unsafe { *allow.get_unchecked(row) };
            }
        } else if row == first {
            return;
        } else {
            row -= 1;
            let f = *unsafe { frames.get_unchecked(row) };
            cur = Masks {
                cols: f.cols,
                diag_up: f.up,
                diag_down: f.down,
            };
            free = f.free;
        }
    }
}

/// The number of nodes (queens placed in rows `first..n`) of the tree [`search`] walks, the
/// last two rows counted as if searched one queen at a time.
pub fn nodes(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let full = full_mask(n);
    let (n, first) = (n as usize, first as usize);
    if first >= n {
        return 0;
    }
    let (dead_row, dead_cols) = rows.deadline;
    let mut saved = [(Masks::EMPTY, 0u32); MAX_N as usize];
    let mut nodes = 0u64;
    let mut row = first;
    let mut cur = m;
    let mut free = cur.free(full) & rows.allow[row];
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1;
            let next = cur.place(bit);
            if row == dead_row && next.cols & dead_cols != dead_cols {
                continue;
            }
            if row + 1 < n {
                saved[row & 31] = (cur, free);
                cur = next;
                row += 1;
                free = cur.free(full) & rows.allow[row & 31];
            }
        } else if row == first {
            return nodes;
        } else {
            row -= 1;
            (cur, free) = saved[row & 31];
        }
    }
}
