//! The edge method: the four edge queens first, one frame per class of frames, then the inner
//! rows.
//!
//! Every solution has exactly one queen on each edge of the board: the *top* queen (row 0,
//! column `t`), the *bottom* queen (row `m = n - 1`, column `b`), the *left* queen (column 0,
//! row `l`) and the *right* queen (column `m`, row `r`). These four (three when one sits in a
//! corner: a corner queen is on two edges, and no solution has two corner queens) form the
//! solution's **frame** `E(s) = (t, b, l, r)`. The eight symmetries of the square map edges to
//! edges, so `E(g s) = g E(s)`: frames fall into classes like solutions do.
//!
//! The method lists one frame per class of frames (its *representative*), and for each
//! representative `C` searches the solutions with `E(s) = C`: the edge queens are placed in
//! advance (their squares alone in their rows, their lines taken out of every other row), and
//! the inner rows are searched top down.
//!
//! **Why the counts are exact.** Let `O` be a class of solutions whose frames lie in the class
//! of `C`. The map `E: O -> class(C)` commutes with the symmetries, so all its fibres have the
//! same size, and the stabiliser `Stab(C)` of the frame acts transitively on the fibre over `C`
//! (if `s` and `g s` both have frame `C`, then `g C = C`). So:
//!
//! * when `Stab(C)` is trivial (the frame has 8 images), every `s` with frame `C` has a trivial
//!   stabiliser too (`Stab(s) ⊆ Stab(E(s))`): its class has 8 members, and it is the only member
//!   of its class with frame `C`. Each solution found adds (8, 1). This is the common case, and
//!   it is a plain count;
//! * when `Stab(C)` is not trivial (the frame is its own image under the half turn, or under
//!   the quarter turns too; no frame is its own image under a reflection, which would map one
//!   edge queen to another on a shared diagonal or line), the fibre over `C` holds `|Stab(C)| / |Stab(s)|` members of the
//!   class of `s`, one of each `Stab(C)`-orbit. Counting only the member that is
//!   lexicographically smallest among its images under `Stab(C)`, and adding its class size
//!   ([`symmetry::orbit`]) and 1, counts every class exactly once, whatever the symmetry of the
//!   completion. Weighting by the frame alone (8 / |Stab(C)| for the total, 1 for the unique
//!   count per solution found) gets the total right but over-counts classes whose frame is
//!   symmetric and whose completion is not: the trap of the published FPGA reference (1788 at
//!   N = 12 where A002562 is 1787); with these frames it would give 1812
//!   (`tests::frame_weight_alone_over_counts_classes`).
//!
//! Any member of a class of frames can be its representative; the method takes the one whose
//! inner search looks cheapest (fewest free squares in its first rows, see [`cost`]), which
//! matters: summed over the classes, the worst orientations have twice the nodes of the best.
//!
//! The idea of pre-placing the border queens, one canonical pre-placement per symmetry class
//! weighted by its symmetry, is that of the Q27 project (Th. B. Preußer, M. R. Engelhardt,
//! "Putting Queens in Carry Chains, No. 27", J. Signal Processing Systems 88, 2017,
//! <https://github.com/preusser/q27>) and of NQueensFAF's constellations (O. Pöschl,
//! <https://github.com/olepoeschl/NQueensFAF>, `ConstellationsGenerator.java`, where the four
//! edge queens are called `i, j, k, l` and rows holding a queen are skipped). The exact
//! treatment of symmetric frames, the choice of the representative and this code are our own.

mod search;
#[cfg(test)]
mod tests;

use super::bounded::Rows;
use super::dfs::{attacked_at, full_mask, unconstrained, Masks, MAX_N};
use super::method::{Board, Costing, Search, SymmetryNeeded};
use super::symmetry::{self, Symmetry};
use super::{lanes, push_units, ClassifiedPart, CountedPart, Counts, Runner, Unit};

