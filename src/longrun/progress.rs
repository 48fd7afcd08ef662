//! How far a run is: the units done, the share of the estimated work done and the time left,
//! worked out from the units' estimated costs and the times the finished ones took
//! ([`crate::plan::eta`]).

use crate::engine::UnitTiming;
use crate::plan::eta::{Eta, Planned};
use crate::plan::{cost, Plan};
use std::time::{Duration, Instant};

/// How far a run is: units, the share of the estimated work, and the time left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Units of the run done (resumed ones included).
    pub units_done: usize,
    /// Units of the run in all.
    pub units_total: usize,
    /// Units done in this run (not resumed).
    pub units_this_run: usize,
    /// The share of the run's estimated work done, 0 to 1, the estimate corrected by the
    /// measured times of the units finished.
    pub fraction: f64,
    /// The time left, when it can be told yet: not before a unit has finished, nor in a fresh
    /// run's first half second.
    pub remaining: Option<Duration>,
    /// Wall time of this run so far.
    pub elapsed: Duration,
}

/// How often the ETA is worked out again at most (a bar is redrawn on every finished unit).
const RECOMPUTE: Duration = Duration::from_millis(250);

/// The share of the run's units whose finishing makes the progress be worked out again however
/// little time has passed: a run shorter than [`RECOMPUTE`] would else show the share of its
/// first unit to its end. Each working out
/// costs a pass over the units, so at most a hundred such passes a run.
const RECOMPUTE_SHARE: f64 = 0.01;

/// Whether progress worked out `age` ago, with `since` units finished since, is to be worked
/// out again, of `total` units.
fn stale(age: Duration, since: usize, total: usize) -> bool {
    age >= RECOMPUTE || since as f64 >= (RECOMPUTE_SHARE * total as f64).max(1.0)
}

/// The units `units` of `plan` as the ETA plans them: each with its estimated cost
/// (`costs`, of every unit of the plan) and its class.
pub(crate) fn planned(
    plan: &Plan,
    costs: &[u64],
    units: impl Iterator<Item = u32>,
) -> Vec<Planned> {
    units
        .map(|i| Planned {
            id: i,
            cost: costs[i as usize] as f64,
            class: cost::class(plan, &plan.units()[i as usize]),
        })
        .collect()
}

/// The progress of a run, worked out from the units' measured times.
pub(crate) struct Tracker {
    eta: Eta,
    start: Instant,
    units_total: usize,
    units_done: usize,
    units_at_start: usize,
    /// The last (share done, seconds left) worked out, when, and the units done then.
    cached: Option<(Instant, f64, Option<f64>, usize)>,
}

impl Tracker {
    pub(crate) fn new(eta: Eta, units_total: usize, done: usize) -> Tracker {
        Tracker {
            eta,
            start: Instant::now(),
            units_total,
            units_done: done,
            units_at_start: done,
            cached: None,
        }
    }

    /// The unit `index` finished, as the engine timed it.
    pub(crate) fn unit_done(&mut self, index: u32, timing: &UnitTiming) {
        self.units_done += 1;
        let (started, elapsed) = (timing.started.as_secs_f64(), timing.elapsed.as_secs_f64());
        self.eta.finished(index, timing.worker, started, elapsed);
    }

