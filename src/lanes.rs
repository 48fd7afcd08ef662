//! A counting search that advances many search nodes at once in the lanes of a vector register
//! (16 with AVX-512, 8 with AVX2), with no data-dependent branch per node.
//!
//! The depth-first search of [`crate::d4::search`] spends most of its time on one branch per
//! node that the processor cannot predict (does this row have another free square?). This search
//! removes it by working on many nodes of the same row at once:
//!
//! * each row `r` has a small buffer of *open nodes*: the attacks on row `r` of a partial
//!   placement (`cols`, `diag_up`, `diag_down`) and the squares of row `r` not yet tried (`free`);
//! * one *step* takes up to one register of open nodes of one row, places a queen on the lowest
//!   untried square of each, puts the nodes that still have untried squares back, and appends
//!   the children that have a free square to the next row's buffer (dead ends are dropped at
//!   once; two rows before the end the last two rows are settled by mask operations, as in
//!   [`crate::d4::search`]);
//! * the next step takes the deepest row holding a full register of open nodes; when no row has
//!   one, the shallowest row with any, whose children then fill the rows below. So every buffer
//!   stays below two registers of nodes, and nearly every step fills every lane (15.97 of 16 on
//!   average over the D4 units of N = 16).
//!
//! The order in which nodes are visited differs from the depth-first search, the set of nodes
//! does not, so neither does the count. Lanes are packed together with compress operations
//! (`vpcompressd`, or a permutation from a table with AVX2) and stored with plain unaligned
//! stores, because the memory form of `vpcompressd` is slow on some processors.
//!
//! The vector code is chosen at run time ([`Kernel::best`]), so one portable binary serves every
//! x86-64 machine; elsewhere, or when asked, [`count`] runs the depth-first search.

use crate::d4::search::{self, Rows};
use crate::kernel::{full_mask, Masks, MAX_N};
use std::sync::atomic::{AtomicU8, Ordering};

/// The code that runs [`count`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// The depth-first search of [`crate::d4::search`], one node at a time: any processor.
    Dfs,
    /// Eight lanes of AVX2.
    Avx2,
    /// Sixteen lanes of AVX-512 (AVX-512F).
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 3] = [Kernel::Dfs, Kernel::Avx2, Kernel::Avx512];

    /// Its name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Dfs => "dfs",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The kernel called `name`, if any.
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether this processor can run it.
    pub fn available(self) -> bool {
        match self {
            Kernel::Dfs => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest kernel this processor can run.
    pub fn best() -> Kernel {
        Kernel::ALL
            .into_iter()
            .rev()
            .find(|k| k.available())
            .unwrap_or(Kernel::Dfs)
    }

    /// The kernel [`count`] uses: [`Kernel::best`] unless [`Kernel::select`] chose another.
    pub fn current() -> Kernel {
        match SELECTED.load(Ordering::Relaxed) {
            0 => {
                let best = Kernel::best();
                SELECTED.store(best as u8 + 1, Ordering::Relaxed);
                best
            }
            k => Kernel::ALL[usize::from(k - 1)],
        }
    }

    /// Makes [`count`] use this kernel from now on, in the whole process (for benchmarks and
    /// checks). Refused, returning `false`, when the processor cannot run it.
    pub fn select(self) -> bool {
        if !self.available() {
            return false;
        }
        SELECTED.store(self as u8 + 1, Ordering::Relaxed);
        true
    }
}

/// `Kernel as u8 + 1`, or 0 before the first use.
static SELECTED: AtomicU8 = AtomicU8::new(0);

/// Counts the solutions below a prefix, like [`search::search`] with [`search::Count`]: rows
/// `first..n` (with `first + 3 <= n`), whose attacks on row `first` are `m`, under `rows`, on
/// the [`Kernel::current`] kernel.
pub fn count(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    count_on(Kernel::current(), n, first, m, rows)
}

/// [`count`] on a given kernel; the depth-first search if the processor cannot run it.
pub fn count_on(kernel: Kernel, n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    assert!(n <= MAX_N && first + 3 <= n);
    #[cfg(target_arch = "x86_64")]
    {
        if kernel != Kernel::Dfs && kernel.available() {
            // SAFETY: the processor has the features each function is compiled for.
            return unsafe {
                match kernel {
                    Kernel::Avx512 => x86::count_avx512(n, first, m, rows),
                    _ => x86::count_avx2(n, first, m, rows),
                }
            };
        }
    }
    let _ = kernel;
    let mut c = search::Count(0);
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut c);
    c.0
}

