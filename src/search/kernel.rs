//! The choice of search kernel: the code that walks one unit's tree. Every kernel gives the same
//! counts; they differ in speed and in the processors that can run them.

use super::Searches;
use crate::error::Error;
use crate::names::{named_enum, Named};
use std::cell::Cell;
use std::str::FromStr;
use std::sync::OnceLock;

named_enum! {
    /// The code that walks a unit's tree: the depth-first search or the lanes of a vector unit.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Kernel as "kernel": custom_parse {
        /// The depth-first search with bound masks, one node at a time: any processor.
        Dfs = "dfs", "one node at a time, any processor";
        /// Eight lanes with nothing beyond the target's baseline: SSE2 on x86-64, plain arrays
        /// elsewhere (vectorized by the compiler where the target has vectors): any processor.
        /// What `auto` runs where no kernel below can (x86-64 without AVX2, other
        /// architectures).
        Portable = "portable", "8 lanes, any processor: SSE2 on x86-64";
        /// Sixteen lanes of NEON (Advanced SIMD): aarch64 only.
        Neon = "neon", "16 lanes, aarch64";
        /// Eight lanes of AVX2.
        Avx2 = "avx2", "8 lanes";
        /// Sixteen lanes of AVX-512 (AVX-512F).
        Avx512 = "avx512", "16 lanes";
    }
}

impl Kernel {
    /// The kernel called `name`, if any.
    pub fn from_name(name: &str) -> Option<Kernel> {
        <Kernel as Named>::from_name(name)
    }

    /// Whether this processor can run it: it has every feature the kernel is compiled for
    /// (the `target_feature` lists in `search/lanes/`), not only the vector width. A virtual
    /// machine may offer AVX2 and hide BMI1, for instance.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        let scalar = || {
            std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1")
                && std::arch::is_x86_feature_detected!("lzcnt")
        };
        match self {
            Kernel::Dfs | Kernel::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2 => std::arch::is_x86_feature_detected!("avx2") && scalar(),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => std::arch::is_x86_feature_detected!("avx512f") && scalar(),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon => std::arch::is_aarch64_feature_detected!("neon"),
            _ => false,
        }
    }

    /// The CPU time of a count on this kernel against the same count on the AVX-512 lanes, the
    /// reference of the CPU-time model (`crate::longrun::estimate`): measured side by side on
    /// one thread with the default method (`scripts/timing.sh model`, figures in
    /// `docs/PERFORMANCE.md`). NEON runs on other processors, where it is the fastest kernel:
    /// rated as the reference is (its speed is not measured, and other processors differ by a
    /// constant factor anyway). Every kernel names its factor here: a new one must say its own.
    pub fn cpu_time_factor(self) -> f64 {
        match self {
            Kernel::Avx512 | Kernel::Neon => 1.0,
            Kernel::Avx2 => AVX2_FACTOR,
            Kernel::Portable => PORTABLE_FACTOR,
            Kernel::Dfs => DFS_FACTOR,
        }
    }

    /// The fastest kernel this processor can run (decided once).
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| Kernel::best_of(Kernel::available))
    }

    /// The fastest kernel of those `can_run` accepts: the last of [`Kernel::ALL`].
    fn best_of(can_run: impl Fn(Kernel) -> bool) -> Kernel {
        Kernel::ALL
            .into_iter()
            .rev()
            .find(|&k| can_run(k))
            .unwrap_or(Kernel::Dfs)
    }
}

/// [`Kernel::cpu_time_factor`] of the AVX2 lanes.
const AVX2_FACTOR: f64 = 1.3;
/// [`Kernel::cpu_time_factor`] of the portable lanes.
const PORTABLE_FACTOR: f64 = 3.5;
/// [`Kernel::cpu_time_factor`] of the depth-first search.
const DFS_FACTOR: f64 = 9.2;

