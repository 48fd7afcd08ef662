//! The scheduler shared by every instruction set: the per-row buffers of open nodes, one step of
//! a search, and the turns taken by [`WAYS`] searches (see the module documentation of
//! [`super`]).

use super::*;
use std::cell::RefCell;

/// One row's open nodes: one array per field (structure of arrays), side by side.
pub(super) type Row<const F: usize> = [[u32; CAP]; F];

/// What every step of one search reads.
pub(super) struct Shared<'a> {
    n: usize,
    first: usize,
    lanes: usize,
    all_lanes: u32,
    allow: &'a [u32; MAX_N as usize],
    /// The columns each row's children must have taken (the deadline; pure pruning).
    need: [u32; MAX_N as usize],
    /// History words in use: row `first + i` is in word `i / 6`, bits `5 * (i % 6)..`.
    words: usize,
    /// The distance on the board from the row searched as `r` to the one searched as `r + 1`
    /// (the shift of the diagonals between them): 1 but in the edge method's searches
    /// ([`super::count_with_gaps`]). And the board's columns.
    gap: [u32; MAX_N as usize],
    cols_full: u32,
    /// [`RowGaps`] searches (the edge method's and the listing's) only: the rows checked below
    /// each child.
    checks: Checks,
    /// Searches for keys only: where their rows go ([`History`]).
    keys: Option<KeyLayout>,
}

/// Where the rows of a search for keys go (see [`History`]).
#[derive(Clone, Copy)]
pub(super) struct KeyLayout {
    /// For each row below the first: the bit its column goes to, in the field it goes to.
    at: [u8; MAX_N as usize],
    /// For each row below the first: all ones for the field it goes to (its index:
    /// [`COLS`]…[`WORDS`]), zeros for the others.
    to: [[u32; SLOTS]; MAX_N as usize],
    /// The bits of `free` that hold history.
    spare: u32,
    /// The shift of the column of row `n - 3` into the low half of a key, when it goes in
    /// none of the fields (32 when it does).
    step_low_shift: u8,
    /// The shifts of the column of row `n - 2` into the high and the low half of a key (32
    /// for the half it is not in).
    pen_shifts: [u8; 2],
}

impl Shared<'_> {
    /// The history words the rows of this search need.
    pub(super) fn words(&self) -> usize {
        self.words
    }
}

/// One search in progress: its open nodes, with `F` fields each (4 without history).
#[repr(C, align(64))]
pub(super) struct Search<const F: usize> {
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

    /// One step (see the module documentation). `open` must not be empty. `G`: a [`RowGaps`]
    /// search, whose children are checked ([`Checks`]) and whose rows may lie apart.
    ///
    /// The hot loop of the lane kernels, kept in one function on purpose: the row choice, the
    /// placement, the children's masks and the two-rows-from-the-end settling share the
    /// registers of one step, and splitting them into functions the compiler may not inline
    /// across the `target_feature` boundary costs speed.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn step<V: Vector, S: Sink, const G: bool>(&mut self, sh: &Shared, sink: &mut S) {
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
        // The lanes `keep` of `v`, packed, at `i`.
        let pack = |row: &mut Row<F>, field: usize, i: usize, v: V, keep: u32| {
            debug_assert!(i + lanes <= CAP);
            v.compress_store(keep, row[field].as_mut_ptr().add(i));
        };
        let this = &mut self.rows[r];
        let cols = get(this, COLS, base);
        let up = get(this, UP, base);
        let down = get(this, DOWN, base);
        let free = get(this, FREE, base);

        // The lowest untried square of every node; nodes with squares left stay open.
        let bit = free.lowest();
        let rest = free.xor(bit);
        // With keys, `free` also holds history above the board's squares (see [`History`]).
        let squares = if S::KEYS {
            rest.and(V::splat(sh.cols_full))
        } else {
            rest
        };
        let keep = k & squares.nonzero();
        pack(this, COLS, base, cols, keep);
        pack(this, UP, base, up, keep);
        pack(this, DOWN, base, down, keep);
        pack(this, FREE, base, rest, keep);
        let h = History::of::<S, F>(this, sh, r, base, keep, bit, free);
        self.set_len(r, base + keep.count_ones() as usize, lanes);

