//! How well the units' cost estimates ([`Plan::costs`], what shards and the ETA go by) predict
//! their real cost, through the public API (moved here from the library's hand-run tests):
//!
//! ```text
//! cargo run --release --example costs -- correlation N DEPTH [SHARDS]
//! cargo run --release --example costs -- unit-times N [DEPTH]
//! ```
//!
//! `correlation`: Spearman's rank and Pearson's correlation between each unit's estimate and
//! its search-tree nodes ([`Plan::nodes`]), and the real imbalance (max / mean shard nodes) of
//! the shard assignment by estimate ([`ShardSpec::units`]) against a round-robin one by index
//! (default 8 shards); for N > 18 it only times the estimate. `unit-times`: every unit counted on
//! one thread, one tab-separated line each (index, estimate, seconds); the default depth is a
//! one-thread count's.
//!
//! What the library's tests measured beyond this needs its internals and is not here: the
//! estimates at other look-ahead horizons (`plan::cost::estimate_unit_with`), each unit's cost
//! class (`plan::cost::class`) and replays of unit times through the ETA estimator
//! (`plan::eta::Eta`); `scripts/timing.sh eta` checks the ETA on real runs, resumed ones too.

use nqueens_count::longrun::ShardSpec;
use nqueens_count::{Job, Kernel, Plan};
use std::time::Instant;

/// Ranks of `v` (ties share the mean rank).
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        for &k in &idx[i..=j] {
            r[k] = (i + j) as f64 / 2.0;
        }
        i = j + 1;
    }
    r
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// The largest over the mean of the shards' real costs.
fn imbalance(shards: &[Vec<u32>], real: &[f64]) -> f64 {
    let loads: Vec<f64> = shards
        .iter()
        .map(|s| s.iter().map(|&i| real[i as usize]).sum())
        .collect();
    let mean = loads.iter().sum::<f64>() / loads.len() as f64;
    loads.iter().copied().fold(0.0, f64::max) / mean
}

fn correlation(n: u32, depth: u32, shards: u32) {
    let plan = Plan::new(Job::new(n).unwrap().with_split_depth(depth).unwrap());
    let t = Instant::now();
    let est: Vec<f64> = plan.costs().into_iter().map(|c| c as f64).collect();
    let took = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "N = {n}, depth {depth}: {} units estimated in {took:.1} ms",
        est.len()
    );
    if n > 18 {
        return;
    }
    let real: Vec<f64> = plan.units().iter().map(|u| plan.nodes(u) as f64).collect();
    let by_index: Vec<Vec<u32>> = (0..shards)
        .map(|s| (s..real.len() as u32).step_by(shards as usize).collect())
        .collect();
    let by_estimate: Vec<Vec<u32>> = (0..shards)
        .map(|index| {
            ShardSpec {
                index,
                count: shards,
            }
            .units(&plan)
        })
        .collect();
    println!(
        "spearman {:.3}, pearson {:.3}; {shards} shards, real max/mean: by estimate {:.3}, \
         round-robin by index {:.3}",
        pearson(&ranks(&est), &ranks(&real)),
        pearson(&est, &real),
        imbalance(&by_estimate, &real),
        imbalance(&by_index, &real)
    );
}

fn unit_times(n: u32, depth: Option<u32>) {
    let job = Job::new(n).unwrap();
    let job = match depth {
        Some(d) => job.with_split_depth(d).unwrap(),
        None => job.with_default_split_depth(1),
    };
    let plan = Plan::new(job);
    println!("index\testimate\tseconds");
    for (u, e) in plan.units().iter().zip(plan.costs()) {
        let t = Instant::now();
        std::hint::black_box(plan.count_unit(u, Kernel::best()));
        println!("{}\t{e}\t{:.6}", u.index(), t.elapsed().as_secs_f64());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| args.get(i).map(|a| a.parse::<u32>().expect("a number"));
    match args.first().map(String::as_str) {
        Some("correlation") => correlation(
            num(1).unwrap_or(14),
            num(2).unwrap_or(2),
            num(3).unwrap_or(8),
        ),
        Some("unit-times") => unit_times(num(1).unwrap_or(14), num(2)),
        _ => eprintln!("usage: costs correlation N DEPTH [SHARDS] | costs unit-times N [DEPTH]"),
    }
}
