//! The depth-first search of the edge method: rows that already hold a queen are skipped, not
//! searched.
//!
//! The bitmask search of [`crate::search::dfs`] walks the rows in order, shifting the two diagonal
//! masks by one column per row. Here the search walks only the *free* rows (those without an
//! edge queen) and shifts the diagonal masks by the distance to the next free row (1, 2 or 3:
//! there are at most three edge queens below the top row), so a row holding a queen costs no
//! node and no loop. The queens of the skipped rows are in the masks already: their columns in
//! the column mask, their diagonals taken out of the other rows' allowed squares
//! ([`super::Frame::rows`]). As in [`crate::search::bounded`], each level has its own loop (a macro,
//! inlined into each other), and the last two free rows are settled with a few mask operations.

use crate::search::bounded::Rows;
use crate::search::dfs::{attacked_at, full_mask, Masks, MAX_N};
use crate::search::lanes::Checks;

/// The free rows of a search, as the levels see them.
pub(crate) struct Ctx {
    /// `allow[i]`: the squares the `i`-th free row may use.
    pub(crate) allow: [u32; MAX_N as usize],
    /// `gap[i]`: the distance from the `i`-th free row to the next one.
    pub(crate) gap: [u32; MAX_N as usize],
    /// The number of free rows.
    pub(crate) f: usize,
    pub(crate) full: u32,
    /// The rows checked below each child (see [`alive`]).
    pub(crate) checks: Checks,
}

/// Whether the child `next` of a queen in free row `i` (its attacks on free row `i + 1`) leaves
/// a square free in each of the rows checked for it ([`Checks`]: the next two free rows and the
/// last two). The lane kernels drop a child that does not at once
/// ([`crate::search::lanes::count_with_gaps`]) instead of searching it down to that row; [`nodes`]
/// walks that tree. The depth-first levels here do not check: there the check costs more than
/// it saves (`results/2026-12-01-edge-notes/NOTE.md`).
#[inline(always)]
fn alive(c: &Ctx, i: usize, next: Masks) -> bool {
    c.checks.alive(i, next)
}

/// A row is *fixed* when it allows exactly one square (an edge queen, or a pre-placed queen):
/// its queen is placed in advance, its attacks are taken out of the free rows. The free rows
/// from `first` and the masks on the first of them; `None` when the fixed queens attack each
/// other or are attacked by the prefix.
pub(crate) fn compress(n: u32, first: u32, m: Masks, rows: &Rows) -> Option<(Ctx, Masks)> {
    let full = full_mask(n);
    let mut fixed = [(0u32, 0u32); MAX_N as usize];
    let mut nf = 0;
    for r in first..n {
        let a = rows.allow[r as usize];
        if a.count_ones() == 1 {
            let d = r - first;
            if (m.cols | m.diag_up << d | m.diag_down >> d) & a != 0 {
                return None;
            }
            fixed[nf] = (r, a.trailing_zeros());
            nf += 1;
        }
    }
    let fixed = &fixed[..nf];
    let attacks = |r: u32, (qr, qc): (u32, u32)| attacked_at(n, qc, r.abs_diff(qr));
    let mut c = Ctx {
        allow: [0; MAX_N as usize],
        gap: [0; MAX_N as usize],
        f: 0,
        full,
        checks: Checks::new(0, &[0; MAX_N as usize], &[1; MAX_N as usize]),
    };
    let mut cols = m.cols;
    for (i, &q) in fixed.iter().enumerate() {
        if fixed[..i].iter().any(|&p| attacks(p.0, q) >> p.1 & 1 == 1) {
            return None;
        }
        cols |= 1 << q.1;
    }
    let mut first_free = None;
    let mut last_free = 0;
    for r in first..n {
        let a = rows.allow[r as usize];
        if a.count_ones() == 1 {
            continue;
        }
        if c.f > 0 {
            c.gap[c.f - 1] = r - last_free;
        }
        first_free.get_or_insert(r);
        c.allow[c.f] = fixed.iter().fold(a & full, |a, &q| a & !attacks(r, q));
        c.f += 1;
        last_free = r;
    }
    c.checks = Checks::new(c.f, &c.allow, &c.gap);
    let d = first_free.unwrap_or(first) - first;
    let start = Masks {
        cols,
        diag_up: m.diag_up << d,
        diag_down: m.diag_down >> d,
    };
    Some((c, start))
}

/// Counts the completions of rows `first..n` below the attacks `m` under `rows`, skipping the
/// rows that allow a single square (their queen is placed without a search): [`compress`], then
/// [`count_compressed`].
#[cfg(test)]
pub(crate) fn count(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    assert!(n <= MAX_N && first <= n);
    match compress(n, first, m, rows) {
        Some((c, m)) => count_compressed(&c, m),
        None => 0,
    }
}

/// Counts the completions of the free rows `c` below the attacks `m` on the first of them (made
/// by [`compress`]): one loop per free row, the last two free rows settled by mask operations.
/// Not inlined into its callers: it is large, and called once per unit.
#[inline(never)]
pub(crate) fn count_compressed(c: &Ctx, m: Masks) -> u64 {
    let mut total = 0u64;
    match c.f {
        0 => total = 1,
        1 | 2 => small(c, 0, m, &mut total),
        f => level(f, c, m, &mut total),
    }
    total
}