    /// The progress now: worked out again when it is [`stale`] or every unit is done; in
    /// between, the time left counts down from the last working out.
    pub(crate) fn now(&mut self) -> Progress {
        let all_done = self.units_done == self.units_total;
        let (fraction, left) = match self.cached {
            Some((at, fraction, left, done))
                if !all_done && !stale(at.elapsed(), self.units_done - done, self.units_total) =>
            {
                (fraction, left.map(|s| s - at.elapsed().as_secs_f64()))
            }
            _ => {
                let now = self.start.elapsed().as_secs_f64();
                let (fraction, left) = (self.eta.fraction_done(now), self.eta.remaining(now));
                self.cached = Some((Instant::now(), fraction, left, self.units_done));
                (fraction, left)
            }
        };
        Progress {
            units_done: self.units_done,
            units_total: self.units_total,
            units_this_run: self.units_done - self.units_at_start,
            fraction,
            remaining: left.map(|s| Duration::from_secs_f64(s.clamp(0.0, 1e12))),
            elapsed: self.start.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::eta::{scrambled, Planned};
    use crate::plan::{cost, Job, Plan};

    fn planned(costs: &[f64]) -> Vec<Planned> {
        costs
            .iter()
            .enumerate()
            .map(|(i, &cost)| Planned {
                id: i as u32,
                cost,
                class: 0,
            })
            .collect()
    }

    #[test]
    fn progress_follows_the_corrected_work() {
        let all = planned(&[10.0, 45.0, 45.0]);
        let eta = Eta::new(1, all[1..].to_vec()).with_done_before(&all[..1]);
        let mut t = Tracker::new(eta, 3, 1);
        // The run's clock at the 9 s the unit below took.
        t.start = Instant::now() - Duration::from_secs(9);
        let p = t.now();
        assert!((p.fraction - 0.1).abs() < 1e-9 && p.remaining.is_none());
        let timing = |started: u64, elapsed: u64| UnitTiming {
            worker: 0,
            started: Duration::from_secs(started),
            elapsed: Duration::from_secs(elapsed),
        };
        t.unit_done(1, &timing(0, 9));
        t.cached = None;
        let p = t.now();
        assert!((p.fraction - 0.55).abs() < 1e-9);
        // 45 of the estimate took 9 s (as the engine timed it); the unit left started then.
        let left = p.remaining.unwrap().as_secs_f64();
        assert!(left > 0.0 && left <= 9.0);
        t.unit_done(2, &timing(9, 9));
        let p = t.now();
        assert_eq!((p.fraction, p.remaining), (1.0, Some(Duration::ZERO)));
        assert_eq!((p.units_done, p.units_total, p.units_this_run), (3, 3, 2));
    }

    #[test]
    fn progress_is_worked_out_again_by_time_or_by_units() {
        let ms = Duration::from_millis;
        assert!(!stale(ms(249), 32, 3206));
        assert!(stale(ms(249), 33, 3206));
        assert!(stale(ms(250), 0, 3206));
        // A run of few units: after every one.
        assert!(stale(ms(0), 1, 78));
        assert!(!stale(ms(0), 0, 78));
    }

    /// N = 16's 3206 edge units, in the run's order and each as long as its estimate, reported
    /// within far less than [`RECOMPUTE`] (as in a run of a quarter of a second): the share
    /// shown moves with them (it stayed at the first unit's 0.0 %, issue 29).
    #[test]
    fn the_share_of_a_short_run_moves_with_its_units() {
        let plan = Plan::new(Job::new(16).unwrap().with_default_split_depth(2));
        let costs = cost::estimate(&plan);
        let mean = costs.iter().sum::<u64>() as f64 / costs.len() as f64;
        let mut order: Vec<u32> = (0..costs.len() as u32).collect();
        order.sort_by_key(|&i| scrambled(i));
        let planned = |i: u32| Planned {
            id: i,
            cost: costs[i as usize] as f64,
            class: cost::class(&plan, &plan.units()[i as usize]),
        };
        let eta = Eta::new(2, order.iter().map(|&i| planned(i)).collect());
        let mut t = Tracker::new(eta, order.len(), 0);
        let mut free = [0.0f64; 2];
        let (mut done, mut shown) = (0.0, Vec::new());
        for (k, &i) in order.iter().enumerate() {
            let secs = costs[i as usize] as f64 / mean;
            let worker = k % 2;
            let timing = UnitTiming {
                worker,
                started: Duration::from_secs_f64(free[worker]),
                elapsed: Duration::from_secs_f64(secs),
            };
            free[worker] += secs;
            t.unit_done(i, &timing);
            done += costs[i as usize] as f64 / mean / costs.len() as f64;
            shown.push((done, t.now().fraction));
        }
        // The share shown is the share of the estimate done, but for the units since it was
        // last worked out (a hundredth of them).
        for &(done, fraction) in &shown {
            assert!((fraction - done).abs() < 0.02, "{fraction} against {done}");
        }
        let half = shown[order.len() / 2].1;
        assert!((0.45..0.55).contains(&half), "{half}");
    }
}
