//! A counting search that advances many search nodes at once in the lanes of a vector register
//! (16 with AVX-512 and NEON, 8 with AVX2 and the portable kernel), with no data-dependent branch
//! per node.
//!
//! The depth-first search of [`crate::search::bounded`] spends most of its time on one branch per
//! node that the processor cannot predict (does this row have another free square?). This search
//! removes it by working on many nodes of the same row at once:
//!
//! * each row `r` has a small buffer of *open nodes*: the attacks on row `r` of a partial
//!   placement (`cols`, `diag_up`, `diag_down`) and the squares of row `r` not yet tried (`free`);
//! * one *step* takes up to one register of open nodes of one row, places a queen on the lowest
//!   untried square of each, puts the nodes that still have untried squares back, and appends
//!   the children that have a free square to the next row's buffer (dead ends are dropped at
//!   once; two rows before the end the last two rows are settled by mask operations, as in
//!   [`crate::search::bounded`]);
//! * the next step takes the deepest row holding a full register of open nodes; when no row has
//!   one, the shallowest row with any, whose children then fill the rows below. So every buffer
//!   stays below two registers of nodes, and nearly every step fills every lane
//!   (`results/2026-11-29-lane-kernel-notes/`).
//!
//! The order in which nodes are visited differs from the depth-first search, the set of nodes
//! does not, so neither does the count. Lanes are packed together with compress operations
//! (`vpcompressd`; a permutation from a table with AVX2; byte table lookups, `tbl`, with NEON;
//! pairs of lanes packed and stored 64 bits at a time with SSE2) and stored with plain unaligned
//! stores, because the memory form of `vpcompressd` is slow on some processors.
//!
//! One file per instruction set implements [`Vector`]: `avx512.rs`, `avx2.rs` (x86-64, chosen at
//! run time, [`Kernel::best`], so one binary serves every x86-64 machine), `neon.rs` (aarch64),
//! and the portable kernel, which needs nothing beyond the target's baseline and so runs
//! everywhere: `sse2.rs` on x86-64, the plain arrays of `portable.rs` elsewhere. The depth-first
//! search runs when asked ([`Kernel::Dfs`]) and for trees too small for the lanes.

/// Defines an instruction set's entry points, `count`, `count_with_gaps`, `visit_keys` and
/// `visit` on the vector type `$v` ("on `$lanes`" in their docs), each compiled with `$features` enabled so
/// that the scheduler's generic search inlines into it with those instructions.
macro_rules! entry_points {
    ($v:ty, $features:literal, $lanes:literal) => {
        #[doc = concat!("[`super::count`] on ", $lanes, ".")]
        ///
        /// # Safety
        #[doc = concat!(
            "The processor must have ", $features, " ([`crate::search::Kernel::available`])."
        )]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn count(
            n: u32,
            first: u32,
            m: crate::search::dfs::Masks,
            rows: &crate::search::bounded::Rows,
            c: &mut super::CountSink,
        ) {
            use super::scheduler::{run, with_searches, COUNTING};
            with_searches(&COUNTING, |s| {
                run::<$v, _, 4, false>(s, n, first, m, rows, None, c)
            });
        }

        #[doc = concat!("[`super::count_with_gaps`] on ", $lanes, ".")]
        ///
        /// # Safety
        #[doc = concat!(
            "The processor must have ", $features, " ([`crate::search::Kernel::available`])."
        )]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn count_with_gaps(
            rows_n: u32,
            m: crate::search::dfs::Masks,
            rows: &crate::search::bounded::Rows,
            gapped: super::RowGaps<'_>,
            c: &mut super::CountSink,
        ) {
            use super::scheduler::{run, with_searches, COUNTING};
            with_searches(&COUNTING, |s| {
                run::<$v, _, 4, true>(s, rows_n, 0, m, rows, Some(gapped), c)
            });
        }

        #[doc = concat!("[`super::visit_keys`] on ", $lanes, ".")]
        ///
        /// # Safety
        #[doc = concat!(
            "The processor must have ", $features, " ([`crate::search::Kernel::available`])."
        )]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn visit_keys<S: super::Sink>(
            n: u32,
            first: u32,
            m: crate::search::dfs::Masks,
            rows: &crate::search::bounded::Rows,
            sink: &mut S,
        ) {
            // Tight on small boards ([`super::scheduler::History`]). The closures stay in this
            // function, which has the instruction set's features: a closure of a generic
            // function has none, and calls every vector operation out of line.
            use super::scheduler::{run, with_searches, COUNTING, KEYING, TIGHT_MAX_N};
            // Its rows are adjacent, and checked below each child ([`super::RowGaps::adjacent`]).
            let checked = Some(super::RowGaps::adjacent(n));
            if n <= TIGHT_MAX_N {
                with_searches(&COUNTING, |s| {
                    run::<$v, _, 4, true>(s, n, first, m, rows, checked, sink)
                });
            } else {
                with_searches(&KEYING, |s| {
                    run::<$v, _, 5, true>(s, n, first, m, rows, checked, sink)
                });
            }
        }

        #[doc = concat!("[`super::visit`] on ", $lanes, ".")]
        ///
        /// # Safety
        #[doc = concat!(
            "The processor must have ", $features, " ([`crate::search::Kernel::available`])."
        )]
        #[target_feature(enable = $features)]
        pub(super) unsafe fn visit<S: super::Sink>(
            n: u32,
            first: u32,
            m: crate::search::dfs::Masks,
            rows: &crate::search::bounded::Rows,
            sink: &mut S,
        ) {
            use super::scheduler::{run, with_searches, RECORDING};
            with_searches(&RECORDING, |s| {
                run::<$v, _, 9, false>(s, n, first, m, rows, None, sink)
            });
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
mod scheduler;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(test)]
pub(crate) mod tests;

