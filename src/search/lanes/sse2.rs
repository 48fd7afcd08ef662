//! The portable kernel's vector on x86-64: lanes in SSE2 registers, four to a register. SSE2 is
//! part of every x86-64 processor (the target's baseline), so this needs no run-time check; it is
//! what a processor without AVX2 runs.
//!
//! SSE2 has no shuffle by a run-time value, so the compress operation packs each pair of lanes
//! within its 64 bits (the upper lane moved down where it alone is kept: one shift and a blend
//! for the whole register) and stores the pairs, 64 bits at a time, each where the kept lanes
//! before it end. That was the fastest of the ways tried with SSE2 alone; eight lanes were
//! faster than sixteen (`results/2026-12-01-2core-vm-portable/NOTE.md`).

use super::Vector;
use std::arch::x86_64::*;

/// Registers per vector.
const R: usize = 2;

#[derive(Clone, Copy)]
pub(super) struct Sse2([__m128i; R]);

// The buffer sizes assume every vector's lanes lie between these bounds.
const _: () = assert!(Sse2::LANES <= super::MAX_LANES && Sse2::LANES >= super::MIN_LANES);

/// For every set of eight lanes, where each of its four pairs of lanes is stored: the number of
/// lanes of the set in the pairs before it.
static OFFSETS: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut set = 0;
    while set < 256 {
        let mut pair = 1;
        while pair < 4 {
            t[set][pair] = t[set][pair - 1] + (set >> (2 * (pair - 1)) & 3).count_ones() as u8;
            pair += 1;
        }
        set += 1;
    }
    t
};

/// For every set of four lanes (one register), the lanes that take the value of the lane above
/// them: the lower lane of each pair of which only the upper lane is in the set.
static LOWER: [[u32; 4]; 16] = {
    let mut t = [[0u32; 4]; 16];
    let mut set = 0;
    while set < 16 {
        if set & 3 == 2 {
            t[set][0] = u32::MAX;
        }
        if set >> 2 & 3 == 2 {
            t[set][2] = u32::MAX;
        }
        set += 1;
    }
    t
};

impl Sse2 {
    /// `f` on every register.
    #[inline(always)]
    fn map(self, f: impl Fn(__m128i) -> __m128i) -> Self {
        Sse2(self.0.map(f))
    }

    /// `f` on every register of `self` and `o`.
    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(__m128i, __m128i) -> __m128i) -> Self {
        let mut r = self.0;
        for (r, o) in r.iter_mut().zip(o.0) {
            *r = f(*r, o);
        }
        Sse2(r)
    }

    /// The lanes that are all ones, of a vector whose lanes are all ones or zero: the registers
    /// packed into the bytes of one (signed saturation keeps -1 and 0), then one bit a byte.
    #[inline(always)]
    fn ones(self) -> u32 {
        // SAFETY: SSE2 is part of x86-64.
        unsafe {
            let low = _mm_packs_epi32(self.0[0], self.0[1]);
            let high = if R == 4 {
                _mm_packs_epi32(self.0[2 % R], self.0[3 % R])
            } else {
                low
            };
            _mm_movemask_epi8(_mm_packs_epi16(low, high)) as u32 & Self::ALL
        }
    }

    /// Every lane, as a mask.
    const ALL: u32 = (1 << Self::LANES) - 1;
}

// SAFETY (every method): SSE2 is part of x86-64; `load` and `store` are the caller's pointers.
impl Vector for Sse2 {
    const LANES: usize = 4 * R;
    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        Sse2([_mm_set1_epi32(x as i32); R])
    }
    #[inline(always)]
    unsafe fn load(p: *const u32) -> Self {
        Sse2(std::array::from_fn(|i| {
            _mm_loadu_si128(p.add(4 * i).cast())
        }))
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u32) {
        for (i, r) in self.0.into_iter().enumerate() {
            _mm_storeu_si128(p.add(4 * i).cast(), r);
        }
    }
    #[inline(always)]
    unsafe fn and(self, o: Self) -> Self {
        self.zip(o, |a, b| _mm_and_si128(a, b))
    }
    #[inline(always)]
    unsafe fn or(self, o: Self) -> Self {
        self.zip(o, |a, b| _mm_or_si128(a, b))
    }
    #[inline(always)]
    unsafe fn xor(self, o: Self) -> Self {
        self.zip(o, |a, b| _mm_xor_si128(a, b))
    }
    #[inline(always)]
    unsafe fn and_not(self, o: Self) -> Self {
        self.zip(o, |a, b| _mm_andnot_si128(a, b))
    }
    #[inline(always)]
    unsafe fn lowest(self) -> Self {
        self.map(|a| _mm_and_si128(a, _mm_sub_epi32(_mm_setzero_si128(), a)))
    }
    #[inline(always)]
    unsafe fn shl1(self) -> Self {
        self.map(|a| _mm_slli_epi32::<1>(a))
    }
    #[inline(always)]
    unsafe fn shr1(self) -> Self {
        self.map(|a| _mm_srli_epi32::<1>(a))
    }
    #[inline(always)]
    unsafe fn nonzero(self) -> u32 {
        !self.eq(Self::splat(0)) & Self::ALL
    }
    #[inline(always)]
    unsafe fn eq(self, o: Self) -> u32 {
        self.zip(o, |a, b| _mm_cmpeq_epi32(a, b)).ones()
    }
    #[inline(always)]
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32 {
        self.or(a).or(b).and_not(Self::splat(allow)).nonzero()
    }
    #[inline(always)]
    unsafe fn compress_store(self, keep: u32, p: *mut u32) {
        let mut at = 0;
        for (i, r) in self.0.into_iter().enumerate() {
            let set = keep as usize >> (8 * (i / 2)) & 0xff;
            let lower = _mm_loadu_si128(LOWER[set >> (4 * (i % 2)) & 15].as_ptr().cast());
            // Where `lower` is set, the lane above; elsewhere the lane itself.
            let down = _mm_srli_epi64::<32>(r);
            let packed = _mm_castsi128_pd(_mm_xor_si128(
                r,
                _mm_and_si128(_mm_xor_si128(r, down), lower),
            ));
            let pairs = OFFSETS[set];
            _mm_storel_pd(p.add(at + usize::from(pairs[2 * (i % 2)])).cast(), packed);
            _mm_storeh_pd(
                p.add(at + usize::from(pairs[2 * (i % 2) + 1])).cast(),
                packed,
            );
            if i % 2 == 1 {
                at += set.count_ones() as usize;
            }
        }
    }
    #[inline(always)]
    unsafe fn shl(self, by: usize) -> Self {
        let by = _mm_cvtsi32_si128(by as i32);
        self.map(|a| _mm_sll_epi32(a, by))
    }
    #[inline(always)]
    unsafe fn shr(self, by: usize) -> Self {
        let by = _mm_cvtsi32_si128(by as i32);
        self.map(|a| _mm_srl_epi32(a, by))
    }
    #[inline(always)]
    unsafe fn index(self) -> Self {
        self.map(|a| {
            let bits = _mm_castps_si128(_mm_cvtepi32_ps(a));
            let exponent = _mm_and_si128(_mm_srli_epi32::<23>(bits), _mm_set1_epi32(0xff));
            _mm_sub_epi32(exponent, _mm_set1_epi32(127))
        })
    }
}