/// The operations the search needs on a register of `u32` lanes. Lane sets are bit masks
/// (bit `i` = lane `i`).
///
/// # Safety
/// Every method may only run on a processor with the implementation's features.
trait Vector: Copy {
    /// Lanes per register (at most [`MAX_LANES`]).
    const LANES: usize;
    unsafe fn splat(x: u32) -> Self;
    /// Loads `LANES` values from `p`.
    unsafe fn load(p: *const u32) -> Self;
    /// Stores all lanes at `p`.
    unsafe fn store(self, p: *mut u32);
    unsafe fn and(self, o: Self) -> Self;
    unsafe fn or(self, o: Self) -> Self;
    unsafe fn xor(self, o: Self) -> Self;
    /// `!self & o`.
    unsafe fn and_not(self, o: Self) -> Self;
    /// `self & self.wrapping_neg()` in every lane: the lowest set bit.
    unsafe fn lowest(self) -> Self;
    unsafe fn shl1(self) -> Self;
    unsafe fn shr1(self) -> Self;
    /// The lanes that are not zero.
    unsafe fn nonzero(self) -> u32;
    /// The lanes equal to `o`'s.
    unsafe fn eq(self, o: Self) -> u32;
    /// The lanes of `keep`, packed into the lowest lanes (the others undefined).
    unsafe fn compress(self, keep: u32) -> Self;
}

/// The most lanes of any [`Vector`].
const MAX_LANES: usize = 16;
/// Room per row: fewer than two registers of open nodes, plus a register written past the end.
const CAP: usize = 3 * MAX_LANES;
/// Searches that take turns (see [`run`]).
const WAYS: usize = 4;

/// The fields of an open node, each an array of a row's buffer.
const COLS: usize = 0;
const UP: usize = 1;
const DOWN: usize = 2;
const FREE: usize = 3;

/// One row's open nodes: one array per field (structure of arrays), the four side by side.
type Row = [[u32; CAP]; 4];

/// What every step of one search reads.
struct Shared<'a> {
    n: usize,
    lanes: usize,
    all_lanes: u32,
    allow: &'a [u32; MAX_N as usize],
    /// The columns each row's children must have taken (the deadline; pure pruning).
    need: [u32; MAX_N as usize],
}

/// One search in progress: its open nodes.
#[repr(C, align(64))]
struct Search {
    rows: [Row; MAX_N as usize],
    len: [usize; MAX_N as usize],
    /// Bit r of `open`: row r has open nodes; of `ready`: at least a register of them.
    open: u32,
    ready: u32,
    total: u64,
}

impl Search {
    /// A search with no open node.
    fn new() -> Search {
        // Zeroed, so that lanes read past the open nodes hold defined values (they are ignored).
        Search {
            rows: [[[0; CAP]; 4]; MAX_N as usize],
            len: [0; MAX_N as usize],
            open: 0,
            ready: 0,
            total: 0,
        }
    }

    /// Adds an open node to row `r`, which must have room.
    fn push(&mut self, r: usize, node: [u32; 4], lanes: usize) {
        let i = self.len[r];
        for (field, v) in self.rows[r].iter_mut().zip(node) {
            field[i] = v;
        }
        self.set_len(r, i + 1, lanes);
    }

    /// Sets the length of row `r` and its bits in `open` and `ready`.
    #[inline(always)]
    fn set_len(&mut self, r: usize, len: usize, lanes: usize) {
        self.len[r] = len;
        self.open = self.open & !(1 << r) | u32::from(len > 0) << r;
        self.ready = self.ready & !(1 << r) | u32::from(len >= lanes) << r;
    }