use super::bounded::{self as search, Rows};
use super::dfs::{full_mask, Masks, MAX_N};
use super::{Kernel, Runner};
use std::ops::{Add, AddAssign, Sub};

/// How many searches went to the lanes of a vector kernel and how many ran depth first (on
/// [`Kernel::Dfs`], on a processor without the kernel, or on a tree below the lane threshold):
/// which code really counted. Summed per run in [`crate::Report::searches`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Searches {
    /// Searches on the lanes of the run's kernel.
    pub lanes: u64,
    /// Searches depth first.
    pub depth_first: u64,
}

impl Add for Searches {
    type Output = Searches;
    fn add(self, o: Searches) -> Searches {
        Searches {
            lanes: self.lanes + o.lanes,
            depth_first: self.depth_first + o.depth_first,
        }
    }
}

impl AddAssign for Searches {
    fn add_assign(&mut self, o: Searches) {
        *self = *self + o;
    }
}

impl Sub for Searches {
    type Output = Searches;
    fn sub(self, o: Searches) -> Searches {
        Searches {
            lanes: self.lanes - o.lanes,
            depth_first: self.depth_first - o.depth_first,
        }
    }
}

/// Calls the function `f` of the file of `kernel`'s instruction set, which must be a lane kernel
/// this processor can run ([`worth_lanes`]).
macro_rules! on_lanes {
    ($kernel:expr, $f:ident($($arg:expr),*)) => {
        // SAFETY: the processor has the features of the kernel's instruction set (the callers
        // check [`Kernel::available`]), which are those its functions are compiled for. The
        // portable kernel's functions are safe: on a target with no other kernel the block
        // holds no unsafe call.
        #[allow(unused_unsafe)]
        unsafe {
            match $kernel {
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx512 => avx512::$f($($arg),*),
                #[cfg(target_arch = "x86_64")]
                Kernel::Avx2 => avx2::$f($($arg),*),
                #[cfg(target_arch = "aarch64")]
                Kernel::Neon => neon::$f($($arg),*),
                Kernel::Portable => portable::$f($($arg),*),
                other => unreachable!("the {other} kernel has no lanes on this processor"),
            }
        }
    };
}

/// Counts the solutions below a prefix, like [`search::search`] with [`search::LeafCount`]: rows
/// `first..n` (with `first + 3 <= n`), whose attacks on row `first` are `m`, under `rows`. On
/// `run`'s kernel, or the depth-first search if this processor cannot run it or the tree is
/// small (fewer rows than its lane threshold).
pub fn count(run: Runner, n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    assert!(n <= MAX_N && first + 3 <= n);
    let kernel = run.kernel;
    let lanes = worth_lanes(kernel, n - first, run.lane_min_rows);
    run.record(lanes);
    if lanes {
        let mut count = CountSink(0);
        on_lanes!(kernel, count(n, first, m, rows, &mut count));
        return count.0;
    }
    let mut c = search::LeafCount(0);
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut c);
    c.0
}

