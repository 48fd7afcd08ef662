//! A listing's worker threads started side by side, each on a core of its own.
//!
//! Linux (6.18, on the development VM: 28 spawns of 30) queues a new thread on the core of the
//! thread that spawns it; while the spawning thread keeps that core busy (it is a worker too),
//! the new one waits about 3 ms for its first time on a CPU with another core idle: a tenth of
//! a two-thread listing of N = 14 (`results/2026-12-04-listing-ceiling/NOTE.md`). So the
//! spawning thread steps aside once ([`step_aside`]): the new thread runs at once, on that core,
//! and first moves itself to another core it is allowed ([`Origin::leave`]), then allows every
//! core it was allowed again. Its affinity ends as it began; the spawning thread's is never
//! touched. Elsewhere than Linux, or where a step fails, nothing moves and the thread starts
//! where the system puts it.

/// The core of the thread about to spawn a worker, when the system says.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Origin {
    #[cfg(target_os = "linux")]
    core: Option<usize>,
}

impl Origin {
    /// The calling thread's core, before it spawns.
    pub(crate) fn here() -> Origin {
        Origin {
            #[cfg(target_os = "linux")]
            core: linux::core(),
        }
    }

    /// In the new thread, before its work: where it runs on the origin's core and may use
    /// another, moves there and allows every core it was allowed again. The core it moved to;
    /// `None` when it stayed.
    pub(crate) fn leave(self) -> Option<usize> {
        #[cfg(target_os = "linux")]
        {
            linux::leave(self.core?)
        }
        #[cfg(not(target_os = "linux"))]
        None
    }
}

/// Called by the spawning thread right after a spawn: lets the new thread, queued on this core,
/// run now (and leave it) instead of at the next tick.
pub(crate) fn step_aside() {
    std::thread::yield_now();
}

#[cfg(target_os = "linux")]
mod linux {
    use std::mem::size_of;

    /// The cores a `cpu_set_t` holds.
    pub(super) const BITS: usize = 8 * size_of::<libc::cpu_set_t>();

    /// The cores this thread may use, or `None` when the system does not say (more cores than
    /// a `cpu_set_t` holds, say).
    pub(super) fn allowed() -> Option<libc::cpu_set_t> {
        // SAFETY: a cpu_set_t is plain bits, and all zeros is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid 0 is the calling thread; `set` holds `size_of::<cpu_set_t>()` bytes.
        let got = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
        (got == 0).then_some(set)
    }

    /// Lets the calling thread use `set`, moving it at once if its core is not in it.
    fn allow(set: &libc::cpu_set_t) -> bool {
        // SAFETY: pid 0 is the calling thread; `set` holds `size_of::<cpu_set_t>()` bytes.
        unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set) == 0 }
    }

    /// The core the calling thread runs on.
    pub(super) fn core() -> Option<usize> {
        // SAFETY: reads the core the calling thread runs on; -1 when the system cannot say.
        usize::try_from(unsafe { libc::sched_getcpu() }).ok()
    }

    /// `set` without `core`, or `None` where `core` is past the bits a set holds.
    pub(super) fn without(set: &libc::cpu_set_t, core: usize) -> Option<libc::cpu_set_t> {
        if core >= BITS {
            return None;
        }
        let mut less = *set;
        // SAFETY: `core` is below the set's bit count (checked above).
        unsafe { libc::CPU_CLR(core, &mut less) };
        Some(less)
    }

    /// [`super::Origin::leave`] from core `from`.
    pub(super) fn leave(from: usize) -> Option<usize> {
        if core()? != from {
            return None;
        }
        let allowed = allowed()?;
        let elsewhere = without(&allowed, from)?;
        // SAFETY: counts the bits of a set.
        if unsafe { libc::CPU_COUNT(&elsewhere) } == 0 || !allow(&elsewhere) {
            return None;
        }
        // The thread is on another core now (the call moves it before it returns).
        let moved = core();
        // If this fails the thread keeps the narrower set: every core but one, no wrong result.
        allow(&allowed);
        moved
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::linux::{allowed, core, without, BITS};
    use super::*;

    /// The cores of a set, in order.
    fn cores(set: &libc::cpu_set_t) -> Vec<usize> {
        (0..BITS)
            // SAFETY: every index is below the set's bit count.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, set) })
            .collect()
    }

    #[test]
    fn a_thread_leaves_the_origin_core_and_keeps_its_affinity() {
        std::thread::spawn(|| {
            let before = cores(&allowed().expect("affinity"));
            // The thread may change cores between reading its core and leaving it: then it
            // stays, and the next try starts from where it is.
            let (from, moved) = (0..100)
                .map(|_| {
                    let from = core().expect("core");
                    (from, Origin { core: Some(from) }.leave())
                })
                .find(|(_, moved)| moved.is_some())
                .unwrap_or((usize::MAX, None));
            if before.len() < 2 {
                assert_eq!(moved, None, "one core allowed: nowhere to go");
            } else {
                let to = moved.expect("moved off the origin core");
                assert_ne!(to, from);
                assert!(before.contains(&to), "{to} not among {before:?}");
            }
            assert_eq!(
                cores(&allowed().expect("affinity")),
                before,
                "affinity restored"
            );
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_core_is_taken_out_of_a_set_up_to_the_last_bit() {
        let all = allowed().expect("affinity");
        for core in [0, 1, BITS - 1] {
            let less = without(&all, core).expect("a core the set holds");
            let expected: Vec<usize> = cores(&all).into_iter().filter(|&c| c != core).collect();
            assert_eq!(cores(&less), expected, "without {core}");
        }
        assert!(without(&all, BITS).is_none());
    }

    #[test]
    fn a_thread_away_from_the_origin_stays() {
        std::thread::spawn(|| {
            let before = cores(&allowed().expect("affinity"));
            let here = core().expect("core");
            // An origin this thread is not on: a core it is not allowed, or past every core.
            let away = (0..BITS)
                .find(|c| *c != here && !before.contains(c))
                .unwrap();
            assert_eq!(Origin { core: Some(away) }.leave(), None);
            assert_eq!(Origin { core: None }.leave(), None);
            assert_eq!(cores(&allowed().expect("affinity")), before);
        })
        .join()
        .unwrap();
    }
}
