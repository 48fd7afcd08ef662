//! The counting paths against the naive solver and the published table.

mod common;

use common::{naive_count, naive_unique};
use nqueens::known::published;
use nqueens::Kernel;
use nqueens::{count, serial_count, Engine, Job, Method};

const THREADS: [usize; 4] = [1, 2, 3, 8];

#[test]
fn naive_solver_matches_the_published_table() {
    for n in 1..=9 {
        let p = published(n).unwrap();
        assert_eq!(naive_count(n as usize), p.total, "n = {n}");
        assert_eq!(naive_unique(n as usize), p.unique, "n = {n}");
    }
}

#[test]
fn serial_solver_matches_naive() {
    for n in 1..=11 {
        assert_eq!(serial_count(n).unwrap(), naive_count(n as usize), "n = {n}");
    }
}

#[test]
fn thread_counts_out_of_range_are_refused() {
    use nqueens::engine::MAX_THREADS;
    assert_eq!(Engine::new(0).err(), Some(nqueens::Error::ZeroThreads));
    assert_eq!(
        Engine::new(MAX_THREADS + 1).err(),
        Some(nqueens::Error::TooManyThreads {
            threads: MAX_THREADS + 1,
            max: MAX_THREADS
        })
    );
    assert_eq!(Engine::new(MAX_THREADS).unwrap().threads(), MAX_THREADS);
}

#[test]
fn engine_matches_naive_on_every_thread_count_depth_method_and_kernel() {
    let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
    for threads in THREADS {
        for kernel in kernels.iter().copied() {
            let engine = Engine::new(threads).unwrap().with_kernel(kernel).unwrap();
            for n in 1..=11u32 {
                let expect = naive_count(n as usize);
                for method in Method::ALL {
                    for depth in 1..=n.min(4) {
                        let job = Job::new(n)
                            .unwrap()
                            .with_method(method)
                            .with_split_depth(depth)
                            .unwrap();
                        let r = engine.count(&job);
                        assert_eq!(
                            r.counts.total, expect,
                            "n = {n}, {method}, depth {depth}, {threads} threads, {kernel}"
                        );
                        assert_eq!(
                            (r.threads, r.split_depth, r.kernel),
                            (threads, depth, kernel)
                        );
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

#[test]
fn published_totals_up_to_15() {
    for n in 1..=15u32 {
        let p = published(n).unwrap();
        for threads in [1, 3] {
            let job = Job::new(n).unwrap();
            assert_eq!(
                count(&job, threads).unwrap().counts.total,
                p.total,
                "n = {n}, {threads} threads"
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

/// Slow: run by `scripts/slow-checks.sh` (or `cargo test --release -- --ignored`).
#[test]
#[ignore = "slow: N = 16 and 17"]
fn published_totals_16_and_17() {
    for n in [16u32, 17] {
        let p = published(n).unwrap();
        for depth in [2, 3] {
            let job = Job::new(n).unwrap().with_split_depth(depth).unwrap();
            assert_eq!(
                count(&job, 2).unwrap().counts.total,
                p.total,
                "n = {n}, depth {depth}"
            );
        }
        assert_eq!(serial_count(n).unwrap(), p.total, "serial n = {n}");
    }
}