/// Calls `f` with every solution below a prefix (rows `first..n`, `first + 3 <= n`, whose
/// attacks on row `first` are `m`, under `rows`): the columns of rows `first..n`, in no
/// particular order. On `run`'s kernel, or the depth-first search if this processor cannot run
/// it or the tree is small (fewer rows than its lane threshold).
///
/// Each open node carries the columns of its queens (five bits a row), so this costs more per
/// node than [`count`]; it serves searches whose every solution must be looked at.
pub fn visit<F: FnMut(&[u8])>(run: Runner, n: u32, first: u32, m: Masks, rows: &Rows, f: F) {
    assert!(n <= MAX_N && first + 3 <= n);
    let mut sink = Visit {
        f,
        first: first as usize,
        n: n as usize,
        tail: [0; MAX_N as usize],
    };
    let kernel = run.kernel;
    let lanes = worth_lanes(kernel, n - first, run.lane_min_rows);
    run.record(lanes);
    if lanes {
        on_lanes!(kernel, visit(n, first, m, rows, &mut sink));
        return;
    }
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut sink);
}

/// Calls `f` with the keys of every solution below a prefix (rows `first..n`, whose attacks
/// on row `first` are `m`, under `rows`), a batch at a time, in no particular order: the columns of rows
/// `first..n - 1` packed into a `u64`, five bits each, the first row highest
/// ([`key_column`]), so that keys sort as their solutions do (the last row takes the column
/// left). At most [`KEY_ROWS`] + 1 rows: `first + 3 <= n <= first + KEY_ROWS + 1`. On `run`'s
/// kernel, or depth first as [`visit`].
///
/// The listing's search ([`crate::solutions`]): its keys are built in the lanes, all the
/// solutions of a step at once, rather than solution by solution.
pub fn visit_keys<F: FnMut(&[u64])>(run: Runner, n: u32, first: u32, m: Masks, rows: &Rows, f: F) {
    assert!(n <= scheduler::KEY_MAX_N && first + 3 <= n && n - first <= KEY_ROWS as u32 + 1);
    let mut sink = Keys::new(f, first, n);
    let kernel = run.kernel;
    let lanes = worth_lanes(kernel, n - first, run.lane_min_rows);
    run.record(lanes);
    if lanes {
        on_lanes!(kernel, visit_keys(n, first, m, rows, &mut sink));
    } else {
        search::search(n, first, m, rows, &[0; MAX_N as usize], &mut sink);
    }
    sink.flush();
}

/// The history words of a search for keys ([`visit_keys`]) on a board too large to be tight:
/// one, its other rows in spare bits ([`scheduler::History`]).
const KEY_WORDS: usize = 1;

/// The most rows a key of [`visit_keys`] holds.
pub const KEY_ROWS: usize = 12;

/// The 0-based column of the `i`-th row of `key` ([`visit_keys`]).
#[inline(always)]
pub fn key_column(key: u64, i: usize) -> u32 {
    (key >> key_shift(i)) as u32 & 31
}

/// The columns of rows `2 * j` and `2 * j + 1` of `key` ([`visit_keys`]), as one code:
/// the first times 32 plus the second.
#[inline(always)]
pub fn key_pair(key: u64, j: usize) -> u32 {
    (key >> key_shift(2 * j + 1)) as u32 & 0x3ff
}

/// The sum of the columns of the rows of `key` ([`visit_keys`]; the rows it does not hold
/// count 0): the five-bit fields added in pairs, then the pairs with one multiplication (each
/// partial sum stays below 1024, so no carry crosses a ten-bit group).
#[inline(always)]
pub fn key_sum(key: u64) -> u32 {
    const LOW: u64 = 0x1f | 0x1f << 10 | 0x1f << 20 | 0x1f << 30 | 0x1f << 40 | 0x1f << 50;
    const ONES: u64 = 1 | 1 << 10 | 1 << 20 | 1 << 30 | 1 << 40 | 1 << 50;
    let pairs = (key & LOW) + (key >> 5 & LOW);
    (pairs.wrapping_mul(ONES) >> 50) as u32 & 0x3ff
}

/// The key of the rows `cols` (at most [`KEY_ROWS`]) as [`visit_keys`] makes it.
pub fn key_of(cols: &[u8]) -> u64 {
    debug_assert!(cols.len() <= KEY_ROWS);
    cols.iter()
        .enumerate()
        .fold(0, |k, (i, &c)| k | u64::from(c) << key_shift(i))
}

