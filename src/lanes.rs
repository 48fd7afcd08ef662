//! A counting search that advances sixteen search nodes at once in the lanes of an AVX-512
//! register, with no data-dependent branch per node.
//!
//! The depth-first search of [`crate::d4::search`] spends most of its time on one branch per
//! node that the processor cannot predict (does this row have another free square?). This search
//! removes it by working on many nodes of the same row at once:
//!
//! * each row `r` has a small buffer of *open nodes*: the attacks on row `r` of a partial
//!   placement (`cols`, `diag_up`, `diag_down`) and the squares of row `r` not yet tried (`free`);
//! * one *step* takes up to sixteen open nodes of one row, places a queen on the lowest untried
//!   square of each, puts the nodes that still have untried squares back, and appends the
//!   children that have a free square to the next row's buffer (dead ends are dropped at once;
//!   two rows before the end the last two rows are settled by mask operations, as in
//!   [`crate::d4::search`]);
//! * the next step takes the deepest row holding at least sixteen open nodes, so every buffer
//!   stays below 32 nodes and nearly every step fills all sixteen lanes; when no row has sixteen,
//!   the deepest row with any is taken.
//!
//! The order in which nodes are visited differs from the depth-first search, the set of nodes
//! does not: the count is the same. Lanes keep their values with compress instructions
//! (`vpcompressd`), which pack the selected lanes together; they are stored with plain unaligned
//! stores, because the memory form of the instruction is slow on some processors.
//!
//! Without AVX-512 (checked at run time, so one portable binary serves every x86-64 machine and
//! every other architecture) [`count`] runs the depth-first search instead.

use crate::d4::search::{self, Rows};
use crate::kernel::{Masks, MAX_N};

/// Counts the solutions below a prefix, like [`search::search`] with [`search::Count`]: rows
/// `first..n` (with `first + 3 <= n`), whose attacks on row `first` are `m`, under `rows`.
pub fn count(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    assert!(n <= MAX_N && first + 3 <= n);
    #[cfg(target_arch = "x86_64")]
    {
        if avx512::available() {
            // SAFETY: the processor has the features `avx512::count` is compiled for.
            return unsafe { avx512::count(n, first, m, rows) };
        }
    }
    depth_first(n, first, m, rows)
}

/// The same count by the depth-first search, on any processor.
pub fn depth_first(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let mut c = search::Count(0);
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut c);
    c.0
}

