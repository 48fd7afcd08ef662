//! The counting paths against the naive solver and the published table.

use crate::common::count;
use crate::common::{assert_ran_on, kernels, naive_count, naive_unique};
use nqueens_count::bench::serial_count;
use nqueens_count::known::{published, MAX_KNOWN_N, TABLE};
use nqueens_count::Kernel;
use nqueens_count::{Engine, Job, Method};
use std::collections::BTreeMap;
use std::path::Path;

const THREADS: [usize; 4] = [1, 2, 3, 8];

#[test]
fn naive_solver_matches_the_published_table() {
    for n in 1..=9 {
        let p = published(n).unwrap();
        assert_eq!(naive_count(n as usize), p.total, "n = {n}");
        assert_eq!(naive_unique(n as usize), p.unique, "n = {n}");
    }
}

/// An OEIS b-file of `tests/data/` (`n a(n)` per line; blank lines and `#` comments skipped).
fn b_file(name: &str) -> BTreeMap<u32, u128> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let mut values = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let what = format!("{name}, line {}: {line:?}", i + 1);
        let (n, a) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{what}: not `n a(n)`"));
        let n: u32 = n.parse().unwrap_or_else(|e| panic!("{what}: {e}"));
        let a: u128 = a.trim().parse().unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(values.insert(n, a).is_none(), "{what}: N = {n} twice");
    }
    values
}

/// The published table (`nqueens_count::known`) against a copy of OEIS A000170 and A002562 typed
/// apart from it (`tests/data/`, in OEIS b-file format), entry by entry, and the relations that
/// hold between the two sequences: a class of solutions has 8, 4 or 2 members (no solution of
/// N >= 2 is its own mirror image), and 2 only when the solution is its own image under the
/// quarter turn, which needs N = 0 or 1 (mod 4).
#[test]
fn the_published_table_matches_an_independent_copy() {
    let total = b_file("a000170.txt");
    let unique = b_file("a002562.txt");
    let every: Vec<u32> = (1..=MAX_KNOWN_N).collect();
    assert_eq!(
        total.keys().copied().collect::<Vec<_>>(),
        every,
        "A000170's N"
    );
    assert_eq!(
        unique.keys().copied().collect::<Vec<_>>(),
        every,
        "A002562's N"
    );
    assert_eq!(TABLE.len(), every.len());
    for (row, n) in TABLE.iter().zip(1..) {
        assert_eq!(row.n, n, "known::TABLE[{}]", n - 1);
        assert_eq!(published(n), Some(*row), "known::published({n})");
        assert_eq!(
            row.total, total[&n],
            "N = {n}: known.rs has A000170(N) = {}, tests/data/a000170.txt {}",
            row.total, total[&n]
        );
        assert_eq!(
            row.unique, unique[&n],
            "N = {n}: known.rs has A002562(N) = {}, tests/data/a002562.txt {}",
            row.unique, unique[&n]
        );
        let (t, u) = (row.total, row.unique);
        assert_eq!(t == 0, n == 2 || n == 3, "N = {n}: total {t}");
        assert_eq!(u == 0, t == 0, "N = {n}: total {t}, unique {u}");
        if n == 1 {
            assert_eq!((t, u), (1, 1));
            continue;
        }
        assert!(2 * u <= t && t <= 8 * u, "N = {n}: total {t}, unique {u}");
        // 8 u - t = 4 (classes of 4) + 6 (classes of 2), and t = 8 u - (8 u - t).
        let short = 8 * u - t;
        let modulus = if n % 4 >= 2 { 4 } else { 2 };
        assert_eq!(short % modulus, 0, "N = {n}: total {t}, unique {u}");
    }
    assert_eq!((published(0), published(MAX_KNOWN_N + 1)), (None, None));
}

#[test]
fn serial_solver_matches_naive() {
    for n in 1..=11 {
        assert_eq!(serial_count(n).unwrap(), naive_count(n as usize), "n = {n}");
    }
}

