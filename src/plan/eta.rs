//! The time left in a run, learned as its units finish.
//!
//! The static cost estimate ([`super::cost`]) ranks units well but its scale differs between
//! kinds of unit: per unit of estimate, a D4 corner unit runs faster than a side unit with a
//! large bound, and the machine's speed is unknown before the run. An [`Eta`] therefore learns,
//! from every finished unit, how many seconds a unit of estimate takes, per *class* of unit
//! ([`super::cost::class`]: the first queen's column, which is the D4 branch) and over all
//! classes, and turns the estimates of the units still to run into seconds:
//!
//! * the seconds per unit of estimate of a class are its measured seconds over its estimates,
//!   shrunk towards the ratio over all classes by one mean unit of the class (a class seen once
//!   is half its own, half the global ratio; a class not yet seen is the global ratio);
//! * a unit in flight that has already run longer than predicted counts as evidence too (a lower
//!   bound on its time), so a unit far slower than its class promised raises the prediction
//!   before it finishes;
//! * the time left is found by replaying the engine's scheduling: the workers take the units in
//!   the run's order, each as soon as it is free, starting from what their units in flight
//!   are predicted to need still. The tail where some workers idle is thus part of the answer.
//!
//! A resumed run starts from the speed of the runs before it: the seconds per unit of estimate
//! of the units they finished (their wall time × the workers, [`Eta::with_time_before`]) count
//! as evidence worth a tenth of this run's estimated work ([`PRIOR_SHARE`]), so that the
//! first seconds after a resume, a few units measured on a machine whose load may just have
//! changed, do not swing the ETA alone; this run's own units outweigh it as they finish.
//!
//! All times are seconds from the start of the run, passed in by the caller: the estimator reads
//! no clock, so its arithmetic is tested with made-up runs.

use std::collections::{BTreeSet, BinaryHeap, HashMap};

/// One unit of a run, as the estimator sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planned {
    /// The unit's index in its plan (the engine reports finished units by it).
    pub id: u32,
    /// Its estimated cost (any positive scale, the same for all units of the run).
    pub cost: f64,
    /// Its class: units of one class share a correction of the estimate.
    pub class: u32,
}

/// Learns the run's speed from finished units and predicts the time left. See the module.
#[derive(Clone, Debug)]
pub struct Eta {
    threads: usize,
    /// The units of this run, in the order the engine starts them.
    order: Vec<Planned>,
    /// Class of each unit of `order` as a dense index.
    class_of: Vec<usize>,
    classes: usize,
    position_of: HashMap<u32, usize>,
    /// The measured seconds of each finished unit of `order`.
    secs: Vec<Option<f64>>,
    finished_count: usize,
    /// How many units of `order` the workers have taken: finished ones and those in flight.
    taken: usize,
    /// The positions taken and not finished.
    flying: BTreeSet<usize>,
    /// When each worker took the unit it runs; `None` once it found the queue empty.
    worker_since: Vec<Option<f64>>,
    /// Units finished before this run (a resumed count): dense class and estimate.
    before: Vec<(usize, f64)>,
    /// The scaled estimate of every unit finished before this run, of any class, and of those of
    /// each class of this run.
    before_weight: f64,
    before_by_class: Vec<f64>,
    /// What the runs before taught: worker-seconds and scaled estimate of their units.
    prior: Option<(f64, f64)>,
    /// The mean estimate of the run's units: estimates are taken relative to it.
    scale: f64,
}

/// What the finished units taught: seconds of a unit = `ratio[class] * cost / scale`.
struct Model {
    ratio: Vec<f64>,
}

/// When a unit in flight has run past its prediction, the time it is still given: this share of
/// what it has run so far.
const OVERDUE_SHARE: f64 = 0.1;

/// The most the runs before a resumed one count for, as a share of this run's estimated work:
/// evidence worth a tenth of the run, so that it steadies the first seconds and this run's own
/// units outweigh it once they are a tenth of the run. Kept small because the speed before may
/// not hold: a resume with another number of workers, or on a machine whose load changed, makes
/// it wrong, and it fades alike (the checks: `results/2026-12-01-eta-resume/NOTE.md`).
pub const PRIOR_SHARE: f64 = 0.1;

