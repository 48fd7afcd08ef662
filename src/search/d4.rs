//! The D4 method: all eight symmetries of the square, total and unique counts in one pass.
//!
//! Every class of equivalent solutions is searched once, through its canonical member: the
//! lexicographically smallest column sequence of the class (as in [`crate::search::symmetry`]). The
//! first value of a symmetric image is the distance of one of the four *edge queens* (the
//! queens of the top and bottom rows and of the leftmost and rightmost columns) from one end of
//! its edge, so the canonical member `s` has `s[0] = d`, the smallest such distance. The search
//! splits on that first queen:
//!
//! * **Corner** (`s[0] = 0`): only the transpose can tie on the first value, and a queen in the
//!   corner rules out every symmetry but the identity, so each class has eight members. The
//!   canonical member is the one whose queen in column 1 sits below row `s[1]`: a bound mask
//!   keeps column 1 free in rows `2..s[1]`. Every solution found counts 8 to the total, 1 to
//!   the unique count.
//! * **Side** (`s[0] = a`, `1 <= a`, `2a < n - 1`): every other edge queen must be at least `a`
//!   from its corners: bound masks keep the two side columns free in the first and last `a`
//!   rows, and the last row's queen in columns `a..=n-1-a`; both side columns must be taken by
//!   row `n-1-a` (a deadline that prunes early). A solution with no other edge queen at distance
//!   exactly `a` is strictly smaller than its seven images: canonical, with a class of eight.
//!   The rare solutions with such a tie are classified exactly by [`symmetry::orbit`].
//!
//! The split into a corner case and bounded side cases is the idea of Takaken's N-Queens
//! program (Kenji Takahashi, 2003, "N-Queens with bit operations and symmetry", described at
//! <http://www.ic-net.or.jp/home/takaken/nt/queen/>); this code, its canonical form (the
//! lexicographic one of [`crate::search::symmetry`]) and its tie handling are our own. Why every weight
//! is right is written out in `docs/ALGORITHM.md`.

use super::bounded::{self as search, Rows};
use super::dfs::{attacked_at, full_mask, Masks, MAX_N};
use super::lookahead::lookahead;
use super::method::{Board, Costing, Search, SymmetryNeeded};
use super::{
    push_units, symmetry, ClassifiedPart, CountedPart, Counts, Runner, SolutionWeight, Unit,
};

/// The two kinds of canonical solution, named by their first queens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Branch {
    /// First queen in the corner, second queen in column `second`.
    Corner { second: u32 },
    /// First queen in column `bound`, no edge queen closer to a corner.
    Side { bound: u32 },
}

impl Branch {
    /// The branch a unit belongs to, from its prefix (the corner branch always fixes two rows).
    fn of(unit: &Unit) -> Branch {
        match unit.prefix[0] {
            0 => Branch::Corner {
                second: u32::from(unit.prefix[1]),
            },
            a => Branch::Side {
                bound: u32::from(a),
            },
        }
    }

    /// The rows of this branch: bound masks, limited further by `placed` (allowed squares per
    /// row from pre-placed queens).
    fn rows(self, n: u32, placed: &[u32; MAX_N as usize]) -> Rows {
        let full = full_mask(n);
        let m = n - 1;
        let sides = 1 | 1 << m;
        let mut rows = Rows {
            // Inside the board: the search relies on it.
            allow: placed.map(|r| r & full),
            deadline: (MAX_N as usize, 0),
        };
        match self {
            Branch::Corner { second } => {
                rows.allow[0] &= 1;
                rows.allow[1] &= 1 << second;
                // Column 1's queen lies below row `second`: the transpose is larger.
                for r in 2..second as usize {
                    rows.allow[r] &= !2;
                }
            }
            Branch::Side { bound: a } => {
                rows.allow[0] &= 1 << a;
                for r in 1..n {
                    if r < a || r > m - a {
                        rows.allow[r as usize] &= !sides;
                    }
                }
                // Rows below `m - a` may not use the sides: both are taken by then.
                rows.deadline = ((m - a) as usize, sides);
                // Last row: the bottom queen at least `a` from both corners.
                rows.allow[m as usize] &= full >> a & full << a;
            }
        }
        rows
    }
}