/// Whether [`count`] runs on sixteen lanes on this processor.
pub fn vectorized() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        avx512::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::Rows;
    use crate::kernel::{full_mask, Masks, MAX_N};
    use std::arch::x86_64::*;

    /// Lanes per step.
    const LANES: usize = 16;
    /// Room per row: fewer than 32 open nodes, plus a whole register written past the end.
    const CAP: usize = 64;

    pub(super) fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
    }

    /// The open nodes of every row, one array per field (structure of arrays).
    #[repr(C, align(64))]
    struct Buffers {
        cols: [[u32; CAP]; MAX_N as usize],
        up: [[u32; CAP]; MAX_N as usize],
        down: [[u32; CAP]; MAX_N as usize],
        free: [[u32; CAP]; MAX_N as usize],
    }

    /// Stores all sixteen lanes of `v` at `dst[at..at + 16]`.
    ///
    /// # Safety
    /// `at + 16 <= CAP`.
    #[inline(always)]
    unsafe fn put(dst: &mut [u32; CAP], at: usize, v: __m512i) {
        debug_assert!(at + LANES <= CAP);
        _mm512_storeu_si512(dst.as_mut_ptr().add(at).cast(), v);
    }

    /// Loads the lanes of `k` from `src[at..at + 16]` (others zero).
    ///
    /// # Safety
    /// `at + 16 <= CAP`.
    #[inline(always)]
    unsafe fn get(src: &[u32; CAP], at: usize, k: __mmask16) -> __m512i {
        debug_assert!(at + LANES <= CAP);
        _mm512_maskz_loadu_epi32(k, src.as_ptr().add(at).cast())
    }

    /// See [`super::count`].
    ///
    /// # Safety
    /// The processor must support AVX-512F.
    #[target_feature(enable = "avx512f,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn count(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
        let (n, first) = (n as usize, first as usize);
        let full = full_mask(n as u32);
        let allow = &rows.allow;
        // Settled by mask operations: the children of row `n - 3`.
        let settle = n - 3;
        // The columns each row's children must have taken (the deadline; pure pruning).
        let mut need = [0u32; MAX_N as usize];
        if rows.deadline.0 < n {
            need[rows.deadline.0] = rows.deadline.1;
        }

        let root_free = !(m.cols | m.diag_up | m.diag_down) & allow[first];
        if root_free == 0 {
            return 0;
        }
        let mut b: Box<Buffers> = Box::new(Buffers {
            cols: [[0; CAP]; MAX_N as usize],
            up: [[0; CAP]; MAX_N as usize],
            down: [[0; CAP]; MAX_N as usize],
            free: [[0; CAP]; MAX_N as usize],
        });
        let mut len = [0usize; MAX_N as usize];
        b.cols[first][0] = m.cols;
        b.up[first][0] = m.diag_up;
        b.down[first][0] = m.diag_down;
        b.free[first][0] = root_free;
        len[first] = 1;
        // Bit r: row r has open nodes; bit r of `ready`: at least sixteen.
        let mut open = 1u32 << first;
        let mut ready = 0u32;

        let zero = _mm512_setzero_si512();
        let full_v = _mm512_set1_epi32(full as i32);
        let pen_allow = _mm512_set1_epi32(allow[n - 2] as i32);
        let last_allow = _mm512_set1_epi32(allow[n - 1] as i32);
        let mut total = 0u64;

        while open != 0 {
            let r = if ready != 0 {
                31 - ready.leading_zeros() as usize
            } else {
                open.trailing_zeros() as usize
            };
            let have = len[r];
            let take = have.min(LANES);
            let base = have - take;
            let k: __mmask16 = if take == LANES {
                !0
            } else {
                (1u16 << take) - 1
            };
            let cols = get(&b.cols[r], base, k);
            let up = get(&b.up[r], base, k);
            let down = get(&b.down[r], base, k);
            let free = get(&b.free[r], base, k);

            // The lowest untried square of every node; the rest stay open.
            let bit = _mm512_and_si512(free, _mm512_sub_epi32(zero, free));
            let rest = _mm512_xor_si512(free, bit);
            let keep = _mm512_test_epi32_mask(rest, rest);
            put(&mut b.cols[r], base, _mm512_maskz_compress_epi32(keep, cols));
            put(&mut b.up[r], base, _mm512_maskz_compress_epi32(keep, up));
            put(&mut b.down[r], base, _mm512_maskz_compress_epi32(keep, down));
            put(&mut b.free[r], base, _mm512_maskz_compress_epi32(keep, rest));
            let left = base + keep.count_ones() as usize;
            len[r] = left;

            // The children: the attacks on row r + 1.
            let c = _mm512_or_si512(cols, bit);
            let u = _mm512_slli_epi32::<1>(_mm512_or_si512(up, bit));
            let d = _mm512_srli_epi32::<1>(_mm512_or_si512(down, bit));
            let need_v = _mm512_set1_epi32(need[r] as i32);
            let valid = k & _mm512_cmpeq_epi32_mask(_mm512_and_si512(c, need_v), need_v);
            let attacked = _mm512_or_si512(c, _mm512_or_si512(u, d));

            let mut grew = 0usize;
            if r == settle {
                // Rows n-2 and n-1: the two free columns x < y, either way round.
                let rest = _mm512_andnot_si512(c, full_v);
                let x = _mm512_and_si512(rest, _mm512_sub_epi32(zero, rest));
                let y = _mm512_xor_si512(rest, x);
                let pen = _mm512_andnot_si512(attacked, pen_allow);
                let last_att =
                    _mm512_or_si512(_mm512_slli_epi32::<1>(u), _mm512_srli_epi32::<1>(d));
                let last = _mm512_andnot_si512(last_att, last_allow);
                let apart = _mm512_cmpneq_epi32_mask(_mm512_slli_epi32::<1>(x), y);
                let both = valid & apart;
                let xy = both & _mm512_test_epi32_mask(pen, x) & _mm512_test_epi32_mask(last, y);
                let yx = both & _mm512_test_epi32_mask(pen, y) & _mm512_test_epi32_mask(last, x);
                total += u64::from(xy.count_ones() + yx.count_ones());
            } else {
                let next_allow = _mm512_set1_epi32(allow[r + 1] as i32);
                let cfree = _mm512_andnot_si512(attacked, next_allow);
                let live = valid & _mm512_test_epi32_mask(cfree, cfree);
                let at = len[r + 1];
                put(&mut b.cols[r + 1], at, _mm512_maskz_compress_epi32(live, c));
                put(&mut b.up[r + 1], at, _mm512_maskz_compress_epi32(live, u));
                put(&mut b.down[r + 1], at, _mm512_maskz_compress_epi32(live, d));
                put(&mut b.free[r + 1], at, _mm512_maskz_compress_epi32(live, cfree));
                grew = live.count_ones() as usize;
                len[r + 1] = at + grew;
            }

            // Update the row sets (r + 1 only changes when children were added).
            let flag = |len: usize| (u32::from(len > 0), u32::from(len >= LANES));
            let (o, q) = flag(left);
            open = open & !(1 << r) | o << r;
            ready = ready & !(1 << r) | q << r;
            if grew > 0 {
                let (o, q) = flag(len[r + 1]);
                open |= o << (r + 1);
                ready = ready & !(1 << (r + 1)) | q << (r + 1);
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{full_mask, unconstrained};
    use proptest::prelude::*;

    #[test]
    fn counts_whole_boards() {
        for n in 4..=12u32 {
            let rows = Rows {
                allow: unconstrained(n),
                deadline: (MAX_N as usize, 0),
            };
            let want = crate::known::published(n).unwrap().total as u64;
            assert_eq!(count(n, 0, Masks::EMPTY, &rows), want, "n = {n}");
            assert_eq!(depth_first(n, 0, Masks::EMPTY, &rows), want, "n = {n}");
        }
    }

    proptest! {
        #[test]
        fn agrees_with_the_depth_first_search(
            n in 5u32..=11,
            first in 0u32..3,
            holes in proptest::collection::vec(any::<u32>(), 32),
            dead_row in 0usize..12,
            dead_cols in any::<u32>(),
        ) {
            let full = full_mask(n);
            let mut allow = [0u32; 32];
            for r in 0..n as usize {
                // Sparse holes, so that many searches still find solutions.
                allow[r] = full & !(holes[r] & holes[(r + 7) % 32] & holes[(r + 13) % 32]);
            }
            let rows = Rows { allow, deadline: (dead_row, dead_cols & full & 0b1000_0001) };
            let mut m = Masks::EMPTY;
            for r in 0..first as usize {
                let free = m.free(full) & allow[r];
                prop_assume!(free != 0);
                m = m.place(free & free.wrapping_neg());
            }
            prop_assert_eq!(count(n, first, m, &rows), depth_first(n, first, m, &rows));
        }
    }
}
