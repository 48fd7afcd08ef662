//! The single-threaded solver (`nqueens::serial_count`: the bitmask kernel with mirror halving,
//! no work units, no threads) for N = 8..=14: `cargo bench --bench kernel`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nqueens::{known, serial_count};
use std::hint::black_box;

fn serial(c: &mut Criterion) {
    let mut group = c.benchmark_group("serial");
    for n in 8..=14 {
        let total = known::published(n).expect("published").total;
        group.throughput(Throughput::Elements(total as u64));
        if n >= 13 {
            group.sample_size(20);
        }
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| assert_eq!(serial_count(black_box(n)).unwrap(), total))
        });
    }
    group.finish();
}

criterion_group!(benches, serial);
criterion_main!(benches);