/// The branches of an `n` board, in lexicographic order of their first queens.
fn branches(n: u32) -> impl Iterator<Item = Branch> {
    let m = n.saturating_sub(1);
    let corner = (2..m).map(|second| Branch::Corner { second });
    let side = (1..)
        .take_while(move |a| 2 * a < m)
        .map(|bound| Branch::Side { bound });
    corner.chain(side)
}

/// The work units of the D4 method: for every branch, the valid placements of the first
/// `depth` rows (at least 2 for the corner branch, whose second queen sets its bound) under the
/// branch's masks, in lexicographic order of the prefix. `n` must be at least 2.
pub(crate) fn enumerate(n: u32, depth: u32, placed: &[u32; MAX_N as usize]) -> Vec<Unit> {
    debug_assert!(n >= 2);
    let mut units = Vec::new();
    for branch in branches(n) {
        let rows = branch.rows(n, placed);
        let depth = match branch {
            Branch::Corner { .. } => depth.max(2),
            Branch::Side { .. } => depth,
        }
        .min(n) as usize;
        push_units(&mut units, n, &rows, depth, [0; 4], |_| Some(8));
    }
    units
}

/// What one solution found by the search adds: its class size and 1 if it is canonical.
fn counts_of(s: &[u8]) -> Counts {
    let o = symmetry::orbit(s);
    if o.canonical {
        Counts {
            total: u128::from(o.size),
            unique: 1,
        }
    } else {
        Counts::default()
    }
}

/// The searches that together count one unit of a side branch with bound `a`.
///
/// A solution of the branch needs classifying only when another edge queen ties with the top
/// one: a side queen in row `a` or `n-1-a`, or the bottom queen in column `a` or `n-1-a`. The unit is split into disjoint searches by where the first tie is:
///
/// * *clean*: no tie anywhere (the tie squares are taken out of the rows' masks). Every solution
///   is canonical with a class of eight, so a plain count suffices, and it runs on the fastest
///   kernel ([`crate::search::lanes`]). The side columns must then be taken by row `n-2-a`.
/// * a side queen in row `a` (two searches, one per side column);
/// * none in row `a`, a side queen in row `n-1-a` (two searches);
/// * none in either row, the bottom queen in column `a` or `n-1-a` (two searches).
///
/// In the last six the tied queen is placed in advance: its attacks are taken out of every
/// row's mask, so the search prunes from the top rather than failing at the tied row. Their
/// solutions, visited with their columns ([`crate::search::lanes::visit`]), are classified exactly by
/// [`symmetry::orbit`]. Searches the unit's prefix contradicts are left out.
fn side_parts<'u>(
    n: u32,
    a: u32,
    rows: &Rows,
    unit: &'u Unit,
) -> impl Iterator<Item = (Rows, bool)> + 'u {
    let m = n - 1;
    let sides = 1 | 1 << m;
    let (top, bottom) = (a as usize, (m - a) as usize);
    let mut clean = *rows;
    clean.allow[top] &= !sides;
    clean.allow[bottom] &= !sides;
    clean.allow[m as usize] &= !(1 << a | 1 << (m - a));
    clean.deadline = (bottom - 1, sides);
    let mut not_top = *rows;
    not_top.allow[top] &= !sides;
    let mut neither = not_top;
    neither.allow[bottom] &= !sides;
    let ties = [
        (*rows, a, 0),
        (*rows, a, m),
        (not_top, m - a, 0),
        (not_top, m - a, m),
        (neither, m, a),
        (neither, m, m - a),
    ]
    .map(|(r, row, col)| (with_queen(n, r, row, col), true));
    std::iter::once((clean, false))
        .chain(ties)
        .filter(move |(r, _)| admits(r, unit))
}