/// Where row `i` lies in a key: two history words, the first above the second.
const fn key_shift(i: usize) -> usize {
    BITS_PER_ROW * (2 * ROWS_PER_WORD - 1 - i)
}

/// Where row `i` (counted from the search's first row) lies in history word
/// `i / ROWS_PER_WORD`: the first row of a word highest, so that two words, the first above
/// the second, are a key ([`key_shift`]).
const fn history_shift(i: usize) -> usize {
    BITS_PER_ROW * (ROWS_PER_WORD - 1 - i % ROWS_PER_WORD)
}

const _: () = assert!(KEY_ROWS == 2 * ROWS_PER_WORD && KEY_ROWS * BITS_PER_ROW <= 64 - 4);

/// The fewest rows below the prefix for which the lanes pay: a smaller tree is over before the
/// registers fill, and the depth-first search is faster
/// (`results/2026-12-01-2core-vm-portable/NOTE.md`).
pub const MIN_ROWS: u32 = 10;

/// Whether [`count_with_gaps`] runs on `kernel` on this processor.
pub fn gaps_run_on(kernel: Kernel) -> bool {
    worth_lanes(kernel, 3, 3)
}

/// A search that checks the rows below each child ([`Checks`]), whose rows need not be
/// adjacent on the board: the edge method's ([`count_with_gaps`]) and the listing's
/// ([`visit_keys`], [`RowGaps::adjacent`]).
#[derive(Clone, Copy)]
pub(super) struct RowGaps<'a> {
    /// The board's columns.
    cols_full: u32,
    /// `gap[i]`: the distance on the board from the `i`-th searched row to the next.
    gap: &'a [u32; MAX_N as usize],
}

impl RowGaps<'static> {
    /// The rows of an `n`-column board, every one searched: the checks without the gaps. The
    /// listing's search for keys runs so: with the checks, which drop dead children at once,
    /// `list N -t 1` took 0.85-0.89 of its time at N = 14-16
    /// (`results/2026-12-04-listing-checks/NOTE.md`).
    pub(super) fn adjacent(n: u32) -> RowGaps<'static> {
        static ONES: [u32; MAX_N as usize] = [1; MAX_N as usize];
        RowGaps {
            cols_full: full_mask(n),
            gap: &ONES,
        }
    }
}

/// Counts like [`count`], on a board whose searched rows are not adjacent: rows that already
/// hold a queen are left out (the edge method, [`crate::search::edge`]). `rows_n` searched rows
/// (at least 3), `allow[i]` the squares of the `i`-th, `gap[i]` its distance on the board to the
/// next (the shift of the diagonals between them), `cols_full` the board's columns, `m` the
/// attacks on the first searched row (the columns of the queens placed in advance included).
/// Only where [`gaps_run_on`] says so; the caller decides whether the tree is large enough
/// for the lanes (its [`Runner::lane_min_rows`]).
pub fn count_with_gaps(
    run: Runner,
    cols_full: u32,
    rows_n: u32,
    m: Masks,
    allow: &[u32; MAX_N as usize],
    gap: &[u32; MAX_N as usize],
) -> u64 {
    let kernel = run.kernel;
    assert!(gaps_run_on(kernel) && rows_n >= 3);
    run.record(true);
    let rows = Rows::allowing(*allow);
    let gapped = RowGaps { cols_full, gap };
    let mut count = CountSink(0);
    on_lanes!(
        kernel,
        count_with_gaps(rows_n, m, &rows, gapped, &mut count)
    );
    count.0
}

/// Whether a search of `rows` rows runs on `kernel`'s lanes (or else depth first).
fn worth_lanes(kernel: Kernel, rows: u32, min_rows: u32) -> bool {
    kernel != Kernel::Dfs && rows >= min_rows && kernel.available()
}

