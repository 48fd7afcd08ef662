//! The serial solver and the engine against a classic Somers-style C counter
//! (`benches/reference/somers.c`, built here with `gcc -O3` when gcc is present), side by side:
//! `cargo bench --bench reference`. N = 15 by default; `NQUEENS_BENCH_MAX_N=16` adds N = 16.
//! The C counter runs as a child process (start-up is about a millisecond, under 0.2 % here).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nqueens_count::bench::serial_count;
use nqueens_count::{known, Engine, Job, Plan};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// Compiles the C reference into the target directory; `None` when no C compiler works.
fn build_reference() -> Option<PathBuf> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/reference/somers.c");
    let out = std::env::temp_dir().join(format!("nqueens-somers-{}", std::process::id()));
    let ok = Command::new("gcc")
        .args(["-O3", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("gcc not available: skipping the C reference");
    }
    ok.then_some(out)
}

fn reference(c: &mut Criterion) {
    let max_n: u32 = std::env::var("NQUEENS_BENCH_MAX_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
        .clamp(15, 17);
    let somers = build_reference();
    let engines = [Engine::new(1).unwrap(), Engine::new(2).unwrap()];
    for n in 15..=max_n {
        let total = known::published(n).unwrap().total;
        let mut group = c.benchmark_group(format!("reference-n{n}"));
        group.throughput(Throughput::Elements(total as u64));
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(if n >= 16 { 90 } else { 15 }));
        if let Some(bin) = &somers {
            group.bench_function("c-somers-gcc-O3", |b| {
                b.iter(|| {
                    let out = Command::new(bin).arg(n.to_string()).output().unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&out.stdout).trim(),
                        total.to_string()
                    );
                })
            });
        }
        group.bench_function("serial", |b| {
            b.iter(|| assert_eq!(serial_count(n).unwrap(), total))
        });
        for engine in &engines {
            let t = engine.threads();
            let job = Job::new(n)
                .unwrap()
                .with_method(nqueens_count::Method::Mirror)
                .with_default_split_depth(t);
            let plan = Arc::new(Plan::new(job));
            group.bench_function(format!("engine-mirror-{t}t"), |b| {
                b.iter(|| assert_eq!(engine.count(plan.job()).unwrap().counts.total, total))
            });
        }
        group.finish();
    }
    if let Some(bin) = somers {
        let _ = std::fs::remove_file(bin);
    }
}

criterion_group!(benches, reference);
criterion_main!(benches);