        // The children: the attacks on row r + 1.
        let c = cols.or(bit).or(h.cols);
        let (u, d) = if G {
            let g = sh.gap[r] as usize;
            (up.or(bit).shl(g), down.or(bit).shr(g))
        } else {
            (up.or(bit).shl1(), down.or(bit).shr1())
        };
        let valid = if G {
            // RowGaps searches leave a deadline out: it only prunes (the edge method's have none,
            // nor have the listing's), and they prune with their checks.
            k
        } else {
            let need = V::splat(sh.need[r]);
            k & c.and(need).eq(need)
        };
        let attacked = c.or(u).or(d);

        if r == sh.n - 3 {
            // Rows n-2 and n-1: the two free columns x < y, either way round.
            let rest = c.and_not(V::splat(sh.cols_full));
            let x = rest.lowest();
            let y = rest.xor(x);
            let pen = attacked.and_not(V::splat(sh.allow[sh.n - 2]));
            // The last row is `g` board rows below the one before it (1 unless gapped).
            let d = History::board_of::<S, F>(sh, d);
            let (below, x_diag) = if G {
                let g = sh.gap[sh.n - 2] as usize;
                (u.shl(g).or(d.shr(g)), x.shl(g))
            } else {
                (u.shl1().or(d.shr1()), x.shl1())
            };
            let last = below.and_not(V::splat(sh.allow[sh.n - 1]));
            let apart = valid & !x_diag.eq(y);
            let xy = apart & pen.and(x).nonzero() & last.and(y).nonzero();
            let yx = apart & pen.and(y).nonzero() & last.and(x).nonzero();
            sink.add(xy.count_ones() + yx.count_ones());
            if S::HISTORY && xy | yx != 0 {
                if S::KEYS {
                    let (high, low) = h.halves::<S, F>(sh, c, bit, up, down);
                    settle_keys(sh, xy, yx, x, y, low, high, sink);
                } else {
                    settle(sh, xy, yx, x, y, &h.words, sink);
                }
            }
        } else {
            let child_free = attacked.and_not(V::splat(sh.allow[r + 1]));
            let mut live = valid & child_free.nonzero();
            if G {
                // `d` shifted further: without the history above the board.
                live = sh
                    .checks
                    .lanes(r, live, c, u, History::board_of::<S, F>(sh, d));
            }
            let (u, d) = h.diagonals::<S, F>(sh, u, d, up, down);
            let end = self.len[r + 1];
            let next = &mut self.rows[r + 1];
            pack(next, COLS, end, c, live);
            pack(next, UP, end, u, live);
            pack(next, DOWN, end, d, live);
            pack(next, FREE, end, child_free.or(h.free), live);
            if S::HISTORY {
                for (w, word) in h.words.iter().enumerate().take(S::words::<F>(sh)) {
                    pack(next, WORDS + w, end, *word, live);
                }
            }
            self.set_len(r + 1, end + live.count_ones() as usize, lanes);
        }
    }
}

/// The history a step hands to its children: the parent's, and this row's column.
///
/// In the history words (`words[i / ROWS_PER_WORD]`, [`history_shift`]); or, searching for
/// keys ([`Sink::KEYS`]), in the bits of the board's fields above its columns, which nothing
/// else uses:
///
/// * *tight* ([`tight`], boards to [`TIGHT_MAX_N`] columns): no word at all. The top fifteen
///   bits of each of `cols`, `up`, `down` and `free` hold three rows (at bits 27, 22 and 17):
///   rows 0 to 2 below the first in `cols`, 3 to 5 in `up`, 6 to 8 in `down`, 9 to 11 in
///   `free`, so that a key's high half is `cols >> 2` and `up >> 17`, its low half `down >> 2`
///   and `free >> 17` ([`History::halves`]). `cols` goes to the children with its bits;
///   the diagonals shift at every row, so the children's keep the parent's bits above the
///   board unshifted ([`History::diagonals`]); `free` is made anew for the children, so
///   the step adds its bits back. The diagonals' bits of the board that leave it are dropped;
///   `down`'s lowest history bit lies one above the board, so that what a step shifts into
///   the board's columns is 0; the settling step and the checks below a child ([`Checks`]),
///   which shift it further, first mask it.
/// * otherwise (to [`KEY_MAX_N`] columns) one word and the top ten bits of `cols` and `free`:
///   rows 0 to 5 in the word, 6 and 7 in `cols`, 8 and 9 in `free`, rows 10 and 11 (the last
///   two before the two settled rows) only in the settling step itself.
///
/// Every history word costs a load and two packs at every step: the tight layout listed
/// N = 16 faster than the word (`results/2026-12-04-tight-keys/NOTE.md`).
#[derive(Clone, Copy)]
pub(super) struct History<V> {
    words: [V; MAX_WORDS],
    /// The bits to add to the children's `cols`.
    cols: V,
    /// Tight searches only: the bits to add to the children's `up` and `down`.
    up: V,
    down: V,
    /// The bits to add to the children's `free` (the parent's, and this row's).
    free: V,
}