/// Where the solutions of a lane search go, two rows before the end.
trait Sink {
    /// Whether open nodes carry the columns of their queens.
    const HISTORY: bool;
    /// Whether solutions go to [`Sink::keys`], all of a step at once, rather than one by one
    /// to [`Sink::solution`]. Only with `HISTORY`.
    const KEYS: bool = false;
    /// `pairs` solutions were found (a node's two free columns, one way round or the other).
    fn add(&mut self, pairs: u32);
    /// One solution: `words` the history of its node (see [`scheduler::Shared`]), `pen` and `last`
    /// the bits of the queens of rows `n - 2` and `n - 1`. Only called when `HISTORY`.
    fn solution(&mut self, words: &[u32], pen: u32, last: u32);
    /// Where a step for keys stores the halves of its solutions' keys ([`Sink::keys`]). Only
    /// called when `KEYS`.
    fn key_room(&mut self) -> &mut KeyRoom {
        unreachable!("only a search for keys stores keys")
    }
    /// The first `count` solutions in [`Sink::key_room`]: keys `high[i] << 30 | low[i]`
    /// ([`visit_keys`]). Only called when `KEYS`.
    fn keys(&mut self, _count: usize) {}
    /// The history words a search of nodes of `F` fields carries: those its rows need, or
    /// with `KEYS` the fields beyond the board's four (none or [`KEY_WORDS`]), a number the
    /// compiler knows (their loops unrolled, the words in registers).
    #[inline(always)]
    fn words<const F: usize>(sh: &scheduler::Shared) -> usize {
        if Self::KEYS {
            F - WORDS
        } else {
            sh.words()
        }
    }
}

/// Counts.
struct CountSink(u64);

impl Sink for CountSink {
    const HISTORY: bool = false;
    #[inline(always)]
    fn add(&mut self, pairs: u32) {
        self.0 += u64::from(pairs);
    }
    fn solution(&mut self, _: &[u32], _: u32, _: u32) {}
}

/// Rebuilds each solution's columns and hands them to `f`.
struct Visit<F> {
    f: F,
    first: usize,
    n: usize,
    tail: [u8; MAX_N as usize],
}

impl<F: FnMut(&[u8])> Visit<F> {
    fn emit(&mut self, pen: u32, last: u32) {
        let (first, n) = (self.first, self.n);
        self.tail[n - 2 - first] = pen.trailing_zeros() as u8;
        self.tail[n - 1 - first] = last.trailing_zeros() as u8;
        (self.f)(&self.tail[..n - first]);
    }
}

impl<F: FnMut(&[u8])> Sink for Visit<F> {
    const HISTORY: bool = true;
    fn add(&mut self, _: u32) {}
    #[cold]
    fn solution(&mut self, words: &[u32], pen: u32, last: u32) {
        for i in 0..self.n - 2 - self.first {
            let word = words[i / ROWS_PER_WORD];
            self.tail[i] = (word >> history_shift(i) & 31) as u8;
        }
        self.emit(pen, last);
    }
}

/// The halves of the keys of a step's solutions ([`Sink::key_room`]): room for both sets of
/// lanes and a register written past them.
pub(super) struct KeyRoom {
    pub(super) high: [u32; 3 * MAX_LANES],
    pub(super) low: [u32; 3 * MAX_LANES],
}

/// Keys gathered before they go to [`Keys::f`].
const KEY_BATCH: usize = 512;

/// Hands the solutions' keys to `f`, a batch at a time: each step's keys are put together
/// with no loop over them (every lane combined, those past the step's count overwritten by
/// the next), which a search with few solutions a step does many times.
struct Keys<F> {
    f: F,
    first: usize,
    n: usize,
    tail: [u8; MAX_N as usize],
    room: KeyRoom,
    batch: [u64; KEY_BATCH],
    len: usize,
}

impl<F: FnMut(&[u64])> Keys<F> {
    /// Keys of the rows `first..n` for `f`, none gathered yet.
    fn new(f: F, first: u32, n: u32) -> Keys<F> {
        Keys {
            f,
            first: first as usize,
            n: n as usize,
            tail: [0; MAX_N as usize],
            room: KeyRoom {
                high: [0; 3 * MAX_LANES],
                low: [0; 3 * MAX_LANES],
            },
            batch: [0; KEY_BATCH],
            len: 0,
        }
    }

    /// Makes room for a step's keys.
    #[inline(always)]
    fn reserve(&mut self) {
        if self.len + 2 * MAX_LANES > KEY_BATCH {
            self.flush();
        }
    }

    /// Hands the keys gathered to `f`.
    fn flush(&mut self) {
        (self.f)(&self.batch[..self.len]);
        self.len = 0;
    }
}