/// A kernel as the searches run it: which kernel, the fewest rows below a prefix for which
/// its lanes take over from the depth-first search (smaller trees are searched depth first:
/// filling the lanes costs more than it gains there), and where the searches it runs are
/// tallied. Passed down with every search, so that an engine sets the threshold of its own runs
/// ([`crate::Engine::with_lane_min_rows`]) and gets back where each unit's searches went.
#[derive(Clone, Copy, Debug)]
pub struct Runner<'a> {
    /// The kernel.
    pub kernel: Kernel,
    /// The lane threshold, in rows below the prefix ([`super::lanes::MIN_ROWS`] by default).
    pub lane_min_rows: u32,
    /// Where each search is counted, on the lanes or depth first; `None`: nowhere.
    pub tally: Option<&'a Cell<Searches>>,
}

impl Runner<'_> {
    /// Counts one search in the tally, on the lanes or depth first.
    pub(crate) fn record(&self, on_lanes: bool) {
        if let Some(tally) = self.tally {
            let mut s = tally.get();
            if on_lanes {
                s.lanes += 1;
            } else {
                s.depth_first += 1;
            }
            tally.set(s);
        }
    }
}

impl From<Kernel> for Runner<'_> {
    /// `kernel` with the default lane threshold, tallying nothing.
    fn from(kernel: Kernel) -> Self {
        Runner {
            kernel,
            lane_min_rows: super::lanes::MIN_ROWS,
            tally: None,
        }
    }
}

impl FromStr for Kernel {
    type Err = Error;
    /// A kernel by name; `auto` is [`Kernel::best`]. Refused if this processor cannot run it.
    fn from_str(s: &str) -> Result<Kernel, Error> {
        let kernel = match s {
            "auto" => Kernel::best(),
            _ => Kernel::from_name(s).ok_or_else(|| Error::UnknownName {
                what: "kernel",
                name: s.to_string(),
                expected: Kernel::choices_in_words(&[]),
            })?,
        };
        if !kernel.available() {
            return Err(Error::KernelUnavailable { kernel });
        }
        Ok(kernel)
    }
}

impl Kernel {
    /// The names a kernel is chosen by, in words, fastest first after `auto`, with `more` at
    /// the end: "auto, avx512, avx2, neon, portable or dfs".
    pub fn choices_in_words(more: &[&str]) -> String {
        let mut names = vec!["auto"];
        names.extend(Kernel::ALL.iter().rev().map(|k| k.name()));
        names.extend_from_slice(more);
        crate::names::words(&names)
    }
}

#[cfg(test)]
mod tests {
    use super::Kernel::{self, *};

    #[test]
    fn auto_takes_the_fastest_the_processor_has() {
        let best = |set: &[Kernel]| Kernel::best_of(|k| set.contains(&k));
        // x86-64 with AVX-512, with AVX2 only, without AVX2; aarch64; any other processor.
        assert_eq!(best(&[Dfs, Portable, Avx2, Avx512]), Avx512);
        assert_eq!(best(&[Dfs, Portable, Avx2]), Avx2);
        assert_eq!(best(&[Dfs, Portable]), Portable);
        assert_eq!(best(&[Dfs, Portable, Neon]), Neon);
        assert_eq!(best(&[Dfs]), Dfs);
        assert_eq!(Kernel::best(), Kernel::best_of(Kernel::available));
        assert!(Dfs.available() && Portable.available());
    }

    #[test]
    fn a_kernel_the_processor_lacks_is_refused_by_name() {
        assert_eq!("portable".parse::<Kernel>().unwrap(), Portable);
        assert_eq!("auto".parse::<Kernel>().unwrap(), Kernel::best());
        for k in Kernel::ALL {
            let parsed = k.name().parse::<Kernel>();
            assert_eq!(parsed.is_ok(), k.available(), "{k}");
            if let Err(e) = parsed {
                assert!(e.to_string().contains("this processor cannot run"), "{e}");
            }
        }
        let e = "sse".parse::<Kernel>().unwrap_err().to_string();
        assert!(
            e.contains("expected auto, avx512, avx2, neon, portable or dfs"),
            "{e}"
        );
    }
}