/// `rows` with a queen placed in advance at (`row`, `col`): that square alone in its row, and
/// its column and diagonals taken out of every other row.
fn with_queen(n: u32, mut rows: Rows, row: u32, col: u32) -> Rows {
    for r in 0..n {
        let allow = &mut rows.allow[r as usize];
        if r == row {
            *allow &= 1 << col;
        } else {
            *allow &= !attacked_at(n, col, r.abs_diff(row));
        }
    }
    rows
}

/// Whether the queens of the unit's prefix lie on squares `rows` allows.
fn admits(rows: &Rows, unit: &Unit) -> bool {
    unit.prefix()
        .iter()
        .enumerate()
        .all(|(r, &col)| rows.allow[r] >> col & 1 == 1)
}

/// The part of one D4 unit that is counted, not classified: the whole corner unit, or a side
/// unit's clean part (see [`side_parts`]). Every completion found in it is a canonical solution
/// with a class of eight: it adds 8 to the total and 1 to the unique count. `None` for units
/// whose prefix leaves at most two rows (those are classified whole). `placed` are the allowed
/// squares per row (all squares without pre-placed queens).
///
/// Any kernel may count this part, the lanes or an OpenCL device; [`evaluate_rest`] does the
/// rest of the unit, which needs every solution's columns.
pub(crate) fn counted_part(
    n: u32,
    unit: &Unit,
    placed: &[u32; MAX_N as usize],
) -> Option<CountedPart> {
    let branch = Branch::of(unit);
    let rows = branch.rows(n, placed);
    if u32::from(unit.depth) + 3 > n {
        return None;
    }
    let rows = match branch {
        Branch::Corner { .. } => rows,
        Branch::Side { bound: a } => side_parts(n, a, &rows, unit)
            .find(|(_, ties)| !ties)
            .map(|(clean, _)| clean)?,
    };
    Some(CountedPart {
        rows,
        first: u32::from(unit.depth),
        masks: unit.masks,
        total: 8,
        unique: 1,
    })
}

/// The tied parts of a side unit as [`ClassifiedPart`]s (none for corner units and for units
/// that leave at most two rows, which [`evaluate_rest`] finishes itself).
pub(crate) fn classified_parts<'u>(
    n: u32,
    unit: &'u Unit,
    placed: &[u32; MAX_N as usize],
    unique: bool,
) -> impl Iterator<Item = ClassifiedPart> + 'u {
    let branch = Branch::of(unit);
    let rows = branch.rows(n, placed);
    let first = u32::from(unit.depth);
    let bound = match branch {
        Branch::Side { bound } if first + 3 <= n => Some(bound),
        _ => None,
    };
    let mut prefix = [0u8; MAX_N as usize];
    prefix[..first as usize].copy_from_slice(unit.prefix());
    bound
        .into_iter()
        .flat_map(move |a| side_parts(n, a, &rows, unit).collect::<Vec<_>>())
        .filter(|(_, ties)| *ties)
        .map(move |(part, _)| ClassifiedPart {
            rows: part,
            first,
            masks: unit.masks,
            prefix,
            weight: SolutionWeight::Classes,
            unique,
        })
}

/// The counts of one D4 unit outside its [`counted_part`]: its [`classified_parts`], or the whole
/// of a unit that leaves at most two rows, every solution classified by
/// [`symmetry::orbit`]; zero for a corner unit.
pub(crate) fn evaluate_rest(
    n: u32,
    unit: &Unit,
    placed: &[u32; MAX_N as usize],
    run: Runner,
) -> Counts {
    if u32::from(unit.depth) + 3 > n {
        // The prefix leaves at most two rows: finish them here.
        return finish_short(n, unit, &Branch::of(unit).rows(n, placed));
    }
    let mut counts = Counts::default();
    for part in classified_parts(n, unit, placed, true) {
        counts += part.evaluate_on(run, n);
    }
    counts
}