/// The least estimate a unit is taken to have, as a share of the run's mean: a unit estimated at
/// nothing still takes the time of setting up its search, and a ratio learned from it alone
/// would be near infinite (`results/2026-12-01-progress-short/NOTE.md`).
pub const MIN_COST_SHARE: f64 = 0.01;

/// A fresh run tells no time left before it has gone on this long (seconds): a run that ends
/// sooner is over before a line could be read, and its first units, run on cold caches while
/// the workers start, tell little (`results/2026-12-01-progress-short/NOTE.md`).
pub const FIRST_ETA_AFTER: f64 = 0.5;

/// How many units at the end of the queue are scheduled one by one; the ones before them are
/// spread evenly over the workers (they are small against the whole when there are many).
const TAIL_PER_THREAD: usize = 64;

impl Eta {
    /// An estimator for a run of `order` (the units in the order the engine starts them) on
    /// `threads` workers.
    pub fn new(threads: usize, order: Vec<Planned>) -> Eta {
        let threads = threads.max(1);
        let mut dense: HashMap<u32, usize> = HashMap::new();
        let class_of: Vec<usize> = order
            .iter()
            .map(|u| {
                let next = dense.len();
                *dense.entry(u.class).or_insert(next)
            })
            .collect();
        let sum: f64 = order.iter().map(|u| u.cost).sum();
        let scale = if sum > 0.0 {
            sum / order.len() as f64
        } else {
            1.0
        };
        let floor = |u: Planned| Planned {
            cost: u.cost.max(MIN_COST_SHARE * scale),
            ..u
        };
        let order: Vec<Planned> = order.into_iter().map(floor).collect();
        Eta {
            threads,
            taken: threads.min(order.len()),
            secs: vec![None; order.len()],
            finished_count: 0,
            flying: (0..threads.min(order.len())).collect(),
            worker_since: (0..threads)
                .map(|w| (w < order.len()).then_some(0.0))
                .collect(),
            before: Vec::new(),
            before_weight: 0.0,
            before_by_class: vec![0.0; dense.len()],
            prior: None,
            classes: dense.len(),
            position_of: order.iter().enumerate().map(|(i, u)| (u.id, i)).collect(),
            order,
            class_of,
            scale,
        }
    }

    /// Units finished before this run (a resumed count): they count in [`Eta::fraction_done`],
    /// and, with [`Eta::with_time_before`], give the starting speed (all of them in the whole,
    /// those of a class this run also has in that class's).
    pub fn with_done_before(mut self, done: &[Planned]) -> Eta {
        let dense: HashMap<u32, usize> = self
            .order
            .iter()
            .zip(&self.class_of)
            .map(|(u, &c)| (u.class, c))
            .collect();
        for u in done {
            let cost = u.cost.max(MIN_COST_SHARE * self.scale);
            self.before_weight += cost / self.scale;
            if let Some(&c) = dense.get(&u.class) {
                self.before.push((c, cost));
                self.before_by_class[c] += cost / self.scale;
            }
        }
        self
    }

    /// The runs before this one (a resumed count) took `worker_secs` seconds of one worker for
    /// the units of [`Eta::with_done_before`] (call it first): their wall time × the workers of
    /// this run, which is right when the same command is resumed on the same machine. Their
    /// seconds per unit of estimate are the model's starting point, worth at most
    /// [`PRIOR_SHARE`] of this run's estimated work.
    pub fn with_time_before(mut self, worker_secs: f64) -> Eta {
        if worker_secs.is_finite() && worker_secs > 0.0 && self.before_weight > 0.0 {
            self.prior = Some((worker_secs, self.before_weight));
        }
        self
    }

    /// The unit `id` finished on `worker`, having started at `started` and run `elapsed`
    /// seconds. Ids not in the run, and a second report of one unit, are ignored.
    pub fn finished(&mut self, id: u32, worker: usize, started: f64, elapsed: f64) {
        let Some(&pos) = self.position_of.get(&id) else {
            return;
        };
        if self.secs[pos].is_some() {
            return;
        }
        let secs = elapsed.max(0.0);
        self.secs[pos] = Some(secs);
        self.finished_count += 1;
        self.flying.remove(&pos);
        // The worker takes the next unit in the order as soon as it is free.
        let next = (self.taken < self.order.len()).then(|| {
            self.flying.insert(self.taken);
            self.taken += 1;
            started + secs
        });
        if let Some(slot) = self.worker_since.get_mut(worker) {
            *slot = next;
        }
    }

