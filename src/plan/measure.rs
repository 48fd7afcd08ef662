//! Measurements of the cost model and the ETA, run by hand: they need the plan's internals
//! (estimates at other horizons, the ETA estimator), which the public API does not carry, so
//! they live here as ignored tests rather than as examples. Each prints tab-separated data or a
//! summary on standard output; parameters come from `NQUEENS_MEASURE` ("N DEPTH [SHARDS]").
//!
//! ```text
//! NQUEENS_MEASURE="16 3" cargo test --release --lib -- --ignored --nocapture cost_correlation
//! NQUEENS_MEASURE="18" cargo test --release --lib -- --ignored --nocapture unit_times
//! NQUEENS_MEASURE="19 2" cargo test --release --lib -- --ignored --nocapture resume_replay
//! NQUEENS_MEASURE="2 8 12 16 17" cargo test --release --lib -- --ignored --nocapture short_runs
//! ```

use super::cost::{class, estimate, estimate_unit_with, horizon};
use super::eta::{scrambled, Eta, Planned};
use super::{evaluate, evaluate_nodes, Job, Plan};
use std::time::Instant;

/// The numbers of `NQUEENS_MEASURE`, or `default`.
fn params(default: &[u32]) -> Vec<u32> {
    std::env::var("NQUEENS_MEASURE").map_or_else(
        |_| default.to_vec(),
        |v| {
            v.split_whitespace()
                .map(|a| a.parse().expect("NQUEENS_MEASURE: numbers"))
                .collect()
        },
    )
}

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

/// How well the unit cost estimates predict the real cost (search-tree nodes): for each
/// horizon, Spearman's rank correlation and Pearson's correlation between estimate and nodes,
/// and the imbalance a shard assignment by the estimate really has (max / mean shard nodes).
/// For N > 18 it only times the estimate. `NQUEENS_MEASURE="N DEPTH [SHARDS]"`.
#[test]
#[ignore = "a measurement, run by hand"]
fn cost_correlation() {
    let args = params(&[14, 2]);
    let (n, depth) = (args[0], args[1]);
    let shards = args.get(2).copied().unwrap_or(8);
    let plan = Plan::new(Job::new(n).unwrap().with_split_depth(depth).unwrap());
    let t = Instant::now();
    let est = estimate(&plan);
    let took = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "N = {n}, depth {depth}: {} units estimated in {took:.1} ms",
        est.len()
    );
    if n > 18 {
        return;
    }
    let real: Vec<f64> = plan
        .units()
        .iter()
        .map(|u| evaluate_nodes(&plan, u) as f64)
        .collect();
    let by_index: Vec<Vec<u32>> = (0..shards)
        .map(|s| (s..real.len() as u32).step_by(shards as usize).collect())
        .collect();
    let assign = crate::longrun::shard::assign;
    for (name, parts) in [
        ("round-robin by index", by_index),
        ("by estimate (LPT)", assign(&est, shards)),
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
            crate::longrun::shard::imbalance(&est, &parts) + 1.0
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
        let scaled: Vec<u64> = estf
            .iter()
            .map(|&e| (e / max * 1e12).max(1.0) as u64)
            .collect();
        let mut load = vec![0.0; shards as usize];
        for (s, units) in assign(&scaled, shards).iter().enumerate() {
            load[s] = units.iter().map(|&i| real[i as usize]).sum();
        }
        let mean = load.iter().sum::<f64>() / shards as f64;
        let max = load.iter().copied().fold(0.0, f64::max);
        println!(
            "horizon {h}{}: spearman {:.3}, pearson {:.3}, {shards}-shard real imbalance {:.3}, \
             estimate took {:.1} ms",
            if h == horizon(depth) { " (used)" } else { "" },
            pearson(&ranks(&estf), &ranks(&real)),
            pearson(&estf, &real),
            max / mean,
            took.as_secs_f64() * 1e3
        );
    }
}