/// Counts the total and unique solutions of one D4 unit on `run`'s kernel: its [`counted_part`] on the
/// lanes and the [`evaluate_rest`] (as the engine does; for the tests here).
#[cfg(test)]
pub(crate) fn evaluate(n: u32, unit: &Unit, placed: &[u32; MAX_N as usize], run: Runner) -> Counts {
    let mut counts = evaluate_rest(n, unit, placed, run);
    if let Some(part) = counted_part(n, unit, placed) {
        counts += part.counts(part.count_on(run, n));
    }
    counts
}

/// A unit whose prefix fixes all rows but at most two: every solution is classified directly.
fn finish_short(n: u32, unit: &Unit, rows: &Rows) -> Counts {
    fn go(n: usize, row: usize, m: Masks, rows: &Rows, s: &mut [u8; MAX_N as usize]) -> Counts {
        if row == n {
            return counts_of(&s[..n]);
        }
        let mut counts = Counts::default();
        let mut free = m.free(full_mask(n as u32)) & rows.allow[row];
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            s[row] = bit.trailing_zeros() as u8;
            counts += go(n, row + 1, m.place(bit), rows, s);
        }
        counts
    }
    let mut s = [0u8; MAX_N as usize];
    let d = unit.depth as usize;
    s[..d].copy_from_slice(unit.prefix());
    go(n as usize, d, unit.masks, rows, &mut s)
}

/// The number of nodes the searches of one D4 unit visit (prefix excluded).
pub(crate) fn nodes(n: u32, unit: &Unit, placed: &[u32; MAX_N as usize]) -> u64 {
    let branch = Branch::of(unit);
    let rows = branch.rows(n, placed);
    let first = u32::from(unit.depth);
    match branch {
        Branch::Side { bound: a } if first + 3 <= n => side_parts(n, a, &rows, unit)
            .map(|(part, _)| search::nodes(n, first, unit.masks, &part))
            .sum(),
        _ => search::nodes(n, first, unit.masks, &rows),
    }
}

/// The D4 method ([`super::Method::D4`]).
pub(crate) struct D4;

impl Search for D4 {
    fn needs(&self) -> SymmetryNeeded {
        SymmetryNeeded::AllEight
    }
    fn fallback(&self) -> super::Method {
        super::Method::Mirror
    }
    fn units(&self, board: &Board, depth: u32) -> Vec<Unit> {
        enumerate(board.n, depth, &board.rows)
    }
    fn counted_part(&self, board: &Board, unit: &Unit) -> Option<CountedPart> {
        counted_part(board.n, unit, &board.rows)
    }
    fn classified_parts(&self, board: &Board, unit: &Unit) -> Vec<ClassifiedPart> {
        classified_parts(board.n, unit, &board.rows, board.unique).collect()
    }
    fn has_cpu_only_work(&self, board: &Board, unit: &Unit) -> bool {
        u32::from(unit.depth) + 3 > board.n
    }
    fn count_remainder(&self, board: &Board, unit: &Unit, run: Runner) -> Counts {
        evaluate_rest(board.n, unit, &board.rows, run)
    }
    fn nodes(&self, board: &Board, unit: &Unit) -> u64 {
        nodes(board.n, unit, &board.rows)
    }
}

impl Costing for D4 {
    fn estimate(&self, board: &Board, unit: &Unit, horizon: u32) -> f64 {
        estimate(board.n, unit, &board.rows, horizon)
    }
    fn cpu_time_factor(&self, _unique: bool) -> f64 {
        // Twice edge's time, one thread, interleaved (`docs/PERFORMANCE.md`); unique counts
        // come in the same pass.
        2.0
    }
}

/// How much longer a side unit takes per node for each step of its bound: such a unit runs up
/// to seven searches, six of them visiting their solutions one by one to classify them (fitted
/// on the AVX-512 lanes at N = 17 and 18: `docs/ETA.md`).
const SIDE_TIME_PER_BOUND: f64 = 1.08;