impl<V: Vector> History<V> {
    /// The history of the children of a step at row `r`, whose nodes at `base` of `row` had
    /// `free` squares and took `bit`: the parent's words are packed back to the `keep` lanes.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn of<S: Sink, const F: usize>(
        row: &mut Row<F>,
        sh: &Shared,
        r: usize,
        base: usize,
        keep: u32,
        bit: V,
        free: V,
    ) -> History<V> {
        let mut h = History {
            words: [V::splat(0); MAX_WORDS],
            cols: V::splat(0),
            up: V::splat(0),
            down: V::splat(0),
            free: V::splat(0),
        };
        if !S::HISTORY {
            return h;
        }
        let i = r - sh.first;
        let column = bit.index();
        let (at, slot) = match &sh.keys {
            Some(layout) if S::KEYS => {
                let i = i & (MAX_N as usize - 1);
                let shifted = column.shl(usize::from(layout.at[i]));
                let to = |slot: usize| shifted.and(V::splat(layout.to[i][slot]));
                h.cols = to(COLS);
                if tight::<S, F>() {
                    h.up = to(UP);
                    h.down = to(DOWN);
                }
                h.free = free.and(V::splat(layout.spare)).or(to(FREE));
                (to(WORDS), 0)
            }
            _ => (column.shl(history_shift(i)), i / ROWS_PER_WORD),
        };
        for (w, word) in h.words.iter_mut().enumerate().take(S::words::<F>(sh)) {
            debug_assert!(base + sh.lanes <= CAP);
            let parent = V::load(row[WORDS + w].as_ptr().add(base));
            parent.compress_store(keep, row[WORDS + w].as_mut_ptr().add(base));
            *word = if w == slot { parent.or(at) } else { parent };
        }
        h
    }

    /// The children's diagonals `u` and `d` (the parent's `up` and `down` moved to the next
    /// row); in a tight search ([`History`]) their bits of the board, the history of the
    /// parent's (above the board, unshifted), and this row's.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn diagonals<S: Sink, const F: usize>(
        &self,
        sh: &Shared,
        u: V,
        d: V,
        up: V,
        down: V,
    ) -> (V, V) {
        if !tight::<S, F>() {
            return (u, d);
        }
        let board = V::splat(sh.cols_full);
        let child =
            |moved: V, parent: V, mine: V| moved.and(board).or(board.and_not(parent)).or(mine);
        (child(u, up, self.up), child(d, down, self.down))
    }

    /// `d`, a diagonal shifted again (by the settling step into the last row, by the checks
    /// below a child): in a tight search ([`History`]) only its bits of the board, for its
    /// history lies just above it.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn board_of<S: Sink, const F: usize>(sh: &Shared, d: V) -> V {
        if tight::<S, F>() {
            d.and(V::splat(sh.cols_full))
        } else {
            d
        }
    }

    /// The high and the low half of the keys of a settling step's solutions, but for row
    /// `n - 2`. Tight ([`History`]): from its children's `cols` (`c`), the parent's `up` and
    /// `down`, and this row's bits; with a word, the word and [`History::low`].
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn halves<S: Sink, const F: usize>(
        &self,
        sh: &Shared,
        c: V,
        bit: V,
        up: V,
        down: V,
    ) -> (V, V) {
        if !tight::<S, F>() {
            return (self.words[0], self.low(sh, c, bit));
        }
        // Rows 0 to 2 (and 6 to 8) from bits 17 to 31 down to 15 to 29; rows 3 to 5 (and 9 to
        // 11) down to 0 to 14. The board's bits, below 17, shift out or are masked away.
        let top = V::splat(0x7fff << 15);
        let high = c.shr(2).and(top).or(up.or(self.up).shr(17));
        let low = down.or(self.down).shr(2).and(top).or(self.free.shr(17));
        (high, low)
    }

    /// The low half of the keys of a settling step's solutions (rows 6 to 11 below the first,
    /// the first highest), but for row `n - 2`: from `cols` (the step's children's, `c`), from
    /// the history in `free`, and this row's column `bit` where it goes in no slot.
    ///
    /// # Safety
    /// The processor must have `V`'s features.
    #[inline(always)]
    unsafe fn low(&self, sh: &Shared, c: V, bit: V) -> V {
        // Rows 6 and 7 from bits 27 and 22 of `cols` to 25 and 20; rows 8 and 9 from those of
        // `free` to 15 and 10.
        let from_cols = c.shr(2).and(V::splat(0x3ff << 20));
        let from_free = self.free.shr(12).and(V::splat(0x3ff << 10));
        let step = sh.keys.as_ref().map_or(NOWHERE, |k| k.step_low_shift);
        from_cols
            .or(from_free)
            .or(bit.index().shl(usize::from(step)))
    }
}