/// The edge queens of a solution: the top queen's column, the bottom queen's column, the left
/// queen's row, the right queen's row. Stored in a unit as `[top, bottom, left, right]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Frame {
    /// Column of the queen of row 0.
    pub top: u8,
    /// Column of the queen of row `n - 1`.
    pub bottom: u8,
    /// Row of the queen of column 0.
    pub left: u8,
    /// Row of the queen of column `n - 1`.
    pub right: u8,
}

impl Frame {
    /// From a unit's `frame` field.
    pub fn from_array(a: [u8; 4]) -> Frame {
        Frame {
            top: a[0],
            bottom: a[1],
            left: a[2],
            right: a[3],
        }
    }

    /// As a unit's `frame` field.
    pub fn to_array(self) -> [u8; 4] {
        [self.top, self.bottom, self.left, self.right]
    }

    /// The frame of a solution (column sequence).
    #[cfg(test)]
    pub fn of(s: &[u8]) -> Frame {
        let m = s.len() - 1;
        let row_of = |c: usize| s.iter().position(|&x| x as usize == c).unwrap() as u8;
        Frame {
            top: s[0],
            bottom: s[m],
            left: row_of(0),
            right: row_of(m),
        }
    }

    /// The squares (row, col) of its queens, a corner queen twice.
    fn squares(self, n: u32) -> [(u32, u32); 4] {
        let m = n - 1;
        [
            (0, u32::from(self.top)),
            (m, u32::from(self.bottom)),
            (u32::from(self.left), 0),
            (u32::from(self.right), m),
        ]
    }

    /// Whether its queens attack no other and each edge holds exactly one of them.
    fn valid(self, n: u32) -> bool {
        let m = n - 1;
        let q = self.squares(n);
        if q.iter().any(|&(r, c)| r > m || c > m) {
            return false;
        }
        for (i, &a) in q.iter().enumerate() {
            for &b in &q[i + 1..] {
                if a == b {
                    continue;
                }
                let attack = a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1);
                if attack {
                    return false;
                }
            }
        }
        // A queen on an edge must be that edge's queen (a corner queen is on two edges).
        q.iter().all(|&(r, c)| {
            (r != 0 || c == u32::from(self.top))
                && (r != m || c == u32::from(self.bottom))
                && (c != 0 || r == u32::from(self.left))
                && (c != m || r == u32::from(self.right))
        })
    }

    /// Its image under `g`.
    fn image(self, n: u32, g: Symmetry) -> Frame {
        let m = n - 1;
        let mut f = self;
        for (r, c) in self.squares(n) {
            let (r, c) = g.map_square(n as usize, r as usize, c as usize);
            let (r, c) = (r as u32, c as u32);
            if r == 0 {
                f.top = c as u8;
            }
            if r == m {
                f.bottom = c as u8;
            }
            if c == 0 {
                f.left = r as u8;
            }
            if c == m {
                f.right = r as u8;
            }
        }
        f
    }

    /// Its stabiliser: bit `i` set when `Symmetry::ALL[i]` maps it to itself.
    fn stabiliser(self, n: u32) -> u8 {
        let mut bits = 0;
        for (i, g) in Symmetry::ALL.into_iter().enumerate() {
            if self.image(n, g) == self {
                bits |= 1 << i;
            }
        }
        bits
    }

    /// The rows of its search: each edge queen's square alone in its row, its lines taken out
    /// of every other row, the side columns out of every inner row; within `placed`.
    pub fn rows(self, n: u32, placed: &[u32; MAX_N as usize]) -> Rows {
        let full = full_mask(n);
        let m = n - 1;
        let mut allow = [0u32; MAX_N as usize];
        let queens = self.squares(n);
        for r in 0..n {
            let mut a = placed[r as usize] & full & !(1 | 1 << m);
            let mut own = None;
            for &(qr, qc) in &queens {
                if qr == r {
                    own = Some(qc);
                    continue;
                }
                a &= !attacked_at(n, qc, r.abs_diff(qr));
            }
            allow[r as usize] = match own {
                Some(c) => placed[r as usize] & 1 << c,
                None => a,
            };
        }
        Rows::allowing(allow)
    }
}

