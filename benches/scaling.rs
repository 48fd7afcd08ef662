//! The parallel engine against the serial solver, one group per N: `cargo bench --bench scaling`.
//!
//! N runs from 12 to `NQUEENS_BENCH_MAX_N` (default 14, at most 17: N = 17 takes minutes per
//! configuration). Every group has the serial solver as the baseline and the engine at 1, 2, 4,
//! … threads up to the logical cores (and the core count itself), each at split depth 2 and 3.
//! Each engine (one rayon pool per thread count) and each plan is built outside the timed
//! closure, so only whole runs are measured. Throughput is in solutions.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens_count::bench::serial_count;
use nqueens_count::{known, Engine, Job, Plan};
use std::sync::Arc;
use std::time::Duration;

/// The largest N to measure: `NQUEENS_BENCH_MAX_N`, default 14, clamped to 12..=17.
fn max_n() -> u32 {
    std::env::var("NQUEENS_BENCH_MAX_N")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(14)
        .clamp(12, 17)
}

fn scaling(c: &mut Criterion) {
    let engines: Vec<Engine> = nqueens_count::bench::Settings::default_threads(num_cpus::get())
        .into_iter()
        .map(|t| Engine::new(t).expect("thread pool"))
        .collect();
    for n in 12..=max_n() {
        let total = known::published(n).expect("published").total;
        let mut group = c.benchmark_group(format!("scaling/n{n}"));
        group.throughput(Throughput::Elements(total as u64));
        if n >= 15 {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(if n >= 16 { 60 } else { 15 }));
        }
        group.bench_function("serial", |b| {
            b.iter(|| assert_eq!(serial_count(n).unwrap(), total))
        });
        for depth in [2, 3] {
            let plan = Arc::new(Plan::new(
                Job::new(n).unwrap().with_split_depth(depth).unwrap(),
            ));
            for engine in &engines {
                let id = BenchmarkId::new(
                    format!("engine-depth{depth}"),
                    format!("{}t", engine.threads()),
                );
                group.bench_with_input(id, &plan, |b, plan| {
                    b.iter(|| {
                        let out = engine.count(plan.job()).unwrap();
                        assert_eq!(out.counts.total, total)
                    })
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, scaling);
criterion_main!(benches);
