//! The lane search on NEON (Advanced SIMD, aarch64): lanes in 128-bit registers, four to a
//! register, the compress operation done by table lookups of bytes (`tbl`) from a table of
//! byte shuffles, eight lanes at a time.

use super::Vector;
use std::arch::aarch64::*;

entry_points!(Neon, "neon", "NEON lanes");

/// Registers per vector.
const R: usize = 4;

#[derive(Clone, Copy)]
pub(super) struct Neon([uint32x4_t; R]);

// The buffer sizes assume every vector's lanes lie between these bounds.
const _: () = assert!(Neon::LANES <= super::MAX_LANES && Neon::LANES >= super::MIN_LANES);
// The compress operation works on groups of eight lanes (two registers).
const _: () = assert!(R.is_multiple_of(2));

/// For every set of eight lanes, the bytes of the two registers holding them (`tbl` indices,
/// 0..32) that pack the lanes of the set into the lowest lanes; the rest of the bytes 0xff
/// (`tbl` gives zero for them).
static PACK: [[u8; 32]; 256] = {
    let mut t = [[0xffu8; 32]; 256];
    let mut set = 0;
    while set < 256 {
        let (mut lane, mut out) = (0, 0);
        while lane < 8 {
            if set >> lane & 1 == 1 {
                let mut byte = 0;
                while byte < 4 {
                    t[set][4 * out + byte] = (4 * lane + byte) as u8;
                    byte += 1;
                }
                out += 1;
            }
            lane += 1;
        }
        set += 1;
    }
    t
};

/// Lane `i` of register `r` holds bit `4 r + i`: [`Neon::ones`] keeps these bits of the lanes
/// that are all ones and adds them up.
static BITS: [[u32; 4]; 4] = [
    [1 << 0, 1 << 1, 1 << 2, 1 << 3],
    [1 << 4, 1 << 5, 1 << 6, 1 << 7],
    [1 << 8, 1 << 9, 1 << 10, 1 << 11],
    [1 << 12, 1 << 13, 1 << 14, 1 << 15],
];

impl Neon {
    /// The lanes that are all ones, of a vector whose lanes are all ones or zero: each lane's
    /// own bit kept, the registers or-ed together, the four lanes added up.
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn ones(self) -> u32 {
        let mut bits = vdupq_n_u32(0);
        for (r, weights) in self.0.iter().zip(&BITS) {
            bits = vorrq_u32(bits, vandq_u32(*r, vld1q_u32(weights.as_ptr())));
        }
        vaddvq_u32(bits)
    }
}

impl Vector for Neon {
    const LANES: usize = 4 * R;
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn splat(x: u32) -> Self {
        Neon([vdupq_n_u32(x); R])
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn load(p: *const u32) -> Self {
        let mut v = [vdupq_n_u32(0); R];
        for (i, r) in v.iter_mut().enumerate() {
            *r = vld1q_u32(p.add(4 * i));
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn store(self, p: *mut u32) {
        for (i, r) in self.0.into_iter().enumerate() {
            vst1q_u32(p.add(4 * i), r);
        }
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn and(self, o: Self) -> Self {
        let mut v = self.0;
        for (a, b) in v.iter_mut().zip(o.0) {
            *a = vandq_u32(*a, b);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn or(self, o: Self) -> Self {
        let mut v = self.0;
        for (a, b) in v.iter_mut().zip(o.0) {
            *a = vorrq_u32(*a, b);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn xor(self, o: Self) -> Self {
        let mut v = self.0;
        for (a, b) in v.iter_mut().zip(o.0) {
            *a = veorq_u32(*a, b);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn and_not(self, o: Self) -> Self {
        let mut v = self.0;
        for (a, b) in v.iter_mut().zip(o.0) {
            // `bic`: the first operand without the bits of the second.
            *a = vbicq_u32(b, *a);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn lowest(self) -> Self {
        let mut v = self.0;
        for a in &mut v {
            let neg = vreinterpretq_u32_s32(vnegq_s32(vreinterpretq_s32_u32(*a)));
            *a = vandq_u32(*a, neg);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn shl1(self) -> Self {
        let mut v = self.0;
        for a in &mut v {
            *a = vshlq_n_u32::<1>(*a);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn shr1(self) -> Self {
        let mut v = self.0;
        for a in &mut v {
            *a = vshrq_n_u32::<1>(*a);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn nonzero(self) -> u32 {
        let mut v = self.0;
        for a in &mut v {
            *a = vtstq_u32(*a, *a);
        }
        Neon(v).ones()
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn eq(self, o: Self) -> u32 {
        let mut v = self.0;
        for (a, b) in v.iter_mut().zip(o.0) {
            *a = vceqq_u32(*a, b);
        }
        Neon(v).ones()
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32 {
        let allow = vdupq_n_u32(allow);
        let mut v = self.or(a).or(b).0;
        for x in &mut v {
            // `cmtst`: the lanes where `allow` has a bit that none of the three has.
            *x = vtstq_u32(allow, vmvnq_u32(*x));
        }
        Neon(v).ones()
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn compress_store(self, keep: u32, p: *mut u32) {
        let mut at = 0;
        for g in 0..R / 2 {
            let set = keep as usize >> (8 * g) & 0xff;
            let table = uint8x16x2_t(
                vreinterpretq_u8_u32(self.0[2 * g]),
                vreinterpretq_u8_u32(self.0[2 * g + 1]),
            );
            let shuffle = PACK[set].as_ptr();
            let low = vqtbl2q_u8(table, vld1q_u8(shuffle));
            let high = vqtbl2q_u8(table, vld1q_u8(shuffle.add(16)));
            vst1q_u32(p.add(at), vreinterpretq_u32_u8(low));
            vst1q_u32(p.add(at + 4), vreinterpretq_u32_u8(high));
            at += set.count_ones() as usize;
        }
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn shl(self, by: usize) -> Self {
        // `ushl` by a count from 32 on gives 0.
        let by = vdupq_n_s32(by.min(32) as i32);
        let mut v = self.0;
        for a in &mut v {
            *a = vshlq_u32(*a, by);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn shr(self, by: usize) -> Self {
        // `ushl` by a negative count shifts right; from 32 on it gives 0.
        let by = vdupq_n_s32(-(by.min(32) as i32));
        let mut v = self.0;
        for a in &mut v {
            *a = vshlq_u32(*a, by);
        }
        Neon(v)
    }
    #[inline]
    #[target_feature(enable = "neon")]
    unsafe fn index(self) -> Self {
        // One bit set: its index is 31 less its leading zeros.
        let mut v = self.0;
        for a in &mut v {
            *a = vsubq_u32(vdupq_n_u32(31), vclzq_u32(*a));
        }
        Neon(v)
    }
}