/// A class of frames: its representative, the size of its class, its stabiliser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameClass {
    /// The member searched.
    pub frame: Frame,
    /// 8 / |stabiliser|: 8, 4 or 2.
    pub size: u8,
    /// Bit `i`: `Symmetry::ALL[i]` fixes the frame.
    pub stabiliser: u8,
}

/// How many inner rows [`cost`] looks at.
const COST_ROWS: usize = 7;

/// The estimated cost of searching below a frame: the product of the free squares of its first
/// [`COST_ROWS`] inner rows (rows holding an edge queen count 1). Deterministic; only used to
/// pick a class's representative.
fn cost(n: u32, f: Frame) -> u64 {
    let rows = f.rows(n, &unconstrained(n));
    // Seven free rows, the edge queens' rows not among them: the best of the choices measured
    // (`results/2026-12-01-edge-notes/NOTE.md`, "Choosing the representative").
    rows.allow[1..n as usize]
        .iter()
        .filter(|a| a.count_ones() != 1)
        .take(COST_ROWS)
        .map(|a| u64::from(a.count_ones()))
        .product()
}

/// The classes of frames of an `n` board (n >= 2), in lexicographic order of their
/// representatives `(top, bottom, left, right)`.
pub fn frame_classes(n: u32) -> Vec<FrameClass> {
    let mut classes = Vec::new();
    let n8 = n as u8;
    for top in 0..n8 {
        for bottom in 0..n8 {
            for left in 0..n8 {
                for right in 0..n8 {
                    let f = Frame {
                        top,
                        bottom,
                        left,
                        right,
                    };
                    if !f.valid(n) {
                        continue;
                    }
                    let images = Symmetry::ALL.map(|g| f.image(n, g));
                    // Each class once: from its lexicographically smallest member.
                    if images.iter().any(|&i| i < f) {
                        continue;
                    }
                    let frame = images
                        .iter()
                        .copied()
                        .min_by_key(|&i| (cost(n, i), i))
                        .unwrap();
                    let stabiliser = frame.stabiliser(n);
                    classes.push(FrameClass {
                        frame,
                        size: (8 / stabiliser.count_ones()) as u8,
                        stabiliser,
                    });
                }
            }
        }
    }
    classes.sort_by_key(|c| c.frame);
    classes
}

/// The rows fixed by an edge method unit for split depth `depth`: the frame is the main split
/// (about n^4 / 8 classes), so split depths 1 to 3 fix the top row only (one unit per class of
/// frames) and depth 4 the top two rows. Shards default to depth 1, or 4 beyond 64 shards
/// ([`Edge`]'s `shard_depth`): 38,604 or 708,526 units at N = 27. Fixing more rows gives
/// millions of units, too many to list and estimate (`results/2026-12-01-edge-notes/NOTE.md`).
pub fn prefix_rows(n: u32, depth: u32) -> u32 {
    depth.saturating_sub(2).clamp(1, n)
}

/// The work units of the edge method: for every class of frames (in lexicographic order of the
/// representative), the valid placements of the first [`prefix_rows`] rows under the frame's
/// rows, in lexicographic order. A unit carries its frame in `Unit::frame` and the size of the
/// frame's class in `Unit::weight`. `n` must be at least 2.
pub(crate) fn enumerate(n: u32, depth: u32, placed: &[u32; MAX_N as usize]) -> Vec<Unit> {
    debug_assert!(n >= 2);
    let depth = prefix_rows(n, depth) as usize;
    let mut units = Vec::new();
    for class in frame_classes(n) {
        let rows = class.frame.rows(n, placed);
        let frame = class.frame.to_array();
        push_units(&mut units, n, &rows, depth, frame, |_| Some(class.size));
    }
    units
}

