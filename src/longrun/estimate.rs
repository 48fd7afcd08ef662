//! How much CPU time a job will take, known before it starts, so that a run of centuries
//! (`verify --max 27`, a typo of N) is not started by accident.
//!
//! The model is the one in `docs/PERFORMANCE.md` ("Expected CPU time", with the runs it was
//! fitted on, `scripts/timing.sh model`): with the default method (edge) on the AVX-512 lanes
//! of the project's development machine, a count takes a fixed CPU time per solution, flat from
//! N = 17 to 20 (within 5 % of the fit at N = 18, 19 and 20), so
//!
//! > CPU time(N) = 8.9 ns × a(N) × the method's factor × the kernel's factor
//!
//! with a(N) the published number of solutions (OEIS A000170), extrapolated beyond N = 27 (the
//! ratio a(N+1)/a(N) grows by about 0.4 per N, 10.5 at N = 27). The method's factor against
//! edge is its `Costing::cpu_time_factor` (in `search::method`), the kernel's
//! against the AVX-512 lanes is [`Kernel::cpu_time_factor`]: each is defined with its method or
//! kernel. Pre-placed queens scale it by the share of the board's search tree they keep,
//! wherever they stand (random probes of the tree: `plan::sample`; within a factor of two of
//! the runs measured in `results/2026-12-03-placed-estimates`). Other processors differ by a
//! constant factor: the estimate says whether a run takes minutes or months, not to the minute.
//!
//! A part of a job (one shard, or what a checkpoint leaves to do) takes its share of the
//! estimated cost of the units.

use crate::format::Kind;
use crate::known;
use crate::plan::{sample, Job, Method, Plan};
use crate::Kernel;
use std::time::Duration;
use thiserror::Error;

/// A run estimated to take more CPU time than this needs the user's confirmation.
pub const CONFIRM_ABOVE: Duration = Duration::from_secs(3600);

/// CPU nanoseconds per solution of a count with the default method (edge, total and unique in
/// one pass) on the AVX-512 lanes: fitted on N = 18 to 20 (`docs/PERFORMANCE.md`).
const NS_PER_SOLUTION: f64 = 8.9;

/// A run estimated to take more CPU time than [`CONFIRM_ABOVE`], not confirmed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "the run is estimated to take {}, more than the {} a run may take unconfirmed",
    CpuTime { cpu: *cpu, threads: *cores },
    human(*limit)
)]
pub struct TooLong {
    /// The estimated CPU time.
    pub cpu: Duration,
    /// The cores the run would use (its threads, at most the machine's logical cores).
    pub cores: usize,
    /// The limit it exceeds.
    pub limit: Duration,
}

impl crate::Classify for TooLong {
    fn class(&self) -> crate::Class {
        crate::Class::Request
    }
}

/// The number of solutions for N, published (N ≤ 27) or extrapolated (N ≤ 32).
pub(crate) fn solutions(n: u32) -> f64 {
    if let Some(p) = known::published(n) {
        return p.total as f64;
    }
    let mut a = known::published(known::MAX_KNOWN_N).map_or(0.0, |p| p.total as f64);
    let mut ratio = 10.5;
    for _ in known::MAX_KNOWN_N..n {
        ratio += 0.4;
        a *= ratio;
    }
    a
}

