//! The four counting methods (edge, d4, mirror, plain) against the published tables, the naive
//! solver and each other: totals and unique counts, every thread count and split depth,
//! pre-placed queens, node counts, and the command line.

use crate::common;
use crate::common::count;
use crate::common::nq;

use crate::common::{
    assert_ran_on, depth_on_kernel, kernels, naive_count, naive_solutions, naive_unique,
};
use nqueens_count::known::published;
use nqueens_count::longrun::Sample;
use nqueens_count::Kernel;
use nqueens_count::{Counts, Engine, Job, Method, Plan, Queen};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// The lane threshold of the checks on small boards: every tree of three rows or more runs on
/// the lanes of a vector kernel, so that the loops over kernels test the kernels they name.
const SMALL: u32 = 3;

/// An engine on `kernel` whose lanes take trees of at least `min_rows` rows.
fn engine(threads: usize, kernel: Kernel, min_rows: u32) -> Engine {
    Engine::new(threads)
        .unwrap()
        .with_kernel(kernel)
        .unwrap()
        .with_lane_min_rows(min_rows)
        .unwrap()
}

/// Total and unique counts of N with `method` at split depth `depth`, on `kernel` with the lane
/// threshold `min_rows`; asserts that the method and kernel asked for are the ones that ran.
fn counts(
    n: u32,
    method: Method,
    depth: u32,
    threads: usize,
    kernel: Kernel,
    min_rows: u32,
) -> Counts {
    let job = Job::new(n)
        .unwrap()
        .with_method(method)
        .with_unique(true)
        .with_split_depth(depth)
        .unwrap();
    let r = engine(threads, kernel, min_rows).count(&job).unwrap();
    let what = format!("n = {n}, {method}, depth {depth}, {threads} threads, {kernel}");
    if n > 1 {
        // N = 1: d4 and edge fall back to mirror (`d4_keeps_symmetric_placements_only`).
        assert_eq!(r.method, method, "{what}");
    }
    // Boards of 8 and more leave every method trees of three rows or more below its units.
    if n >= 8 {
        assert_ran_on(&r, kernel, &what);
    }
    r.counts
}

#[test]
fn edge_is_the_default_method() {
    assert_eq!(Job::new(12).unwrap().method(), Method::Edge);
    assert_eq!("d4".parse::<Method>().unwrap(), Method::D4);
    assert_eq!("edge".parse::<Method>().unwrap(), Method::Edge);
    assert_eq!(Method::ALL.len(), 4);
    let err = "fast".parse::<Method>().unwrap_err().to_string();
    assert!(err.contains("d4, edge, mirror or plain"), "{err}");
}

/// Every method and kernel, thread counts 1 and 3, every split depth, N = 1..=13: total and
/// unique equal the published values; the lanes take every tree of three rows or more.
#[test]
fn every_method_depth_and_thread_count_up_to_13() {
    for n in 1..=13u32 {
        let p = published(n).unwrap();
        for method in Method::ALL {
            for depth in 1..=n.min(4) {
                for threads in [1, 3] {
                    for kernel in kernels() {
                        let c = counts(n, method, depth, threads, kernel, SMALL);
                        assert_eq!(
                            (c.total, c.unique),
                            (p.total, p.unique),
                            "n = {n}, {method}, depth {depth}, {threads} threads, {kernel}"
                        );
                    }
                }
            }
        }
    }
}

/// N = 14 and 15 at every split depth (1 to 4, named here rather than taken from this
/// machine's core count), every method and kernel (the kernels other than the fastest at every
/// other depth: `depth_on_kernel`), 1 and 3 threads, the lanes from their default threshold.
#[test]
fn every_method_and_depth_at_14_and_15() {
    for n in [14u32, 15] {
        let p = published(n).unwrap();
        for method in Method::ALL {
            for depth in 1..=4 {
                // Both thread counts at each depth would double the time for little: they
                // alternate with the depth.
                let threads = if depth % 2 == 1 { 1 } else { 3 };
                for (index, kernel) in kernels().into_iter().enumerate() {
                    if !depth_on_kernel(index, kernel, depth) {
                        continue;
                    }
                    if kernel == Kernel::Dfs && n == 15 {
                        // Seconds each; the depth-first kernel is checked at N = 14 here and
                        // at N = 15 to 17 by the ignored tests.
                        continue;
                    }
                    let min_rows = nqueens_count::LANE_MIN_ROWS;
                    let c = counts(n, method, depth, threads, kernel, min_rows);
                    assert_eq!(
                        (c.total, c.unique),
                        (p.total, p.unique),
                        "n = {n}, {method}, depth {depth}, {threads} threads, {kernel}"
                    );
                }
            }
        }
    }
}