#[test]
fn thread_counts_out_of_range_are_refused() {
    use nqueens_count::MAX_THREADS;
    assert_eq!(
        Engine::new(0).err(),
        Some(nqueens_count::Error::ZeroThreads)
    );
    assert_eq!(
        Engine::new(MAX_THREADS + 1).err(),
        Some(nqueens_count::Error::TooManyThreads {
            threads: MAX_THREADS + 1,
            max: MAX_THREADS
        })
    );
    assert_eq!(Engine::new(MAX_THREADS).unwrap().threads(), MAX_THREADS);
}

#[test]
fn engine_matches_naive_on_every_thread_count_depth_method_and_kernel() {
    for threads in THREADS {
        for kernel in kernels() {
            // Every tree of three rows or more on the lanes: the loop tests the kernel it names.
            let engine = Engine::new(threads)
                .unwrap()
                .with_kernel(kernel)
                .unwrap()
                .with_lane_min_rows(3)
                .unwrap();
            for n in 1..=11u32 {
                let expect = naive_count(n as usize);
                for method in Method::ALL {
                    for depth in 1..=n.min(4) {
                        let job = Job::new(n)
                            .unwrap()
                            .with_method(method)
                            .with_split_depth(depth)
                            .unwrap();
                        let r = engine.count(&job).unwrap();
                        assert_eq!(
                            r.counts.total, expect,
                            "n = {n}, {method}, depth {depth}, {threads} threads, {kernel}"
                        );
                        assert_eq!((r.threads, r.split_depth), (threads, depth));
                        if n >= 8 {
                            let what = format!("n = {n}, {method}, depth {depth}, {threads}t");
                            assert_ran_on(&r, kernel, &what);
                        }
                    }
                }
            }
        }
    }
    // The one-call form: the fastest kernel.
    let r = count(&Job::new(11).unwrap(), 2).unwrap();
    assert_eq!((r.counts.total, r.kernel), (2680, Kernel::best()));
}

#[test]
fn unique_counts_match_naive() {
    for n in 1..=9u32 {
        let expect = naive_unique(n as usize);
        for method in Method::ALL {
            for depth in 1..=n.min(3) {
                let job = Job::new(n)
                    .unwrap()
                    .with_method(method)
                    .with_split_depth(depth)
                    .unwrap()
                    .with_unique(true);
                let r = count(&job, 3).unwrap();
                assert_eq!(r.counts.unique, expect, "n = {n}, {method}, depth {depth}");
                assert_eq!(r.counts.total, naive_count(n as usize));
            }
        }
    }
}

/// The default method on the fastest kernel, at split depths named here (the default depth
/// depends on this machine's cores).
#[test]
fn published_totals_up_to_15() {
    for n in 1..=15u32 {
        let p = published(n).unwrap();
        for (threads, depth) in [(1, 1), (3, 2), (1, 3), (3, 4)] {
            let Ok(job) = Job::new(n).unwrap().with_split_depth(depth) else {
                assert!(depth > n, "n = {n}, depth {depth}");
                continue;
            };
            assert_eq!(
                count(&job, threads).unwrap().counts.total,
                p.total,
                "n = {n}, {threads} threads, depth {depth}"
            );
        }
        if n <= 14 {
            assert_eq!(serial_count(n).unwrap(), p.total, "serial n = {n}");
        }
    }
}

#[test]
fn published_unique_up_to_13() {
    for n in 10..=13u32 {
        let p = published(n).unwrap();
        let job = Job::new(n).unwrap().with_unique(true);
        let r = count(&job, 2).unwrap();
        assert_eq!(
            (r.counts.total, r.counts.unique),
            (p.total, p.unique),
            "n = {n}"
        );
    }
}

