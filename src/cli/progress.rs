//! Progress of a count on stderr: a bar on a terminal, plain lines in a log.
//!
//! Progress is measured in estimated work ([`nqueens::plan::cost`]), not in units, so that the ETA
//! stays honest when the units differ in size; it is updated once per finished unit and on the
//! engine's ticks, never from the search itself.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Not at all.
    Off,
    /// An indicatif bar (stderr is a terminal).
    Bar,
    /// A plain line every so often (stderr is a log).
    Lines(Duration),
}

/// The state of the progress display.
pub struct Progress {
    mode: Mode,
    bar: Option<ProgressBar>,
    start: Instant,
    last_line: Instant,
    units_total: usize,
    units_done: usize,
    units_at_start: usize,
    cost_total: u128,
    cost_done: u128,
    cost_at_start: u128,
}

impl Progress {
    /// Progress of a run of `units_total` units of estimated total cost `cost_total`, of which
    /// `units_done` (costing `cost_done`) were finished by earlier runs.
    pub fn new(
        mode: Mode,
        units_total: usize,
        units_done: usize,
        cost_total: u128,
        cost_done: u128,
    ) -> Progress {
        let bar = (mode == Mode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1_000_000), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {percent:>3}% {msg}")
                    .expect("valid template"),
            );
            bar
        });
        let now = Instant::now();
        let mut p = Progress {
            mode,
            bar,
            start: now,
            last_line: now,
            units_total,
            units_done,
            units_at_start: units_done,
            cost_total: cost_total.max(1),
            cost_done,
            cost_at_start: cost_done,
        };
        p.draw();
        p
    }

    /// A unit of estimated cost `cost` finished.
    pub fn unit_done(&mut self, cost: u64) {
        self.units_done += 1;
        self.cost_done += u128::from(cost);
        self.draw();
    }

    /// Time passed: refresh the display if it is due.
    pub fn tick(&mut self) {
        self.draw();
    }

    /// The run ended (finished or stopped): clear the bar, or print the last line in a log.
    pub fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        } else if let Mode::Lines(_) = self.mode {
            eprintln!("{}", self.line());
        }
    }

    fn draw(&mut self) {
        match self.mode {
            Mode::Off => {}
            Mode::Bar => {
                if let Some(bar) = &self.bar {
                    self.update_bar(bar);
                }
            }
            Mode::Lines(every) => {
                if self.last_line.elapsed() >= every {
                    self.last_line = Instant::now();
                    eprintln!("{}", self.line());
                }
            }
        }
    }

    fn update_bar(&self, bar: &ProgressBar) {
        bar.set_position((self.fraction() * 1e6) as u64);
        bar.set_message(self.summary());
    }

    /// The share of the estimated work done, 0..=1.
    fn fraction(&self) -> f64 {
        (self.cost_done as f64 / self.cost_total as f64).min(1.0)
    }

    /// The expected time to the end, from the rate of estimated work in this run.
    fn eta(&self) -> Option<Duration> {
        let run_cost = self.cost_done - self.cost_at_start;
        if run_cost == 0 {
            return None;
        }
        let left = self.cost_total.saturating_sub(self.cost_done) as f64;
        let secs = self.start.elapsed().as_secs_f64() * left / run_cost as f64;
        Some(Duration::from_secs_f64(secs.min(1e12)))
    }

    fn summary(&self) -> String {
        let elapsed = self.start.elapsed();
        let rate = (self.units_done - self.units_at_start) as f64 / elapsed.as_secs_f64().max(1e-9);
        let eta = self.eta().map_or_else(|| "?".into(), clock);
        format!(
            "{}/{} units, {rate:.1} units/s, elapsed {}, ETA {eta}",
            self.units_done,
            self.units_total,
            clock(elapsed)
        )
    }

    fn line(&self) -> String {
        format!(
            "nqueens: progress: {:.1}% of the estimated work, {}",
            self.fraction() * 100.0,
            self.summary()
        )
    }
}

/// A duration as `h:mm:ss` (or `Nd h:mm:ss`).
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    let (days, h, m, s) = (s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    if days > 0 {
        format!("{days}d {h}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_format() {
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(clock(Duration::from_secs(90000)), "1d 1:00:00");
    }

    #[test]
    fn eta_follows_estimated_work() {
        let mut p = Progress::new(Mode::Off, 4, 1, 100, 10);
        assert_eq!(p.eta(), None);
        p.unit_done(45);
        assert!((p.fraction() - 0.55).abs() < 1e-9);
        // 45 of the 90 left were done in this run: as long again to go.
        let eta = p.eta().unwrap().as_secs_f64();
        let took = p.start.elapsed().as_secs_f64();
        assert!(eta <= took + 1e-3);
    }
}
