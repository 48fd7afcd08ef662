//! The lane search on sixteen AVX-512 lanes: the [`Vector`] operations of `__m512i`.

use super::Vector;
use std::arch::x86_64::*;

entry_points!(Zmm, "avx512f,popcnt,bmi1,lzcnt", "sixteen AVX-512 lanes");

#[derive(Clone, Copy)]
pub(super) struct Zmm(__m512i);

// The buffer sizes assume every vector's lanes lie between these bounds.
const _: () = assert!(Zmm::LANES <= super::MAX_LANES && Zmm::LANES >= super::MIN_LANES);

impl Vector for Zmm {
    const LANES: usize = 16;
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn splat(x: u32) -> Self {
        Zmm(_mm512_set1_epi32(x as i32))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn load(p: *const u32) -> Self {
        Zmm(_mm512_loadu_si512(p.cast()))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn store(self, p: *mut u32) {
        _mm512_storeu_si512(p.cast(), self.0)
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn and(self, o: Self) -> Self {
        Zmm(_mm512_and_si512(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn or(self, o: Self) -> Self {
        Zmm(_mm512_or_si512(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn xor(self, o: Self) -> Self {
        Zmm(_mm512_xor_si512(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn and_not(self, o: Self) -> Self {
        Zmm(_mm512_andnot_si512(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn lowest(self) -> Self {
        let neg = _mm512_sub_epi32(_mm512_setzero_si512(), self.0);
        Zmm(_mm512_and_si512(self.0, neg))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shl1(self) -> Self {
        Zmm(_mm512_slli_epi32::<1>(self.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shr1(self) -> Self {
        Zmm(_mm512_srli_epi32::<1>(self.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn nonzero(self) -> u32 {
        u32::from(_mm512_test_epi32_mask(self.0, self.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32 {
        // 0x01: the bits that none of the three has.
        let none = _mm512_ternarylogic_epi32::<0x01>(self.0, a.0, b.0);
        u32::from(_mm512_test_epi32_mask(
            none,
            _mm512_set1_epi32(allow as i32),
        ))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn eq(self, o: Self) -> u32 {
        u32::from(_mm512_cmpeq_epi32_mask(self.0, o.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn compress_store(self, keep: u32, p: *mut u32) {
        // Into a register, then a plain store (the memory form of `vpcompressd` is slow on some
        // processors).
        _mm512_storeu_si512(p.cast(), _mm512_maskz_compress_epi32(keep as u16, self.0))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shl(self, by: usize) -> Self {
        Zmm(_mm512_sll_epi32(self.0, _mm_cvtsi32_si128(by as i32)))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn shr(self, by: usize) -> Self {
        Zmm(_mm512_srl_epi32(self.0, _mm_cvtsi32_si128(by as i32)))
    }
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn index(self) -> Self {
        let bits = _mm512_castps_si512(_mm512_cvtepi32_ps(self.0));
        let exponent = _mm512_and_si512(_mm512_srli_epi32::<23>(bits), _mm512_set1_epi32(0xff));
        Zmm(_mm512_sub_epi32(exponent, _mm512_set1_epi32(127)))
    }
}
