//! The clocks of a timed run (wall time and the process's CPU time) and the rule for short
//! counts: a count under [`SHORT_COUNT_S`] is repeated within its timed run until the run has
//! lasted the settings' `min_run_ms`, and timed per count; a run still shorter is flagged.
//!
//! A run shorter than `min_run_ms` after one count makes a second, so that one slow first
//! count (cold caches, or worker threads slow to wake on a busy machine) does not pass a short
//! configuration off as a long one.

use std::time::Instant;

/// A single count shorter than this (10 ms) is too short to time alone: the clock's resolution,
/// waking the worker threads and the scheduler weigh on it. It is repeated within its timed run.
pub const SHORT_COUNT_S: f64 = 0.01;

/// The most counts one timed run makes (a count of nanoseconds stops here, flagged).
pub const MAX_COUNTS_PER_RUN: u64 = 1_000_000;

/// The clocks a timed run reads, in seconds from any fixed origin: the wall time, and the CPU
/// time (user + system, all threads) of the process where the platform tells. A closure, so
/// that the repetition rule can be tested with a clock that the test advances.
pub(crate) type Clocks<'a> = &'a mut dyn FnMut() -> (f64, Option<f64>);

/// The real clocks: a monotonic wall clock from `start`, and `getrusage`.
pub(crate) fn real_clocks(start: Instant) -> impl FnMut() -> (f64, Option<f64>) {
    move || (start.elapsed().as_secs_f64(), process_cpu_s())
}

/// CPU time (user + system) of the whole process so far, in seconds.
#[cfg(unix)]
fn process_cpu_s() -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage writes a whole `rusage` into the pointer on success (returns 0).
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return None;
        }
        usage.assume_init()
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Some(secs(usage.ru_utime) + secs(usage.ru_stime))
}

#[cfg(not(unix))]
fn process_cpu_s() -> Option<f64> {
    None
}

/// One timed run of a configuration: one count, or several where one was short.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TimedRun {
    /// Counts made.
    pub counts: u64,
    /// Wall time of the counts alone, per count, seconds.
    pub wall_s: f64,
    /// CPU time of the process over the whole run, per count, seconds (it includes the
    /// harness's bookkeeping between repeated counts: a few microseconds a count).
    pub cpu_s: Option<f64>,
    /// The run's counts were short and it still lasted under the time asked for (the
    /// repetition cap was reached, or repetition is off and its one count took under
    /// [`SHORT_COUNT_S`]).
    pub too_short: bool,
}