/// The estimated CPU time of a whole job with no pre-placed queens, by its board, method,
/// unique flag and kernel.
pub fn cpu_time_of(n: u32, method: Method, unique: bool, kernel: Kernel) -> Duration {
    let secs = NS_PER_SOLUTION
        * 1e-9
        * solutions(n)
        * method.costing().cpu_time_factor(unique)
        * kernel.cpu_time_factor();
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

/// The estimated CPU time of a whole job: that of the same job without its pre-placed queens,
/// with the method the plan uses (`plan`, made when missing, and only for pre-placed queens),
/// times the share of the search tree the queens keep (random probes
/// of the tree, wherever the queens stand).
pub fn cpu_time(job: &Job, plan: Option<&Plan>, kernel: Kernel) -> Duration {
    if job.placed().is_empty() {
        return cpu_time_of(job.n(), job.method(), job.unique(), kernel);
    }
    let method = match plan {
        Some(p) => p.method(),
        None => job.effective_method(),
    };
    let kept = kept(job);
    cpu_time_of(job.n(), method, job.unique(), kernel).mul_f64(kept.nodes)
}

/// What the pre-placed queens of `job` keep of its board's search tree and solutions.
fn kept(job: &Job) -> sample::Kept {
    let placed: Vec<(u32, u32)> = job.placed().iter().map(|q| (q.row, q.col)).collect();
    sample::kept(job.n(), &placed)
}

/// What listing the solutions of a job would write and take, known before it starts:
/// `nqueens list` asks for `--yes` (or a `--limit`) above an hour of CPU time or more bytes
/// than the disk it writes to has free ([`ListingEstimate::check`]).
///
/// A listing walks every solution on the lane kernels (past
/// [`MAX_PARALLEL_N`](crate::solutions::MAX_PARALLEL_N), depth first) and writes each one it
/// lists: its CPU time is a time per solution walked and a time per byte written, both
/// measured with `scripts/timing.sh listing-model` (`docs/PERFORMANCE.md`). The solutions are
/// the published counts (extrapolated past N = 27); pre-placed queens keep their share of the
/// search (the time) and of the solutions (the bytes), estimated by random probes of the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ListingEstimate {
    /// The solutions written.
    pub solutions: f64,
    /// The bytes written.
    pub bytes: f64,
    /// The CPU time of the search and of the writing.
    pub cpu: Duration,
    /// The threads it runs on (one past [`crate::solutions::MAX_PARALLEL_N`]); [`CpuTime`]
    /// shares the time among at most the machine's cores.
    pub threads: usize,
}

/// CPU nanoseconds per solution a listing walks (the search, its sort, handing each solution
/// over): about 64 ns at N = 16 on one thread of the development VM
/// (`results/2026-12-04-listing-checks/NOTE.md`), whose core runs a listing 1.3–1.4 times
/// faster than the 16-core Xeon's, where it took 127–140 ns before that change and the
/// previous one (`results/2026-12-04-h200/NOTE.md`), about 95–120 ns after them by the VM's
/// ratios. The slower core's figure is kept: the estimate decides when to ask for `--yes`.
/// 550 ns before the lane search.
const LIST_NS_PER_SOLUTION: f64 = 110.0;
/// CPU nanoseconds per byte a listing writes (formatting, copying, the write calls): 0.05 ns
/// (`board` against `columns`, same note), rounded up.
const LIST_NS_PER_BYTE: f64 = 0.1;

/// The estimate of listing `job`'s solutions in `format` on `threads` threads, up to `limit`
/// of them when given.
pub fn listing(job: &Job, format: Kind, limit: Option<u64>, threads: usize) -> ListingEstimate {
    let n = job.n();
    let kept = kept(job);
    // The search, as a number of solutions of the whole board's speed; the solutions listed.
    let walked = solutions(n) * kept.nodes;
    let listed = if job.unique() {
        unique_solutions(n)
    } else {
        solutions(n) * kept.solutions
    };
    // A limit ends the walk early: its share of the listing, taken as evenly spread.
    let part = limit.map_or(1.0, |k| {
        if listed > 0.0 {
            (k as f64 / listed).min(1.0)
        } else {
            1.0
        }
    });
    let bytes = listed * part * format.bytes_per_solution(n) as f64;
    let secs = (walked * part * LIST_NS_PER_SOLUTION + bytes * LIST_NS_PER_BYTE) * 1e-9;
    let threads = if n > crate::solutions::MAX_PARALLEL_N {
        1
    } else {
        threads
    };
    ListingEstimate {
        solutions: listed * part,
        bytes,
        cpu: Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX),
        threads,
    }
}

/// The number of solutions distinct up to symmetry for N, published (N ≤ 27) or taken as an
/// eighth of the extrapolated total (nearly every class has eight members).
fn unique_solutions(n: u32) -> f64 {
    known::published(n).map_or(solutions(n) / 8.0, |p| p.unique as f64)
}