/// The estimate of a D4 unit: the look-ahead ([`lookahead`]) walks the branch's bound masks
/// (the tree the search walks), and the rows guessed below it are weighted as follows (fitted
/// on the node counts of every unit for N = 16, 17, 18; `docs/ETA.md`):
///
/// * a side branch with bound `a` forbids the side columns in its last `a` rows because both
///   side queens must be placed by row `n-1-a`; the free product counts those squares as free
///   and weighs instead the chance that both side queens fit into rows `a..=n-1-a`: with
///   `w = (n - 2a) / (n - 1 - a)` the share of those rows, the factor
///   `w^0.75 * exp(-0.15 (1/w - 1)^2)` (squaring the restricted rows' free counts made the
///   estimate fall about 2.2× per step of `a`);
/// * a side unit's estimate is multiplied by [`SIDE_TIME_PER_BOUND`] per step of its bound, as
///   the estimate is of time, not of nodes.
fn estimate(n: u32, unit: &Unit, rows: &[u32; MAX_N as usize], horizon: u32) -> f64 {
    let walk = Branch::of(unit).rows(n, rows).allow;
    let depth = u32::from(unit.depth);
    let a = u32::from(unit.prefix[0]);
    if a == 0 || n < 4 {
        return lookahead(n, depth, unit.masks, horizon, &walk, &walk);
    }
    let m = n - 1;
    let mut guess = walk;
    for r in (m - a + 1).min(n)..n {
        guess[r as usize] = rows[r as usize];
    }
    let window = ((f64::from(m + 1) - 2.0 * f64::from(a)) / f64::from(m - a)).max(0.0);
    // x^0.75 with correctly rounded operations only (powf may differ between platforms).
    let mut factor = window.sqrt() * window.sqrt().sqrt();
    if window > 0.0 {
        // About exp(-x), as a ratio of sums (exp may differ between platforms too).
        let x = 0.15 * (1.0 / window - 1.0) * (1.0 / window - 1.0);
        factor /= 1.0 + x + x * x / 2.0;
    }
    for _ in 0..a {
        factor *= SIDE_TIME_PER_BOUND;
    }
    factor * lookahead(n, depth, unit.masks, horizon, &walk, &guess)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::search::dfs::unconstrained;

    fn run(n: u32, depth: u32, on: Runner) -> Counts {
        let all = unconstrained(n);
        let mut c = Counts::default();
        for u in enumerate(n, depth, &all) {
            c += evaluate(n, &u, &all, on);
        }
        c
    }

    #[test]
    fn matches_the_published_table() {
        for n in 2..=12u32 {
            let p = crate::known::published(n).unwrap();
            for depth in 1..=4.min(n) {
                for kernel in crate::search::lanes::tests::kernels() {
                    let what = format!("n = {n}, {depth}, {kernel}");
                    let c = if n >= 8 {
                        crate::search::lanes::tests::on_lanes(kernel, &what, |r| run(n, depth, r))
                    } else {
                        run(n, depth, kernel.into())
                    };
                    assert_eq!(
                        (c.total, c.unique),
                        (p.total, p.unique),
                        "n = {n}, {depth}, {kernel}"
                    );
                }
            }
        }
    }

    /// A solution within `allow` found depth first, each row's squares tried in an order
    /// turned by `turn[row]`, within `budget` nodes (the edge method's tests use it too).
    pub(crate) fn solution_in(
        n: u32,
        m: Masks,
        allow: &[u32; 32],
        turn: &[u32],
        s: &mut Vec<u8>,
        budget: &mut u32,
    ) -> bool {
        let row = s.len();
        if row == n as usize {
            return true;
        }
        let free = m.free(full_mask(n)) & allow[row];
        for i in 0..n {
            let col = (i + turn[row]) % n;
            if free >> col & 1 == 0 || *budget == 0 {
                continue;
            }
            *budget -= 1;
            s.push(col as u8);
            if solution_in(n, m.place(1 << col), allow, turn, s, budget) {
                return true;
            }
            s.pop();
        }
        false
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(40))]
        /// On any squares allowed (not only symmetric ones), the units add up to one (class
        /// size, 1) per canonical solution within them, classified independently by
        /// `symmetry::orbit`: the corner and side masks, the clean and tied parts and their
        /// weights are right at any N, not only where the published table can check them. The
        /// boards are sparse rows around a canonical solution drawn in a chosen branch (corner,
        /// any, or a side branch with each kind of tie), often one of its images (which the
        /// search may find and must not count), and random squares.
        #[test]
        fn units_add_up_to_the_canonical_solutions_allowed(
            n in 10u32..=28,
            kind in 0u32..5,
            bound in proptest::prelude::any::<u32>(),
            turn in proptest::collection::vec(proptest::prelude::any::<u32>(), 32),
            g in 0usize..8,
            image in proptest::prelude::any::<bool>(),
            extra in proptest::collection::vec(proptest::prelude::any::<u32>(), 32),
        ) {
            let (m, full) = (n - 1, full_mask(n));
            let mut t = [full; 32];
            match kind {
                0 => t[0] = 1,
                1 => {}
                tie => {
                    let a = 1 + bound % ((m - 1) / 2);
                    let b = Branch::Side { bound: a }.rows(n, &unconstrained(n));
                    t = b.allow;
                    match tie {
                        2 => t[a as usize] = 1 << m,
                        3 => t[(m - a) as usize] = 1,
                        _ => t[m as usize] = 1 << (m - a),
                    }
                }
            }
            let mut found = Vec::new();
            proptest::prop_assume!(solution_in(n, Masks::EMPTY, &t, &turn, &mut found, &mut 200_000));
            let mut s = [0u8; 32];
            symmetry::canonical(&found, &mut s);
            let mut img = [0u8; 32];
            symmetry::Symmetry::ALL[g].apply(&s[..n as usize], &mut img);
            let mut allow = [0u32; 32];
            for r in 0..n as usize {
                let image = if image { 1 << img[r] } else { 0 };
                let random = extra[r] & extra[(r + 11) % 32] & extra[(r + 19) % 32];
                allow[r] = (1 << s[r] | image | random) & full;
            }
            let rows = Rows { allow, deadline: (MAX_N as usize, 0) };
            proptest::prop_assume!(crate::search::lanes::tests::small(n, 0, Masks::EMPTY, &rows, &mut 1_000_000));
            let mut want = Counts::default();
            let mut cols = [0u8; 32];
            let _ = crate::search::dfs::visit(n, 0, Masks::EMPTY, &allow, &mut cols, |sol| {
                let o = symmetry::orbit(sol);
                if o.canonical {
                    want += Counts { total: u128::from(o.size), unique: 1 };
                }
                std::ops::ControlFlow::Continue(())
            });
            proptest::prop_assert!(want.unique >= 1);
            for depth in 1..=4 {
                for kernel in crate::search::lanes::tests::kernels() {
                    let mut got = Counts::default();
                    for u in enumerate(n, depth, &allow) {
                        got += evaluate(n, &u, &allow, kernel.into());
                    }
                    proptest::prop_assert_eq!(got, want, "depth {}, {}", depth, kernel);
                }
            }
        }
    }

    #[test]
    fn units_are_lexicographic_with_stable_indices() {
        let all = unconstrained(10);
        let units = enumerate(10, 3, &all);
        for (i, w) in units.windows(2).enumerate() {
            assert!(w[0].prefix() < w[1].prefix());
            assert_eq!(w[0].index as usize, i);
        }
        assert_eq!(units[0].prefix(), &[0, 2, 4]);
        assert_eq!(units, enumerate(10, 3, &all));
    }
}
