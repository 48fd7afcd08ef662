//! Side-by-side timings of the serial mirror solver and the d4 engine on every kernel this
//! processor runs, 1 and 2 threads, with node counts (`NQUEENS_NODES=1`):
//! `cargo run --release --example methods -- 16 17` (N values; `NQUEENS_REPS` runs each, default 3).
//! Prints one line per measurement: the median wall time of the repetitions.

use nqueens_count::bench::serial_count;
use nqueens_count::longrun::Watch;
use nqueens_count::Kernel;
use nqueens_count::UnitTiming;
use nqueens_count::{known, Cancel, Counts, Engine, Job, Method, Plan};
use std::time::Instant;

/// Busy time per worker: on a loaded machine wall time says little about scaling, but the
/// balance of the work between workers does (ideal wall = the busiest worker's time).
#[derive(Default)]
struct Busy(Vec<f64>);

impl Watch for Busy {
    fn wants_progress(&self) -> bool {
        false
    }
    fn unit_done(&mut self, _: u32, _: Counts, t: &UnitTiming) {
        if self.0.len() <= t.worker {
            self.0.resize(t.worker + 1, 0.0);
        }
        self.0[t.worker] += t.elapsed.as_secs_f64();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let reps: usize = std::env::var("NQUEENS_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let ns: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let nodes = std::env::var("NQUEENS_NODES").is_ok();
    for n in ns {
        let p = known::published(n).expect("published");
        if nodes {
            for method in [Method::Plain, Method::Mirror, Method::D4] {
                let plan = Plan::new(
                    Job::new(n)
                        .unwrap()
                        .with_method(method)
                        .with_split_depth(2)
                        .unwrap(),
                );
                let total: u64 = plan.units().iter().map(|u| plan.nodes(u)).sum();
                println!("n={n} nodes {method}: {total}");
            }
        }
        let mut serial = Vec::new();
        let kernels: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.available()).collect();
        // (kernel, threads) -> wall times, every configuration once per repetition, interleaved.
        let mut d4: Vec<((Kernel, usize), Vec<f64>)> = kernels
            .iter()
            .flat_map(|&k| [1, 2].map(|t| ((k, t), Vec::new())))
            .collect();
        for _ in 0..reps {
            let t = Instant::now();
            assert_eq!(serial_count(n).unwrap(), p.total);
            serial.push(t.elapsed().as_secs_f64());
            for ((kernel, threads), times) in d4.iter_mut() {
                let e = Engine::new(*threads).unwrap().with_kernel(*kernel).unwrap();
                let job = Job::new(n)
                    .unwrap()
                    .with_method(Method::D4)
                    .with_unique(true)
                    .with_default_split_depth(*threads);
                let t = Instant::now();
                let out = e.count(&job).unwrap();
                times.push(t.elapsed().as_secs_f64());
                assert_eq!((out.counts.total, out.counts.unique), (p.total, p.unique));
            }
        }
        let s = median(serial);
        println!("n={n} serial-mirror(total) {s:.3}s");
        for ((kernel, threads), times) in &d4 {
            let one = median(
                d4.iter()
                    .find(|((k, t), _)| k == kernel && *t == 1)
                    .map(|(_, v)| v.clone())
                    .unwrap(),
            );
            let m = median(times.clone());
            println!(
                "n={n} d4 {kernel} {threads}t (total+unique) {m:.3}s  vs serial {:.2}x  vs 1t {:.2}x",
                s / m,
                one / m
            );
        }
        let engines = [Engine::new(2).unwrap()];
        // Load balance of a 2-thread run: the sum of unit times over twice the busiest worker's.
        let e = &engines[0];
        let job = Job::new(n)
            .unwrap()
            .with_method(Method::D4)
            .with_unique(true)
            .with_default_split_depth(2);
        let mut busy = Busy::default();
        e.count_with(&job, &mut busy, &Cancel::new()).unwrap();
        let max = busy.0.iter().copied().fold(0.0, f64::max);
        println!(
            "n={n} d4-2t balance: busy per worker {:?} s, sum / (2 x max) = {:.3}",
            busy.0
                .iter()
                .map(|x| (x * 1000.0).round() / 1000.0)
                .collect::<Vec<_>>(),
            busy.0.iter().sum::<f64>() / (2.0 * max)
        );
    }
}
