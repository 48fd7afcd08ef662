//! The expected wall time of the benchmark's work ahead: of every step (the timed runs of one
//! configuration, or the count of one N's search nodes), for the progress bar's share and ETA and
//! for the open range's budget ([`super::Settings::budget_s`]).
//!
//! A kind of work measured at some N is expected to take at another N its measured time grown
//! by the ratio of the CPU-time model ([`crate::longrun::estimate::cpu_time_of`]) between the
//! two board sizes. Before it is measured, its time comes from the model itself, scaled by the
//! machine's speed as measured so far (the median of measured ÷ modelled over the work timed;
//! the model's own reference machine before that). A timed run's length then follows the
//! repetition rule of [`super::timing`]: a short count is repeated until the run has lasted
//! `min_run_ms`.

use super::timing::SHORT_COUNT_S;
use super::Settings;
use crate::longrun::estimate::cpu_time_of;
use crate::{Kernel, Method};
use std::collections::HashMap;

/// A kind of work of the benchmark, alike at every N.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Work {
    /// A timed run of the serial solver.
    Serial,
    /// A timed run of the engine with `method` on `threads` threads.
    Engine {
        /// The method.
        method: Method,
        /// Worker threads.
        threads: usize,
    },
    /// Counting the search nodes of the plans of one N: of every configuration (`full`), or of
    /// the scaling method's alone.
    Nodes {
        /// Every configuration was measured.
        full: bool,
    },
}

/// Expected times, learned from the measurements as they come.
#[derive(Clone, Debug)]
pub(crate) struct Forecast {
    kernel: Kernel,
    cores: usize,
    methods: Vec<Method>,
    scaling: Method,
    unique: bool,
    min_run_s: f64,
    /// Per kind of work: the last N it was measured at, and its seconds there (per count for
    /// timed runs, the whole step for nodes).
    measured: HashMap<Work, (u32, f64)>,
    /// Measured ÷ modelled seconds of the timed runs of at least [`SHORT_COUNT_S`] so far.
    speed: Vec<f64>,
}

impl Forecast {
    /// A forecast of what `settings` measure on a machine of `cores` logical cores.
    pub(crate) fn new(settings: &Settings, cores: usize) -> Self {
        Forecast {
            kernel: settings.kernel,
            cores: cores.max(1),
            methods: settings.methods.clone(),
            scaling: settings.scaling_method(),
            unique: settings.unique,
            min_run_s: settings.min_run_s(),
            measured: HashMap::new(),
            speed: Vec::new(),
        }
    }

    /// The model's seconds of `work` at `n` on the reference machine.
    fn model(&self, work: Work, n: u32) -> f64 {
        let cpu = |m, k| cpu_time_of(n, m, false, k).as_secs_f64();
        match work {
            Work::Serial => cpu(Method::SERIAL, Kernel::Dfs),
            Work::Engine { method, threads } => {
                let count = cpu_time_of(n, method, self.unique, self.kernel).as_secs_f64();
                count / threads.clamp(1, self.cores) as f64
            }
            // An instrumented depth-first walk of the serial solver's trees and of each
            // method's, on every core.
            Work::Nodes { full: true } => {
                let walks: f64 = self.methods.iter().map(|&m| cpu(m, Kernel::Dfs)).sum();
                (cpu(Method::SERIAL, Kernel::Dfs) + walks) / self.cores as f64
            }
            Work::Nodes { full: false } => cpu(self.scaling, Kernel::Dfs) / self.cores as f64,
        }
    }

    /// The machine's speed against the model's reference: measured ÷ modelled seconds.
    fn speed(&self) -> f64 {
        super::stats::median(&self.speed).unwrap_or(1.0)
    }

    /// The expected seconds of one count of `work` at `n` (for [`Work::Nodes`], of the step).
    /// The model's time grows by the ratio of the published counts and 4 % per N: the
    /// measured time of the same work at another N, grown by it, is the best guess.
    pub(crate) fn count_s(&self, work: Work, n: u32) -> f64 {
        // The nodes of the scaling method alone (past N = 17 in an open range) are never
        // measured before they are needed; those of every configuration are, and the walk is
        // alike: the one scales to the other by the model.
        let like = match work {
            Work::Nodes { full } => Some(Work::Nodes { full: !full }),
            _ => None,
        };
        match self
            .measured
            .get(&work)
            .map(|&m| (work, m))
            .or_else(|| like.and_then(|l| Some((l, *self.measured.get(&l)?))))
        {
            Some((kind, (m, secs))) => secs * self.model(work, n) / self.model(kind, m),
            None => self.model(work, n) * self.speed(),
        }
    }

    /// The expected seconds of a timed run whose counts take `count_s` each: one count, two
    /// where it lasts under `min_run_s`, as many as make `min_run_s` where it is under
    /// [`SHORT_COUNT_S`].
    pub(crate) fn run_s(&self, count_s: f64) -> f64 {
        if self.min_run_s <= 0.0 || count_s >= self.min_run_s {
            count_s
        } else if count_s >= SHORT_COUNT_S {
            2.0 * count_s
        } else {
            self.min_run_s.max(count_s)
        }
    }

