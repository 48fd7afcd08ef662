//! The portable kernel: the lane search with nothing beyond the target's baseline, so on every
//! target. On x86-64 its vector is SSE2 (`sse2.rs`), which every x86-64 processor has.
//! Elsewhere it is a plain array of lanes, each operation a loop over the lanes that the
//! compiler turns into the target's default vector code where it has one (NEON on aarch64) and
//! into scalar code where not; lane masks are built lane by lane, and the compress operation
//! stores every lane at the place it packs to, one by one.
//!
//! On x86-64 the arrays, compiled to SSE2, were barely faster than the depth-first search and the
//! SSE2 intrinsics over three times as fast (`results/2026-12-01-2core-vm-portable/NOTE.md`):
//! the compiler vectorized the operations across the wrong dimension and moved lanes one at a
//! time.

use super::scheduler::{run, with_searches, COUNTING, KEYING, RECORDING, TIGHT_MAX_N};
use super::{CountSink, RowGaps, Sink, Vector};
use crate::search::bounded::Rows;
use crate::search::dfs::Masks;

/// [`super::count`] on the portable lanes.
pub(super) fn count(n: u32, first: u32, m: Masks, rows: &Rows, c: &mut CountSink) {
    // SAFETY: `Portable` needs no feature beyond the target's baseline.
    with_searches(&COUNTING, |s| unsafe {
        run::<Portable, _, 4, false>(s, n, first, m, rows, None, c)
    });
}

/// [`super::count_with_gaps`] on the portable lanes.
pub(super) fn count_with_gaps(
    rows_n: u32,
    m: Masks,
    rows: &Rows,
    gapped: RowGaps<'_>,
    c: &mut CountSink,
) {
    // SAFETY: `Portable` needs no feature beyond the target's baseline.
    with_searches(&COUNTING, |s| unsafe {
        run::<Portable, _, 4, true>(s, rows_n, 0, m, rows, Some(gapped), c)
    });
}

/// [`super::visit`] on the portable lanes.
pub(super) fn visit<S: Sink>(n: u32, first: u32, m: Masks, rows: &Rows, sink: &mut S) {
    // SAFETY: `Portable` needs no feature beyond the target's baseline.
    with_searches(&RECORDING, |s| unsafe {
        run::<Portable, _, 9, false>(s, n, first, m, rows, None, sink)
    });
}

/// [`super::visit_keys`] on the portable lanes.
pub(super) fn visit_keys<S: Sink>(n: u32, first: u32, m: Masks, rows: &Rows, sink: &mut S) {
    // Its rows are adjacent, and checked below each child ([`RowGaps::adjacent`]).
    let checked = Some(RowGaps::adjacent(n));
    // SAFETY: `Portable` needs no feature beyond the target's baseline.
    if n <= TIGHT_MAX_N {
        with_searches(&COUNTING, |s| unsafe {
            run::<Portable, _, 4, true>(s, n, first, m, rows, checked, sink)
        });
    } else {
        with_searches(&KEYING, |s| unsafe {
            run::<Portable, _, 5, true>(s, n, first, m, rows, checked, sink)
        });
    }
}

/// The vector of the portable kernel: SSE2 on x86-64, the arrays elsewhere (see the module
/// documentation).
#[cfg(target_arch = "x86_64")]
type Portable = super::sse2::Sse2;
#[cfg(not(target_arch = "x86_64"))]
type Portable = Lanes;

/// Lanes per register.
const L: usize = 8;

/// `L` lanes in an array. On x86-64 only the tests use it (`ops_agree` in `tests.rs`).
#[derive(Clone, Copy)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) struct Lanes([u32; L]);

// The buffer sizes assume every vector's lanes lie between these bounds.
const _: () = assert!(Lanes::LANES <= super::MAX_LANES && Lanes::LANES >= super::MIN_LANES);

impl Lanes {
    /// `f` on every lane of `self` and `o`.
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(u32, u32) -> u32) -> Self {
        Lanes(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }

    /// `f` on every lane.
    #[inline(always)]
    fn map(self, f: impl Fn(u32) -> u32) -> Self {
        self.zip(self, |x, _| f(x))
    }

    /// The lanes where `f` holds, as a mask: a sum of one bit per lane, which the compiler
    /// turns into a comparison, an and and a horizontal sum where the target has vectors.
    #[inline(always)]
    fn mask(self, f: impl Fn(u32) -> bool) -> u32 {
        let mut m = 0;
        for i in 0..L {
            m += if f(self.0[i]) { 1 << i } else { 0 };
        }
        m
    }
}

impl Vector for Lanes {
    const LANES: usize = L;
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        Lanes([x; L])
    }
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        Lanes(p.cast::<[u32; L]>().read_unaligned())
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        p.cast::<[u32; L]>().write_unaligned(self.0)
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        self.zip(o, |x, y| x & y)
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        self.zip(o, |x, y| x | y)
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        self.zip(o, |x, y| x ^ y)
    }
    #[inline(always)]
    unsafe fn and_not(self, o: Self) -> Self {
        self.zip(o, |x, y| !x & y)
    }
    #[inline(always)]
    unsafe fn lowest(self) -> Self {
        self.map(|x| x & x.wrapping_neg())
    }
    #[inline(always)]
    unsafe fn shl1(self) -> Self {
        self.map(|x| x << 1)
    }
    #[inline(always)]
    unsafe fn shr1(self) -> Self {
        self.map(|x| x >> 1)
    }
    #[inline(always)]
    unsafe fn nonzero(self) -> u32 {
        self.mask(|x| x != 0)
    }
    #[inline(always)]
    unsafe fn eq(self, o: Self) -> u32 {
        self.xor(o).mask(|x| x == 0)
    }
    #[inline(always)]
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32 {
        self.or(a).or(b).and_not(Self::splat(allow)).nonzero()
    }
    #[inline(always)]
    unsafe fn compress_store(self, keep: u32, p: *mut u32) {
        // Every lane is stored where it packs to, the kept ones last at their place: a lane
        // dropped is overwritten by the next kept lane, or lies past the kept ones.
        let mut at = 0;
        for i in 0..L {
            p.add(at).write(self.0[i]);
            at += (keep >> i & 1) as usize;
        }
    }
    #[inline(always)]
    unsafe fn shl(self, by: usize) -> Self {
        self.map(|x| x.checked_shl(by as u32).unwrap_or(0))
    }
    #[inline(always)]
    unsafe fn shr(self, by: usize) -> Self {
        self.map(|x| x.checked_shr(by as u32).unwrap_or(0))
    }
    #[inline(always)]
    unsafe fn index(self) -> Self {
        // The float conversion of the trait's documentation, which every vector unit has.
        self.map(|x| ((x as i32 as f32).to_bits() >> 23 & 0xff).wrapping_sub(127))
    }
}