/// What one solution `s` with frame `C` adds, where `stabiliser` is `Stab(C)`: (class size, 1)
/// if `s` is the smallest of its images under `Stab(C)`, nothing otherwise.
fn credit(stabiliser: u8, s: &[u8]) -> Counts {
    let n = s.len();
    let mut img = [0u8; MAX_N as usize];
    for (i, g) in Symmetry::ALL.into_iter().enumerate().skip(1) {
        if stabiliser >> i & 1 == 1 {
            g.apply(s, &mut img[..n]);
            if img[..n] < *s {
                return Counts::default();
            }
        }
    }
    Counts {
        total: u128::from(symmetry::orbit(s).size),
        unique: 1,
    }
}

/// Counts the total and unique solutions of one edge unit on `run`'s kernel. `placed`: the allowed
/// squares per row (all squares without pre-placed queens).
pub(crate) fn evaluate(n: u32, unit: &Unit, placed: &[u32; MAX_N as usize], run: Runner) -> Counts {
    let frame = Frame::from_array(unit.frame);
    let rows = frame.rows(n, placed);
    let first = u32::from(unit.depth);
    let stabiliser = frame.stabiliser(n);
    let mut s = [0u8; MAX_N as usize];
    s[..first as usize].copy_from_slice(unit.prefix());
    if first + 3 > n {
        let mut counts = Counts::default();
        finish(
            n as usize,
            first as usize,
            unit.masks,
            &rows,
            &mut s,
            &mut |s| counts += credit(stabiliser, s),
        );
        return counts;
    }
    if stabiliser == 1 {
        // Trivial stabiliser: every solution found is alone in its class's fibre, class of 8.
        let found = count(run, n, first, unit.masks, &rows);
        return Counts {
            total: 8 * u128::from(found),
            unique: u128::from(found),
        };
    }
    let mut counts = Counts::default();
    lanes::visit(run, n, first, unit.masks, &rows, |tail| {
        s[first as usize..n as usize].copy_from_slice(tail);
        counts += credit(stabiliser, &s[..n as usize]);
    });
    counts
}

/// The part of an edge unit a device can count: all of a unit whose frame has no symmetry
/// (each solution adds 8 and 1), searched through rows that hold the edge queens as rows with
/// one allowed square ([`Frame::rows`]; the same completions as the skipping search). `None`
/// for symmetric frames, classified under the frame's stabiliser on the CPU, and for units that
/// leave fewer than three rows.
pub(crate) fn counted_part(
    n: u32,
    unit: &Unit,
    placed: &[u32; MAX_N as usize],
) -> Option<CountedPart> {
    let frame = Frame::from_array(unit.frame);
    let first = u32::from(unit.depth);
    (frame.stabiliser(n) == 1 && first + 3 <= n).then(|| CountedPart {
        rows: frame.rows(n, placed),
        first,
        masks: unit.masks,
        total: 8,
        unique: 1,
    })
}

/// The edge method ([`super::Method::Edge`]).
pub(crate) struct Edge;

impl Search for Edge {
    fn needs(&self) -> SymmetryNeeded {
        SymmetryNeeded::AllEight
    }
    fn fallback(&self) -> super::Method {
        super::Method::Mirror
    }
    fn units(&self, board: &Board, depth: u32) -> Vec<Unit> {
        enumerate(board.n, depth, &board.rows)
    }
    /// Its own search, which skips the rows of the edge queens rather than walking them.
    fn count(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        evaluate(board.n, unit, &board.rows, run)
    }
    fn counted_part(&self, board: &Board, unit: &Unit) -> Option<CountedPart> {
        counted_part(board.n, unit, &board.rows)
    }
    /// None: symmetric frames classify under the frame's stabiliser, on the CPU.
    fn classified_parts(&self, _: &Board, _: &Unit) -> Vec<ClassifiedPart> {
        Vec::new()
    }
    fn has_cpu_only_work(&self, board: &Board, unit: &Unit) -> bool {
        self.counted_part(board, unit).is_none()
    }
    /// A unit with a counted part has nothing else; the others are all rest.
    fn count_remainder(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        match self.counted_part(board, unit) {
            Some(_) => Counts::default(),
            None => evaluate(board.n, unit, &board.rows, run),
        }
    }
    fn nodes(&self, board: &Board, unit: &Unit) -> u64 {
        nodes(board.n, unit, &board.rows)
    }
}