impl ListingEstimate {
    /// Whether the listing may start unconfirmed: at most [`CONFIRM_ABOVE`] of CPU time, and
    /// at most `room` bytes where it writes, when that is known (a file on a disk).
    pub fn check(&self, room: Option<u64>) -> Result<(), ListingTooLarge> {
        let too_long = self.cpu > CONFIRM_ABOVE;
        let too_big = room.filter(|&r| self.bytes > r as f64);
        if !too_long && too_big.is_none() {
            return Ok(());
        }
        Err(ListingTooLarge {
            estimate: *self,
            too_long,
            room: too_big,
        })
    }
}

/// A listing estimated to take more than [`CONFIRM_ABOVE`] of CPU time, or to write more than
/// the disk has room for, not confirmed.
#[derive(Clone, Debug, PartialEq, Error)]
#[error(
    "the listing is estimated to write {} solutions, {}, in {}, more than {}",
    amount(estimate.solutions),
    human_bytes(estimate.bytes),
    CpuTime { cpu: estimate.cpu, threads: estimate.threads },
    limits(*too_long, *room)
)]
pub struct ListingTooLarge {
    /// The estimate.
    pub estimate: ListingEstimate,
    /// Whether it would take more than [`CONFIRM_ABOVE`] of CPU time.
    pub too_long: bool,
    /// The free bytes where the listing goes, when it would write more.
    pub room: Option<u64>,
}

impl crate::Classify for ListingTooLarge {
    fn class(&self) -> crate::Class {
        crate::Class::Request
    }
}

/// The limits a listing would pass, in words.
fn limits(too_long: bool, room: Option<u64>) -> String {
    let time = too_long.then(|| format!("the {} a run may take unconfirmed", human(CONFIRM_ABOVE)));
    let room = room.map(|r| format!("the {} free where it goes", human_bytes(r as f64)));
    match (time, room) {
        (Some(t), Some(r)) => format!("{t} and {r}"),
        (t, r) => t.or(r).unwrap_or_default(),
    }
}

/// A number of solutions in words: exact to a billion ("14772512"), then to two significant
/// digits ("2.2e15").
fn amount(x: f64) -> String {
    if x < 1e9 {
        format!("about {x:.0}")
    } else {
        format!("about {x:.1e}")
    }
}

/// A size in bytes in words, to two or three significant digits: "900 bytes", "4.2 GB".
pub(crate) fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 7] = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut value = b;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} bytes")
    } else if value < 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

/// The share of a job's estimated work in `units`, given every unit's estimated cost
/// ([`Plan::costs`]): 1 for all of them, 0 for none.
pub(crate) fn share(costs: &[u64], units: impl IntoIterator<Item = u32>) -> f64 {
    let all: u128 = costs.iter().map(|&c| u128::from(c)).sum();
    let part: u128 = units
        .into_iter()
        .map(|i| u128::from(costs[i as usize]))
        .sum();
    if all == 0 {
        0.0
    } else {
        part as f64 / all as f64
    }
}

/// Whether a run of estimated CPU time `cpu` on `threads` threads may start: unconfirmed, only
/// up to [`CONFIRM_ABOVE`].
pub fn check(cpu: Duration, threads: usize, confirmed: bool) -> Result<(), TooLong> {
    if confirmed {
        return Ok(());
    }
    check_against(cpu, threads, CONFIRM_ABOVE)
}

/// Whether a run of estimated CPU time `cpu` on `threads` threads stays within `limit`.
pub(crate) fn check_against(cpu: Duration, threads: usize, limit: Duration) -> Result<(), TooLong> {
    if cpu <= limit {
        return Ok(());
    }
    Err(TooLong {
        cpu,
        cores: threads.clamp(1, num_cpus::get().max(1)),
        limit,
    })
}

/// An estimated CPU time and the threads it runs on, in words: "6.7 hours of CPU time (about
/// 3.3 hours on 2 cores)", at most as many cores as the machine has. Every estimate is said so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuTime {
    /// The CPU time.
    pub cpu: Duration,
    /// The threads of the run.
    pub threads: usize,
}