/// The published totals and unique counts of N = 16 and 17 with edge (the default) and d4, on
/// every lane kernel this processor has: the sizes people run, in CI (seconds each). Every lane
/// kernel counts on 2 threads and the fastest on 1 thread too (the count does not depend on the
/// thread count, which `every_method_depth_and_thread_count_up_to_13` and the engine's tests
/// check on every kernel; here the fastest kernel shows it at these sizes). Edge and d4 count
/// the total and the unique solutions in one pass, so the run without unique counts (which only
/// reports less) is made on the fastest kernel alone. The depth-first runs of the same are in
/// the ignored `d4_and_edge_at_16_and_17_depth_first`.
#[test]
fn edge_and_d4_at_16_and_17_on_the_lanes() {
    let lane_kernels: Vec<Kernel> = kernels()
        .into_iter()
        .filter(|&k| k != Kernel::Dfs)
        .collect();
    if lane_kernels.is_empty() {
        common::skip(
            "edge_and_d4_at_16_and_17_on_the_lanes",
            "this processor has no lane kernel (dfs only)",
        );
        return;
    }
    for n in [16u32, 17] {
        let p = published(n).unwrap();
        for method in [Method::Edge, Method::D4] {
            for unique in [false, true] {
                for threads in [1, 2] {
                    for &kernel in &lane_kernels {
                        let fastest = kernel == Kernel::best();
                        if !fastest && (!unique || threads == 1) || !unique && threads == 1 {
                            continue;
                        }
                        // Depth 2 with edge: one unit per class of frames and top row.
                        let job = Job::new(n)
                            .unwrap()
                            .with_method(method)
                            .with_unique(unique)
                            .with_split_depth(2)
                            .unwrap();
                        let r = Engine::new(threads)
                            .unwrap()
                            .with_kernel(kernel)
                            .unwrap()
                            .count(&job)
                            .unwrap();
                        let what =
                            format!("n = {n}, {method}, unique {unique}, {threads}t, {kernel}");
                        assert_ran_on(&r, kernel, &what);
                        assert_eq!(r.method, method, "{what}");
                        let want = (p.total, if unique { p.unique } else { 0 });
                        assert_eq!((r.counts.total, r.counts.unique), want, "{what}");
                    }
                }
            }
        }
    }
}

/// What [`large_units_agree_on_three_kernels`] counts of one board and method: its plan, and
/// which units of it.
struct Large {
    what: String,
    plan: Arc<Plan>,
    /// The units counted, the costliest first (a run starts them in this order).
    units: Vec<u32>,
    /// Those that must have solutions: their searches reached the last row.
    deep: Vec<u32>,
}

/// The rows below a unit's prefix that its depth-first search places one loop each: for an edge
/// unit whose frame has no symmetry (class of 8), its *free rows*, those without an edge queen or
/// a pre-placed queen (`search/edge/search.rs` skips the others, one loop per free row, the
/// lanes likewise); for a d4 unit or a symmetric frame, every row below the prefix
/// (`search/bounded.rs`, one loop per row).
fn searched_rows(plan: &Plan, u: &nqueens_count::Unit) -> u32 {
    let (n, depth) = (plan.job().n(), u.prefix().len() as u32);
    if plan.method() != Method::Edge || u.weight() != 8 {
        return n - depth;
    }
    let [_, _, left, right] = u.frame().map(u32::from);
    let placed: Vec<u32> = plan
        .job()
        .placed()
        .iter()
        .map(|q| q.zero_based().0)
        .collect();
    (depth..n)
        .filter(|&r| r != n - 1 && r != left && r != right && !placed.contains(&r))
        .count() as u32
}

/// Whether an edge unit's edge queens attack a pre-placed queen (its search then finds nothing).
fn frame_clashes(plan: &Plan, u: &nqueens_count::Unit) -> bool {
    let m = plan.job().n() - 1;
    let [top, bottom, left, right] = u.frame().map(u32::from);
    let edge = [(0, top), (m, bottom), (left, 0), (right, m)];
    plan.method() == Method::Edge
        && edge.iter().any(|&(r, c)| {
            plan.job().placed().iter().any(|q| {
                let (qr, qc) = q.zero_based();
                qr == r || qc == c || qr.abs_diff(r) == qc.abs_diff(c)
            })
        })
}