    /// How many units of the run have finished.
    #[cfg(test)]
    pub fn finished_count(&self) -> usize {
        self.finished_count
    }

    /// The units in flight at time `now` with the time each has run. Units are taken in the
    /// run's order, so the earliest taken of them is paired with the worker busy longest (which
    /// worker runs which unit is not reported, only which worker finished one).
    fn in_flight(&self, now: f64) -> Vec<(usize, f64)> {
        let mut since: Vec<f64> = self.worker_since.iter().flatten().copied().collect();
        since.sort_by(f64::total_cmp);
        since.resize(self.flying.len().max(since.len()), 0.0);
        self.flying
            .iter()
            .zip(since)
            .map(|(&pos, t)| (pos, (now - t).max(0.0)))
            .collect()
    }

    /// What the units finished so far and the overdue units in flight teach; `None` until a
    /// unit has finished.
    fn model(&self, flying: &[(usize, f64)]) -> Option<Model> {
        let weight = |cost: f64| cost / self.scale;
        // Per class: seconds and (scaled) estimates of the finished units; the mean estimate of
        // a unit (the weight of the prior).
        let mut secs = vec![0.0; self.classes];
        let mut est = vec![0.0; self.classes];
        let mut all = vec![(0.0, 0usize); self.classes];
        for (pos, u) in self.order.iter().enumerate() {
            let c = self.class_of[pos];
            let w = weight(u.cost);
            all[c] = (all[c].0 + w, all[c].1 + 1);
            if let Some(t) = self.secs[pos] {
                secs[c] += t;
                est[c] += w;
            }
        }
        // The runs before, scaled down to at most PRIOR_SHARE of this run's estimate (the run's
        // scaled estimates sum to its number of units): their overall seconds per unit of
        // estimate, for the units of each class they finished, and for those of classes this run
        // has none of.
        let mut elsewhere = (0.0, 0.0);
        if let Some((prior_secs, prior_est)) = self.prior {
            let keep = prior_est.min(PRIOR_SHARE * self.order.len() as f64) / prior_est;
            let ratio = prior_secs / prior_est;
            for c in 0..self.classes {
                let w = self.before_by_class[c] * keep;
                secs[c] += ratio * w;
                est[c] += w;
            }
            let w = (prior_est - self.before_by_class.iter().sum::<f64>()).max(0.0) * keep;
            elsewhere = (ratio * w, w);
        } else if self.finished_count == 0 {
            return None;
        }
        let (mut total_secs, mut total_est): (f64, f64) = (
            secs.iter().sum::<f64>() + elsewhere.0,
            est.iter().sum::<f64>() + elsewhere.1,
        );
        if total_est <= 0.0 {
            return None;
        }
        // A unit in flight that has run past its prediction by the finished units adds a lower
        // bound: its estimate took at least the time it has run.
        let global = total_secs / total_est;
        for &(pos, ran) in flying {
            let w = weight(self.order[pos].cost);
            if ran > global * w {
                let c = self.class_of[pos];
                secs[c] += ran;
                est[c] += w;
                total_secs += ran;
                total_est += w;
            }
        }
        let global = total_secs / total_est;
        let ratio = (0..self.classes)
            .map(|c| {
                let prior = all[c].0 / all[c].1.max(1) as f64;
                (secs[c] + global * prior) / (est[c] + prior).max(f64::MIN_POSITIVE)
            })
            .collect();
        Some(Model { ratio })
    }

    /// The predicted seconds of a unit of class `class` and estimate `cost`.
    fn predict(&self, model: &Model, class: usize, cost: f64) -> f64 {
        model.ratio[class] * cost / self.scale
    }