/// The bits of `cols` and `free` that hold history in a search for keys with a word (see
/// [`History`]).
const SPARE: u32 = !0 << 22;
/// The largest board a search for keys takes: its columns must leave [`SPARE`] unused.
pub(super) const KEY_MAX_N: u32 = 22;
/// The largest board a tight search for keys takes ([`History`]): `down`'s history must lie
/// a bit above the board's columns, from bit 17 on.
pub(super) const TIGHT_MAX_N: u32 = 16;
/// The fields a row of a search for keys may go to ([`KeyLayout::to`]): the spare bits of
/// the board's four, or the history word after them.
const SLOTS: usize = WORDS + KEY_WORDS;

/// Whether a search is a tight search for keys ([`History`]): one for keys whose nodes have
/// no field beyond the board's four.
const fn tight<S: Sink, const F: usize>() -> bool {
    S::KEYS && F == WORDS
}

/// Hands the solutions of one step, lanes `xy` (`x` then `y`) and `yx`, to `sink`.
///
/// Inlined into the step, so that it runs with the instruction set of the entry point (a
/// function of its own would call each vector operation out of line).
///
/// # Safety
/// The processor must have `V`'s features.
#[inline(always)]
pub(super) unsafe fn settle<V: Vector, S: Sink>(
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

/// Hands the keys of the solutions of one step, lanes `xy` (`x` then `y`) and `yx`, to `sink`
/// ([`Sink::keys`]): the high half from the history word, the low half from the step's
/// ([`History::low`]), the column of row `n - 2` added to the half it goes in; packed by
/// lane mask, for all lanes at once.
///
/// # Safety
/// The processor must have `V`'s features, and the search at most [`KEY_ROWS`] rows before
/// its last.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) unsafe fn settle_keys<V: Vector, S: Sink>(
    sh: &Shared,
    xy: u32,
    yx: u32,
    x: V,
    y: V,
    low: V,
    high: V,
    sink: &mut S,
) {
    let pen_shifts = sh.keys.as_ref().map_or([NOWHERE; 2], |k| k.pen_shifts);
    let room = sink.key_room();
    let mut k = 0;
    for (lanes, pen) in [(xy, x), (yx, y)] {
        let column = pen.index();
        let h = high.or(column.shl(usize::from(pen_shifts[0])));
        let l = low.or(column.shl(usize::from(pen_shifts[1])));
        h.compress_store(lanes, room.high.as_mut_ptr().add(k));
        l.compress_store(lanes, room.low.as_mut_ptr().add(k));
        k += lanes.count_ones() as usize;
    }
    sink.keys(k);
}

thread_local! {
    /// Each thread's searches, kept between calls (zeroing them anew would cost more than
    /// small searches). Those of four fields count, and search for keys tight ([`History`]).
    pub(super) static COUNTING: RefCell<Option<Box<[Search<4>; WAYS]>>> = const { RefCell::new(None) };
    pub(super) static RECORDING: RefCell<Option<Box<[Search<{ WORDS + MAX_WORDS }>; WAYS]>>> =
        const { RefCell::new(None) };
    pub(super) static KEYING: RefCell<Option<Box<[Search<{ WORDS + KEY_WORDS }>; WAYS]>>> =
        const { RefCell::new(None) };
}

