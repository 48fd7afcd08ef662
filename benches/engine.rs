//! The engine against the serial solver, side by side: `cargo bench --bench engine`.
//! Set `NQUEENS_BENCH_MAX_N` (default 15) to include larger boards.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::{known, serial_count, Engine, Job, NoObserver, Plan, RunOptions};
use std::sync::Arc;
use std::time::Duration;

fn max_n() -> u32 {
    std::env::var("NQUEENS_BENCH_MAX_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

fn engine_vs_serial(c: &mut Criterion) {
    let cores = num_cpus::get();
    let engines: Vec<Engine> = [1, 2, cores]
        .iter()
        .copied()
        .filter(|&t| t <= cores)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|t| Engine::new(t).unwrap())
        .collect();
    for n in 13..=max_n() {
        let total = known::published(n).unwrap().total;
        let mut group = c.benchmark_group(format!("count-n{n}"));
        group.throughput(Throughput::Elements(total as u64));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(if n >= 16 { 60 } else { 10 }));
        group.bench_function("serial", |b| {
            b.iter(|| assert_eq!(serial_count(n).unwrap(), total))
        });
        for engine in &engines {
            let t = engine.threads();
            let job = Job::new(n)
                .unwrap()
                .with_split_depth(nqueens::job::default_split_depth(n, t))
                .unwrap();
            let plan = Arc::new(Plan::new(job));
            group.bench_with_input(
                BenchmarkId::new("engine", format!("{t}t")),
                &plan,
                |b, plan| {
                    b.iter(|| {
                        assert_eq!(
                            engine
                                .run(plan, &RunOptions::default(), &mut NoObserver)
                                .counts
                                .total,
                            total
                        )
                    })
                },
            );
        }
        group.finish();
    }
}

criterion_group!(benches, engine_vs_serial);
criterion_main!(benches);
