//! Measures how well the unit cost estimates predict the real cost (search-tree nodes and time).
//!
//! `cargo run --release --example cost_correlation -- 16 3` prints, for each horizon, Spearman's
//! rank correlation and Pearson's correlation between estimate and nodes, and the imbalance an
//! 8-way shard assignment by the estimate really has (max shard nodes / mean shard nodes).
//! For N > 18 it only times the estimate.

use nqueens::plan::cost::estimate_unit_with;
use nqueens::plan::evaluate_nodes;
use nqueens::{Job, Plan};
use std::time::Instant;

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

fn main() {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: cost_correlation N DEPTH [SHARDS]"))
        .collect();
    let (n, depth) = (args[0], args[1]);
    let shards = args.get(2).copied().unwrap_or(8);
    let plan = Plan::new(Job::new(n).unwrap().with_split_depth(depth).unwrap());
    if n > 18 {
        // Too big to count here: only time the estimate.
        let t = Instant::now();
        let est = nqueens::plan::cost::estimate(&plan);
        println!(
            "N = {n}, depth {depth}: {} units estimated in {:.1} ms",
            est.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
        return;
    }
    let real: Vec<f64> = plan
        .units()
        .iter()
        .map(|u| evaluate_nodes(&plan, u) as f64)
        .collect();
    println!(
        "N = {n}, depth {depth}, {} units, method {}",
        real.len(),
        plan.method()
    );
    let t = Instant::now();
    let est = nqueens::plan::cost::estimate(&plan);
    println!(
        "estimate of all units: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let by_index: Vec<Vec<u32>> = (0..shards)
        .map(|s| (s..real.len() as u32).step_by(shards as usize).collect())
        .collect();
    for (name, parts) in [
        ("round-robin by index", by_index),
        (
            "by estimate (LPT)",
            nqueens::longrun::shard::assign(&est, shards),
        ),
    ] {
        let loads: Vec<f64> = parts
            .iter()
            .map(|p| p.iter().map(|&i| real[i as usize]).sum())
            .collect();
        let mean = loads.iter().sum::<f64>() / shards as f64;
        let max = loads.iter().copied().fold(0.0, f64::max);
        println!(
            "{shards} shards {name}: real max/mean {:.3}, estimated imbalance {:.3}",
            max / mean,
            nqueens::longrun::shard::imbalance(&est, &parts) + 1.0
        );
    }
    for h in 1..=4 {
        let t = Instant::now();
        let estf: Vec<f64> = plan
            .units()
            .iter()
            .map(|u| estimate_unit_with(&plan, u, h))
            .collect();
        let took = t.elapsed();
        let max = estf.iter().copied().fold(0.0, f64::max);
        let est: Vec<u64> = estf
            .iter()
            .map(|&e| (e / max * 1e12).max(1.0) as u64)
            .collect();
        let assign = nqueens::longrun::shard::assign(&est, shards);
        let mut load = vec![0.0; shards as usize];
        for (s, units) in assign.iter().enumerate() {
            load[s] = units.iter().map(|&i| real[i as usize]).sum();
        }
        let mean = load.iter().sum::<f64>() / shards as f64;
        let max = load.iter().cloned().fold(0.0, f64::max);
        println!(
            "horizon {h}{}: spearman {:.3}, pearson {:.3}, {shards}-shard real imbalance {:.3}, estimate took {:.1} ms",
            if h == nqueens::plan::cost::horizon(depth) { " (used)" } else { "" },
            pearson(&ranks(&estf), &ranks(&real)),
            pearson(&estf, &real),
            max / mean,
            took.as_secs_f64() * 1e3
        );
    }
}
