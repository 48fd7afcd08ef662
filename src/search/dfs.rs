//! The hot search: an iterative bitmask depth-first search over the rows of one work unit.
//!
//! This module knows nothing but bits. It does no I/O and no allocation; its stacks are fixed-size
//! arrays on the caller's stack. Bit `c` of a mask stands for column `c` (0-based, leftmost = bit 0),
//! so taking the lowest set bit first visits placements in increasing column order, which makes
//! [`visit`] enumerate solutions in lexicographic order of their column sequence.
//!
//! The technique (three attack masks shifted by one column per row, lowest-set-bit extraction) is
//! the classic one of M. Richards, "Backtracking Algorithms in MCPL using Bit Patterns and
//! Recursion" (1997) and J. Somers' iterative N-Queens counter (2002).

use core::ops::ControlFlow;

/// The largest board the kernel handles: masks are `u32`.
pub const MAX_N: u32 = 32;

/// The attacks on the next row of a partial placement, one bit per column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Masks {
    /// Columns already holding a queen.
    pub cols: u32,
    /// Squares attacked along diagonals that go down and to the right (they move one column up).
    pub diag_up: u32,
    /// Squares attacked along diagonals that go down and to the left (they move one column down).
    pub diag_down: u32,
}

impl Masks {
    /// The empty board.
    pub const EMPTY: Masks = Masks {
        cols: 0,
        diag_up: 0,
        diag_down: 0,
    };

    /// Free squares of the next row, limited to the board by `full`.
    #[inline(always)]
    pub fn free(self, full: u32) -> u32 {
        full & !(self.cols | self.diag_up | self.diag_down)
    }

    /// The masks of the row after the next one, once a queen is placed at `bit` in the next row.
    #[inline(always)]
    pub fn place(self, bit: u32) -> Masks {
        Masks {
            cols: self.cols | bit,
            diag_up: (self.diag_up | bit) << 1,
            diag_down: (self.diag_down | bit) >> 1,
        }
    }

    /// [`Masks::place`] for a row `gap` rows below this one (searches that skip rows holding a
    /// queen, [`crate::search::edge`]).
    #[inline(always)]
    pub fn place_gapped(self, bit: u32, gap: u32) -> Masks {
        Masks {
            cols: self.cols | bit,
            diag_up: (self.diag_up | bit) << gap,
            diag_down: (self.diag_down | bit) >> gap,
        }
    }
}

/// The squares of a row `d` rows away from a queen in column `col` that the queen attacks (its
/// column and the two diagonals, within an `n`-wide board): how a queen placed in advance is
/// taken out of the other rows.
pub fn attacked_at(n: u32, col: u32, d: u32) -> u32 {
    let mut attacked = 1u32 << col;
    if col + d < n {
        attacked |= 1 << (col + d);
    }
    if d <= col {
        attacked |= 1 << (col - d);
    }
    attacked
}

/// The mask with the low `n` bits set: the columns of an `n`-wide board.
#[inline]
pub const fn full_mask(n: u32) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Counts the ways to place queens on the next `rows_left` rows of an `n`-column board whose
/// attacks on the next row are `m`, one queen per row.
///
/// Every solution adds one to a `u64`, so the count cannot wrap in any feasible running time.
/// The serial reference solver's search (`bench::serial_count`), compiled with it.
#[cfg(any(feature = "bench", test))]
#[inline]
pub fn count(n: u32, rows_left: u32, m: Masks) -> u64 {
    debug_assert!(n <= MAX_N && rows_left <= n);
    let full = full_mask(n);
    match rows_left {
        0 => 1,
        1 => u64::from(m.free(full).count_ones()),
        _ => count_deep(full, rows_left, m),
    }
}

/// The main loop of [`count`] for two rows or more: the last row is settled by one mask test.
#[cfg(any(feature = "bench", test))]
#[inline]
fn count_deep(full: u32, rows_left: u32, m: Masks) -> u64 {
    // Level `d` places the queen of the `d`-th remaining row. The stack saves, for each level
    // below the current one, its masks and its not yet tried squares.
    let mut saved_masks = [Masks::EMPTY; MAX_N as usize];
    let mut saved_free = [0u32; MAX_N as usize];
    // The level whose children are the last row: a placement there is a solution if the
    // last row still has a free square.
    let before_last = (rows_left - 2) as usize;
    let mut depth = 0usize;
    let mut cur = m;
    let mut free = cur.free(full);
    let mut total = 0u64;
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            let next = cur.place(bit);
            if depth == before_last {
                total += u64::from(next.free(full) != 0);
            } else {
                // `& 31` keeps the index provably in bounds: depth < rows_left <= 32.
                saved_masks[depth & 31] = cur;
                saved_free[depth & 31] = free;
                depth += 1;
                cur = next;
                free = next.free(full);
            }
        } else if depth == 0 {
            return total;
        } else {
            depth -= 1;
            cur = saved_masks[depth & 31];
            free = saved_free[depth & 31];
        }
    }
}