/// Times every unit of a count on one thread beside its estimate (one tab-separated line per
/// unit: index, class, estimate, seconds), then replays those times through the ETA estimator,
/// in index order and in the long run's scrambled order, and prints the error of the predicted
/// time left at every tenth of the run: the data behind the ETA's time model (`docs/ETA.md`).
/// `NQUEENS_MEASURE="N [DEPTH]"`; the default depth is a one-thread count's.
#[test]
#[ignore = "a measurement, run by hand"]
fn unit_times() {
    let args = params(&[14]);
    let job = Job::new(args[0]).unwrap();
    let job = match args.get(1) {
        Some(&d) => job.with_split_depth(d).unwrap(),
        None => job.with_default_split_depth(1),
    };
    let plan = Plan::new(job);
    let mut units = Vec::new();
    println!("index\tclass\testimate\tseconds");
    for (u, e) in plan.units().iter().zip(estimate(&plan)) {
        let t = Instant::now();
        std::hint::black_box(evaluate(&plan, u));
        let s = t.elapsed().as_secs_f64();
        println!("{}\t{}\t{e}\t{s:.6}", u.index, class(&plan, u));
        units.push((u.index, class(&plan, u), e as f64, s));
    }
    type Key = fn(u32) -> u64;
    for (name, key) in [("index", u64::from as Key), ("scrambled", scrambled as Key)] {
        let mut order = units.clone();
        order.sort_by_key(|u| key(u.0));
        let planned = order
            .iter()
            .map(|u| Planned {
                id: u.0,
                cost: u.2,
                class: u.1,
            })
            .collect();
        let total: f64 = order.iter().map(|u| u.3).sum();
        let mut eta = Eta::new(1, planned);
        let (mut t, mut next) = (0.0, 0.1);
        print!("{name}:");
        for u in &order {
            eta.finished(u.0, 0, t, u.3);
            t += u.3;
            if t >= next * total && t < total {
                let (predicted, real) = (eta.remaining(t).unwrap(), total - t);
                print!(
                    " {:.0}%:{:+.0}%",
                    100.0 * t / total,
                    100.0 * (predicted - real) / real
                );
                next += 0.1;
            }
        }
        println!();
    }
}

