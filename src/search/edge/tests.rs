//! The edge method against the published tables and against an independent classification
//! (`symmetry::orbit`) on random boards closed under the eight symmetries.

use super::*;
use crate::search::d4::tests::solution_in;
use crate::search::dfs::{count_constrained, visit};
use crate::search::lanes::tests::{from_rows, kernels, on_lanes, small};
use crate::search::MAX_PREFIX;
use crate::{Engine, Job, Kernel, Method};
use proptest::prelude::*;
use std::ops::ControlFlow;

/// The sum over every unit of an `n` board within `allow`, split depth `depth`, on `on`.
fn run(n: u32, depth: u32, allow: &[u32; MAX_N as usize], on: Runner) -> Counts {
    let mut c = Counts::default();
    for u in enumerate(n, depth, allow) {
        c += evaluate(n, &u, allow, on);
    }
    c
}

#[test]
fn matches_the_published_table() {
    for n in 2..=12u32 {
        let p = crate::known::published(n).unwrap();
        for depth in 1..=4.min(n) {
            for kernel in kernels() {
                let what = format!("n = {n}, {depth}, {kernel}");
                let c = if n >= 9 {
                    on_lanes(kernel, &what, |r| run(n, depth, &unconstrained(n), r))
                } else {
                    run(n, depth, &unconstrained(n), kernel.into())
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

/// Through the plan and the engine (N = 1 falls back to mirror), 1 and 2 threads, N = 1..14.
#[test]
fn the_engine_counts_every_n_to_14() {
    for n in 1..=14u32 {
        let p = crate::known::published(n).unwrap();
        for threads in [1, 2] {
            let job = Job::new(n)
                .unwrap()
                .with_method(Method::Edge)
                .with_unique(true)
                .with_default_split_depth(threads);
            let r = Engine::new(threads).unwrap().count(&job).unwrap();
            let used = if n == 1 { Method::Mirror } else { Method::Edge };
            assert_eq!(r.method, used, "n = {n}");
            assert_eq!(
                (r.counts.total, r.counts.unique),
                (p.total, p.unique),
                "n = {n}, {threads} threads"
            );
        }
    }
}

/// N = 15..17 depth first and N = 18 on every kernel against the published table, 1 and 2
/// threads at split depths 1 and 3 (N = 18 takes seconds on the lanes, minutes depth first;
/// N = 16 and 17 on the lanes run in CI: `tests/methods.rs`). Run by `scripts/slow-checks.sh`.
#[test]
#[ignore = "slow: N = 15 to 17 depth first, N = 18"]
fn matches_the_published_table_to_18() {
    for n in 15..=18u32 {
        let p = crate::known::published(n).unwrap();
        for kernel in kernels() {
            if kernel != Kernel::Dfs && n < 18 {
                continue;
            }
            for (threads, depth) in [(1, 1), (2, 3)] {
                let job = Job::new(n)
                    .unwrap()
                    .with_method(Method::Edge)
                    .with_unique(true)
                    .with_split_depth(depth)
                    .unwrap();
                let r = Engine::new(threads)
                    .unwrap()
                    .with_kernel(kernel)
                    .unwrap()
                    .count(&job)
                    .unwrap();
                assert_eq!(
                    (r.counts.total, r.counts.unique),
                    (p.total, p.unique),
                    "n = {n}, {kernel}, {threads} threads"
                );
            }
        }
    }
}

/// The classes partition the valid frames, each class is an orbit of the size recorded, every
/// solution's frame is valid, and the only stabilisers are the identity, the half turn and the
/// quarter turns (a frame fixed by a reflection has two queens attacking each other).
#[test]
fn frame_classes_are_orbits() {
    let half_turn = 1
        << Symmetry::ALL
            .iter()
            .position(|&g| g == Symmetry::Rot180)
            .unwrap();
    let quarter_turns = Symmetry::ALL
        .iter()
        .enumerate()
        .filter(|(_, &g)| matches!(g, Symmetry::Rot90 | Symmetry::Rot180 | Symmetry::Rot270))
        .fold(1u8, |bits, (i, _)| bits | 1 << i);
    for n in 4..=12u32 {
        let classes = frame_classes(n);
        let mut all = Vec::new();
        for c in &classes {
            assert!(c.frame.valid(n));
            assert!(
                [1, 1 | half_turn, quarter_turns].contains(&c.stabiliser),
                "{c:?}"
            );
            let mut orbit: Vec<Frame> = Symmetry::ALL.map(|g| c.frame.image(n, g)).to_vec();
            orbit.sort();
            orbit.dedup();
            assert_eq!(orbit.len(), usize::from(c.size), "{c:?}");
            all.extend(orbit);
        }
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "classes overlap at n = {n}");
        // Every valid frame is in some class.
        let valid = (0..n.pow(4))
            .map(|i| {
                let d = |k: u32| (i / n.pow(k) % n) as u8;
                Frame::from_array([d(0), d(1), d(2), d(3)])
            })
            .filter(|f| f.valid(n))
            .count();
        assert_eq!(valid, count);
        // Frames fixed by the quarter turns (classes of 2) from N = 4 on, by the half turn only
        // (classes of 4) from N = 6 on; a class of 8 for the others.
        let of_size = |size| classes.iter().filter(|c| c.size == size).count();
        assert_eq!(of_size(2), ((n - 2) / 2) as usize, "n = {n}");
        assert_eq!(of_size(4) > 0, n >= 6, "n = {n}");
        if n <= 9 {
            let mut cols = [0u8; MAX_N as usize];
            let _ = visit(n, 0, Masks::EMPTY, &unconstrained(n), &mut cols, |s| {
                assert!(Frame::of(s).valid(n));
                ControlFlow::Continue(())
            });
        }
    }
}

/// Weighting the solutions of a symmetric frame by the frame's symmetry alone (total
/// 8 / |Stab(C)|, unique 1 per solution found) gets the total right and the unique count
/// wrong: 1812 classes at N = 12 (A002562: 1787). The method's count is exact.
#[test]
fn frame_weight_alone_over_counts_classes() {
    let n = 12;
    let all = unconstrained(n);
    let mut naive = Counts::default();
    for u in enumerate(n, 2, &all) {
        let rows = Frame::from_array(u.frame).rows(n, &all);
        let found = count(Kernel::Dfs.into(), n, u32::from(u.depth), u.masks, &rows);
        naive += Counts {
            total: u128::from(u.weight) * u128::from(found),
            unique: u128::from(found),
        };
    }
    assert_eq!(naive.total, 14200);
    assert_eq!(naive.unique, 1812);
    for kernel in kernels() {
        let exact = run(n, 2, &all, kernel.into());
        assert_eq!((exact.total, exact.unique), (14200, 1787), "{kernel}");
    }
}

#[test]
fn units_are_ordered_with_stable_indices() {
    let all = unconstrained(11);
    for depth in 1..=4 {
        let units = enumerate(11, depth, &all);
        for (i, w) in units.windows(2).enumerate() {
            let key = |u: &Unit| (Frame::from_array(u.frame), u.prefix().to_vec());
            assert!(key(&w[0]) < key(&w[1]));
            assert_eq!(w[0].index as usize, i);
        }
        assert_eq!(units, enumerate(11, depth, &all));
        // Split depths 1 to 3 give one unit per class of frames.
        assert_eq!(
            units.len() == frame_classes(11).len(),
            depth <= 3,
            "depth {depth}"
        );
    }
}

/// The solutions of an `n` board whose class has `size` members (4 or 2).
fn symmetric_solutions(n: u32, size: u8) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cols = [0u8; MAX_N as usize];
    let _ = visit(n, 0, Masks::EMPTY, &unconstrained(n), &mut cols, |s| {
        if symmetry::orbit(s).size == size {
            out.push(s.to_vec());
        }
        ControlFlow::Continue(())
    });
    out
}

/// The completions of the free rows `i..` below `m`, depth first, every child's checks asked:
/// a child the checks drop must have no completion. `dropped` counts the children dropped.
fn completions_checked(c: &search::Ctx, i: usize, m: Masks, dropped: &mut u64) -> u64 {
    if i == c.f {
        return 1;
    }
    let g = c.gap[i];
    let mut free = m.free(c.full) & c.allow[i];
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        let next = m.place_gapped(bit, g);
        let below = completions_checked(c, i + 1, next, dropped);
        if !c.checks.alive(i, next) {
            assert_eq!(
                below, 0,
                "row {i} of {}: a child with completions dropped",
                c.f
            );
            *dropped += 1;
        }
        total += below;
    }
    total
}

/// The rows checked below each child ([`crate::search::lanes::Checks`]) drop only children
/// without a completion, and do drop some: on every class of frames of N = 9..=12 (the
/// completions also add up to the solutions of that frame class's search).
#[test]
fn checks_drop_only_dead_children() {
    for n in 9..=12u32 {
        let mut dropped = 0;
        for class in frame_classes(n) {
            let rows = class.frame.rows(n, &unconstrained(n));
            let Some((c, m)) = search::compress(n, 0, Masks::EMPTY, &rows) else {
                continue;
            };
            let got = completions_checked(&c, 0, m, &mut dropped);
            assert_eq!(
                got,
                count_constrained(n, 0, Masks::EMPTY, &rows.allow),
                "n = {n}"
            );
        }
        assert!(dropped > 0, "n = {n}: nothing dropped");
    }
}

/// The tree the lane kernels walk, pinned (`docs/ALGORITHM.md`, nodes per method): the checks
/// below each child cut it from 158,878 nodes (the last two rows checked) to 141,131 at N = 12.
#[test]
fn nodes_of_the_lanes_tree() {
    let plan = crate::Plan::new(
        Job::new(12)
            .unwrap()
            .with_method(Method::Edge)
            .with_split_depth(2)
            .unwrap(),
    );
    let nodes: u64 = plan
        .units()
        .iter()
        .map(|u| crate::plan::evaluate_nodes(&plan, u))
        .sum();
    assert_eq!(nodes, 141_131);
}

/// The kinds of solution the random boards are built around.
const ANY: u32 = 0;
/// A queen in a corner (a frame of three queens, always a class of eight).
const CORNER: u32 = 1;
/// A frame fixed by the half turn only (class of 4); the completion usually is not.
const HALF_TURN_FRAME: u32 = 2;
/// A frame fixed by the quarter turns (class of 2); the completion usually is not.
const QUARTER_TURN_FRAME: u32 = 3;
/// A solution fixed by the half turn only (class of 4), and so its frame.
const HALF_TURN_SOLUTION: u32 = 4;
/// A solution fixed by the quarter turns (class of 2), and so its frame.
const QUARTER_TURN_SOLUTION: u32 = 5;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// On boards whose allowed squares all eight symmetries map to themselves (sparse: a
    /// solution of a chosen kind, one of its images and random squares, closed under the
    /// symmetries), the units add up to (class size, 1) per canonical solution allowed,
    /// classified independently by `symmetry::orbit`: every kind of frame (corner, trivial,
    /// half-turn and quarter-turn stabiliser) and every kind of symmetric solution, every split
    /// depth and kernel. The lanes run at their real threshold (10 free rows) from N = 14 on.
    #[test]
    fn units_add_up_to_the_canonical_solutions_allowed(
        n in 8u32..=24,
        kind in 0u32..6,
        pick in any::<u32>(),
        turn in proptest::collection::vec(any::<u32>(), 32),
        g in 0usize..8,
        extra in proptest::collection::vec(any::<u32>(), 32),
    ) {
        let found: Vec<u8> = match kind {
            HALF_TURN_SOLUTION | QUARTER_TURN_SOLUTION => {
                // All of them on a small board: N = 8..12 (4 or 2 members), 12 or 13 (2).
                let size = if kind == HALF_TURN_SOLUTION { 4 } else { 2 };
                let n_small = if size == 4 { 8 + n % 5 } else { 12 + n % 2 };
                let sym = symmetric_solutions(n_small, size);
                prop_assume!(!sym.is_empty());
                sym[pick as usize % sym.len()].clone()
            }
            _ => {
                let full = full_mask(n);
                let mut t = [full; 32];
                let want_size = match kind {
                    HALF_TURN_FRAME => 4,
                    QUARTER_TURN_FRAME => 2,
                    _ => 8,
                };
                if kind != ANY {
                    let of_kind: Vec<FrameClass> = frame_classes(n)
                        .into_iter()
                        .filter(|c| c.size == want_size && (kind != CORNER || c.frame.top == 0))
                        .collect();
                    prop_assume!(!of_kind.is_empty());
                    let f = of_kind[pick as usize % of_kind.len()].frame;
                    t = f.rows(n, &unconstrained(n)).allow;
                }
                let mut s = Vec::new();
                prop_assume!(solution_in(n, Masks::EMPTY, &t, &turn, &mut s, &mut 200_000));
                s
            }
        };
        let n = found.len() as u32;
        let full = full_mask(n);
        let mut img = [0u8; 32];
        Symmetry::ALL[g].apply(&found, &mut img);
        // Allowed: the solution, one image, random squares; then closed under the symmetries.
        let mut allow = [0u32; 32];
        for r in 0..n as usize {
            let random = extra[r] & extra[(r + 11) % 32] & extra[(r + 19) % 32] & full;
            let row = 1 << found[r] | 1 << img[r] | random;
            for c in (0..n as usize).filter(|c| row >> c & 1 == 1) {
                for h in Symmetry::ALL {
                    let (r, c) = h.map_square(n as usize, r, c);
                    allow[r] |= 1 << c;
                }
            }
        }
        let rows = Rows::allowing(allow);
        prop_assume!(small(n, 0, Masks::EMPTY, &rows, &mut 2_000_000));
        let mut want = Counts::default();
        let mut cols = [0u8; 32];
        let _ = visit(n, 0, Masks::EMPTY, &allow, &mut cols, |sol| {
            let o = symmetry::orbit(sol);
            if o.canonical {
                want += Counts { total: u128::from(o.size), unique: 1 };
            }
            ControlFlow::Continue(())
        });
        prop_assert!(want.unique >= 1);
        for depth in 1..=4 {
            for kernel in kernels() {
                let got = run(n, depth, &allow, kernel.into());
                prop_assert_eq!(got, want, "n {} depth {}, {}", n, depth, kernel);
            }
        }
    }

    /// Skipping the rows that hold a queen (depth first, and on the lanes from three searched
    /// rows) counts what the plain depth-first search of every row counts, on random frames and
    /// random sparse rows (not symmetric: the searches, not the weights, are compared).
    #[test]
    fn skipping_rows_counts_like_searching_them(
        n in 6u32..=22,
        pick in any::<u32>(),
        first in 1u32..4,
        extra in proptest::collection::vec(any::<u32>(), 32),
    ) {
        let classes = frame_classes(n);
        let f = classes[pick as usize % classes.len()].frame;
        let full = full_mask(n);
        let mut placed = [0u32; 32];
        for r in 0..32 {
            placed[r] = (extra[r] | extra[(r + 7) % 32]) & full;
        }
        let rows = f.rows(n, &placed);
        prop_assume!(small(n, 0, Masks::EMPTY, &rows, &mut 2_000_000));
        let first = first.min(n);
        let mut s = [0u8; MAX_PREFIX];
        let mut units = Vec::new();
        crate::search::bounded::prefixes(full, &rows, first as usize, 0, Masks::EMPTY, &mut s, &mut |p, m| units.push((p, m)));
        for (_, m) in units {
            let want = count_constrained(n, first, m, &rows.allow);
            prop_assert_eq!(search::count(n, first, m, &rows), want);
            for kernel in kernels() {
                for min_rows in [3, lanes::MIN_ROWS] {
                    prop_assert_eq!(count(from_rows(min_rows, kernel), n, first, m, &rows), want, "{}", kernel);
                }
            }
        }
    }
}