/// Unit indices in increasing order of estimated cost (`Plan::costs`), ties by index.
fn by_cost(costs: &[u64]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..costs.len() as u32).collect();
    order.sort_by_key(|&i| (costs[i as usize], i));
    order
}

/// A unit a board must have besides its drawn ones: the first in order of estimated cost that
/// has solutions (counted on the fastest kernel; the cheapest d4 units mostly have none, and
/// some edge frames clash with a placed queen) and is
#[derive(Clone, Copy, Debug)]
enum Extra {
    /// any unit;
    Any,
    /// an edge unit with this many free rows ([`searched_rows`]) and a frame without symmetry:
    /// edge's depth-first loops and the lanes' gapped search from that many rows;
    Free(u32),
    /// an edge unit whose frame is symmetric: its solutions classified one by one, through the
    /// per-row search of every row below the prefix, on the lanes with each solution's columns.
    Symmetric,
}

/// The seed of the draws of [`large_cases`], one whose d4 draws all take milliseconds (24 ms
/// together on AVX-512 here, the cheapest draw of seeds 0 to 399). The d4 estimate
/// does not tell the cheapest units apart: of the 120 cheapest at N = 24, a third take a second
/// or two on AVX-512 and the rest a few milliseconds.
const LARGE_SEED: u64 = 195;

/// The plans and units of the boards `specs`, each with split depth 4 (the smallest units: with
/// edge the top two rows, with d4 the top four) and unique counts: `draw` units drawn
/// ([`LARGE_SEED`]) from the `pool` cheapest units by estimate, and the `extra` ones.
fn large_cases(specs: &[LargeSpec]) -> Vec<Large> {
    // Planned side by side: the edge plans list a few hundred thousand units each.
    std::thread::scope(|s| {
        let boards: Vec<_> = specs
            .iter()
            .map(|&spec| s.spawn(move || large_case(spec)))
            .collect();
        boards.into_iter().map(|b| b.join().unwrap()).collect()
    })
}

/// The boards of [`large_units_agree_on_three_kernels`] ([`large_cases`]).
///
/// The edge units of a board cost nearly the same (within 2x of each other): a tenth of a second
/// at N = 22 on AVX-512, half a second at N = 23 and 3 s at N = 24. N = 23 is counted with the
/// centre queen placed (an odd board's only placement that all eight symmetries keep, so edge
/// stays; edge's search skips its row, the per-row search walks it), which makes its units of
/// 18 free rows a few times cheaper than those of N = 22; N = 24 with edge only in the slow
/// checks. The d4 units spread over three orders of magnitude; the cheapest are the side units
/// of the largest bound, mostly without solutions; the first with solutions takes milliseconds
/// up to N = 23 and a second or more at N = 24, where only drawn ones are counted here.
const LARGE: [LargeSpec; 12] = [
    (19, Method::Edge, false, 3, 1000, &[]),
    (20, Method::Edge, false, 3, 1000, &[]),
    (21, Method::Edge, false, 3, 1000, &[Extra::Symmetric]),
    (22, Method::Edge, false, 1, 1000, &[]),
    (
        23,
        Method::Edge,
        true,
        1,
        1000,
        &[Extra::Free(18), Extra::Symmetric],
    ),
    // Edge's loop for 19 free rows: the centre queen of N = 25 makes a unit a few seconds on
    // three kernels together.
    (25, Method::Edge, true, 1, 1000, &[]),
    (19, Method::D4, false, 2, 120, &[Extra::Any]),
    (20, Method::D4, false, 2, 120, &[Extra::Any]),
    (21, Method::D4, false, 2, 120, &[Extra::Any]),
    (22, Method::D4, false, 2, 120, &[Extra::Any]),
    (23, Method::D4, false, 1, 120, &[Extra::Any]),
    (24, Method::D4, false, 2, 120, &[]),
];

