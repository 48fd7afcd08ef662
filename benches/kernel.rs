//! Each search kernel on fixed work units: the same units of the edge and d4 methods (N = 15,
//! split depth 2: every 16th unit, in index order) counted on every kernel this processor runs,
//! one thread, no engine. Throughput is in search nodes (queens placed below the units'
//! prefixes), so kernels and methods compare per node: `cargo bench --bench kernel`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens_count::{Job, Kernel, Method, Plan, Unit};
use std::hint::black_box;

fn kernels(c: &mut Criterion) {
    for method in [Method::Edge, Method::D4] {
        let job = Job::new(15).unwrap().with_method(method);
        let plan = Plan::new(job.with_split_depth(2).unwrap());
        let units: Vec<Unit> = plan.units().iter().step_by(16).copied().collect();
        let nodes: u64 = units.iter().map(|u| plan.nodes(u)).sum();
        let mut group = c.benchmark_group(format!("kernel/{method}-15"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(20);
        for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
            group.bench_with_input(BenchmarkId::from_parameter(kernel), &kernel, |b, &k| {
                b.iter(|| {
                    units
                        .iter()
                        .map(|u| plan.count_unit(black_box(u), k).total)
                        .sum::<u128>()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