impl std::fmt::Display for CpuTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cores = self.threads.clamp(1, num_cpus::get().max(1));
        let plural = if cores == 1 { "core" } else { "cores" };
        write!(
            f,
            "{} of CPU time (about {} on {cores} {plural})",
            human(self.cpu),
            human(self.cpu / cores as u32)
        )
    }
}

/// A duration in words, to two or three significant digits: "45 s", "13 min", "1.9 hours",
/// "6.5 days", "202 years".
pub(crate) fn human(d: Duration) -> String {
    let s = d.as_secs_f64();
    let (value, unit) = if s < 60.0 {
        (s, "s")
    } else if s < 3600.0 {
        (s / 60.0, "min")
    } else if s < 86_400.0 * 2.0 {
        (s / 3600.0, "hours")
    } else if s < 86_400.0 * 365.25 * 2.0 {
        (s / 86_400.0, "days")
    } else {
        (s / (86_400.0 * 365.25), "years")
    };
    let text = if value < 10.0 {
        let t = format!("{value:.1}");
        t.strip_suffix(".0").map_or(t.clone(), str::to_string)
    } else {
        format!("{value:.0}")
    };
    let unit = if unit == "hours" && text == "1" {
        "hour"
    } else {
        unit
    };
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hours(d: Duration) -> f64 {
        d.as_secs_f64() / 3600.0
    }

    #[test]
    fn the_model_matches_the_table_of_performance_md() {
        let edge = |n| cpu_time_of(n, Method::Edge, true, Kernel::Avx512);
        // The fit: 8.9 ns per solution; measured 6.07 s, 43.0 s and 345 s of CPU at N = 18,
        // 19 and 20 (within 3 %), the estimate within 25 % of each.
        for (n, measured) in [(18, 6.07), (19, 43.0), (20, 345.0)] {
            let ratio = edge(n).as_secs_f64() / measured;
            assert!((0.75..1.25).contains(&ratio), "N = {n}: {ratio}");
        }
        // The table: N = 18 5.9 s, 20 5.8 min, 21 47 min, 22 6.7 h, 27 581 000 h, 28 6.33
        // million h.
        assert!((5.8..6.0).contains(&edge(18).as_secs_f64()));
        assert!((5.7..5.9).contains(&(edge(20).as_secs_f64() / 60.0)));
        assert!((0.77..0.79).contains(&hours(edge(21))));
        assert!((6.6..6.7).contains(&hours(edge(22))));
        assert!((5.75e5..5.85e5).contains(&hours(edge(27))));
        assert!((6.25e6..6.4e6).contains(&hours(edge(28))));
        assert!(edge(32) > edge(31) && edge(31) > edge(28));
        assert_eq!(edge(3), Duration::ZERO);
        // Unique counts cost edge and d4 nothing; d4 takes twice edge's time.
        assert_eq!(
            cpu_time_of(20, Method::Edge, false, Kernel::Avx512),
            edge(20)
        );
        let d4 = cpu_time_of(20, Method::D4, true, Kernel::Avx512);
        assert_eq!(d4, cpu_time_of(20, Method::D4, false, Kernel::Avx512));
        assert!((d4.as_secs_f64() / edge(20).as_secs_f64() - 2.0).abs() < 1e-9);
        // Slower methods and kernels take longer, each by its own factor.
        let slower = [
            cpu_time_of(20, Method::Mirror, false, Kernel::Avx512),
            cpu_time_of(20, Method::Plain, false, Kernel::Avx512),
            cpu_time_of(20, Method::Plain, true, Kernel::Avx512),
            cpu_time_of(20, Method::Edge, true, Kernel::Avx2),
            cpu_time_of(20, Method::Edge, true, Kernel::Portable),
            cpu_time_of(20, Method::Edge, true, Kernel::Dfs),
        ];
        assert!(slower.iter().all(|&t| t > edge(20)));
        for k in Kernel::ALL {
            let t = cpu_time_of(20, Method::Edge, true, k).as_secs_f64();
            assert!(
                (t / edge(20).as_secs_f64() - k.cpu_time_factor()).abs() < 1e-9,
                "{k}"
            );
        }
    }

    #[test]
    fn listings_are_estimated_and_checked() {
        // Every solution takes the same bytes in a format: "1 5 8 6 3 7 2 4\n".
        let eight = Job::new(8).unwrap();
        let all = listing(&eight, Kind::Columns, None, 2);
        assert_eq!((all.solutions, all.bytes), (92.0, 92.0 * 16.0));
        let unique = listing(&eight.clone().with_unique(true), Kind::Columns, None, 2);
        assert_eq!(unique.solutions, 12.0);
        // A limit takes its share of the listing.
        let half = listing(&eight, Kind::Columns, Some(46), 2);
        assert_eq!((half.solutions, half.bytes), (46.0, 46.0 * 16.0));
        assert!((half.cpu.as_secs_f64() * 2.0 - all.cpu.as_secs_f64()).abs() < 1e-8);
        assert_eq!(listing(&eight, Kind::Columns, Some(1000), 2), all);
        // N = 16 in columns: 576 MB in seconds; refused only where less room is left.
        let sixteen = listing(&Job::new(16).unwrap(), Kind::Columns, None, 2);
        assert_eq!(sixteen.bytes, 14_772_512.0 * 39.0);
        assert!(sixteen.check(None).is_ok() && sixteen.check(Some(1 << 30)).is_ok());
        let e = sixteen.check(Some(100_000_000)).unwrap_err();
        assert_eq!(e.room, Some(100_000_000));
        assert!(
            e.to_string()
                .ends_with("more than the 100 MB free where it goes"),
            "{e}"
        );
        // N = 25: decades on one thread (no board past 20 is listed by several), unless a
        // limit keeps it short.
        let big = listing(&Job::new(25).unwrap(), Kind::Columns, None, 8);
        assert_eq!(big.threads, 1);
        let e = big.check(Some(80_000_000_000)).unwrap_err().to_string();
        assert!(
            e.ends_with("unconfirmed and the 80 GB free where it goes"),
            "{e}"
        );
        let e = big.check(None).unwrap_err().to_string();
        assert!(
            e.starts_with("the listing is estimated to write about 2.2e15 solutions, 146 PB, in ")
                && e.ends_with("years on 1 core), more than the 1 hour a run may take unconfirmed"),
            "{e}"
        );
        let first = listing(&Job::new(25).unwrap(), Kind::Columns, Some(10), 8);
        assert!(first.check(None).is_ok() && first.bytes == 660.0);
        // Pre-placed queens keep their share of the solutions.
        let placed = Job::new(12)
            .unwrap()
            .with_placed(&[crate::Queen::one_based(1, 1).unwrap()])
            .unwrap();
        let some = listing(&placed, Kind::Columns, None, 2).solutions;
        assert!(some > 0.0 && some < 14200.0 / 4.0, "{some}");
    }

    #[test]
    fn runs_over_an_hour_need_confirmation() {
        let job = |n| Job::new(n).unwrap().with_method(Method::D4);
        let t = |n| cpu_time(&job(n), None, Kernel::Avx512);
        // The default method is estimated faster: N = 21 (0.78 hours) runs unconfirmed with it,
        // N = 22 needs confirming.
        let edge = |n| cpu_time(&Job::new(n).unwrap(), None, Kernel::Avx512);
        assert!(edge(21) < t(21));
        assert!(check(edge(21), 2, false).is_ok());
        assert!(check(edge(22), 2, false).is_err());
        assert!(check(t(20), 2, false).is_ok());
        let e = check(t(21), 2, false).unwrap_err();
        assert_eq!(e.cpu, t(21));
        assert!(check(t(21), 2, true).is_ok());
        let e = check(t(27), 1, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the run is estimated to take 132 years of CPU time (about 132 years on 1 core), \
             more than the 1 hour a run may take unconfirmed"
        );
        // Exactly the limit still runs.
        assert!(check(CONFIRM_ABOVE, 1, false).is_ok());
    }

    #[test]
    fn placed_queens_and_parts_of_a_job_take_their_share() {
        let free = Job::new(24).unwrap();
        let placed = free
            .clone()
            .with_placed(&[crate::Queen { row: 0, col: 3 }])
            .unwrap();
        let all = cpu_time(&free, None, Kernel::Avx512);
        let some = cpu_time(&placed, None, Kernel::Avx512);
        // One queen of 24 fixed: about 1/24 of the work, on the plain method (5.8 times edge).
        assert!(some < all / 2 && some > all / 100, "{some:?} of {all:?}");
        let plan = Plan::new(free);
        let costs = crate::plan::cost::estimate(&plan);
        let n = costs.len() as u32;
        assert_eq!(share(&costs, 0..n), 1.0);
        assert_eq!(share(&costs, []), 0.0);
        let half = crate::longrun::assign::assign(&costs, 2);
        let s = share(&costs, half[0].iter().copied());
        assert!((0.45..0.55).contains(&s), "{s}");
    }

    /// Issue 33, item 2: a queen below the split rows keeps about as much work as one in the
    /// top row (it was estimated 1000 times too low), so a long run with one needs
    /// confirmation and a listing that would fill the disk is refused.
    #[test]
    fn queens_anywhere_keep_their_share_of_the_work() {
        let at = |n: u32, squares: &[(u32, u32)]| {
            let queens: Vec<crate::Queen> = squares
                .iter()
                .map(|&(r, c)| crate::Queen::one_based(r, c).unwrap())
                .collect();
            Job::new(n).unwrap().with_placed(&queens).unwrap()
        };
        let t = |job: &Job| cpu_time(job, None, Kernel::Avx512).as_secs_f64();
        let plain16 = cpu_time_of(16, Method::Plain, false, Kernel::Avx512).as_secs_f64();
        for squares in [&[(8, 8)][..], &[(16, 16)], &[(1, 3)], &[(10, 1)]] {
            // One queen keeps about 1/16 of the work (from 1/30 on the edge to 1/10 inside).
            let share = t(&at(16, squares)) / plain16;
            assert!((0.02..0.15).contains(&share), "{squares:?}: {share}");
        }
        let deep = t(&at(16, &[(8, 8)]));
        let top = t(&at(16, &[(1, 8)]));
        assert!((0.5..2.0).contains(&(deep / top)), "{deep} against {top}");
        // Two queens keep less than one.
        assert!(t(&at(16, &[(8, 8), (9, 1)])) < deep / 4.0);
        assert!(check(
            cpu_time(&at(24, &[(12, 12)]), None, Kernel::Avx512),
            2,
            false
        )
        .is_err());
        let list = |n, squares: &[(u32, u32)]| listing(&at(n, squares), Kind::Columns, None, 2);
        assert!(list(22, &[(11, 11)]).check(None).is_err());
        let small = list(13, &[(7, 7)]);
        assert!(small.check(None).is_ok());
        let e = small.check(Some(4096)).unwrap_err();
        assert_eq!(e.room, Some(4096));
        // Its solutions: about a thirteenth of the 73712 (4456 hold that square).
        assert!(
            (2000.0..8000.0).contains(&small.solutions),
            "{}",
            small.solutions
        );
    }

    #[test]
    fn durations_read_as_words() {
        let run = CpuTime {
            cpu: Duration::from_secs(7200),
            threads: 1,
        };
        assert_eq!(
            run.to_string(),
            "2 hours of CPU time (about 2 hours on 1 core)"
        );
        assert_eq!(human(Duration::from_secs(45)), "45 s");
        assert_eq!(human(Duration::from_secs(780)), "13 min");
        assert_eq!(human(Duration::from_secs(3600)), "1 hour");
        assert_eq!(human(Duration::from_secs(6840)), "1.9 hours");
        assert_eq!(human(Duration::from_secs(6 * 86_400)), "6 days");
        assert_eq!(human(Duration::from_secs(400 * 86_400)), "400 days");
        assert!(human(Duration::MAX).ends_with("years"));
    }
}