/// Makes one timed run: `count` once, and again while the counts have lasted under
/// `min_run_s` in all and either only one count was made or the fastest count took under
/// [`SHORT_COUNT_S`] (at most [`MAX_COUNTS_PER_RUN`] counts). Each count's result goes to
/// `keep` outside the timed intervals; the first error ends the run.
pub(crate) fn timed_run<T, E>(
    clocks: Clocks,
    min_run_s: f64,
    mut count: impl FnMut() -> Result<T, E>,
    mut keep: impl FnMut(T),
) -> Result<TimedRun, E> {
    let cpu0 = clocks().1;
    let (mut counts, mut wall_s, mut fastest_s) = (0u64, 0.0, f64::INFINITY);
    loop {
        let t0 = clocks().0;
        let value = count()?;
        let took = (clocks().0 - t0).max(0.0);
        (wall_s, fastest_s, counts) = (wall_s + took, fastest_s.min(took), counts + 1);
        keep(value);
        let long = counts > 1 && fastest_s >= SHORT_COUNT_S;
        if long || wall_s >= min_run_s || counts >= MAX_COUNTS_PER_RUN {
            break;
        }
    }
    let cpu_s = cpu0
        .zip(clocks().1)
        .map(|(a, b)| (b - a).max(0.0) / counts as f64);
    let wanted_s = if min_run_s > 0.0 {
        min_run_s
    } else {
        SHORT_COUNT_S
    };
    Ok(TimedRun {
        counts,
        wall_s: wall_s / counts as f64,
        cpu_s,
        too_short: fastest_s < SHORT_COUNT_S && wall_s < wanted_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timed run of counts that each take `each_s` on the fake clock.
    fn run(each_s: f64, min_run_s: f64) -> TimedRun {
        run_of(&[each_s], min_run_s)
    }

    /// A timed run of counts that take `first[0]`, `first[1]`, … and then the last of them
    /// on a fake clock that only the counts advance (its CPU time the same).
    fn run_of(first: &[f64], min_run_s: f64) -> TimedRun {
        let now = std::cell::Cell::new(0.0);
        let mut clocks = || (now.get(), Some(now.get()));
        let (mut kept, mut made) = (0u64, 0);
        let count = || -> Result<u64, ()> {
            now.set(now.get() + first[made.min(first.len() - 1)]);
            made += 1;
            Ok(7)
        };
        let run = timed_run(&mut clocks, min_run_s, count, |v| kept += v).unwrap();
        assert_eq!(kept, 7 * run.counts, "every count's result is kept");
        run
    }

    #[test]
    fn a_count_of_10_ms_or_more_is_not_repeated_past_50_ms() {
        // At least 50 ms: one count.
        for each in [0.05, 3.0] {
            let r = run(each, 0.05);
            assert_eq!((r.counts, r.too_short), (1, false), "{each}");
            assert!((r.wall_s - each).abs() < 1e-9);
        }
        // 10 to 50 ms: a second count, which shows the first was not a slow start.
        for each in [0.01, 0.02, 0.04] {
            let r = run(each, 0.05);
            assert_eq!((r.counts, r.too_short), (2, false), "{each}");
        }
    }

    #[test]
    fn a_slow_first_count_does_not_hide_a_short_configuration() {
        // 12 ms to wake the workers, then 0.3 ms a count: 127 more make 50.1 ms.
        let r = run_of(&[0.012, 0.000_3], 0.05);
        assert_eq!(r.counts, 1 + 127);
        assert!(r.wall_s * r.counts as f64 >= 0.05 && !r.too_short);
        // With repetition off, the one count of 12 ms passes.
        assert_eq!(run_of(&[0.012, 0.000_3], 0.0).counts, 1);
    }

    #[test]
    fn a_short_count_is_repeated_until_the_run_lasts_50_ms() {
        // 1/1024 s a count (exact in binary): 51 counts make 49.8 ms, 52 make 50.8 ms.
        let each = 1.0 / 1024.0;
        let r = run(each, 0.05);
        assert_eq!(r.counts, 52);
        assert!(!r.too_short);
        assert_eq!((r.wall_s, r.cpu_s), (each, Some(each)));
        // 9.9 ms: 6 counts, 59.4 ms.
        let r = run(0.0099, 0.05);
        assert_eq!((r.counts, r.too_short), (6, false));
    }

    #[test]
    fn a_run_that_stays_short_is_flagged() {
        // Repetition off: one count of 1 ms, flagged.
        let r = run(0.001, 0.0);
        assert_eq!((r.counts, r.too_short), (1, true));
        // Off, but the count is long enough: not flagged.
        assert!(!run(0.02, 0.0).too_short);
        // A count of a nanosecond reaches the cap long before 50 ms.
        let r = run(1e-9, 0.05);
        assert_eq!((r.counts, r.too_short), (MAX_COUNTS_PER_RUN, true));
    }

    #[test]
    fn an_error_ends_the_run() {
        let mut clocks = real_clocks(Instant::now());
        let mut n = 0;
        let count = || {
            n += 1;
            if n < 3 {
                Ok(())
            } else {
                Err("mismatch")
            }
        };
        let r = timed_run(&mut clocks, 1.0, count, |_| {});
        assert_eq!((r, n), (Err("mismatch"), 3));
    }
}