/// Runs `f` on this thread's searches, or on new ones if they are in use.
pub(super) fn with_searches<const F: usize, R>(
    key: &'static std::thread::LocalKey<RefCell<Option<Box<[Search<F>; WAYS]>>>>,
    f: impl FnOnce(&mut [Search<F>; WAYS]) -> R,
) -> R {
    let fresh = || Box::new(std::array::from_fn(|_| Search::new()));
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut slot) => f(slot.get_or_insert_with(fresh)),
        Err(_) => f(&mut fresh()),
    })
}

/// A shift by which a lane's value leaves nothing.
const NOWHERE: u8 = 32;

impl KeyLayout {
    /// The layout of a search for keys of rows `first..n` ([`History`]), tight or with a word.
    fn new(n: usize, first: usize, tight: bool) -> KeyLayout {
        assert!(n <= KEY_MAX_N as usize && n - 2 - first < KEY_ROWS);
        assert!(!tight || n <= TIGHT_MAX_N as usize);
        let mut layout = KeyLayout {
            at: [0; MAX_N as usize],
            to: [[0; SLOTS]; MAX_N as usize],
            spare: if tight { !full_mask(n as u32) } else { SPARE },
            step_low_shift: NOWHERE,
            pen_shifts: [NOWHERE; 2],
        };
        // The rows of the fields' spare bits: the first of a field's at 27, the next ones
        // five bits lower.
        let spare = |nth: usize| (27 - 5 * nth) as u8;
        // Row n - 3, settled in its own step, goes in the low half itself when it is the 11th
        // (with a word).
        let settling = n - 3 - first;
        for i in 0..=settling {
            let (at, slot) = match i {
                _ if tight => (spare(i % 3), [COLS, UP, DOWN, FREE][i / 3]),
                0..6 => (history_shift(i) as u8, WORDS),
                6 | 7 => (spare(i - 6), COLS),
                8 | 9 => (spare(i - 8), FREE),
                _ => {
                    layout.step_low_shift = key_shift(i) as u8;
                    continue;
                }
            };
            layout.at[i] = at;
            layout.to[i][slot] = !0;
        }
        let pen = n - 2 - first;
        layout.pen_shifts = if pen < ROWS_PER_WORD {
            [history_shift(pen) as u8, NOWHERE]
        } else {
            [NOWHERE, key_shift(pen) as u8]
        };
        layout
    }
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
pub(super) unsafe fn run<V: Vector, S: Sink, const F: usize, const G: bool>(
    s: &mut [Search<F>; WAYS],
    n: u32,
    first: u32,
    m: Masks,
    rows: &Rows,
    gapped: Option<RowGaps<'_>>,
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
        gap: gapped.map_or([1; MAX_N as usize], |g| *g.gap),
        cols_full: gapped.map_or(full_mask(n as u32), |g| g.cols_full),
        checks: match gapped {
            Some(g) => Checks::new(n, &rows.allow, g.gap),
            None => Checks::new(0, &rows.allow, &[1; MAX_N as usize]),
        },
        keys: S::KEYS.then(|| KeyLayout::new(n, first, tight::<S, F>())),
    };
    debug_assert!(G == gapped.is_some());
    // A search for keys keeps no history word (tight) or one, its other rows in spare bits
    // (`KeyLayout`).
    debug_assert!(WORDS + S::words::<F>(&sh) <= F && (S::KEYS || sh.words <= S::words::<F>(&sh)));
    let free = !(m.cols | m.diag_up | m.diag_down) & rows.allow[first];
    // A tight search keeps history above the board's columns: the root's must hold none.
    let m = if tight::<S, F>() {
        let board = sh.cols_full;
        Masks {
            cols: m.cols & board,
            diag_up: m.diag_up & board,
            diag_down: m.diag_down & board,
        }
    } else {
        m
    };
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
                s.step::<V, S, G>(&sh, sink);
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
                s.step::<V, S, G>(&sh, sink);
                busy = true;
            }
        }
        if !busy {
            break;
        }
    }
}