impl<F: FnMut(&[u64])> Sink for Keys<F> {
    const HISTORY: bool = true;
    const KEYS: bool = true;
    fn add(&mut self, _: u32) {}
    fn solution(&mut self, _: &[u32], _: u32, _: u32) {}
    #[inline(always)]
    fn key_room(&mut self) -> &mut KeyRoom {
        &mut self.room
    }
    #[inline(always)]
    fn keys(&mut self, count: usize) {
        self.reserve();
        let to = &mut self.batch[self.len..self.len + 2 * MAX_LANES];
        let (high, low) = (&self.room.high, &self.room.low);
        // A register of keys at a time, as many as the step found, not all its lanes: most
        // steps find a few (`results/2026-12-04-tight-keys/NOTE.md`).
        for part in 0..count.div_ceil(8) {
            for i in 8 * part..8 * part + 8 {
                to[i] = u64::from(high[i]) << 30 | u64::from(low[i]);
            }
        }
        self.len += count;
    }
}

/// The depth-first search's leaves, for [`visit_keys`] without vectors.
impl<F: FnMut(&[u64])> search::Leaves for Keys<F> {
    fn pair(&mut self, cols_before: &[u32; MAX_N as usize], x: u32, y: u32, xy: bool, yx: bool) {
        let (first, n) = (self.first, self.n);
        for r in first..n - 2 {
            self.tail[r - first] = (cols_before[r + 1] ^ cols_before[r]).trailing_zeros() as u8;
        }
        self.reserve();
        for (pen, go) in [(x, xy), (y, yx)] {
            if go {
                self.tail[n - 2 - first] = pen.trailing_zeros() as u8;
                self.batch[self.len] = key_of(&self.tail[..n - 1 - first]);
                self.len += 1;
            }
        }
    }
}

/// The depth-first search's leaves, for [`visit`] without vectors.
impl<F: FnMut(&[u8])> search::Leaves for Visit<F> {
    fn pair(&mut self, cols_before: &[u32; MAX_N as usize], x: u32, y: u32, xy: bool, yx: bool) {
        for r in self.first..self.n - 2 {
            self.tail[r - self.first] =
                (cols_before[r + 1] ^ cols_before[r]).trailing_zeros() as u8;
        }
        if xy {
            self.emit(x, y);
        }
        if yx {
            self.emit(y, x);
        }
    }
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
    /// The lanes where `allow` has a bit that none of `self`, `a`, `b` has (AVX-512: one
    /// ternary-logic operation and one test; the checks of [`Checks`] are made of it).
    unsafe fn free_in(self, a: Self, b: Self, allow: u32) -> u32;
    /// Stores the lanes of `keep` at `p`, packed together: `p[i]` is the `i`-th lane of `keep`.
    /// All `LANES` values from `p` on may be written (those past the kept lanes with anything),
    /// so that an implementation may store a whole register, or every lane one by one.
    unsafe fn compress_store(self, keep: u32, p: *mut u32);
    /// `self << by` in every lane (one count for all lanes, as `vpslld` takes it: 0 from 32 on).
    unsafe fn shl(self, by: usize) -> Self;
    /// `self >> by` in every lane (one count for all lanes: 0 from 32 on).
    unsafe fn shr(self, by: usize) -> Self;
    /// The index of the one set bit of every lane (lanes that are zero: undefined).
    ///
    /// By conversion to `f32`: `2^i` becomes a float of exponent `i` (`2^31`, negative as an
    /// `i32`, too, with the sign bit, which the mask removes).
    unsafe fn index(self) -> Self;
}

/// How many rows below each child a [`RowGaps`] search (the edge method's,
/// [`count_with_gaps`], and the listing's, [`visit_keys`]) checks ([`Checks`]).
pub(crate) const CHECKS: usize = 4;