/// Like [`count`], but each row may only use the squares of its own mask: `allowed[r]` for the
/// row `first_row + r`. Used for searches with pre-placed queens.
pub fn count_constrained(n: u32, first_row: u32, m: Masks, allowed: &[u32; MAX_N as usize]) -> u64 {
    let mut total = 0u64;
    let _ = visit_inner::<_, true>(
        n,
        first_row,
        m,
        allowed,
        &mut [0u8; MAX_N as usize],
        &mut |_| {
            total += 1;
            ControlFlow::Continue(())
        },
    );
    total
}

/// Calls `f` for every completion of the rows `first_row..n`, in lexicographic order.
///
/// `cols[..first_row]` must hold the columns of the queens already placed; `f` receives the whole
/// column sequence (`cols[..n]`) of each solution. Row `r` may only use the squares of
/// `allowed[r]` (absolute row numbers). `f` returning `Break` stops the search, and `visit`
/// returns `Break` too.
pub fn visit<F>(
    n: u32,
    first_row: u32,
    m: Masks,
    allowed: &[u32; MAX_N as usize],
    cols: &mut [u8; MAX_N as usize],
    mut f: F,
) -> ControlFlow<()>
where
    F: FnMut(&[u8]) -> ControlFlow<()>,
{
    // Without constraints (the plain listing) the row masks need not be read at each node.
    let rows = first_row as usize..n as usize;
    if allowed[rows]
        .iter()
        .all(|&a| a & full_mask(n) == full_mask(n))
    {
        visit_inner::<F, false>(n, first_row, m, allowed, cols, &mut f)
    } else {
        visit_inner::<F, true>(n, first_row, m, allowed, cols, &mut f)
    }
}

/// The loop of [`visit`], generic over the callback so that it inlines into the search; the
/// row masks of `allowed` are only applied if `CONSTRAINED`.
#[inline(always)]
fn visit_inner<F, const CONSTRAINED: bool>(
    n: u32,
    first_row: u32,
    m: Masks,
    allowed: &[u32; MAX_N as usize],
    cols: &mut [u8; MAX_N as usize],
    f: &mut F,
) -> ControlFlow<()>
where
    F: FnMut(&[u8]) -> ControlFlow<()>,
{
    debug_assert!(n <= MAX_N && first_row <= n);
    let n = n as usize;
    let first = first_row as usize;
    let full = full_mask(n as u32);
    let row_mask = |row: usize| if CONSTRAINED { allowed[row & 31] } else { full };
    if first == n {
        return f(&cols[..n]);
    }
    if first + 1 == n {
        let mut free = m.free(full) & row_mask(first);
        while free != 0 {
            cols[first & 31] = free.trailing_zeros() as u8;
            free &= free - 1;
            f(&cols[..n])?;
        }
        return ControlFlow::Continue(());
    }
    // Two rows or more: a placement on the row before the last settles the last row directly.
    // Once n - 1 queens are placed only one column is left, so the last row has at most one
    // free square: a mask test, not a loop iteration.
    let before_last = n - 2;
    let last_allowed = row_mask(n - 1);
    let mut saved_masks = [Masks::EMPTY; MAX_N as usize];
    let mut saved_free = [0u32; MAX_N as usize];
    let mut row = first;
    let mut cur = m;
    let mut free = cur.free(full) & row_mask(row);
    loop {
        if free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            cols[row & 31] = bit.trailing_zeros() as u8;
            if row == before_last {
                let last = cur.place(bit).free(full) & last_allowed;
                if last != 0 {
                    cols[(n - 1) & 31] = last.trailing_zeros() as u8;
                    f(&cols[..n])?;
                }
            } else {
                saved_masks[row & 31] = cur;
                saved_free[row & 31] = free;
                cur = cur.place(bit);
                row += 1;
                free = cur.free(full) & row_mask(row);
            }
        } else if row == first {
            return ControlFlow::Continue(());
        } else {
            row -= 1;
            cur = saved_masks[row & 31];
            free = saved_free[row & 31];
        }
    }
}

