//! The clocks of a timed run: wall time and the process's CPU time.

use std::time::Instant;

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

/// One timed run: its result, wall seconds and CPU seconds.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let cpu0 = process_cpu_s();
    let t0 = Instant::now();
    let value = f();
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu0.zip(process_cpu_s()).map(|(a, b)| (b - a).max(0.0));
    (value, wall, cpu)
}