/// The rows a [`RowGaps`] search checks below each child: a child that leaves one of them no
/// free square is dropped at once, not searched down to that row. Checked: the two searched
/// rows after the child's and the last two (fewer where these coincide or do not exist).
///
/// The side and bottom queens of the edge method leave the last rows few squares, and the
/// diagonals of the queen just placed cover most of the squares of the next rows. These four
/// checks were the fastest of the sets measured (`results/2026-12-01-edge-notes/NOTE.md`); on
/// the listing's plain board, the next three rows or the next four were no faster
/// (`results/2026-12-04-listing-checks/NOTE.md`). Each
/// check is two shifts by one count, a ternary-logic operation and a test ([`Vector::free_in`]),
/// cheaper than shifts by per-lane counts (same note).
#[derive(Clone, Copy)]
pub(crate) struct Checks {
    /// `by[j][r]`: the distance on the board from searched row `r + 1` (the child's row) to the
    /// `j`-th row checked for it.
    by: [[u32; MAX_N as usize]; CHECKS],
    /// `allow[j][r]`: the squares that row allows, or every bit where there is no `j`-th row to
    /// check: with distance 0 that check asks for a free square in the child's own row, which
    /// every child kept has.
    allow: [[u32; MAX_N as usize]; CHECKS],
}

impl Checks {
    /// The checks of a search of `rows_n` searched rows, `allow[i]` the squares of the `i`-th,
    /// `gap[i]` its distance on the board to the next. The lanes do not check the children of
    /// the row above the last two (those rows are settled with mask operations), but
    /// [`Checks::alive`] answers for them too, for node counts.
    // Inlined: called once per search; the search's code was measurably slower when not.
    #[inline(always)]
    pub(crate) fn new(
        rows_n: usize,
        allow: &[u32; MAX_N as usize],
        gap: &[u32; MAX_N as usize],
    ) -> Checks {
        let mut pos = [0u32; MAX_N as usize];
        for i in 1..rows_n {
            pos[i] = pos[i - 1] + gap[i - 1];
        }
        let mut c = Checks {
            by: [[0; MAX_N as usize]; CHECKS],
            allow: [[u32::MAX; MAX_N as usize]; CHECKS],
        };
        for r in 0..rows_n.saturating_sub(2) {
            let child = r + 1;
            let below = child + 1..rows_n;
            let mut rows = [0usize; CHECKS];
            let mut k = 0;
            for row in below.clone().take(2).chain(below.rev().take(2)) {
                if !rows[..k].contains(&row) {
                    rows[k] = row;
                    k += 1;
                }
            }
            for (j, &row) in rows[..k].iter().enumerate() {
                c.by[j][r] = pos[row] - pos[child];
                c.allow[j][r] = allow[row];
            }
        }
        c
    }

    /// Whether the child `next` of a queen in searched row `r` (its attacks on row `r + 1`)
    /// leaves a free square in every row checked for it.
    #[inline(always)]
    pub(crate) fn alive(&self, r: usize, next: Masks) -> bool {
        let mut ok = true;
        for j in 0..CHECKS {
            let by = self.by[j][r & 31];
            let there = next.cols | next.diag_up << by | next.diag_down >> by;
            ok &= self.allow[j][r & 31] & !there != 0;
        }
        ok
    }

    /// [`Checks::alive`] on every lane: the lanes of `live` whose child (`c`, `u`, `d`: its
    /// attacks on row `r + 1`) passes every check.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn lanes<V: Vector>(&self, r: usize, mut live: u32, c: V, u: V, d: V) -> u32 {
        for j in 0..CHECKS {
            let by = self.by[j][r & 31] as usize;
            live &= c.free_in(u.shl(by), d.shr(by), self.allow[j][r & 31]);
        }
        live
    }
}

/// The most lanes of any [`Vector`].
const MAX_LANES: usize = 16;
/// Room per row: fewer than two registers of open nodes, plus a register written past the end.
const CAP: usize = 3 * MAX_LANES;
/// Searches that take turns (see [`scheduler::run`]).
const WAYS: usize = 4;
/// The fewest lanes of any [`Vector`] (AVX2, the portable kernel).
const MIN_LANES: usize = 8;
// The first row's squares are dealt to the searches in turn: each gets at most
// `MAX_N / WAYS` of them, which must stay under two registers like every row (see [`CAP`]).
const _: () = assert!((MAX_N as usize).div_ceil(WAYS) < 2 * MIN_LANES);
/// History: the column of a queen takes five bits, six rows to a word, five words for the most
/// rows a search records (`MAX_N - 2`: every row but the last two, which are settled without
/// being placed one by one).
const BITS_PER_ROW: usize = 5;
const ROWS_PER_WORD: usize = 6;
const MAX_WORDS: usize = 5;

/// The fields of an open node, each an array of a row's buffer; history words follow.
const COLS: usize = 0;
const UP: usize = 1;
const DOWN: usize = 2;
const FREE: usize = 3;
const WORDS: usize = 4;