    /// Moves half of the open nodes of this search's shallowest row with two or more to `to`
    /// (which has none); false if there is no such row.
    fn share(&mut self, to: &mut Search, lanes: usize) -> bool {
        let Some(r) = (0..MAX_N as usize).find(|&r| self.len[r] >= 2) else {
            return false;
        };
        let len = self.len[r];
        let keep = len - len / 2;
        for i in keep..len {
            to.push(r, self.rows[r].map(|field| field[i]), lanes);
        }
        self.set_len(r, keep, lanes);
        true
    }

    /// One step (see the module documentation). `open` must not be empty.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn step<V: Vector>(&mut self, sh: &Shared) {
        let lanes = sh.lanes;
        let r = if self.ready != 0 {
            31 - self.ready.leading_zeros() as usize
        } else {
            self.open.trailing_zeros() as usize
        };
        let take = self.len[r].min(lanes);
        let base = self.len[r] - take;
        let k = sh.all_lanes >> (lanes - take);
        // Rows hold fewer than two registers of nodes, so `i + lanes <= CAP` below: every
        // access is inside the row.
        let get = |row: &Row, field: usize, i: usize| {
            debug_assert!(i + lanes <= CAP);
            V::load(row[field].as_ptr().add(i))
        };
        let put = |row: &mut Row, field: usize, i: usize, v: V| {
            debug_assert!(i + lanes <= CAP);
            v.store(row[field].as_mut_ptr().add(i));
        };
        let this = &mut self.rows[r];
        let cols = get(this, COLS, base);
        let up = get(this, UP, base);
        let down = get(this, DOWN, base);
        let free = get(this, FREE, base);

        // The lowest untried square of every node; nodes with squares left stay open.
        let bit = free.lowest();
        let rest = free.xor(bit);
        let keep = k & rest.nonzero();
        put(this, COLS, base, cols.compress(keep));
        put(this, UP, base, up.compress(keep));
        put(this, DOWN, base, down.compress(keep));
        put(this, FREE, base, rest.compress(keep));
        self.set_len(r, base + keep.count_ones() as usize, lanes);

        // The children: the attacks on row r + 1.
        let c = cols.or(bit);
        let u = up.or(bit).shl1();
        let d = down.or(bit).shr1();
        let need = V::splat(sh.need[r]);
        let valid = k & c.and(need).eq(need);
        let attacked = c.or(u).or(d);

        if r == sh.n - 3 {
            // Rows n-2 and n-1: the two free columns x < y, either way round.
            let rest = c.and_not(V::splat(full_mask(sh.n as u32)));
            let x = rest.lowest();
            let y = rest.xor(x);
            let pen = attacked.and_not(V::splat(sh.allow[sh.n - 2]));
            let last = u.shl1().or(d.shr1()).and_not(V::splat(sh.allow[sh.n - 1]));
            let apart = valid & !x.shl1().eq(y);
            let xy = apart & pen.and(x).nonzero() & last.and(y).nonzero();
            let yx = apart & pen.and(y).nonzero() & last.and(x).nonzero();
            self.total += u64::from(xy.count_ones() + yx.count_ones());
        } else {
            let child_free = attacked.and_not(V::splat(sh.allow[r + 1]));
            let live = valid & child_free.nonzero();
            let end = self.len[r + 1];
            let next = &mut self.rows[r + 1];
            put(next, COLS, end, c.compress(live));
            put(next, UP, end, u.compress(live));
            put(next, DOWN, end, d.compress(live));
            put(next, FREE, end, child_free.compress(live));
            self.set_len(r + 1, end + live.count_ones() as usize, lanes);
        }
    }
}

