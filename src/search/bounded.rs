//! The hot search of the D4 method: the bitmask depth-first search of [`crate::search::dfs`], with a
//! mask of allowed squares for every row, a column deadline, one loop per row, the last two rows
//! settled without branching, and a leaf hook that sorts solutions by class.
//!
//! Like the plain kernel it knows nothing but bits, does no I/O and no allocation: each row has
//! its own loop (see [`search`]), and the only array is the columns taken above each row, for
//! the leaf hook. Rows are absolute (0 = top row); the search places the queens of rows
//! `first..n` below a prefix whose attacks on row `first` are given.

use crate::search::dfs::{full_mask, Masks, MAX_N};

/// What each row of a search may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rows {
    /// `allow[r]`: the squares row `r` may use (the bound masks of the D4 method, and any
    /// pre-placed queens). Must lie inside the board (bits `0..n`).
    pub allow: [u32; MAX_N as usize],
    /// A column deadline `(row, cols)`: every column of `cols` must be taken once row `row` is
    /// placed (because the rows below may not use them). Pure pruning: without it the search
    /// would find the same solutions, later. `(MAX_N, 0)` for none.
    pub deadline: (usize, u32),
}

impl Rows {
    /// Rows that may use the squares of `allow`, with no deadline.
    pub fn allowing(allow: [u32; MAX_N as usize]) -> Rows {
        Rows {
            allow,
            deadline: (MAX_N as usize, 0),
        }
    }
}

/// Calls `found` with every placement of rows `row..depth` below `m` within `rows` (the deadline
/// checked), depth first in column order, and its attacks on row `depth`: the prefixes of the
/// work units of the D4 and edge methods.
pub(crate) fn prefixes(
    full: u32,
    rows: &Rows,
    depth: usize,
    row: usize,
    m: Masks,
    prefix: &mut [u8; crate::search::MAX_PREFIX],
    found: &mut dyn FnMut([u8; crate::search::MAX_PREFIX], Masks),
) {
    let mut free = m.free(full) & rows.allow[row];
    let (dead_row, dead_cols) = rows.deadline;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        prefix[row] = bit.trailing_zeros() as u8;
        let next = m.place(bit);
        if row == dead_row && next.cols & dead_cols != dead_cols {
            continue;
        }
        if row + 1 < depth {
            prefixes(full, rows, depth, row + 1, next, prefix, found);
        } else {
            found(*prefix, next);
        }
    }
}

/// Receives the solutions of a search, two rows before the end.
pub trait Leaves {
    /// Rows `0..n-2` are placed (`cols_before[r]`: the columns taken by rows `0..r`, for
    /// `r <= n - 2`), and the two remaining columns are `x < y`. `xy`: placing `x` in row
    /// `n - 2` and `y` in row `n - 1` is a solution; `yx`: the other way round is one.
    fn pair(&mut self, cols_before: &[u32; MAX_N as usize], x: u32, y: u32, xy: bool, yx: bool);

    /// Whether [`Leaves::pair`] reads `cols_before`; when not, the search does not keep it.
    const READS_COLUMNS: bool = true;
}

/// Counts solutions; used where every solution found is canonical with a class of eight.
#[derive(Default)]
pub struct LeafCount(pub u64);

impl Leaves for LeafCount {
    const READS_COLUMNS: bool = false;

    #[inline(always)]
    fn pair(&mut self, _: &[u32; MAX_N as usize], _: u32, _: u32, xy: bool, yx: bool) {
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

/// Searches rows `first..n` (with `first + 3 <= n`) below the prefix whose columns before each
/// row `r < first` are `prefix_cols[r]` and whose attacks on row `first` are `m`, and reports
/// every solution to `leaves`.
///
/// Each row has its own copy of the loop (`level3` .. `level32`, `k` = rows left), nested by
/// inlining: the state of every level stays in registers or its own stack slots, nothing is
/// saved or restored by index, and every level's loop exit is a branch of its own, which the
/// branch predictor learns separately. Two rows before the end exactly two columns `x < y` are
/// left, so the last two rows have at most two completions (`x` then `y`, or `y` then `x`),
/// tested with a few mask operations and no branch (`last_two`).
///
/// Not inlined into its callers: it is large, and called once per unit.
#[inline(never)]
pub fn search<L: Leaves>(
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    prefix_cols: &[u32; MAX_N as usize],
    leaves: &mut L,
) {
    assert!(n <= MAX_N && first + 3 <= n);
    let c = Ctx {
        n: n as usize,
        full: full_mask(n),
        allow: &rows.allow,
        dead_row: rows.deadline.0,
        dead_cols: rows.deadline.1,
    };
    let mut cols_before = *prefix_cols;
    level(n - first, &c, m, &mut cols_before, leaves);
}

/// What every level of [`search`] reads.
struct Ctx<'a> {
    n: usize,
    full: u32,
    allow: &'a [u32; MAX_N as usize],
    dead_row: usize,
    dead_cols: u32,
}

/// The last two rows (`m`: the attacks on row `n - 2`).
#[inline(always)]
fn level2<L: Leaves>(c: &Ctx, m: Masks, cols_before: &mut [u32; MAX_N as usize], leaves: &mut L) {
    let row = c.n - 2;
    let (xy, yx, x, y) = last_two(c.full, m, c.allow[row & 31], c.allow[(row + 1) & 31]);
    if xy | yx {
        cols_before[row & 31] = m.cols;
        leaves.pair(cols_before, x, y, xy, yx);
    }
}

/// Defines `level{k}`: the loop over the squares of row `n - k`, each followed by `level{k-1}`;
/// and `level`, which runs the one for `k` rows left.
macro_rules! levels {
    ($($name:ident $k:literal $inner:ident;)*) => {
        $(
            #[inline(always)]
            fn $name<L: Leaves>(
                c: &Ctx,
                m: Masks,
                cols_before: &mut [u32; MAX_N as usize],
                leaves: &mut L,
            ) {
                let row = c.n - $k;
                if L::READS_COLUMNS {
                    cols_before[row & 31] = m.cols;
                }
                // `allow` lies inside the board, so `!attacks & allow` needs no `& full`.
                let mut free = !(m.cols | m.diag_up | m.diag_down) & c.allow[row & 31];
                while free != 0 {
                    let bit = free & free.wrapping_neg();
                    free &= free - 1;
                    let next = m.place(bit);
                    if row == c.dead_row && next.cols & c.dead_cols != c.dead_cols {
                        continue;
                    }
                    $inner(c, next, cols_before, leaves);
                }
            }
        )*

        /// The search of the last `k` rows (3 to 32).
        #[inline(always)]
        fn level<L: Leaves>(
            k: u32,
            c: &Ctx,
            m: Masks,
            cols_before: &mut [u32; MAX_N as usize],
            leaves: &mut L,
        ) {
            match k {
                $($k => $name(c, m, cols_before, leaves),)*
                _ => unreachable!("3 <= n - first <= 32"),
            }
        }
    };
}

row_levels!(levels, level32 32 level31;);

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
