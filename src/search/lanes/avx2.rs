//! The lane search on eight AVX2 lanes: the [`Vector`] operations of `__m256i`, with the
//! compress operation AVX2 lacks done by a permutation from a table.

use super::Vector;
use std::arch::x86_64::*;

entry_points!(Ymm, "avx2,popcnt,bmi1,lzcnt", "eight AVX2 lanes");

#[derive(Clone, Copy)]
pub(super) struct Ymm(__m256i);

// The buffer sizes assume every vector's lanes lie between these bounds.
const _: () = assert!(Ymm::LANES <= super::MAX_LANES && Ymm::LANES >= super::MIN_LANES);

/// For every set of eight lanes, the permutation that packs them into the lowest lanes.
static PACK: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut set = 0;
    while set < 256 {
        let (mut lane, mut out) = (0, 0);
        while lane < 8 {
            if set >> lane & 1 == 1 {
                t[set][out] = lane as u32;
                out += 1;
            }
            lane += 1;
        }
        set += 1;
    }
    t
};

impl Vector for Ymm {
    const LANES: usize = 8;
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn splat(x: u32) -> Self {
        Ymm(_mm256_set1_epi32(x as i32))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(p: *const u32) -> Self {
        Ymm(_mm256_loadu_si256(p.cast()))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store(self, p: *mut u32) {
        _mm256_storeu_si256(p.cast(), self.0)
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn and(self, o: Self) -> Self {
        Ymm(_mm256_and_si256(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn or(self, o: Self) -> Self {
        Ymm(_mm256_or_si256(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn xor(self, o: Self) -> Self {
        Ymm(_mm256_xor_si256(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn and_not(self, o: Self) -> Self {
        Ymm(_mm256_andnot_si256(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn lowest(self) -> Self {
        let neg = _mm256_sub_epi32(_mm256_setzero_si256(), self.0);
        Ymm(_mm256_and_si256(self.0, neg))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn shl1(self) -> Self {
        Ymm(_mm256_slli_epi32::<1>(self.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn shr1(self) -> Self {
        Ymm(_mm256_srli_epi32::<1>(self.0))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn nonzero(self) -> u32 {
        let zero = _mm256_cmpeq_epi32(self.0, _mm256_setzero_si256());
        !(_mm256_movemask_ps(_mm256_castsi256_ps(zero)) as u32) & 0xff
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32 {
        self.or(a).or(b).and_not(Self::splat(allow)).nonzero()
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn eq(self, o: Self) -> u32 {
        let same = _mm256_cmpeq_epi32(self.0, o.0);
        _mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn compress_store(self, keep: u32, p: *mut u32) {
        let perm = _mm256_loadu_si256(PACK[keep as usize & 0xff].as_ptr().cast());
        _mm256_storeu_si256(p.cast(), _mm256_permutevar8x32_epi32(self.0, perm))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn shl(self, by: usize) -> Self {
        Ymm(_mm256_sll_epi32(self.0, _mm_cvtsi32_si128(by as i32)))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn shr(self, by: usize) -> Self {
        Ymm(_mm256_srl_epi32(self.0, _mm_cvtsi32_si128(by as i32)))
    }
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn index(self) -> Self {
        let bits = _mm256_castps_si256(_mm256_cvtepi32_ps(self.0));
        let exponent = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(0xff));
        Ymm(_mm256_sub_epi32(exponent, _mm256_set1_epi32(127)))
    }
}