/// Plain recursion over the free rows `i..f` (for one or two free rows).
fn small(c: &Ctx, i: usize, m: Masks, total: &mut u64) {
    if i == c.f {
        *total += 1;
        return;
    }
    let g = c.gap[i];
    let mut free = m.free(c.full) & c.allow[i];
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        let next = m.place_gapped(bit, g);
        small(c, i + 1, next, total);
    }
}

/// The last two free rows (`m`: the attacks on the first of them). Exactly two columns `x < y`
/// are left; `x` then `y` completes the board iff `x` is free in the first row, `y` is free in
/// the second from the rows above, and `x`, `y` do not share a diagonal across the gap `d`
/// between the two rows (and symmetrically).
#[inline(always)]
fn level2(c: &Ctx, m: Masks, total: &mut u64) {
    let i = c.f - 2;
    let d = c.gap[i & 31];
    let rest = c.full & !m.cols;
    let x = rest & rest.wrapping_neg();
    let y = rest ^ x;
    let pen = !(m.cols | m.diag_up | m.diag_down) & c.allow[i & 31];
    let last = c.allow[(i + 1) & 31] & !(m.diag_up << d | m.diag_down >> d);
    let apart = x << d != y;
    let xy = (pen & x != 0) & (last & y != 0) & apart;
    let yx = (pen & y != 0) & (last & x != 0) & apart;
    *total += u64::from(xy) + u64::from(yx);
}

/// Defines `level{k}`: the loop over the squares of the `k`-th free row from the end; and
/// `level`, which runs the one for `f` free rows.
macro_rules! levels {
    ($($name:ident $k:literal $inner:ident;)*) => {
        $(
            #[inline(always)]
            fn $name(c: &Ctx, m: Masks, total: &mut u64) {
                let i = c.f - $k;
                let g = c.gap[i & 31];
                // Allowed squares lie inside the board: no `& full`.
                let mut free = !(m.cols | m.diag_up | m.diag_down) & c.allow[i & 31];
                while free != 0 {
                    let bit = free & free.wrapping_neg();
                    free &= free - 1;
                    let next = m.place_gapped(bit, g);
                    $inner(c, next, total);
                }
            }
        )*

        /// The search of the last `f` free rows (3 to 31).
        #[inline(always)]
        fn level(f: usize, c: &Ctx, m: Masks, total: &mut u64) {
            match f {
                $($k => $name(c, m, total),)*
                _ => unreachable!("at most 31 rows below the top row"),
            }
        }
    };
}

row_levels!(levels);

/// The number of nodes (queens placed in free rows) of the tree the lane kernels walk: that of
/// [`count_compressed`] with the rows of [`Checks`] checked below each child ([`alive`]), the
/// last two free rows counted as if searched one queen at a time.
pub fn nodes(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let Some((c, m)) = compress(n, first, m, rows) else {
        return 0;
    };
    fn go(c: &Ctx, i: usize, m: Masks) -> u64 {
        if i == c.f {
            return 0;
        }
        let g = c.gap[i];
        let mut free = m.free(c.full) & c.allow[i];
        let mut nodes = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1;
            let next = m.place_gapped(bit, g);
            if alive(c, i, next) {
                nodes += go(c, i + 1, next);
            }
        }
        nodes
    }
    go(&c, 0, m)
}

/// An estimate of the cost of the search below a prefix (rows `first..n`, attacks `m`, under
/// `rows`), for progress and shard balance ([`crate::plan::cost`]): over the placements of the
/// first free row that the lanes keep (a free square in the next free row, [`alive`]), the sum
/// of the product, over the free rows below, of the square root of the squares that placement
/// leaves free in the row (half a square where none is left). Correctly rounded operations in a
/// fixed order: the same on every machine.
pub(crate) fn estimate(n: u32, first: u32, m: Masks, rows: &Rows) -> f64 {
    let Some((c, m)) = compress(n, first, m, rows) else {
        return 0.0;
    };
    // The product over the free rows `i..` of the root of their free squares below `m`.
    let rest = |i: usize, m: Masks| {
        let mut product = 1.0f64;
        let mut dist = 0u32;
        for r in i..c.f {
            let there = m.cols
                | m.diag_up.checked_shl(dist).unwrap_or(0)
                | m.diag_down.checked_shr(dist).unwrap_or(0);
            let free = (c.allow[r] & !there & c.full).count_ones();
            product *= if free == 0 {
                0.5f64.sqrt()
            } else {
                f64::from(free).sqrt()
            };
            dist += c.gap[r];
        }
        product
    };
    if c.f == 0 {
        return 1.0;
    }
    let g = c.gap[0];
    let mut free = m.free(c.full) & c.allow[0];
    let mut sum = 0.0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        let next = m.place_gapped(bit, g);
        // As the lanes keep a child: a free square in its own row, and the checks.
        let own = c.f < 2 || c.allow[1] & !(next.cols | next.diag_up | next.diag_down) != 0;
        if own && alive(&c, 0, next) {
            sum += rest(1, next);
        }
    }
    sum
}