impl Costing for Edge {
    /// Its own estimate (the look-ahead ranked edge units badly: `docs/ETA.md`).
    fn estimate(&self, board: &Board, unit: &Unit, _horizon: u32) -> f64 {
        estimate(board.n, unit, &board.rows)
    }
    fn cpu_time_factor(&self, _unique: bool) -> f64 {
        // The reference of the CPU-time model; unique counts come in the same pass.
        1.0
    }
    /// Depth 1 (the top row and the frame: tens of thousands of units at N = 27) up to 64
    /// shards, depth 4 (the top two rows) beyond.
    fn shard_depth(&self, shards: u32) -> u32 {
        if shards > 64 {
            4
        } else {
            1
        }
    }
    /// Thousands of nearly equal units: the largest-estimate-first order buys no balance, and
    /// index order is sorted by frame, whose time per unit of estimate drifts (`docs/ETA.md`).
    fn scrambled_order(&self) -> bool {
        true
    }
}

/// Counts the completions below a prefix (rows `first..n`, attacks `m`), the rows holding a
/// queen skipped: on the lanes where they run ([`lanes::count_with_gaps`]), else depth first.
///
/// Searching those rows instead, as rows with one allowed square (`lanes::count` on
/// [`Frame::rows`]), gives the same counts with more nodes, as the last two rows settled without
/// a search are then the last free row and the bottom queen's, not the last two free rows
/// (`results/2026-12-01-edge-notes/NOTE.md`).
pub(crate) fn count(run: Runner, n: u32, first: u32, m: Masks, rows: &Rows) -> u64 {
    let Some((c, start)) = search::compress(n, first, m, rows) else {
        return 0;
    };
    let f = c.f as u32;
    if f >= run.lane_min_rows.max(3) && lanes::gaps_run_on(run.kernel) {
        lanes::count_with_gaps(run, c.full, f, start, &c.allow, &c.gap)
    } else {
        run.record(false);
        search::count_compressed(&c, start)
    }
}

/// Every completion of rows `row..n` below `m`, depth first (for units with few rows left).
fn finish(
    n: usize,
    row: usize,
    m: Masks,
    rows: &Rows,
    s: &mut [u8; MAX_N as usize],
    f: &mut dyn FnMut(&[u8]),
) {
    if row == n {
        return f(&s[..n]);
    }
    let mut free = m.free(full_mask(n as u32)) & rows.allow[row];
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        s[row] = bit.trailing_zeros() as u8;
        finish(n, row + 1, m.place(bit), rows, s, f);
    }
}

/// The estimated cost of an edge unit's search, for progress and shard balance: the placements
/// of its first free row, each weighted by the square roots of the squares it leaves free in
/// every free row below (`search::estimate`). `placed`: the allowed squares per row.
///
/// Linear in the real node counts, which sums of estimates (shards, the ETA) need; the d4-style
/// look-ahead spread these nearly equal units over orders of magnitude. Its correlation with the
/// real cost is tested (`plan::cost` tests) and measured in
/// `results/2026-12-01-cost-estimate-notes/NOTE.md`.
pub(crate) fn estimate(n: u32, unit: &Unit, placed: &[u32; MAX_N as usize]) -> f64 {
    let rows = Frame::from_array(unit.frame).rows(n, placed);
    search::estimate(n, u32::from(unit.depth), unit.masks, &rows)
}

/// The number of nodes of one edge unit's search (prefix excluded), rows holding an edge queen
/// skipped, not counted: the tree of the lane kernels, children dropped by the checks below
/// them (`search::nodes`).
pub fn nodes(n: u32, unit: &Unit, placed: &[u32; MAX_N as usize]) -> u64 {
    let rows = Frame::from_array(unit.frame).rows(n, placed);
    search::nodes(n, u32::from(unit.depth), unit.masks, &rows)
}
