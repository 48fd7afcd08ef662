//! The d4 method on every kernel this processor runs, and mirror on the fastest, against the
//! mirror-halving serial solver, side by side on one thread: `cargo bench --bench methods`.
//! N = 14 and 15 by default; set `NQUEENS_BENCH_MAX_N` (16, 17) to include larger boards. The d4
//! rows count the total and the unique solutions; the others only the total.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens_count::bench::serial_count;
use nqueens_count::Kernel;
use nqueens_count::{known, Engine, Job, Method, Plan};
use std::sync::Arc;
use std::time::Duration;

fn max_n() -> u32 {
    std::env::var("NQUEENS_BENCH_MAX_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

fn d4_vs_mirror(c: &mut Criterion) {
    let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
    for n in 14..=max_n().max(14) {
        let p = known::published(n).unwrap();
        let mut group = c.benchmark_group(format!("methods-n{n}"));
        group.throughput(Throughput::Elements(p.total as u64));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(if n >= 16 { 60 } else { 10 }));
        group.bench_function("mirror-serial", |b| {
            b.iter(|| assert_eq!(serial_count(n).unwrap(), p.total))
        });
        let runs = kernels
            .iter()
            .map(|&k| (Method::D4, k))
            .chain([(Method::Mirror, Kernel::best())]);
        for (method, kernel) in runs {
            let engine = Engine::new(1).unwrap().with_kernel(kernel).unwrap();
            let job = Job::new(n)
                .unwrap()
                .with_method(method)
                .with_split_depth(2)
                .unwrap()
                .with_unique(method == Method::D4);
            let plan = Arc::new(Plan::new(job));
            let id = BenchmarkId::new(format!("{method}-{kernel}"), "1t");
            group.bench_with_input(id, &plan, |b, plan| {
                b.iter(|| {
                    let out = engine.count(plan.job()).unwrap();
                    assert_eq!(out.counts.total, p.total);
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, d4_vs_mirror);
criterion_main!(benches);