/// One board of [`large_cases`]: N, method, whether the centre queen is placed, how many units
/// are drawn from how many of the cheapest, and the extra units.
type LargeSpec = (u32, Method, bool, usize, usize, &'static [Extra]);

/// The plan and units of one board of [`large_cases`].
fn large_case((n, method, centre, draw, pool, extras): LargeSpec) -> Large {
    let mut job = Job::new(n)
        .unwrap()
        .with_method(method)
        .with_split_depth(4)
        .unwrap()
        .with_unique(true);
    if centre {
        let c = Queen::one_based(n / 2 + 1, n / 2 + 1).unwrap();
        job = job.with_placed(&[c]).unwrap();
    }
    let plan = Plan::new(job);
    let what = format!(
        "n = {n}, {method}, depth 4, placed {:?}",
        plan.job().placed()
    );
    assert_eq!(plan.method(), method, "{what}");
    let costs = plan.costs();
    // Edge units whose edge queens the centre queen attacks have no solution.
    let live: Vec<u32> = by_cost(&costs)
        .into_iter()
        .filter(|&i| !frame_clashes(&plan, &plan.units()[i as usize]))
        .collect();
    let sample = Sample {
        fraction: 0.0,
        min_units: draw,
        seed: LARGE_SEED,
    };
    let mut units = sample.choose(&live[..pool]);
    assert_eq!(units.len(), draw, "{what}");
    let unit = |i: u32| &plan.units()[i as usize];
    let mut deep = Vec::new();
    for &extra in extras {
        let kind = |u: &nqueens_count::Unit| match extra {
            Extra::Any => true,
            Extra::Free(rows) => u.weight() == 8 && searched_rows(&plan, u) == rows,
            Extra::Symmetric => u.weight() != 8,
        };
        let found = live
            .iter()
            .filter(|&&i| kind(unit(i)))
            .take(40)
            .find(|&&i| plan.count_unit(unit(i), Kernel::best()).total > 0);
        let &i = found.unwrap_or_else(|| panic!("{what}: no unit for {extra:?}"));
        if !units.contains(&i) {
            units.push(i);
        }
        deep.push(i);
    }
    units.sort_by_key(|&i| std::cmp::Reverse((costs[i as usize], i)));
    Large {
        what,
        plan: Arc::new(plan),
        units,
        deep,
    }
}

/// Counts the units of the boards `specs` ([`large_cases`]) on the depth-first kernel, the
/// portable lanes and the fastest lanes, asserts that the three agree unit by unit (total and
/// unique), and returns the numbers of rows
/// searched ([`searched_rows`]) by the units with solutions: edge's free rows, and the rows of
/// the per-row search.
fn large_units_agree(specs: &[LargeSpec]) -> (BTreeSet<u32>, BTreeSet<u32>) {
    let cases = large_cases(specs);
    // Where the fastest is the portable kernel (x86-64 without AVX2), two kernels.
    let mut three = vec![Kernel::Dfs, Kernel::Portable, Kernel::best()];
    three.dedup();
    let available = kernels();
    assert!(three.iter().all(|k| available.contains(k)), "{three:?}");
    // The kernels side by side, each on a thread of its own (as the engine's workers do, one
    // unit at a time): the depth-first one takes longest. Where the searches of a whole count
    // run (on the lanes or depth first) is checked by `common::assert_ran_on`.
    let counted: Vec<Vec<BTreeMap<u32, Counts>>> = std::thread::scope(|s| {
        let runs: Vec<_> = three
            .iter()
            .map(|&kernel| {
                let cases = &cases;
                s.spawn(move || {
                    cases
                        .iter()
                        .map(|case| {
                            let plan = &case.plan;
                            case.units
                                .iter()
                                .map(|&i| (i, plan.count_unit(&plan.units()[i as usize], kernel)))
                                .collect()
                        })
                        .collect()
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().unwrap()).collect()
    });
    let mut free = BTreeSet::new();
    let mut rows = BTreeSet::new();
    for (c, case) in cases.iter().enumerate() {
        for &i in &case.units {
            let u = &case.plan.units()[i as usize];
            let searched = searched_rows(&case.plan, u);
            let what = format!(
                "{}, unit {i} (prefix {:?}, frame {:?}, {searched} rows searched)",
                case.what,
                u.prefix(),
                u.frame()
            );
            let each: Vec<Counts> = counted.iter().map(|run| run[c][&i]).collect();
            let said: Vec<String> = three
                .iter()
                .zip(&each)
                .map(|(k, c)| format!("{k} ({}, {})", c.total, c.unique))
                .collect();
            assert!(
                each.iter().all(|&c| c == each[0]),
                "{what}: the kernels disagree: {}",
                said.join(", ")
            );
            let want = each[0];
            if case.plan.method() == Method::Edge && u.weight() == 8 {
                // A frame without symmetry: every solution found is a class of eight.
                assert_eq!(want.total, 8 * want.unique, "{what}");
            }
            assert!(
                want.unique <= want.total && want.total <= 8 * want.unique,
                "{what}: {want:?}"
            );
            if case.deep.contains(&i) {
                assert!(want.total > 0, "{what}: no solution");
            }
            if want.total > 0 {
                if case.plan.method() == Method::Edge && u.weight() == 8 {
                    free.insert(searched);
                } else {
                    rows.insert(searched);
                }
            }
        }
    }
    (free, rows)
}

/// Sampled units of N = 19 to 24 with edge and d4 ([`large_cases`]), each counted on the
/// depth-first kernel, the portable lanes and the fastest lanes of this processor: the three
/// agree unit by unit, total and unique, and each run searched where its kernel says. No
/// published value exists per unit, and nothing else in CI reaches boards this large: a fault in
/// the code of the deep rows (one loop per row in `search/bounded.rs` and per free row in
/// `search/edge/search.rs`, the lanes' rows and history words) shows here as a disagreement.
///
/// The units with solutions (whose searches reached the last row) enter edge's depth-first
/// search with 14 to 19 free rows (18 only from N = 21 on: the loop issue 28 broke; 19 with the
/// centre queen of N = 25) and the per-row search of d4 and of symmetric frames with 15 to 19
/// and 21 rows below the prefix; the loops for fewer rows run inside those, and are entered at
/// N <= 17 by the tests above. Units of N = 24 with solutions (edge without placed queens, the
/// per-row loop for 20 rows) are in the slow `units_of_24_agree_on_three_kernels`; edge's loops
/// for 20 and 21 free rows (corner frames of N = 24, the centre queen of N = 27) only in units
/// costlier still.
#[test]
fn large_units_agree_on_three_kernels() {
    let (free, rows) = large_units_agree(&LARGE);
    assert!(
        (14..=19).all(|f| free.contains(&f)),
        "free rows reached: {free:?}"
    );
    assert!(
        (15..=19).chain([21]).all(|r| rows.contains(&r)),
        "rows reached: {rows:?}"
    );
}

/// Slow (a minute): run by `scripts/slow-checks.sh`. What `large_units_agree_on_three_kernels`
/// leaves out at N = 24: an edge unit with no queen placed, whose search enters the depth-first
/// loop for 19 free rows (the cheapest takes 3 s on AVX-512), and the first d4 unit with
/// solutions, through the per-row loop for 20 rows.
#[test]
#[ignore = "slow: units of N = 24 with solutions on three kernels"]
fn units_of_24_agree_on_three_kernels() {
    let specs: [LargeSpec; 2] = [
        (24, Method::Edge, false, 1, 1000, &[]),
        (24, Method::D4, false, 0, 120, &[Extra::Any]),
    ];
    let (free, rows) = large_units_agree(&specs);
    assert!(free.contains(&19), "free rows reached: {free:?}");
    assert!(rows.contains(&20), "rows reached: {rows:?}");
}

/// The methods agree with each other and with the naive solver, which knows nothing of bits or
/// symmetry.
#[test]
fn methods_agree_with_brute_force_up_to_10() {
    for n in 1..=10u32 {
        let expect = (naive_count(n as usize), naive_unique(n as usize));
        for method in Method::ALL {
            for depth in 1..=n.min(4) {
                for kernel in kernels() {
                    let c = counts(n, method, depth, 2, kernel, SMALL);
                    assert_eq!(
                        (c.total, c.unique),
                        expect,
                        "n = {n}, {method}, {depth}, {kernel}"
                    );
                }
            }
        }
    }
}

/// Without `with_unique` every method reports unique = 0, the d4 method included (it knows the
/// unique count anyway, but the report's meaning stays the same across methods).
#[test]
fn unique_is_reported_only_when_asked() {
    for method in Method::ALL {
        let job = Job::new(10).unwrap().with_method(method);
        let c = count(&job, 2).unwrap().counts;
        assert_eq!((c.total, c.unique), (724, 0), "{method}");
    }
}

/// The D4 search visits fewer nodes than the mirror search, which visits half of the plain one;
/// the edge search fewer than the D4 search.
#[test]
fn node_counts_shrink_with_symmetry() {
    let nodes = |n: u32, method| {
        let plan = Plan::new(
            Job::new(n)
                .unwrap()
                .with_method(method)
                .with_split_depth(2)
                .unwrap(),
        );
        assert_eq!(plan.method(), method);
        plan.units().iter().map(|u| plan.nodes(u)).sum::<u64>()
    };
    for n in [8u32, 10, 12, 14] {
        let (plain, mirror, d4, edge) = (
            nodes(n, Method::Plain),
            nodes(n, Method::Mirror),
            nodes(n, Method::D4),
            nodes(n, Method::Edge),
        );
        // From N = 12 on, under a quarter of the plain tree (0.141 at N = 14: docs/ALGORITHM.md).
        assert!(edge > 0 && edge < d4, "n = {n}: edge {edge}, d4 {d4}");
        assert!(
            n < 12 || edge * 4 < plain,
            "n = {n}: edge {edge}, plain {plain}"
        );
        assert_eq!(plain, 2 * mirror, "n = {n} (even: exact halves)");
        assert!(d4 < mirror, "n = {n}: d4 {d4}, mirror {mirror}");
        // From N = 12 on, under 0.6 (0.53 at N = 14, falling with N: docs/ALGORITHM.md).
        assert!(
            n < 12 || d4 * 5 < mirror * 3,
            "n = {n}: d4 {d4}, mirror {mirror}"
        );
        assert!(d4 > 0);
    }
}

/// Counts of the solutions containing `placed`, by the naive solver, and how many of those are
/// the canonical (lexicographically smallest) member of their class: the engine's meaning of
/// "unique" with pre-placed queens.
fn naive_placed(n: usize, placed: &[Queen]) -> (u128, u128) {
    let mut all = Vec::new();
    naive_solutions(n, |s| all.push(s.to_vec()));
    let set: std::collections::HashSet<Vec<usize>> = all.iter().cloned().collect();
    let mut total = 0;
    let mut canonical = 0;
    for s in &all {
        if !placed
            .iter()
            .all(|q| s[q.zero_based().0 as usize] == q.zero_based().1 as usize)
        {
            continue;
        }
        total += 1;
        let smallest = common::images(s).iter().all(|g| {
            assert!(set.contains(g));
            s <= g
        });
        canonical += u128::from(smallest);
    }
    (total, canonical)
}

fn queens_strategy() -> impl Strategy<Value = (u32, Vec<(u32, u32)>)> {
    (4u32..=9).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..3)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Pre-placed queens with each method: the counts equal the naive solver's.
    #[test]
    fn placed_queens_equal_brute_force((n, qs) in queens_strategy(), depth in 1u32..=3) {
        let queens: Vec<Queen> = qs.iter().map(|&(row, col)| Queen::from_zero_based(row, col)).collect();
        let Ok(base) = Job::new(n).unwrap().with_split_depth(depth.min(n)).unwrap().with_placed(&queens) else {
            // Conflicting placements are rejected up front; nothing to count.
            return Ok(());
        };
        let expect = naive_placed(n as usize, base.placed());
        for method in Method::ALL {
            let job = base.clone().with_method(method).with_unique(true);
            for kernel in kernels() {
                let c = engine(2, kernel, SMALL).count(&job).unwrap().counts;
                prop_assert_eq!((c.total, c.unique), expect, "{:?} {} {}", queens, method, kernel);
            }
        }
    }
}

/// Pre-placed queens on large boards, with enough of them that the count is quick but enough
/// rows left open (at least 10 below the units) that the lane kernels search them: every
/// method, depth and kernel (the kernels other than the fastest at every other depth:
/// `depth_on_kernel`) agrees with the plain depth-first count, which finds at least the
/// solution the queens were taken from.
#[test]
fn placed_queens_on_large_boards_on_every_kernel() {
    for n in [16u32, 21, 27, 32] {
        let c = nqueens_count::solutions::construct(n).unwrap().unwrap();
        // Rows 1..=3 and the last 12 stay open.
        let queens: Vec<Queen> = (4..=n - 12)
            .map(|row| Queen::one_based(row, c.column(row).unwrap()).unwrap())
            .collect();
        let base = Job::new(n)
            .unwrap()
            .with_placed(&queens)
            .unwrap()
            .with_unique(true);
        let reference = Engine::new(2)
            .unwrap()
            .with_kernel(Kernel::Dfs)
            .unwrap()
            .count(
                &base
                    .clone()
                    .with_method(Method::Plain)
                    .with_split_depth(1)
                    .unwrap(),
            )
            .unwrap()
            .counts;
        assert!(reference.total >= 1 && reference.unique >= 1, "n = {n}");
        for method in Method::ALL {
            for depth in 1..=4 {
                let job = base
                    .clone()
                    .with_method(method)
                    .with_split_depth(depth)
                    .unwrap();
                for (index, kernel) in kernels().into_iter().enumerate() {
                    if !depth_on_kernel(index, kernel, depth) {
                        continue;
                    }
                    let got = Engine::new(2)
                        .unwrap()
                        .with_kernel(kernel)
                        .unwrap()
                        .count(&job)
                        .unwrap();
                    assert_eq!(
                        got.counts, reference,
                        "n = {n}, {method}, depth {depth}, {kernel}"
                    );
                }
            }
        }
    }
}

/// A placement that all eight symmetries map to itself (the centre of an odd board) keeps the d4 and edge methods; any other makes them fall back.
#[test]
fn d4_keeps_symmetric_placements_only() {
    let q = |row, col| Queen::from_zero_based(row, col);
    for method in [Method::D4, Method::Edge] {
        for n in [5u32, 7, 9, 11] {
            let c = n / 2;
            // The only placement of non-attacking queens that every symmetry maps to itself
            // (a queen and its transposed image share an anti-diagonal off the main diagonal).
            let placed = [q(c, c)];
            let job = Job::new(n)
                .unwrap()
                .with_method(method)
                .with_placed(&placed)
                .unwrap()
                .with_unique(true);
            let r = count(&job, 2).unwrap();
            assert_eq!(r.method, method, "n = {n}");
            let expect = naive_placed(n as usize, &placed);
            assert_eq!(
                (r.counts.total, r.counts.unique),
                expect,
                "n = {n}, {method}"
            );
        }
        // Not mirror-symmetric: plain. Mirror-symmetric but not D4-symmetric: mirror.
        let job = Job::new(8).unwrap().with_method(method);
        let job = job.with_placed(&[q(0, 3)]).unwrap();
        assert_eq!(Plan::new(job).method(), Method::Plain);
        let job = Job::new(9).unwrap().with_method(method);
        let job = job.with_placed(&[q(0, 4)]).unwrap();
        assert_eq!(Plan::new(job).method(), Method::Mirror);
        // N = 1: the single solution, through the mirror fallback.
        let job = Job::new(1).unwrap().with_method(method).with_unique(true);
        let r = count(&job, 1).unwrap();
        assert_eq!(
            (r.counts.total, r.counts.unique, r.method),
            (1, 1, Method::Mirror)
        );
    }
}

/// Placements with symmetry, N up to 14: each method either keeps its symmetry reduction (the
/// placement is its own image under every symmetry the method uses) or falls back to the one
/// that still holds, and says so; the counts equal the naive solver's (N <= 11) or a plain
/// depth-first count (above), on every kernel with its lanes reached.
#[test]
fn symmetric_placements_keep_or_drop_the_method() {
    use Method::{Edge, Mirror, Plain, D4};
    let q = |row, col| Queen::from_zero_based(row, col);
    // (name, N, queens, the method that runs for edge, d4, mirror, plain)
    let mut cases: Vec<(&str, u32, Vec<Queen>, [Method; 4])> = Vec::new();
    for n in [5u32, 7, 9, 11, 13] {
        let (c, m) = (n / 2, n - 1);
        // The centre: its own image under all eight symmetries (the only such placement).
        cases.push(("centre", n, vec![q(c, c)], [Edge, D4, Mirror, Plain]));
        // On the centre column: its own mirror image only.
        cases.push((
            "centre column",
            n,
            vec![q(1, c)],
            [Mirror, Mirror, Mirror, Plain],
        ));
        // The centre and a pair the half turn swaps: no reflection keeps it.
        cases.push((
            "centre and a half-turn pair",
            n,
            vec![q(c, c), q(0, 1), q(m, m - 1)],
            [Plain; 4],
        ));
    }
    for n in [6u32, 8, 10, 12, 14] {
        let m = n as usize - 1;
        // From the first solutions that have them: a pair the half turn swaps, and a queen on
        // the main diagonal off the centre (kept by the diagonal reflection only).
        let mut pair = None;
        let mut diagonal = None;
        let _ = nqueens_count::solutions::for_each_solution(&Job::new(n).unwrap(), |s| {
            let col = |r: usize| s.zero_based()[r] as usize;
            if pair.is_none() {
                pair = (0..m / 2).find(|&r| col(m - r) == m - col(r)).map(|r| {
                    vec![
                        q(r as u32, col(r) as u32),
                        q((m - r) as u32, (m - col(r)) as u32),
                    ]
                });
            }
            if diagonal.is_none() && n > 6 {
                // (N = 6 has no solution with a queen on the main diagonal.)
                diagonal = (0..=m)
                    .find(|&r| col(r) == r)
                    .map(|r| vec![q(r as u32, r as u32)]);
            }
            if pair.is_some() && (diagonal.is_some() || n == 6) {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        cases.push(("half-turn pair", n, pair.unwrap(), [Plain; 4]));
        if let Some(queens) = diagonal {
            cases.push(("diagonal queen", n, queens, [Plain; 4]));
        }
    }
    for (name, n, queens, ran) in cases {
        let base = Job::new(n).unwrap().with_placed(&queens).unwrap();
        let expect = if n <= 11 {
            naive_placed(n as usize, base.placed())
        } else {
            let plain = base.clone().with_method(Plain).with_split_depth(1).unwrap();
            let r = engine(2, Kernel::Dfs, SMALL).count(&plain.with_unique(true));
            let c = r.unwrap().counts;
            (c.total, c.unique)
        };
        assert!(
            expect.0 > 0,
            "{name}, n = {n}: choose a placement with solutions"
        );
        for (method, ran) in [Edge, D4, Mirror, Plain].into_iter().zip(ran) {
            for depth in [1, 3] {
                let job = base
                    .clone()
                    .with_method(method)
                    .with_unique(true)
                    .with_split_depth(depth)
                    .unwrap();
                for kernel in kernels() {
                    let r = engine(2, kernel, SMALL).count(&job).unwrap();
                    let what = format!("{name}, n = {n}, {method}, depth {depth}, {kernel}");
                    assert_eq!(r.method, ran, "{what}");
                    assert_eq!((r.counts.total, r.counts.unique), expect, "{what}");
                    if n >= 8 {
                        assert_ran_on(&r, kernel, &what);
                    }
                }
            }
        }
    }
}

/// Slow (a minute): run by `scripts/slow-checks.sh`. N = 16 and 17 by the d4 and edge methods
/// at two depths and two thread counts on the depth-first kernel, total and unique (the lane
/// kernels: `edge_and_d4_at_16_and_17_on_the_lanes`, in CI).
#[test]
#[ignore = "slow: N = 16 and 17 depth first"]
fn d4_and_edge_at_16_and_17_depth_first() {
    for n in [16u32, 17] {
        let p = published(n).unwrap();
        for (depth, threads) in [(2, 1), (3, 2)] {
            for method in [Method::D4, Method::Edge] {
                let min_rows = nqueens_count::LANE_MIN_ROWS;
                let kernel = Kernel::Dfs;
                let c = counts(n, method, depth, threads, kernel, min_rows);
                assert_eq!(
                    (c.total, c.unique),
                    (p.total, p.unique),
                    "n = {n}, {kernel}"
                );
            }
        }
    }
}

#[test]
fn cli_methods() {
    nq().args(["count", "12", "--unique"])
        .assert()
        .success()
        .stdout("14200 1787\n");
    for m in ["edge", "d4", "mirror", "plain"] {
        nq().args(["count", "11", "--unique", "--method", m, "-t", "3"])
            .assert()
            .success()
            .stdout("2680 341\n");
    }
    let out = nq()
        .args(["count", "9", "--json", "--method", "d4"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["method"], "d4");
    assert_eq!(v["total"], 352);
    nq().args(["verify", "--max", "11", "--unique", "-t", "2"])
        .assert()
        .success();
    let out = nq()
        .args(["count", "8", "--method", "d5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("expected d4, edge, mirror or plain"), "{err}");
}