/// The number of nodes (queens placed) a search of the rows `first_row..n` visits: the size of
/// the search tree, for reporting nodes per second. Kept apart from [`count`] so that the real
/// kernel carries no counter. Row `r` may only use `allowed[r]`.
pub fn count_nodes(n: u32, first_row: u32, m: Masks, allowed: &[u32; MAX_N as usize]) -> u64 {
    let mut nodes = 0u64;
    let mut saved_masks = [Masks::EMPTY; MAX_N as usize];
    let mut saved_free = [0u32; MAX_N as usize];
    let (n, first) = (n as usize, first_row as usize);
    if first == n {
        return 0;
    }
    let full = full_mask(n as u32);
    let mut row = first;
    let mut cur = m;
    let mut free = cur.free(full) & allowed[row & 31];
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
                free = cur.free(full) & allowed[row & 31];
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

/// Row masks that allow every square of an `n`-column board.
pub fn unconstrained(n: u32) -> [u32; MAX_N as usize] {
    [full_mask(n); MAX_N as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_masks() {
        assert_eq!(full_mask(1), 1);
        assert_eq!(full_mask(8), 0xff);
        assert_eq!(full_mask(31), 0x7fff_ffff);
        assert_eq!(full_mask(32), u32::MAX);
    }

    #[test]
    fn counts_small_boards() {
        let expect = [1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724];
        for (i, &e) in expect.iter().enumerate() {
            let n = i as u32 + 1;
            assert_eq!(count(n, n, Masks::EMPTY), e, "n = {n}");
        }
    }

    #[test]
    fn visit_is_lexicographic_and_complete() {
        let mut cols = [0u8; 32];
        let mut seen: Vec<Vec<u8>> = Vec::new();
        let _ = visit(6, 0, Masks::EMPTY, &unconstrained(6), &mut cols, |s| {
            seen.push(s.to_vec());
            ControlFlow::Continue(())
        });
        assert_eq!(
            seen,
            vec![
                vec![1, 3, 5, 0, 2, 4],
                vec![2, 5, 1, 4, 0, 3],
                vec![3, 0, 4, 1, 5, 2],
                vec![4, 2, 0, 5, 3, 1]
            ]
        );
    }

    #[test]
    fn visit_stops_on_break() {
        let mut cols = [0u8; 32];
        let mut k = 0;
        let r = visit(8, 0, Masks::EMPTY, &unconstrained(8), &mut cols, |_| {
            k += 1;
            if k == 5 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(r, ControlFlow::Break(()));
        assert_eq!(k, 5);
    }

    fn collect(n: u32, first: u32, m: Masks, allowed: &[u32; 32], cols: &[u8]) -> Vec<Vec<u8>> {
        let mut buf = [0u8; 32];
        buf[..cols.len()].copy_from_slice(cols);
        let mut seen = Vec::new();
        let _ = visit(n, first, m, allowed, &mut buf, |s| {
            seen.push(s.to_vec());
            ControlFlow::Continue(())
        });
        seen
    }

    #[test]
    fn visit_settles_the_last_rows_correctly() {
        for n in 1..=9u32 {
            let all = collect(n, 0, Masks::EMPTY, &unconstrained(n), &[]);
            assert_eq!(all.len() as u64, count(n, n, Masks::EMPTY), "n = {n}");
            // Queens constrained on each of the last three rows.
            for row in n.saturating_sub(3)..n {
                for col in 0..n {
                    let mut allowed = unconstrained(n);
                    allowed[row as usize] = 1 << col;
                    let want: Vec<_> = all
                        .iter()
                        .filter(|s| s[row as usize] == col as u8)
                        .cloned()
                        .collect();
                    let got = collect(n, 0, Masks::EMPTY, &allowed, &[]);
                    assert_eq!(got, want, "n = {n}, row {row}, col {col}");
                }
            }
            // Starting with 0 to 3 rows left, from every prefix of every solution.
            for s in &all {
                for first in n.saturating_sub(3)..=n {
                    let prefix = &s[..first as usize];
                    let m = prefix.iter().fold(Masks::EMPTY, |m, &c| m.place(1 << c));
                    let want: Vec<_> = all
                        .iter()
                        .filter(|t| t.starts_with(prefix))
                        .cloned()
                        .collect();
                    let got = collect(n, first, m, &unconstrained(n), prefix);
                    assert_eq!(got, want, "n = {n}, prefix {prefix:?}");
                }
            }
        }
    }

    #[test]
    fn node_counts() {
        // 4x4: row 0 has 4 choices; the tree has 4 + 6 + 4 + 2 = 16 nodes (hand count below).
        // Children: col0 -> {2,3}, col1 -> {3}, col2 -> {0}, col3 -> {0,1}: 6 nodes on row 1;
        // row 2: (0,2)->{}, (0,3)->{1}, (1,3)->{0}, (2,0)->{3}, (3,0)->{2}, (3,1)->{} : 4 nodes;
        // row 3: (1,3,0)->{2}, (2,0,3)->{1}: 2 nodes (the two solutions).
        assert_eq!(count_nodes(4, 0, Masks::EMPTY, &unconstrained(4)), 16);
        assert_eq!(count_nodes(1, 0, Masks::EMPTY, &unconstrained(1)), 1);
    }

    #[test]
    fn constrained_counts_match_filtering() {
        // Queen fixed in row 2 (0-based) at column 4 on the 8x8 board.
        let mut allowed = unconstrained(8);
        allowed[2] = 1 << 4;
        let n = count_constrained(8, 0, Masks::EMPTY, &allowed);
        let mut cols = [0u8; 32];
        let mut m = 0;
        let _ = visit(8, 0, Masks::EMPTY, &unconstrained(8), &mut cols, |s| {
            if s[2] == 4 {
                m += 1;
            }
            ControlFlow::Continue(())
        });
        assert_eq!(n, m);
        assert!(n > 0);
    }
}