    /// The expected seconds of one step of `work` at `n`: a timed run, or the nodes' count.
    pub(crate) fn step_s(&self, work: Work, n: u32) -> f64 {
        let count = self.count_s(work, n);
        match work {
            Work::Nodes { .. } => count,
            _ => self.run_s(count),
        }
    }

    /// `work` took `secs` at `n` (per count for a timed run, the whole step for nodes).
    pub(crate) fn measured(&mut self, work: Work, n: u32, secs: f64) {
        // The model gives no time to boards without solutions (N = 2 and 3): there is nothing
        // to scale from, and a measurement there would grow without bound by the ratio.
        let model = self.model(work, n);
        if !(secs.is_finite() && secs > 0.0 && model > 0.0) {
            return;
        }
        if !matches!(work, Work::Nodes { .. }) && secs >= SHORT_COUNT_S {
            self.speed.push(secs / model);
        }
        self.measured.insert(work, (n, secs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Edge (the scaling method) and mirror with the AVX-512 kernel, runs of short counts
    /// repeated to `min_run_ms`, on 2 cores.
    fn with(methods: &[Method], min_run_ms: u32) -> Forecast {
        let settings = Settings {
            methods: methods.to_vec(),
            kernel: Kernel::Avx512,
            min_run_ms,
            ..Settings::defaults(2)
        };
        assert_eq!(settings.scaling_method(), Method::Edge);
        Forecast::new(&settings, 2)
    }

    fn forecast() -> Forecast {
        with(&[Method::Edge, Method::Mirror], 50)
    }

    #[test]
    fn a_run_follows_the_repetition_rule() {
        let f = forecast();
        assert_eq!(f.run_s(3.0), 3.0);
        assert_eq!(f.run_s(0.02), 0.04);
        assert_eq!(f.run_s(0.0001), 0.05);
        let off = with(&[Method::Edge], 0);
        assert_eq!(off.run_s(0.0001), 0.0001);
    }

    #[test]
    fn a_measured_time_grows_by_the_model() {
        let mut f = forecast();
        let edge = Work::Engine {
            method: Method::Edge,
            threads: 1,
        };
        // The model's own ratio between N = 17 and 18 (its solutions ratio, 6.95, and 4 %).
        let ratio = f.model(edge, 18) / f.model(edge, 17);
        assert!((ratio - 6.95 * 1.04).abs() < 0.01, "{ratio}");
        f.measured(edge, 17, 0.9);
        assert!((f.count_s(edge, 18) - 0.9 * ratio).abs() < 1e-9);
        // Unmeasured work: the model at the machine's measured speed (0.9 s against the model's
        // 0.55 s for edge at N = 17 on the reference machine).
        let speed = 0.9 / f.model(edge, 17);
        let two = Work::Engine {
            method: Method::Edge,
            threads: 2,
        };
        assert!((f.count_s(two, 18) - f.model(two, 18) * speed).abs() < 1e-9);
        assert!((f.count_s(Work::Serial, 16) - f.model(Work::Serial, 16) * speed).abs() < 1e-9);
        // Short counts say nothing of the speed: waking threads weighs on them.
        f.measured(two, 10, 0.001);
        assert!((f.speed() - speed).abs() < 1e-12);
    }

    #[test]
    fn the_serial_solver_and_mirror_weigh_more_than_edge() {
        let f = forecast();
        let edge = Work::Engine {
            method: Method::Edge,
            threads: 1,
        };
        let mirror = Work::Engine {
            method: Method::Mirror,
            threads: 1,
        };
        assert!(f.step_s(mirror, 17) > 2.5 * f.step_s(edge, 17));
        assert!(f.step_s(Work::Serial, 17) > 5.0 * f.step_s(mirror, 17));
        // Small boards: a run of repeated counts.
        assert_eq!(f.step_s(edge, 10), 0.05);
    }

    #[test]
    fn the_scaling_method_s_nodes_follow_those_of_every_configuration() {
        let mut f = forecast();
        let (full, scaling) = (Work::Nodes { full: true }, Work::Nodes { full: false });
        f.measured(full, 17, 12.0);
        let want = 12.0 * f.model(scaling, 18) / f.model(full, 17);
        assert!((f.count_s(scaling, 18) - want).abs() < 1e-9);
        // Measured itself, its own time counts.
        f.measured(scaling, 18, 5.0);
        assert!(
            (f.count_s(scaling, 19) - 5.0 * f.model(scaling, 19) / f.model(scaling, 18)).abs()
                < 1e-9
        );
    }

    #[test]
    fn boards_without_solutions_teach_nothing() {
        let mut f = forecast();
        let edge = Work::Engine {
            method: Method::Edge,
            threads: 1,
        };
        let before = f.count_s(edge, 4);
        // N = 2 and 3 have no solutions: the model gives them no time, so their measured
        // times cannot be scaled (they were, to 1e280 s at N = 4).
        f.measured(edge, 3, 0.001);
        f.measured(Work::Serial, 2, 0.0005);
        assert_eq!(f.count_s(edge, 4), before);
        assert!(f.count_s(edge, 4) < 1.0 && f.count_s(Work::Serial, 4) < 1.0);
        f.measured(edge, 4, 0.001);
        assert!(f.count_s(edge, 5) < 1.0);
    }
}