/// The ETA after a resume (issue 22): one real engine run of N on T threads in the long run's
/// scrambled order, its unit times then replayed through the estimator three times: as a fresh
/// run, as a run resumed at half with no time of the runs before, and as one resumed with it
/// ([`Eta::with_time_before`]); per twentieth of each replay, the error of the predicted time
/// left. `NQUEENS_MEASURE="N T"`.
#[test]
#[ignore = "a measurement, run by hand"]
fn resume_replay() {
    use crate::engine::{Engine, Observer, RunOptions, UnitTiming};
    use std::ops::ControlFlow;
    use std::sync::Arc;
    let args = params(&[18, 2]);
    let (n, threads) = (args[0], args[1] as usize);
    let job = Job::new(n).unwrap().with_default_split_depth(threads);
    let plan = Arc::new(Plan::new(job));
    let est = estimate(&plan);
    let mut order: Vec<u32> = (0..plan.units().len() as u32).collect();
    order.sort_by_key(|&i| scrambled(i));
    struct Rec(Vec<(u32, UnitTiming)>);
    impl Observer for Rec {
        fn unit_done(
            &mut self,
            u: &crate::Unit,
            _: crate::Counts,
            t: UnitTiming,
        ) -> ControlFlow<()> {
            self.0.push((u.index, t));
            ControlFlow::Continue(())
        }
    }
    let engine = Engine::new(threads).unwrap();
    let mut rec = Rec(Vec::new());
    let opts = RunOptions {
        units: Some(order.clone()),
        ..RunOptions::default()
    };
    engine.run(&plan, &opts, &mut rec);
    let secs: std::collections::HashMap<u32, f64> = rec
        .0
        .iter()
        .map(|(i, t)| (*i, t.elapsed.as_secs_f64()))
        .collect();
    let planned = |ids: &[u32]| -> Vec<Planned> {
        ids.iter()
            .map(|&i| Planned {
                id: i,
                cost: est[i as usize] as f64,
                class: class(&plan, &plan.units()[i as usize]),
            })
            .collect()
    };
    // Simulate the schedule of `ids` on `threads` workers with the measured times; replay.
    let replay = |name: &str, ids: &[u32], before: &[u32], prior: f64| {
        let mut free = vec![0.0f64; threads];
        let mut events = Vec::new();
        for &i in ids {
            let w = (0..threads)
                .min_by(|&a, &b| free[a].total_cmp(&free[b]))
                .unwrap();
            let s = secs[&i];
            events.push((free[w] + s, i, w, free[w], s));
            free[w] += s;
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let end = events.last().unwrap().0;
        let mut eta = Eta::new(threads, planned(ids))
            .with_done_before(&planned(before))
            .with_time_before(prior);
        let mut next = 0;
        print!("{name} ({end:.2} s):");
        for k in 1..20 {
            let now = end * k as f64 / 20.0;
            while next < events.len() && events[next].0 <= now {
                let (_, id, w, s, e) = events[next];
                eta.finished(id, w, s, e);
                next += 1;
            }
            if let Some(left) = eta.remaining(now) {
                print!(
                    " {}%:{:+.0}%",
                    k * 5,
                    100.0 * (left - (end - now)) / (end - now)
                );
            }
        }
        println!();
    };
    replay("fresh", &order, &[], 0.0);
    let half = order.len() / 2;
    replay("resumed", &order[half..], &order[..half], 0.0);
    // The first half's wall time on `threads` workers, as the checkpoint would hold it.
    let mut free = vec![0.0f64; threads];
    for &i in &order[..half] {
        let w = (0..threads)
            .min_by(|&a, &b| free[a].total_cmp(&free[b]))
            .unwrap();
        free[w] += secs[&i];
    }
    let wall = free.iter().copied().fold(0.0, f64::max);
    replay(
        "resumed+prior",
        &order[half..],
        &order[..half],
        wall * threads as f64,
    );
}

/// One unit as a run reported it: when the observer heard of it (seconds from the start of the
/// run), its index and its timing.
type Heard = (f64, u32, crate::engine::UnitTiming);

/// Counts the default plan of N on T workers in the long run's order and records every unit as
/// the observer hears of it; the plan, the order and the units heard of.
fn record_run(n: u32, threads: usize) -> (std::sync::Arc<Plan>, Vec<u32>, Vec<Heard>) {
    use crate::engine::{Engine, Observer, RunOptions, UnitTiming};
    use std::ops::ControlFlow;
    struct Rec(Instant, Vec<Heard>);
    impl Observer for Rec {
        fn unit_done(
            &mut self,
            u: &crate::Unit,
            _: crate::Counts,
            t: UnitTiming,
        ) -> ControlFlow<()> {
            self.1.push((self.0.elapsed().as_secs_f64(), u.index, t));
            ControlFlow::Continue(())
        }
    }
    let method = std::env::var("NQUEENS_METHOD").map_or(crate::Method::default(), |m| {
        m.parse().expect("NQUEENS_METHOD: a method")
    });
    let job = Job::new(n).unwrap().with_method(method);
    let plan = std::sync::Arc::new(Plan::new(job.with_default_split_depth(threads)));
    let mut order: Vec<u32> = (0..plan.units().len() as u32).collect();
    if plan.search().scrambled_order() {
        order.sort_by_key(|&i| scrambled(i));
    }
    let engine = Engine::new(threads).unwrap();
    let opts = RunOptions {
        units: Some(order.clone()),
        ..RunOptions::default()
    };
    let mut rec = Rec(Instant::now(), Vec::new());
    engine.run(&plan, &opts, &mut rec);
    (plan, order, rec.1)
}

/// The ETA of short and middling runs (issue 29): a real run of each N on T workers, replayed
/// through the estimator as the long run feeds it, at 200 moments of the run: when the first
/// ETA is told, its error at a fifth, half and four fifths of the run and the worst from a
/// fifth on while a twentieth is left, and the share shown once half the units are done. A markdown row per N, after the
/// times of the units estimated near nothing. `NQUEENS_MEASURE="T N..."`, `NQUEENS_METHOD`
/// (default edge).
#[test]
#[ignore = "a measurement, run by hand"]
fn short_runs() {
    let args = params(&[2, 8, 12, 16]);
    let threads = args[0] as usize;
    println!("| N | units | run | first ETA at | error at 20 % | 50 % | 80 % | worst 20-95 % | shown at half the units |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for &n in &args[1..] {
        let (plan, order, heard) = record_run(n, threads);
        let est = estimate(&plan);
        small_units(&est, &heard);
        let planned = order
            .iter()
            .map(|&i| Planned {
                id: i,
                cost: est[i as usize] as f64,
                class: class(&plan, &plan.units()[i as usize]),
            })
            .collect();
        let mut eta = Eta::new(threads, planned);
        let end = heard.last().unwrap().0;
        let (mut next, mut first, mut errors, mut worst) = (0, None, Vec::new(), 0.0f64);
        let mut half = None;
        for k in 1..=200 {
            let now = end * k as f64 / 200.0;
            while next < heard.len() && heard[next].0 <= now {
                let (_, i, t) = heard[next];
                eta.finished(
                    i,
                    t.worker,
                    t.started.as_secs_f64(),
                    t.elapsed.as_secs_f64(),
                );
                next += 1;
                if next == heard.len() / 2 {
                    half = Some(eta.fraction_done(now));
                }
            }
            if k == 200 {
                break;
            }
            let error = eta
                .remaining(now)
                .map(|left| (left - (end - now)) / (end - now));
            if [40, 100, 160].contains(&k) {
                errors.push(error.map_or("–".into(), |e| format!("{:+.1} %", 100.0 * e)));
            }
            let Some(error) = error else { continue };
            first = first.or(Some(now));
            if (40..190).contains(&k) {
                worst = worst.max(error.abs());
            }
        }
        let pct = |x: Option<f64>| x.map_or("–".into(), |x| format!("{:.1} %", 100.0 * x));
        println!(
            "| {n} | {} | {end:.3} s | {} | {} | {} | {} | {} | {} |",
            heard.len(),
            first.map_or("–".into(), |t| format!("{t:.3} s")),
            errors[0],
            errors[1],
            errors[2],
            if first.is_some() {
                format!("{:.1} %", 100.0 * worst)
            } else {
                "–".into()
            },
            pct(half),
        );
    }
}

/// How long the units estimated near zero take, against the mean unit: per share of the mean
/// estimate below which a unit falls, their number and mean time over the mean time.
fn small_units(est: &[u64], heard: &[Heard]) {
    let mean_est = est.iter().map(|&e| e as f64).sum::<f64>() / est.len() as f64;
    let secs = |h: &Heard| h.2.elapsed.as_secs_f64();
    let mean_secs = heard.iter().map(secs).sum::<f64>() / heard.len() as f64;
    for share in [1e-6, 1e-3, 1e-2, 1e-1] {
        let small: Vec<f64> = heard
            .iter()
            .filter(|h| (est[h.1 as usize] as f64) < share * mean_est)
            .map(secs)
            .collect();
        let mean = small.iter().sum::<f64>() / small.len().max(1) as f64;
        let time = if small.is_empty() {
            String::new()
        } else {
            format!(", mean time {:.4} of the mean unit's", mean / mean_secs)
        };
        println!(
            "estimate under {share:e} of the mean: {} units{time}",
            small.len()
        );
    }
}
