//! How much CPU time a job will take, known before it starts, so that a run of centuries
//! (`verify --max 27`, a typo of N) is not started by accident.
//!
//! The model is the one in `docs/PERFORMANCE.md` ("Expected CPU time", with the runs it was
//! fitted on): on the project's development machine (AMD EPYC with AVX-512), the d4 method on
//! the AVX-512 lanes takes 12.67 s of CPU for N = 18, and the time per solution grows by about
//! 4 % per N, so
//!
//! > CPU time(N) = 12.67 s × a(N) / a(18) × 1.04^(N − 18)
//!
//! with a(N) the published number of solutions (OEIS A000170), extrapolated beyond N = 27 (the
//! ratio a(N+1)/a(N) grows by about 0.4 per N, 10.5 at N = 27). Each method scales it by its
//! factor against d4 (`Search::cpu_time_factor` of `search::method`: edge 0.5, mirror 1.5,
//! plain 3, and 3.4 more for unique counts with mirror or plain, which classify every
//! solution), each kernel by its own (AVX2 lanes 1.4, the portable lanes 3.5, the depth-first kernel 6). Pre-placed queens scale it by the share of the estimated cost ([`Plan::costs`]) that their
//! units keep. Other processors differ by a constant
//! factor: the estimate says whether a run takes minutes or months, not to the minute.
//!
//! A part of a job (one shard, or what a checkpoint leaves to do) takes its share of the
//! estimated cost of the units.

use crate::known;
use crate::plan::{cost, Job, Method, Plan};
use crate::Kernel;
use std::time::Duration;
use thiserror::Error;

/// A run estimated to take more CPU time than this needs the user's confirmation.
pub const CONFIRM_ABOVE: Duration = Duration::from_secs(3600);

/// CPU seconds of the reference count (N = [`REF_N`], d4, AVX-512, one thread).
const REF_SECONDS: f64 = 12.67;
/// The board size of the reference count.
const REF_N: u32 = 18;
/// Growth of the time per solution per N.
const GROWTH_PER_N: f64 = 1.04;

/// A run estimated to take more CPU time than [`CONFIRM_ABOVE`], not confirmed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "the run is estimated to take {} of CPU time (about {} on {cores} {}), more than the {} \
     a run may take unconfirmed",
    human(*cpu),
    human(*cpu / (*cores).max(1) as u32),
    if *cores == 1 { "core" } else { "cores" },
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
    let method_factor = method.search().cpu_time_factor(unique);
    let kernel_factor = match kernel {
        Kernel::Dfs => 6.0,
        Kernel::Avx2 => 1.4,
        // Measured against AVX-512 on one thread, interleaved: 3.5 at N = 17 and 18
        // (results/2026-12-01-2core-vm-portable). NEON is never on this machine: not scaled.
        Kernel::Portable => 3.5,
        _ => 1.0,
    };
    let reference = solutions(REF_N);
    let secs = REF_SECONDS * solutions(n) / reference
        * GROWTH_PER_N.powi(n as i32 - REF_N as i32)
        * method_factor
        * kernel_factor;
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

/// The estimated CPU time of a whole job (`plan` is the job's plan when the caller has it; it is
/// only needed, and made when missing, for pre-placed queens).
pub fn cpu_time(job: &Job, plan: Option<&Plan>, kernel: Kernel) -> Duration {
    if job.placed().is_empty() {
        return cpu_time_of(job.n(), job.method(), job.unique(), kernel);
    }
    let made;
    let plan = match plan {
        Some(p) => p,
        None => {
            made = Plan::new(job.clone());
            &made
        }
    };
    // The placed queens keep this share of the same job's estimated work without them, split
    // alike (the edge method's estimates depend on the rows its units fix).
    let free = Job::new(job.n())
        .expect("the job's N is valid")
        .with_method(plan.method())
        .with_split_depth(job.split_depth())
        .expect("the job's split depth fits its board");
    let free = Plan::new(free);
    let raw = |p: &Plan| -> f64 { p.units().iter().map(|u| cost::estimate_unit(p, u)).sum() };
    let whole = raw(&free);
    let kept = if whole > 0.0 {
        (raw(plan) / whole).min(1.0)
    } else {
        0.0
    };
    cpu_time_of(job.n(), plan.method(), job.unique(), kernel).mul_f64(kept)
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

/// A duration in words, to two or three significant digits: "45 s", "13 min", "1.9 hours",
/// "6.5 days", "202 years".
pub fn human(d: Duration) -> String {
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
        let d4 = |n| cpu_time_of(n, Method::D4, false, Kernel::Avx512);
        assert!((d4(18).as_secs_f64() - 12.67).abs() < 1e-9);
        // The table: N = 20 13 min, 21 1.9 h, 22 17 h, 27 1.77 million h, 28 20.0 million h.
        assert!((12.0..14.0).contains(&(d4(20).as_secs_f64() / 60.0)));
        assert!((1.8..2.0).contains(&hours(d4(21))));
        assert!((16.0..18.0).contains(&hours(d4(22))));
        assert!((1.7e6..1.85e6).contains(&hours(d4(27))));
        assert!((19e6..21e6).contains(&hours(d4(28))));
        assert!(d4(32) > d4(31) && d4(31) > d4(28));
        assert_eq!(d4(3), Duration::ZERO);
        // Slower methods and kernels take longer; unique costs d4 nothing.
        assert_eq!(cpu_time_of(20, Method::D4, true, Kernel::Avx512), d4(20));
        let slower = [
            cpu_time_of(20, Method::Mirror, false, Kernel::Avx512),
            cpu_time_of(20, Method::Plain, false, Kernel::Avx512),
            cpu_time_of(20, Method::Plain, true, Kernel::Avx512),
            cpu_time_of(20, Method::D4, false, Kernel::Avx2),
            cpu_time_of(20, Method::D4, false, Kernel::Dfs),
        ];
        assert!(slower.iter().all(|&t| t > d4(20)));
    }

    #[test]
    fn runs_over_an_hour_need_confirmation() {
        let job = |n| Job::new(n).unwrap().with_method(Method::D4);
        let t = |n| cpu_time(&job(n), None, Kernel::Avx512);
        // The default method is estimated faster: N = 21 (0.94 hours) runs unconfirmed with it,
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
            "the run is estimated to take 202 years of CPU time (about 202 years on 1 core), \
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
        // One queen of 24 fixed: about 1/24 of the work, on the plain method (3 times d4).
        assert!(some < all / 2 && some > all / 100, "{some:?} of {all:?}");
        let plan = Plan::new(free);
        let costs = cost::estimate(&plan);
        let n = costs.len() as u32;
        assert_eq!(share(&costs, 0..n), 1.0);
        assert_eq!(share(&costs, []), 0.0);
        let half = crate::longrun::shard::assign(&costs, 2);
        let s = share(&costs, half[0].iter().copied());
        assert!((0.45..0.55).contains(&s), "{s}");
    }

    #[test]
    fn durations_read_as_words() {
        assert_eq!(human(Duration::from_secs(45)), "45 s");
        assert_eq!(human(Duration::from_secs(780)), "13 min");
        assert_eq!(human(Duration::from_secs(3600)), "1 hour");
        assert_eq!(human(Duration::from_secs(6840)), "1.9 hours");
        assert_eq!(human(Duration::from_secs(6 * 86_400)), "6 days");
        assert_eq!(human(Duration::from_secs(400 * 86_400)), "400 days");
        assert!(human(Duration::MAX).ends_with("years"));
    }
}