    /// The predicted seconds from `now` to the end of the run; `None` until a unit has finished
    /// and, unless the runs before a resumed one give a speed, [`FIRST_ETA_AFTER`] has passed;
    /// `Some(0.0)` when all have finished.
    pub fn remaining(&self, now: f64) -> Option<f64> {
        if self.finished_count == self.order.len() {
            return Some(0.0);
        }
        if self.prior.is_none() && now < FIRST_ETA_AFTER {
            return None;
        }
        let flying = self.in_flight(now);
        let model = self.model(&flying)?;
        let predict = |pos: usize| self.predict(&model, self.class_of[pos], self.order[pos].cost);
        // When each worker is free: after what its unit in flight still needs.
        let mut free: Vec<f64> = flying
            .iter()
            .map(|&(pos, ran)| {
                let p = predict(pos);
                if ran <= p {
                    p - ran
                } else {
                    OVERDUE_SHARE * ran
                }
            })
            .collect();
        free.resize(self.threads, 0.0);
        // The queue: the units not yet taken, in order. All but the last few are spread evenly.
        let queue = self.taken..self.order.len();
        let tail_len = (TAIL_PER_THREAD * self.threads).min(queue.len());
        let tail_start = self.order.len() - tail_len;
        let bulk: f64 = (queue.start..tail_start).map(predict).sum();
        level(&mut free, bulk);
        // The tail: each unit to the worker free first.
        let mut heap: BinaryHeap<std::cmp::Reverse<Secs>> =
            free.iter().map(|&f| std::cmp::Reverse(Secs(f))).collect();
        for pos in tail_start..self.order.len() {
            let std::cmp::Reverse(Secs(f)) = heap.pop().expect("one entry per worker");
            heap.push(std::cmp::Reverse(Secs(f + predict(pos))));
        }
        Some(heap.into_iter().map(|r| r.0 .0).fold(0.0, f64::max))
    }

