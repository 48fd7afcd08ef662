//! The sub-problems the kernel counts, and their expansion on the host.

/// The largest board: masks are `u32`, bit `c` = column `c`.
pub const MAX_N: u32 = 32;

/// [`RowSpec::dead_row`] when there is no deadline.
pub const NO_DEADLINE: u32 = MAX_N;

/// The mask with the low `n` bits set: the columns of an `n`-wide board.
pub const fn full_mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// What each row of a search may use.
///
/// `#[repr(C)]`: uploaded to the device as is (34 `u32`, the `rows_t` of the kernel).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RowSpec {
    /// `allow[r]`: the squares the queen of (absolute) row `r` may use. Bits outside the board
    /// are ignored.
    pub allow: [u32; MAX_N as usize],
    /// A column deadline: once the queen of row `dead_row` is placed, every column of
    /// `dead_cols` must be taken, else the branch is pruned. [`NO_DEADLINE`] for none. Only
    /// rows a search places (from a sub-problem's `first` on) are checked.
    pub dead_row: u32,
    /// The columns of the deadline.
    pub dead_cols: u32,
}

impl RowSpec {
    /// Every row may use every square of an `n`-column board; no deadline.
    #[cfg(test)]
    pub const fn unconstrained(n: u32) -> RowSpec {
        RowSpec::allowing([full_mask(n); MAX_N as usize])
    }

    /// Rows that may use the squares of `allow`, with no deadline.
    #[cfg(test)]
    pub const fn allowing(allow: [u32; MAX_N as usize]) -> RowSpec {
        RowSpec {
            allow,
            dead_row: NO_DEADLINE,
            dead_cols: 0,
        }
    }

    /// The squares row `row` may use when the columns taken above it are `cols`: its allow mask
    /// and, on the deadline row, only squares that leave no deadline column free.
    #[inline]
    pub fn row_mask(&self, row: u32, cols: u32) -> u32 {
        let allow = self.allow[(row & 31) as usize];
        if row != self.dead_row {
            return allow;
        }
        let missing = self.dead_cols & !cols;
        match missing.count_ones() {
            0 => allow,
            1 => allow & missing,
            _ => 0,
        }
    }
}

/// A sub-problem: a partial placement whose rows `first..n` are to be completed.
///
/// `#[repr(C)]`: uploaded to the device as is (five `u32`, the `sub_t` of the kernel).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sub {
    /// Columns taken by the rows above `first`.
    pub cols: u32,
    /// Attacks on row `first` along the diagonals that move one column up per row.
    pub diag_up: u32,
    /// Attacks on row `first` along the diagonals that move one column down per row.
    pub diag_down: u32,
    /// The next row to place (`first == n`: a complete placement, which counts 1).
    pub first: u32,
    /// The index of this sub-problem's [`RowSpec`] in the rows table.
    pub rows: u32,
}

impl Sub {
    /// The empty board, from row 0, with rows spec `rows`.
    #[cfg(test)]
    pub const fn root(rows: u32) -> Sub {
        Sub {
            cols: 0,
            diag_up: 0,
            diag_down: 0,
            first: 0,
            rows,
        }
    }

    /// The sub-problem after a queen is placed on square `bit` of row `first`.
    #[inline]
    pub const fn place(self, bit: u32) -> Sub {
        Sub {
            cols: self.cols | bit,
            diag_up: (self.diag_up | bit) << 1,
            diag_down: (self.diag_down | bit) >> 1,
            first: self.first + 1,
            rows: self.rows,
        }
    }

    /// The free squares of row `first` on an `n`-column board (attacks, `rows.allow` and the
    /// deadline taken into account).
    #[inline]
    pub fn free(&self, n: u32, rows: &RowSpec) -> u32 {
        full_mask(n)
            & !(self.cols | self.diag_up | self.diag_down)
            & rows.row_mask(self.first, self.cols)
    }
}

/// Splits `root` into the sub-problems one gets by placing its next `extra_rows` rows (fewer
/// if the board ends first) in every allowed way, appended to `out` depth-first in column order
/// (lowest column first at each row).
///
/// Invariant: the completions of the appended sub-problems add up to the completions of
/// `root`, and every completion of `root` is a completion of exactly one of them (so they may
/// be counted separately). Rows are placed as the kernel places them: inside the board,
/// `rows.allow`, the deadline checked on each row placed here. Branches that die within the
/// expanded rows are dropped. `extra_rows = 0` appends `root` itself.
///
/// `root.first` must be at most `n` and `n` at most [`MAX_N`].
pub fn expand_into(n: u32, rows: &RowSpec, root: Sub, extra_rows: u32, out: &mut Vec<Sub>) {
    assert!(n <= MAX_N && root.first <= n, "bad board size or first row");
    let target = root.first.saturating_add(extra_rows).min(n);
    expand_rec(n, rows, root, target, out);
}

/// [`expand_into`] into a new vector.
#[cfg(test)]
pub fn expand(n: u32, rows: &RowSpec, root: Sub, extra_rows: u32) -> Vec<Sub> {
    let mut out = Vec::new();
    expand_into(n, rows, root, extra_rows, &mut out);
    out
}

fn expand_rec(n: u32, rows: &RowSpec, sub: Sub, target: u32, out: &mut Vec<Sub>) {
    if sub.first == target {
        out.push(sub);
        return;
    }
    let mut free = sub.free(n, rows);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        expand_rec(n, rows, sub.place(bit), target, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_kernel() {
        assert_eq!(std::mem::size_of::<Sub>(), 20);
        assert_eq!(std::mem::align_of::<Sub>(), 4);
        assert_eq!(std::mem::size_of::<RowSpec>(), 34 * 4);
    }

    #[test]
    fn expansion_of_eight_queens() {
        let rows = RowSpec::unconstrained(8);
        assert_eq!(expand(8, &rows, Sub::root(0), 0), vec![Sub::root(0)]);
        assert_eq!(expand(8, &rows, Sub::root(0), 1).len(), 8);
        assert_eq!(expand(8, &rows, Sub::root(0), 2).len(), 42);
        // Placing all rows lists the solutions.
        let all = expand(8, &rows, Sub::root(0), 8);
        assert_eq!(all.len(), 92);
        assert!(all.iter().all(|s| s.first == 8 && s.cols == 0xff));
        assert_eq!(expand(8, &rows, Sub::root(0), 100).len(), 92);
    }

    #[test]
    fn deadline_row_mask() {
        let mut rows = RowSpec::unconstrained(8);
        rows.dead_row = 3;
        rows.dead_cols = 0b1010;
        assert_eq!(rows.row_mask(2, 0), 0xff);
        assert_eq!(rows.row_mask(3, 0b1010), 0xff);
        assert_eq!(rows.row_mask(3, 0b0010), 0b1000);
        assert_eq!(rows.row_mask(3, 0), 0);
    }
}