/// The search itself (see the module documentation), for any [`Vector`]; inlined into one
/// function per instruction set.
///
/// [`WAYS`] independent searches take turns, so that while one waits for the values it has just
/// stored, the processor works on the others. They start with the root in one of them; whenever
/// one runs out of open nodes, it takes half of the shallowest row holding two or more of
/// another, so all stay busy to the end.
///
/// # Safety
/// The processor must have `V`'s features.
#[inline(always)]
unsafe fn run<V: Vector>(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let (n, first) = (n as usize, first as usize);
    let mut need = [0u32; MAX_N as usize];
    if rows.deadline.0 < n {
        need[rows.deadline.0] = rows.deadline.1;
    }
    let sh = Shared {
        n,
        lanes: V::LANES,
        all_lanes: (1u32 << V::LANES) - 1,
        allow: &rows.allow,
        need,
    };
    let free = !(m.cols | m.diag_up | m.diag_down) & rows.allow[first];
    if free == 0 {
        return 0;
    }
    let mut s: [Search; WAYS] = std::array::from_fn(|_| Search::new());
    s[0].push(first, [m.cols, m.diag_up, m.diag_down, free], V::LANES);
    loop {
        if s.iter().all(|s| s.open != 0) {
            for s in &mut s {
                s.step::<V>(&sh);
            }
            continue;
        }
        // Refill every idle search from a busy one where one can give; step the busy ones.
        for idle in 0..WAYS {
            if s[idle].open == 0 {
                let (lo, hi) = s.split_at_mut(idle);
                let (to, hi) = hi.split_first_mut().expect("idle < WAYS");
                lo.iter_mut().chain(hi).any(|from| from.share(to, V::LANES));
            }
        }
        let mut busy = false;
        for s in &mut s {
            if s.open != 0 {
                s.step::<V>(&sh);
                busy = true;
            }
        }
        if !busy {
            break;
        }
    }
    s.iter().map(|s| s.total).sum()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{run, Rows, Vector};
    use crate::kernel::Masks;
    use std::arch::x86_64::*;

    /// [`super::count`] on sixteen AVX-512 lanes.
    ///
    /// # Safety
    /// The processor must support AVX-512F.
    #[target_feature(enable = "avx512f,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn count_avx512(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
        run::<Zmm>(n, first, m, rows)
    }

    /// [`super::count`] on eight AVX2 lanes.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn count_avx2(n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
        run::<Ymm>(n, first, m, rows)
    }

    #[derive(Clone, Copy)]
    struct Zmm(__m512i);

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
        unsafe fn eq(self, o: Self) -> u32 {
            u32::from(_mm512_cmpeq_epi32_mask(self.0, o.0))
        }
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn compress(self, keep: u32) -> Self {
            Zmm(_mm512_maskz_compress_epi32(keep as u16, self.0))
        }
    }

    #[derive(Clone, Copy)]
    struct Ymm(__m256i);

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
        unsafe fn eq(self, o: Self) -> u32 {
            let same = _mm256_cmpeq_epi32(self.0, o.0);
            _mm256_movemask_ps(_mm256_castsi256_ps(same)) as u32
        }
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn compress(self, keep: u32) -> Self {
            let perm = _mm256_loadu_si256(PACK[keep as usize & 0xff].as_ptr().cast());
            Ymm(_mm256_permutevar8x32_epi32(self.0, perm))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::unconstrained;
    use proptest::prelude::*;

    fn kernels() -> Vec<Kernel> {
        Kernel::ALL.into_iter().filter(|k| k.available()).collect()
    }

    #[test]
    fn names_round_trip() {
        for k in Kernel::ALL {
            assert_eq!(Kernel::from_name(k.name()), Some(k));
        }
        assert_eq!(Kernel::from_name("sse"), None);
        assert!(Kernel::Dfs.available());
        assert!(Kernel::best().available());
    }

    #[test]
    fn counts_whole_boards() {
        for n in 3..=12u32 {
            let rows = Rows {
                allow: unconstrained(n),
                deadline: (MAX_N as usize, 0),
            };
            let want = crate::known::published(n).unwrap().total as u64;
            for k in Kernel::ALL {
                assert_eq!(
                    count_on(k, n, 0, Masks::EMPTY, &rows),
                    want,
                    "n = {n}, {k:?}"
                );
            }
        }
    }

    proptest! {
        #[test]
        fn kernels_agree_with_the_depth_first_search(
            n in 5u32..=12,
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
            for &row in &allow[..first as usize] {
                let free = m.free(full) & row;
                prop_assume!(free != 0);
                m = m.place(free & free.wrapping_neg());
            }
            let want = count_on(Kernel::Dfs, n, first, m, &rows);
            for k in kernels() {
                prop_assert_eq!(count_on(k, n, first, m, &rows), want, "{:?}", k);
            }
        }
    }
}