    /// The share of the whole job's work done, 0..=1: the units finished in this run and before
    /// it, each weighted by its predicted seconds (by the plain estimate while nothing is
    /// learned).
    pub fn fraction_done(&self, now: f64) -> f64 {
        let model = self.model(&self.in_flight(now)).unwrap_or(Model {
            ratio: vec![1.0; self.classes],
        });
        let (mut done, mut all) = (0.0, 0.0);
        for &(c, cost) in &self.before {
            let p = self.predict(&model, c, cost);
            done += p;
            all += p;
        }
        for (pos, u) in self.order.iter().enumerate() {
            let p = self.predict(&model, self.class_of[pos], u.cost);
            all += p;
            if self.secs[pos].is_some() {
                done += p;
            }
        }
        if all > 0.0 {
            (done / all).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

/// A fixed pseudo-random key of a unit index, for an order of units that samples the whole job
/// evenly from its start (long edge runs sort their units by it: their index order is sorted by
/// frame, and the time per unit of estimate drifts with the frame). The splitmix64 finaliser
/// (G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014; constants of S. Vigna's `splitmix64.c`): every bit of the key depends on every
/// bit of the index, so no residue class of the indices comes first.
pub fn scrambled(i: u32) -> u64 {
    let mut z = u64::from(i).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Adds `work` seconds to the workers free first, filling them up to one level.
fn level(free: &mut [f64], work: f64) {
    if work <= 0.0 || free.is_empty() {
        return;
    }
    let mut sorted = free.to_vec();
    sorted.sort_by(f64::total_cmp);
    // The level L with sum over workers of max(0, L - free) = work.
    let mut below = 0.0;
    let mut target = sorted[0] + work;
    for (i, &f) in sorted.iter().enumerate() {
        below += f;
        let l = (below + work) / (i + 1) as f64;
        let next = sorted.get(i + 1).copied().unwrap_or(f64::INFINITY);
        if l <= next {
            target = l;
            break;
        }
    }
    for f in free.iter_mut() {
        *f = f.max(target);
    }
}

/// Seconds, ordered for the scheduling heap (the values are finite).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Secs(f64);
impl Eq for Secs {}
impl PartialOrd for Secs {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Secs {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scrambled order is a permutation that mixes residues: the first eighth of 5,728 units
    /// holds indices of every residue modulo 8, in near-equal numbers.
    #[test]
    fn scrambled_order_samples_every_residue() {
        let mut order: Vec<u32> = (0..5728).collect();
        order.sort_by_key(|&i| scrambled(i));
        let mut seen = order.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..5728).collect::<Vec<_>>());
        let mut per = [0usize; 8];
        for &i in &order[..716] {
            per[i as usize % 8] += 1;
        }
        assert!(per.iter().all(|&k| (60..120).contains(&k)), "{per:?}");
        // Nor does the first eighth come from one end of the job.
        let early = order[..716].iter().filter(|&&i| i < 2864).count();
        assert!((300..416).contains(&early), "{early}");
    }

    /// One finish event of a simulated run: (finish time, id, worker, started, elapsed).
    type Event = (f64, u32, usize, f64, f64);

    /// Runs units with true times `secs` (in order) on `threads` workers as the engine does:
    /// each worker takes the next unit when it is free. The finish events in time order.
    fn simulate(secs: &[f64], threads: usize) -> Vec<Event> {
        let mut free = vec![0.0f64; threads];
        let mut events = Vec::new();
        for (i, &t) in secs.iter().enumerate() {
            let w = (0..threads)
                .min_by(|&a, &b| free[a].total_cmp(&free[b]).then(a.cmp(&b)))
                .unwrap();
            events.push((free[w] + t, i as u32, w, free[w], t));
            free[w] += t;
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        events
    }

    /// The largest relative error of the predicted time left, checked at 400 moments of the
    /// run from `from` (a share of the run) on.
    fn worst_error(order: Vec<Planned>, secs: &[f64], threads: usize, from: f64) -> f64 {
        let events = simulate(secs, threads);
        let end = events.last().unwrap().0;
        let mut eta = Eta::new(threads, order);
        let mut next = 0;
        let mut worst = 0.0f64;
        let steps = 400;
        for k in 1..steps {
            let now = end * k as f64 / steps as f64;
            while next < events.len() && events[next].0 <= now {
                let (_, id, w, s, e) = events[next];
                eta.finished(id, w, s, e);
                next += 1;
            }
            // Before the first unit finishes only a lower bound is known.
            if now < from * end || eta.finished_count() == 0 {
                continue;
            }
            // Nor in a run's first moments.
            let Some(left) = eta.remaining(now) else {
                assert!(now < FIRST_ETA_AFTER, "no ETA at {now}");
                continue;
            };
            let real = end - now;
            worst = worst.max((left - real).abs() / real);
        }
        worst
    }

    fn planned(costs: &[f64], classes: &[u32]) -> Vec<Planned> {
        costs
            .iter()
            .zip(classes)
            .enumerate()
            .map(|(i, (&cost, &class))| Planned {
                id: i as u32,
                cost,
                class,
            })
            .collect()
    }

    /// A deterministic spread of unit sizes, falling (the order the CLI runs units in).
    fn sizes(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| 1.0 + 9.0 * ((n - i) as f64 / n as f64).powi(2))
            .collect()
    }

    #[test]
    fn an_exact_estimate_on_any_scale_gives_the_real_time() {
        let secs = sizes(120);
        let costs: Vec<f64> = secs.iter().map(|s| s * 1e9).collect();
        for threads in [1, 2, 3, 8] {
            let worst = worst_error(planned(&costs, &vec![0; 120]), &secs, threads, 0.05);
            assert!(worst < 0.02, "{threads} threads: {worst}");
        }
    }

    #[test]
    fn a_class_biased_estimate_is_learned() {
        // The first units are of class 0, whose estimate is twice too large, the last ones of
        // class 1, estimated right; units of both classes are also mixed in the middle.
        let n = 150;
        let secs = sizes(n);
        let classes: Vec<u32> = (0..n)
            .map(|i| u32::from(i % 3 == 2 || i >= n / 2))
            .collect();
        let costs: Vec<f64> = secs
            .iter()
            .zip(&classes)
            .map(|(&s, &c)| if c == 0 { 2.0 * s } else { s })
            .collect();
        for threads in [1, 2] {
            let worst = worst_error(planned(&costs, &classes), &secs, threads, 0.2);
            assert!(worst < 0.25, "{threads} threads: {worst}");
            // One global ratio learned on the early units would predict the end 2x too fast.
            let one = worst_error(planned(&costs, &vec![0; n]), &secs, threads, 0.2);
            assert!(one > worst, "{threads} threads: {one} against {worst}");
        }
    }

    #[test]
    fn the_tail_waits_for_the_largest_unit() {
        // One large unit last on two workers: the other worker idles at the end.
        let secs = [1.0, 1.0, 1.0, 1.0, 10.0];
        let mut eta = Eta::new(2, planned(&secs, &[0; 5]));
        for (_, id, w, s, e) in simulate(&secs, 2).into_iter().take(4) {
            eta.finished(id, w, s, e);
        }
        // At t = 2 the large unit started on one worker; the other is idle.
        let left = eta.remaining(2.5).unwrap();
        assert!((left - 9.5).abs() < 1e-9, "{left}");
    }

    #[test]
    fn units_in_flight_bound_the_time_from_below() {
        let secs = [4.0, 4.0, 4.0, 12.0];
        let mut eta = Eta::new(2, planned(&[1.0; 4], &[0; 4]));
        // Nothing is known before a unit finishes.
        assert_eq!(eta.remaining(0.0), None);
        assert_eq!(eta.remaining(2.0), None);
        for (_, id, w, s, e) in simulate(&secs, 2).into_iter().take(2) {
            eta.finished(id, w, s, e);
        }
        assert_eq!(eta.remaining(4.0), Some(4.0));
        assert_eq!(eta.finished_count(), 2);
        // At t = 10 (not yet told that unit 2 finished) units 2 and 3 have run 6 s against 4
        // predicted: the rate learned rises to (4 + 4 + 6 + 6) s / 4, and as they have run past
        // even that, each worker is given a tenth of what it has run more.
        let left = eta.remaining(10.0).unwrap();
        assert!((left - 0.6).abs() < 1e-9, "{left}");
    }

    #[test]
    fn the_share_done_is_weighted_by_learned_time() {
        // Class 0 costs half of its estimate per unit, class 1 all of it.
        let order = planned(&[2.0, 2.0, 1.0, 1.0], &[0, 0, 1, 1]);
        let mut eta = Eta::new(1, order).with_done_before(&[Planned {
            id: 9,
            cost: 2.0,
            class: 1,
        }]);
        assert!((eta.fraction_done(0.0) - 2.0 / 8.0).abs() < 1e-9);
        eta.finished(0, 0, 0.0, 1.0);
        eta.finished(1, 0, 1.0, 1.0);
        eta.finished(2, 0, 2.0, 1.0);
        eta.finished(2, 0, 2.0, 1.0); // reported twice: ignored
        eta.finished(7, 0, 2.0, 1.0); // not in the run: ignored
                                      // Learned: class 0 takes 0.5 s per unit of estimate, class 1 one, each shrunk towards
                                      // the global 0.6 by one mean unit of the class: 3.2 / 6 and 1.6 / 2. Unit 3 is what is
                                      // left: 0.8 of 2.13 + 0.8 * 4.
        let f = eta.fraction_done(3.0);
        assert!(
            (f - (1.0 - 0.8 / (3.2 / 6.0 * 4.0 + 3.2))).abs() < 1e-9,
            "{f}"
        );
        eta.finished(3, 0, 3.0, 1.0);
        assert_eq!(eta.fraction_done(4.0), 1.0);
        assert_eq!(eta.remaining(4.0), Some(0.0));
    }

    #[test]
    fn a_resumed_run_starts_from_the_speed_before_it() {
        // Units of estimate 1, each 1 s of one worker: the runs before did 10 in 10 s.
        let before = planned(&[1.0; 10], &[0; 10]);
        let order: Vec<Planned> = (10..30)
            .map(|i| Planned {
                id: i,
                cost: 1.0,
                class: 0,
            })
            .collect();
        let eta = Eta::new(1, order.clone()).with_done_before(&before);
        assert_eq!(eta.remaining(0.0), None);
        let eta = eta.with_time_before(10.0);
        assert_eq!(eta.remaining(0.0), Some(20.0));
        assert!((eta.fraction_done(0.0) - 1.0 / 3.0).abs() < 1e-12);
        // Without units done before, a time is ignored.
        assert_eq!(
            Eta::new(1, order).with_time_before(10.0).remaining(0.0),
            None
        );
    }

    #[test]
    fn the_speed_before_steadies_a_slow_start() {
        // 200 units of estimate 1 resumed on 2 workers: the first quarter runs 1.5 times slower
        // (a machine busy for a while), the rest as fast as the 200 units before. At a tenth of
        // the run, the first units alone predict the rest 1.5 times too slow.
        let n = 200;
        let secs: Vec<f64> = (0..n).map(|i| if i < n / 4 { 1.5 } else { 1.0 }).collect();
        let order = planned(&vec![1.0; n], &vec![0; n]);
        let before: Vec<Planned> = (0..n as u32)
            .map(|i| Planned {
                id: 1000 + i,
                cost: 1.0,
                class: 0,
            })
            .collect();
        let events = simulate(&secs, 2);
        let end = events.last().unwrap().0;
        let error_at = |eta: &mut Eta, share: f64| {
            let now = share * end;
            for &(t, id, w, s, e) in &events {
                if t <= now {
                    eta.finished(id, w, s, e);
                }
            }
            let left = eta.remaining(now).unwrap();
            (left - (end - now)) / (end - now)
        };
        let mut alone = Eta::new(2, order.clone()).with_done_before(&before);
        let mut resumed = Eta::new(2, order)
            .with_done_before(&before)
            .with_time_before(n as f64);
        let (e_alone, e_resumed) = (error_at(&mut alone, 0.1), error_at(&mut resumed, 0.1));
        assert!(e_alone > 0.3, "{e_alone}");
        assert!(e_resumed.abs() < 0.2, "{e_resumed}");
        // Late in the run, this run's own units decide (the slow quarter still weighs on both:
        // the ratio learned is their mean).
        let (e_alone, e_resumed) = (error_at(&mut alone, 0.8), error_at(&mut resumed, 0.8));
        assert!(
            e_alone < 0.2 && e_resumed.abs() <= e_alone,
            "{e_alone} {e_resumed}"
        );
    }

    /// N = 8 as it ran on two workers (78 edge units, 50 of them estimated at nothing; the
    /// first unit 0.36 ms on cold caches, the others about 1 µs): no time left is told before
    /// it ends (it told 1.3e9 s after its first unit, issue 29).
    #[test]
    fn a_run_too_short_to_say_tells_no_time_left() {
        use crate::plan::{cost, Job, Plan};
        let plan = Plan::new(Job::new(8).unwrap().with_default_split_depth(2));
        let costs = cost::estimate(&plan);
        let mut ids: Vec<u32> = (0..costs.len() as u32).collect();
        ids.sort_by_key(|&i| scrambled(i));
        let order = ids
            .iter()
            .map(|&i| Planned {
                id: i,
                cost: costs[i as usize] as f64,
                class: cost::class(&plan, &plan.units()[i as usize]),
            })
            .collect();
        let secs: Vec<f64> = (0..ids.len())
            .map(|k| if k == 0 { 3.6e-4 } else { 1e-6 })
            .collect();
        let mut eta = Eta::new(2, order);
        let events = simulate(&secs, 2);
        for (k, &(t, pos, w, s, e)) in events.iter().enumerate() {
            eta.finished(ids[pos as usize], w, s, e);
            let left = eta.remaining(t);
            if k + 1 < events.len() {
                assert_eq!(left, None, "after {} units", k + 1);
            } else {
                assert_eq!(left, Some(0.0));
            }
        }
    }

    /// A unit estimated at nothing that finishes first teaches no absurd speed: its estimate
    /// counts as [`MIN_COST_SHARE`] of the mean (without it, the 99 s left were told as 1e9 s).
    #[test]
    fn a_unit_estimated_at_nothing_is_still_a_unit() {
        let mut costs = vec![1.0; 100];
        costs[0] = 1e-9;
        let mut secs = vec![1.0; 100];
        secs[0] = 0.01;
        let mut eta = Eta::new(1, planned(&costs, &[0; 100]));
        eta.finished(0, 0, 0.0, 0.01);
        let (left, real) = (eta.remaining(0.6).unwrap(), 99.41);
        assert!((left - real).abs() < 0.25 * real, "{left}");
        // And the rest of the run is told right from then on.
        let worst = worst_error(planned(&costs, &[0; 100]), &secs, 1, 0.0);
        assert!(worst < 0.25, "{worst}");
    }

    #[test]
    fn levelling_fills_the_lowest_first() {
        let mut free = vec![3.0, 0.0, 1.0];
        level(&mut free, 3.0);
        assert_eq!(free, vec![3.0, 2.0, 2.0]);
        level(&mut free, 2.0);
        assert_eq!(free, vec![3.0, 3.0, 3.0]);
    }
}
