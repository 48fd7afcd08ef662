//! The statistics of a benchmark: medians, minima, speed-up, parallel efficiency and the
//! load-balance measures of one engine run.

use crate::engine::UnitTiming;
use std::time::Duration;

/// The median of `xs` (the mean of the two middle values for an even count); `None` when empty.
/// NaNs are ordered last, so they never panic the sort.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// The smallest of `xs`; `None` when empty.
pub fn min(xs: &[f64]) -> Option<f64> {
    xs.iter().copied().min_by(f64::total_cmp)
}

/// How many times faster than the baseline: `baseline ÷ time`. `None` when `time` is not
/// positive (a run too short for the clock).
pub fn speedup(baseline_s: f64, time_s: f64) -> Option<f64> {
    (time_s > 0.0 && baseline_s.is_finite()).then(|| baseline_s / time_s)
}

/// Parallel efficiency: the scaling over the same search's 1-thread run per thread, 1.0 for
/// perfect scaling, capped at 1 (a scaling above the thread count is timing noise or a cache
/// effect, never more than perfect use of the threads). Never pass the speed-up over a
/// different solver: that counts the method's and the kernel's gain too.
pub fn efficiency(scaling: f64, threads: usize) -> f64 {
    (scaling / threads.max(1) as f64).min(1.0)
}

/// Whether `scaling` on `threads` is above perfect, so that [`efficiency`] capped it.
pub fn superlinear(scaling: f64, threads: usize) -> bool {
    scaling > threads.max(1) as f64
}

/// `x` rounded to `digits` significant digits (1 to 17), so that it prints as a short decimal
/// (`0.000229` for `0.0002289999999999996`); non-finite values and 0 unchanged.
pub fn round_sig(x: f64, digits: usize) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let digits = digits.clamp(1, 17);
    format!("{x:.*e}", digits - 1).parse().unwrap_or(x)
}

/// `amount ÷ seconds`, or `None` for a zero time.
pub fn rate(amount: f64, seconds: f64) -> Option<f64> {
    (seconds > 0.0).then(|| amount / seconds)
}

/// How evenly the work of one engine run was spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Balance {
    /// The costliest unit's time over the mean unit time (1.0 when all units cost the same).
    pub unit_max_over_mean: f64,
    /// The share of the run's wall time after the first worker ran out of units: from the
    /// earliest "last finish" of a worker to the latest. A worker that got no unit went idle at 0.
    pub tail_share: f64,
}

/// The load-balance measures of a run on `threads` workers, from its units' timings.
/// `None` when no unit ran.
pub fn balance(timings: &[UnitTiming], threads: usize) -> Option<Balance> {
    if timings.is_empty() {
        return None;
    }
    let costs: Vec<f64> = timings.iter().map(|t| t.elapsed.as_secs_f64()).collect();
    let mean = costs.iter().sum::<f64>() / costs.len() as f64;
    let max = costs.iter().copied().fold(0.0, f64::max);
    let mut last_finish = vec![Duration::ZERO; threads.max(1)];
    for t in timings {
        if let Some(slot) = last_finish.get_mut(t.worker) {
            *slot = (*slot).max(t.started + t.elapsed);
        }
    }
    let end = last_finish.iter().max().copied().unwrap_or_default();
    let first_idle = last_finish.iter().min().copied().unwrap_or_default();
    let end_s = end.as_secs_f64();
    Some(Balance {
        unit_max_over_mean: if mean > 0.0 { max / mean } else { 1.0 },
        tail_share: if end_s > 0.0 {
            (end - first_idle).as_secs_f64() / end_s
        } else {
            0.0
        },
    })
}

/// What the engine's scheduling alone would give on `threads` workers, from unit costs
/// measured in one run: the load-balance bound on efficiency, free of every other cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Total unit time ÷ (threads × makespan): 1.0 when no worker ever waits.
    pub efficiency_bound: f64,
    /// The share of the makespan after the first worker ran out of units.
    pub tail_share: f64,
}

