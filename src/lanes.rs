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
//! x86-64 machine; elsewhere, or when asked ([`Kernel::Dfs`]), the depth-first search runs.

// Off x86-64 only the depth-first search runs; the lane machinery is compiled but unused.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use crate::d4::search::{self, Rows};
use crate::error::Error;
use crate::kernel::{full_mask, Masks, MAX_N};
use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

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

    /// Whether this processor can run it: it has every feature the kernel is compiled for
    /// (the `target_feature` lists in `x86`), not only the vector width. A virtual machine may
    /// offer AVX2 and hide BMI1, for instance.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        let scalar = || {
            std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("lzcnt")
        };
        match self {
            Kernel::Dfs => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => std::arch::is_x86_feature_detected!("avx2") && scalar(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f") && scalar(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The fastest kernel this processor can run (decided once).
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            Kernel::ALL
                .into_iter()
                .rev()
                .find(|k| k.available())
                .unwrap_or(Kernel::Dfs)
        })
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Kernel {
    type Err = Error;
    /// A kernel by name; `auto` is [`Kernel::best`]. Refused if this processor cannot run it.
    fn from_str(s: &str) -> Result<Kernel, Error> {
        let kernel = match s {
            "auto" => Kernel::best(),
            _ => Kernel::from_name(s).ok_or_else(|| {
                Error::Unsupported(format!(
                    "unknown kernel '{s}' (expected auto, avx512, avx2 or dfs)"
                ))
            })?,
        };
        if !kernel.available() {
            return Err(Error::Unsupported(format!(
                "this processor cannot run the {kernel} kernel (it can run: {})",
                Kernel::ALL
                    .into_iter()
                    .filter(|k| k.available())
                    .map(Kernel::name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(kernel)
    }
}

/// Counts the solutions below a prefix, like [`search::search`] with [`search::Count`]: rows
/// `first..n` (with `first + 3 <= n`), whose attacks on row `first` are `m`, under `rows`. On
/// `kernel`, or the depth-first search if this processor cannot run it or the tree is small
/// (fewer than [`MIN_ROWS`] rows).
pub fn count(kernel: Kernel, n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    count_from(MIN_ROWS, kernel, n, first, m, rows)
}

/// [`count`], on the lanes from `min_rows` rows below the prefix (the tests use every size).
fn count_from(min_rows: u32, kernel: Kernel, n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    assert!(n <= MAX_N && first + 3 <= n);
    #[cfg(target_arch = "x86_64")]
    {
        if worth_lanes(kernel, n - first, min_rows) {
            let mut count = Count(0);
            // SAFETY: the processor has the features each function is compiled for.
            unsafe {
                match kernel {
                    Kernel::Avx512 => x86::count_avx512(n, first, m, rows, &mut count),
                    _ => x86::count_avx2(n, first, m, rows, &mut count),
                }
            }
            return count.0;
        }
    }
    let _ = kernel;
    let mut c = search::Count(0);
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut c);
    c.0
}

/// Calls `f` with every solution below a prefix (rows `first..n`, `first + 3 <= n`, whose
/// attacks on row `first` are `m`, under `rows`): the columns of rows `first..n`, in no
/// particular order. On `kernel`, or the depth-first search if this processor cannot run it or
/// the tree is small (fewer than [`MIN_ROWS`] rows).
///
/// Each open node carries the columns of its queens (five bits a row), so this costs more per
/// node than [`count`]; it serves searches whose every solution must be looked at.
pub fn visit<F: FnMut(&[u8])>(kernel: Kernel, n: u32, first: u32, m: Masks, rows: &Rows, f: F) {
    visit_from(MIN_ROWS, kernel, n, first, m, rows, f);
}

/// [`visit`], on the lanes from `min_rows` rows below the prefix.
fn visit_from<F: FnMut(&[u8])>(
    min_rows: u32,
    kernel: Kernel,
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    f: F,
) {
    assert!(n <= MAX_N && first + 3 <= n);
    let mut sink = Visit {
        f,
        first: first as usize,
        n: n as usize,
        tail: [0; MAX_N as usize],
    };
    #[cfg(target_arch = "x86_64")]
    {
        if worth_lanes(kernel, n - first, min_rows) {
            // SAFETY: the processor has the features each function is compiled for.
            unsafe {
                match kernel {
                    Kernel::Avx512 => x86::visit_avx512(n, first, m, rows, &mut sink),
                    _ => x86::visit_avx2(n, first, m, rows, &mut sink),
                }
            }
            return;
        }
    }
    let _ = kernel;
    search::search(n, first, m, rows, &[0; MAX_N as usize], &mut sink);
}

/// The fewest rows below the prefix for which the lanes pay: a smaller tree is over before the
/// registers fill. Measured with `nqueens count N -t 1` (fastest of 5): at N = 12 (9 rows below
/// the units' 3) the lanes took 1.9 ms against 1.5 ms for the depth-first search, at N = 13 (10
/// rows) 4.1 ms against 7.1 ms.
pub const MIN_ROWS: u32 = 10;

/// Whether a search of `rows` rows runs on `kernel`'s lanes (or else depth first).
fn worth_lanes(kernel: Kernel, rows: u32, min_rows: u32) -> bool {
    kernel != Kernel::Dfs && rows >= min_rows && kernel.available()
}

/// Where the solutions of a lane search go, two rows before the end.
trait Sink {
    /// Whether open nodes carry the columns of their queens.
    const HISTORY: bool;
    /// `pairs` solutions were found (a node's two free columns, one way round or the other).
    fn add(&mut self, pairs: u32);
    /// One solution: `words` the history of its node (see [`Shared::words`]), `pen` and `last`
    /// the bits of the queens of rows `n - 2` and `n - 1`. Only called when `HISTORY`.
    fn solution(&mut self, words: &[u32], pen: u32, last: u32);
}

/// Counts.
struct Count(u64);

impl Sink for Count {
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
            self.tail[i] = (word >> (BITS_PER_ROW * (i % ROWS_PER_WORD)) & 31) as u8;
        }
        self.emit(pen, last);
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
    /// The lanes of `keep`, packed into the lowest lanes (the others undefined).
    unsafe fn compress(self, keep: u32) -> Self;
    /// `self << by` in every lane.
    unsafe fn shl(self, by: usize) -> Self;
    /// The index of the one set bit of every lane (lanes that are zero: undefined).
    ///
    /// By conversion to `f32`: `2^i` becomes a float of exponent `i` (`2^31`, negative as an
    /// `i32`, too, with the sign bit, which the mask removes).
    unsafe fn index(self) -> Self;
}

/// The most lanes of any [`Vector`].
const MAX_LANES: usize = 16;
/// Room per row: fewer than two registers of open nodes, plus a register written past the end.
const CAP: usize = 3 * MAX_LANES;
/// Searches that take turns (see [`run`]).
const WAYS: usize = 4;
/// The fewest lanes of any [`Vector`] (AVX2).
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

/// One row's open nodes: one array per field (structure of arrays), side by side.
type Row<const F: usize> = [[u32; CAP]; F];

/// What every step of one search reads.
struct Shared<'a> {
    n: usize,
    first: usize,
    lanes: usize,
    all_lanes: u32,
    allow: &'a [u32; MAX_N as usize],
    /// The columns each row's children must have taken (the deadline; pure pruning).
    need: [u32; MAX_N as usize],
    /// History words in use: row `first + i` is in word `i / 6`, bits `5 * (i % 6)..`.
    words: usize,
}

/// One search in progress: its open nodes, with `F` fields each (4 without history).
#[repr(C, align(64))]
struct Search<const F: usize> {
    rows: [Row<F>; MAX_N as usize],
    len: [usize; MAX_N as usize],
    /// Bit r of `open`: row r has open nodes; of `ready`: at least a register of them.
    open: u32,
    ready: u32,
}

impl<const F: usize> Search<F> {
    /// A search with no open node.
    fn new() -> Search<F> {
        // Zeroed, so that lanes read past the open nodes hold defined values (they are ignored).
        Search {
            rows: [[[0; CAP]; F]; MAX_N as usize],
            len: [0; MAX_N as usize],
            open: 0,
            ready: 0,
        }
    }

    /// Adds an open node to row `r`, which must have room.
    fn push(&mut self, r: usize, node: [u32; F], lanes: usize) {
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

    /// Empties every row.
    fn clear(&mut self) {
        self.len = [0; MAX_N as usize];
        self.open = 0;
        self.ready = 0;
    }

    /// Moves half of the open nodes of this search's shallowest row with two or more to `to`
    /// (which has none); false if there is no such row.
    fn share(&mut self, to: &mut Search<F>, lanes: usize) -> bool {
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
    unsafe fn step<V: Vector, S: Sink>(&mut self, sh: &Shared, sink: &mut S) {
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
        let get = |row: &Row<F>, field: usize, i: usize| {
            debug_assert!(i + lanes <= CAP);
            V::load(row[field].as_ptr().add(i))
        };
        let put = |row: &mut Row<F>, field: usize, i: usize, v: V| {
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

        // The children's history: the parent's, and this row's column in its word.
        let mut words = [V::splat(0); MAX_WORDS];
        if S::HISTORY {
            let i = r - sh.first;
            let column = bit.index().shl(BITS_PER_ROW * (i % ROWS_PER_WORD));
            for (w, word) in words.iter_mut().enumerate().take(sh.words) {
                let parent = get(this, WORDS + w, base);
                put(this, WORDS + w, base, parent.compress(keep));
                *word = if w == i / ROWS_PER_WORD {
                    parent.or(column)
                } else {
                    parent
                };
            }
        }
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
            sink.add(xy.count_ones() + yx.count_ones());
            if S::HISTORY && xy | yx != 0 {
                settle(sh, xy, yx, x, y, &words, sink);
            }
        } else {
            let child_free = attacked.and_not(V::splat(sh.allow[r + 1]));
            let live = valid & child_free.nonzero();
            let end = self.len[r + 1];
            let next = &mut self.rows[r + 1];
            put(next, COLS, end, c.compress(live));
            put(next, UP, end, u.compress(live));
            put(next, DOWN, end, d.compress(live));
            put(next, FREE, end, child_free.compress(live));
            if S::HISTORY {
                for (w, word) in words.iter().enumerate().take(sh.words) {
                    put(next, WORDS + w, end, word.compress(live));
                }
            }
            self.set_len(r + 1, end + live.count_ones() as usize, lanes);
        }
    }
}

/// Hands the solutions of one step, lanes `xy` (`x` then `y`) and `yx`, to `sink`.
///
/// # Safety
/// The processor must have `V`'s features.
#[cold]
#[inline(never)]
unsafe fn settle<V: Vector, S: Sink>(
    sh: &Shared,
    xy: u32,
    yx: u32,
    x: V,
    y: V,
    words: &[V; MAX_WORDS],
    sink: &mut S,
) {
    let mut xs = [0u32; MAX_LANES];
    let mut ys = [0u32; MAX_LANES];
    let mut hist = [[0u32; MAX_LANES]; MAX_WORDS];
    x.store(xs.as_mut_ptr());
    y.store(ys.as_mut_ptr());
    for (h, w) in hist.iter_mut().zip(words).take(sh.words) {
        w.store(h.as_mut_ptr());
    }
    for (lanes, flipped) in [(xy, false), (yx, true)] {
        let mut lanes = lanes;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let mut mine = [0u32; MAX_WORDS];
            for (m, h) in mine.iter_mut().zip(&hist) {
                *m = h[lane];
            }
            let (pen, last) = if flipped {
                (ys[lane], xs[lane])
            } else {
                (xs[lane], ys[lane])
            };
            sink.solution(&mine[..sh.words], pen, last);
        }
    }
}

thread_local! {
    /// Each thread's searches, kept between calls (zeroing them anew would cost more than
    /// small searches).
    static COUNTING: RefCell<Option<Box<[Search<4>; WAYS]>>> = const { RefCell::new(None) };
    static RECORDING: RefCell<Option<Box<[Search<{ WORDS + MAX_WORDS }>; WAYS]>>> =
        const { RefCell::new(None) };
}

/// Runs `f` on this thread's searches, or on new ones if they are in use.
fn with_searches<const F: usize, R>(
    key: &'static std::thread::LocalKey<RefCell<Option<Box<[Search<F>; WAYS]>>>>,
    f: impl FnOnce(&mut [Search<F>; WAYS]) -> R,
) -> R {
    let fresh = || Box::new(std::array::from_fn(|_| Search::new()));
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => f(slot.get_or_insert_with(fresh)),
        Err(_) => f(&mut fresh()),
    })
}

/// The search itself (see the module documentation), for any [`Vector`]; inlined into one
/// function per instruction set.
///
/// [`WAYS`] independent searches take turns, so that while one waits for the values it has just
/// stored, the processor works on the others. They start with the squares of the first row dealt
/// in turn; whenever one runs out of open nodes, it takes half of the shallowest row holding two
/// or more of another, so all stay busy to the end.
///
/// # Safety
/// The processor must have `V`'s features.
#[inline(always)]
unsafe fn run<V: Vector, S: Sink, const F: usize>(
    s: &mut [Search<F>; WAYS],
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    sink: &mut S,
) {
    let (n, first) = (n as usize, first as usize);
    let mut need = [0u32; MAX_N as usize];
    if rows.deadline.0 < n {
        need[rows.deadline.0] = rows.deadline.1;
    }
    let sh = Shared {
        n,
        first,
        lanes: V::LANES,
        all_lanes: (1u32 << V::LANES) - 1,
        allow: &rows.allow,
        need,
        words: if S::HISTORY {
            (n - 2 - first).div_ceil(ROWS_PER_WORD)
        } else {
            0
        },
    };
    debug_assert!(WORDS + sh.words <= F);
    let free = !(m.cols | m.diag_up | m.diag_down) & rows.allow[first];
    if free == 0 {
        return;
    }
    for s in s.iter_mut() {
        s.clear();
    }
    // The root's squares dealt to the searches in turn: each starts at once.
    let mut squares = free;
    let mut i = 0;
    while squares != 0 {
        let bit = squares & squares.wrapping_neg();
        squares ^= bit;
        let mut root = [0; F];
        root[..WORDS].copy_from_slice(&[m.cols, m.diag_up, m.diag_down, bit]);
        s[i % WAYS].push(first, root, V::LANES);
        i += 1;
    }
    loop {
        if s.iter().all(|s| s.open != 0) {
            for s in s.iter_mut() {
                s.step::<V, S>(&sh, sink);
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
        for s in s.iter_mut() {
            if s.open != 0 {
                s.step::<V, S>(&sh, sink);
                busy = true;
            }
        }
        if !busy {
            break;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{run, with_searches, Count, Rows, Sink, Vector, COUNTING, RECORDING};
    use crate::kernel::Masks;
    use std::arch::x86_64::*;

    /// [`super::count`] on sixteen AVX-512 lanes.
    ///
    /// # Safety
    /// The processor must have the features above ([`super::Kernel::available`]).
    #[target_feature(enable = "avx512f,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn count_avx512(n: u32, first: u32, m: Masks, rows: &Rows, c: &mut Count) {
        with_searches(&COUNTING, |s| run::<Zmm, _, 4>(s, n, first, m, rows, c));
    }

    /// [`super::count`] on eight AVX2 lanes.
    ///
    /// # Safety
    /// The processor must have the features above ([`super::Kernel::available`]).
    #[target_feature(enable = "avx2,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn count_avx2(n: u32, first: u32, m: Masks, rows: &Rows, c: &mut Count) {
        with_searches(&COUNTING, |s| run::<Ymm, _, 4>(s, n, first, m, rows, c));
    }

    /// [`super::visit`] on sixteen AVX-512 lanes.
    ///
    /// # Safety
    /// The processor must have the features above ([`super::Kernel::available`]).
    #[target_feature(enable = "avx512f,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn visit_avx512<S: Sink>(
        n: u32,
        first: u32,
        m: Masks,
        rows: &Rows,
        sink: &mut S,
    ) {
        with_searches(&RECORDING, |s| run::<Zmm, _, 9>(s, n, first, m, rows, sink));
    }

    /// [`super::visit`] on eight AVX2 lanes.
    ///
    /// # Safety
    /// The processor must have the features above ([`super::Kernel::available`]).
    #[target_feature(enable = "avx2,popcnt,bmi1,lzcnt")]
    pub(super) unsafe fn visit_avx2<S: Sink>(
        n: u32,
        first: u32,
        m: Masks,
        rows: &Rows,
        sink: &mut S,
    ) {
        with_searches(&RECORDING, |s| run::<Ymm, _, 9>(s, n, first, m, rows, sink));
    }

    #[derive(Clone, Copy)]
    struct Zmm(__m512i);

    // The buffer sizes assume every vector's lanes lie between these bounds.
    const _: () = assert!(Zmm::LANES <= super::MAX_LANES && Ymm::LANES <= super::MAX_LANES);
    const _: () = assert!(Zmm::LANES >= super::MIN_LANES && Ymm::LANES >= super::MIN_LANES);

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
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn shl(self, by: usize) -> Self {
            Zmm(_mm512_sllv_epi32(self.0, _mm512_set1_epi32(by as i32)))
        }
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn index(self) -> Self {
            let bits = _mm512_castps_si512(_mm512_cvtepi32_ps(self.0));
            let exponent = _mm512_and_si512(_mm512_srli_epi32::<23>(bits), _mm512_set1_epi32(0xff));
            Zmm(_mm512_sub_epi32(exponent, _mm512_set1_epi32(127)))
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
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn shl(self, by: usize) -> Self {
            Ymm(_mm256_sllv_epi32(self.0, _mm256_set1_epi32(by as i32)))
        }
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn index(self) -> Self {
            let bits = _mm256_castps_si256(_mm256_cvtepi32_ps(self.0));
            let exponent = _mm256_and_si256(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(0xff));
            Ymm(_mm256_sub_epi32(exponent, _mm256_set1_epi32(127)))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
                    count_from(0, k, n, 0, Masks::EMPTY, &rows),
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
            let want = count_from(0, Kernel::Dfs, n, first, m, &rows);
            for k in kernels() {
                prop_assert_eq!(count_from(0, k, n, first, m, &rows), want, "{:?}", k);
            }
        }

        #[test]
        fn visits_every_solution_once(
            n in 5u32..=12,
            first in 0u32..3,
            holes in proptest::collection::vec(any::<u32>(), 32),
        ) {
            let full = full_mask(n);
            let mut allow = [0u32; 32];
            for r in 0..n as usize {
                allow[r] = full & !(holes[r] & holes[(r + 5) % 32]);
            }
            let rows = Rows { allow, deadline: (MAX_N as usize, 0) };
            let mut m = Masks::EMPTY;
            for &row in &allow[..first as usize] {
                let free = m.free(full) & row;
                prop_assume!(free != 0);
                m = m.place(free & free.wrapping_neg());
            }
            let solutions = |k| {
                let mut all = Vec::new();
                visit_from(0, k, n, first, m, &rows, |tail| all.push(tail.to_vec()));
                all.sort();
                all
            };
            let want = solutions(Kernel::Dfs);
            prop_assert_eq!(want.len() as u64, count_from(0, Kernel::Dfs, n, first, m, &rows));
            for tail in &want {
                // Each is a valid completion of the prefix within the allowed squares.
                let mut at = m;
                for (i, &col) in tail.iter().enumerate() {
                    let bit = 1u32 << col;
                    prop_assert!(at.free(full) & allow[first as usize + i] & bit != 0);
                    at = at.place(bit);
                }
            }
            for k in kernels() {
                prop_assert_eq!(&solutions(k), &want, "{:?}", k);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Boards up to 32 columns, kept small by sparse rows: each row allows a known
        /// solution's square and a few random ones (some rows all squares, as many as 32 roots
        /// to deal), with random deadlines; counts and visited solutions as the depth-first
        /// search finds them, on every kernel, with and without the small-tree cut-over.
        #[test]
        fn kernels_agree_on_large_sparse_boards(
            n in 16u32..=32,
            extra in proptest::collection::vec(any::<u32>(), 32),
            density in 0u32..3,
            open_rows in proptest::collection::vec(0usize..32, 0..3),
            first in 0u32..5,
            dead_row in 0usize..40,
            dead_cols in any::<u32>(),
        ) {
            let full = full_mask(n);
            let c = crate::solutions::construct(u64::from(n)).unwrap().unwrap();
            let mut allow = [0u32; 32];
            for r in 0..n as usize {
                // Random squares: a quarter of the row down to a sixteenth (`extra` ANDed).
                let thin = (0..=density).fold(extra[r], |x, i| x & extra[(r + 7 * i as usize + 5) % 32]);
                allow[r] = (1 << c.column(r as u64) | thin) & full;
            }
            for &r in open_rows.iter().filter(|&&r| r < n as usize) {
                allow[r] = full;
            }
            // The deadline asks for some of the columns the known solution has taken by then,
            // so that it, and others like it, survive.
            let taken = (0..=dead_row.min(n as usize - 1)).fold(0, |t, r| t | 1 << c.column(r as u64));
            let rows = Rows { allow, deadline: (dead_row, dead_cols & taken) };
            // The prefix: the known solution's first queens.
            let m = (0..u64::from(first)).fold(Masks::EMPTY, |m, r| m.place(1 << c.column(r)));
            prop_assume!(small(n, first as usize, m, &rows, &mut 1_000_000));
            let solutions = |k, min_rows| {
                let mut all = Vec::new();
                visit_from(min_rows, k, n, first, m, &rows, |tail| all.push(tail.to_vec()));
                all.sort();
                all
            };
            let want = solutions(Kernel::Dfs, 0);
            for k in kernels() {
                for min_rows in [0, MIN_ROWS] {
                    prop_assert_eq!(
                        count_from(min_rows, k, n, first, m, &rows),
                        want.len() as u64,
                        "{:?}", k
                    );
                    prop_assert_eq!(&solutions(k, min_rows), &want, "{:?}", k);
                }
            }
        }
    }

    /// Whether the tree below row `row` (deadline aside) has at most `budget` nodes: the
    /// random boards above are kept to those, so that every case is quick.
    pub(crate) fn small(n: u32, row: usize, m: Masks, rows: &Rows, budget: &mut u64) -> bool {
        if row == n as usize {
            return true;
        }
        let mut free = m.free(full_mask(n)) & rows.allow[row];
        while free != 0 {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            if !small(n, row + 1, m.place(bit), rows, budget) {
                return false;
            }
        }
        true
    }

    #[test]
    fn visits_the_largest_boards() {
        // Rows 0..=2 placed, 27 rows recorded in five history words, columns up to 31.
        let n = 32;
        let mut rows = Rows {
            allow: unconstrained(n),
            deadline: (MAX_N as usize, 0),
        };
        // A known solution (the explicit construction), pinned down from row 3 to row 24: the
        // search only has the last rows to find, the history all five words.
        let c = crate::solutions::construct(u64::from(n)).unwrap().unwrap();
        let s: Vec<u8> = (0..u64::from(n)).map(|r| c.column(r) as u8).collect();
        let mut m = Masks::EMPTY;
        for (r, &c) in s.iter().enumerate() {
            if r < 3 {
                m = m.place(1 << c);
            } else if r < 25 {
                rows.allow[r] = 1 << c;
            }
        }
        let mut found = Vec::new();
        for k in kernels() {
            visit_from(0, k, n, 3, m, &rows, |tail| found.push((k, tail.to_vec())));
        }
        assert!(found.iter().all(|(_, t)| t.len() == 29));
        assert!(found.iter().any(|(_, t)| t[..] == s[3..]));
        let dfs: Vec<_> = found
            .iter()
            .filter(|(k, _)| *k == Kernel::Dfs)
            .map(|(_, t)| t)
            .collect();
        for k in kernels() {
            let mine: Vec<_> = found
                .iter()
                .filter(|(x, _)| *x == k)
                .map(|(_, t)| t)
                .collect();
            let (mut a, mut b) = (mine.clone(), dfs.clone());
            a.sort();
            b.sort();
            assert_eq!(a, b, "{k:?}");
        }
    }
}