/// The engine at N = 16 and 17 with the default method at split depths 3 and 4 (depth 2 and
/// both methods on every lane kernel: `tests/methods.rs`), in CI.
#[test]
fn published_totals_16_and_17() {
    for n in [16u32, 17] {
        let p = published(n).unwrap();
        for depth in [3, 4] {
            let job = Job::new(n).unwrap().with_split_depth(depth).unwrap();
            assert_eq!(
                count(&job, 2).unwrap().counts.total,
                p.total,
                "n = {n}, depth {depth}"
            );
        }
    }
}

/// Slow (half a minute): the serial solver at N = 16 and 17. Run by `scripts/slow-checks.sh`
/// (or `cargo test --release -- --ignored`).
#[test]
#[ignore = "slow: the serial solver at N = 16 and 17"]
fn serial_16_and_17() {
    for n in [16u32, 17] {
        assert_eq!(
            serial_count(n).unwrap(),
            published(n).unwrap().total,
            "serial n = {n}"
        );
    }
}

/// Every seed file of proptest belongs to a source file that still exists: proptest reads
/// `proptest-regressions/<path of the source under src/>.txt`, and for integration tests
/// `tests/<name>.proptest-regressions` beside `tests/<name>.rs`; a seed file left behind by a
/// moved source is never replayed.
#[test]
fn proptest_seed_files_belong_to_sources() {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Vec::new();
    files(&root.join("proptest-regressions"), &mut seeds);
    assert!(!seeds.is_empty());
    for seed in seeds {
        let rel = seed
            .strip_prefix(root.join("proptest-regressions"))
            .unwrap()
            .with_extension("rs");
        let owners = [root.join("src").join(&rel), root.join("tests").join(&rel)];
        assert!(
            owners.iter().any(|p| p.exists()),
            "{} belongs to no source file ({})",
            seed.display(),
            rel.display()
        );
    }
    for e in std::fs::read_dir(root.join("tests")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "proptest-regressions") {
            let source = p.with_extension("rs");
            assert!(source.exists(), "{} belongs to no test file", p.display());
        }
    }
}

/// Issue 34, item 1: the quick count with a watch and a cancel. The watch hears each unit once
/// (their counts sum to the report's) and the progress ends at every unit; a cancelled count
/// gives no count.
#[test]
fn count_with_tells_each_unit_and_stops_when_cancelled() {
    #[derive(Default)]
    struct Seen {
        units: BTreeMap<u32, nqueens_count::Counts>,
        last: Option<nqueens_count::longrun::Progress>,
    }
    impl nqueens_count::longrun::Watch for Seen {
        fn progress(&mut self, p: &nqueens_count::longrun::Progress) {
            self.last = Some(*p);
        }
        fn unit_done(
            &mut self,
            index: u32,
            counts: nqueens_count::Counts,
            _: &nqueens_count::UnitTiming,
        ) {
            assert!(
                self.units.insert(index, counts).is_none(),
                "unit {index} twice"
            );
        }
    }
    let job = Job::new(12).unwrap().with_unique(true);
    for threads in [1, 3] {
        let engine = Engine::new(threads).unwrap();
        let mut seen = Seen::default();
        let r = engine
            .count_with(&job, &mut seen, &nqueens_count::Cancel::new())
            .unwrap();
        assert_eq!(
            (r.counts.total, r.counts.unique, r.unique),
            (14200, 1787, true)
        );
        assert_eq!(seen.units.len(), r.units);
        let sum: u128 = seen.units.values().map(|c| c.total).sum();
        assert_eq!(sum, 14200);
        let last = seen.last.expect("progress told");
        assert_eq!((last.units_done, last.units_total), (r.units, r.units));
        let cancel = nqueens_count::Cancel::new();
        cancel.cancel();
        match engine.count_with(&job, &mut Seen::default(), &cancel) {
            Err(nqueens_count::Error::Cancelled { done, of }) => {
                assert!(done < of && of == r.units)
            }
            other => panic!("{other:?}"),
        }
    }
}