/// Replays the engine's scheduling on `threads` workers: units are taken in the order of
/// `costs` (seconds each), each by the first worker to be free. `None` without units.
pub fn project(costs: &[f64], threads: usize) -> Option<Projection> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    if costs.is_empty() {
        return None;
    }
    let threads = threads.max(1);
    // Finish times as integer nanoseconds, so that the heap is totally ordered.
    let mut free: BinaryHeap<Reverse<u64>> = (0..threads).map(|_| Reverse(0)).collect();
    for &c in costs {
        let Reverse(at) = free.pop().expect("threads >= 1");
        free.push(Reverse(at + (c.max(0.0) * 1e9) as u64));
    }
    let finish: Vec<u64> = free.into_iter().map(|Reverse(t)| t).collect();
    let end = *finish.iter().max().expect("threads >= 1") as f64;
    let first_idle = *finish.iter().min().expect("threads >= 1") as f64;
    let work: f64 = costs.iter().map(|c| (c.max(0.0) * 1e9).floor()).sum();
    Some(if end > 0.0 {
        Projection {
            efficiency_bound: work / (threads as f64 * end),
            tail_share: (end - first_idle) / end,
        }
    } else {
        Projection {
            efficiency_bound: 1.0,
            tail_share: 0.0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[7.5]), Some(7.5));
        assert_eq!(median(&[]), None);
        assert_eq!(min(&[3.0, 1.5, 2.0]), Some(1.5));
        assert_eq!(min(&[]), None);
    }

    #[test]
    fn speedup_and_efficiency() {
        assert_eq!(speedup(10.0, 2.5), Some(4.0));
        assert_eq!(speedup(10.0, 0.0), None);
        assert_eq!(efficiency(4.0, 8), 0.5);
        assert_eq!(efficiency(1.9, 2), 0.95);
        // Above perfect: capped, and said to be.
        assert_eq!(efficiency(3.48, 2), 1.0);
        assert!(superlinear(3.48, 2) && !superlinear(2.0, 2));
        assert_eq!(rate(100.0, 4.0), Some(25.0));
        assert_eq!(rate(100.0, 0.0), None);
    }

    #[test]
    fn rounding_to_significant_digits() {
        assert_eq!(round_sig(0.0002289999999999996, 6), 0.000229);
        assert_eq!(round_sig(182_335_129.586_861_7, 6), 182_335_000.0);
        assert_eq!(round_sig(1.2706393301510288, 6), 1.27064);
        assert_eq!(round_sig(-7.000000000000062e-6, 6), -7e-6);
        assert_eq!(round_sig(0.0, 6), 0.0);
        assert!(round_sig(f64::NAN, 6).is_nan());
        assert_eq!(round_sig(123.456, 2), 120.0);
    }

    fn t(worker: usize, started_ms: u64, elapsed_ms: u64) -> UnitTiming {
        UnitTiming {
            worker,
            started: Duration::from_millis(started_ms),
            elapsed: Duration::from_millis(elapsed_ms),
        }
    }

    #[test]
    fn balance_of_an_even_and_an_uneven_run() {
        // Two workers, equal units, both finish at 20 ms: no tail.
        let even = [t(0, 0, 10), t(1, 0, 10), t(0, 10, 10), t(1, 10, 10)];
        let b = balance(&even, 2).unwrap();
        assert_eq!(b.unit_max_over_mean, 1.0);
        assert_eq!(b.tail_share, 0.0);
        // Worker 1 finishes at 10 ms, worker 0 at 40 ms: the last 30 of 40 ms run on one worker.
        let uneven = [t(0, 0, 40), t(1, 0, 5), t(1, 5, 5)];
        let b = balance(&uneven, 2).unwrap();
        assert!((b.unit_max_over_mean - 40.0 / (50.0 / 3.0)).abs() < 1e-9);
        assert!((b.tail_share - 0.75).abs() < 1e-9);
        // A worker that never got a unit was idle from the start.
        let b = balance(&[t(0, 0, 10)], 3).unwrap();
        assert_eq!(b.tail_share, 1.0);
        assert_eq!(balance(&[], 2), None);
    }

    #[test]
    fn projections_replay_the_scheduling() {
        // Four equal units on two workers: perfect.
        let p = project(&[1.0; 4], 2).unwrap();
        assert_eq!((p.efficiency_bound, p.tail_share), (1.0, 0.0));
        // A big unit last: worker 0 takes 1, worker 1 takes 1, then worker 0 takes the 4.
        // Makespan 5, work 6 on 2 workers: 0.6; worker 1 idle from 1 of 5: tail 0.8.
        let p = project(&[1.0, 1.0, 4.0], 2).unwrap();
        assert!((p.efficiency_bound - 0.6).abs() < 1e-9);
        assert!((p.tail_share - 0.8).abs() < 1e-9);
        // The big unit first: 4 | 1+1: makespan 4, efficiency 6/8.
        let p = project(&[4.0, 1.0, 1.0], 2).unwrap();
        assert!((p.efficiency_bound - 0.75).abs() < 1e-9);
        // One thread is always perfect; more threads than units leave workers idle.
        assert_eq!(project(&[3.0, 1.0], 1).unwrap().efficiency_bound, 1.0);
        assert!((project(&[1.0, 1.0], 4).unwrap().efficiency_bound - 0.5).abs() < 1e-9);
        assert_eq!(project(&[], 4), None);
    }
}
