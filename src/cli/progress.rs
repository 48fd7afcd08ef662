//! Progress of a count on stderr: a bar on a terminal, plain lines in a log.
//!
//! Progress is measured in estimated work ([`nqueens::plan::cost`]), not in units, so that the ETA
//! stays honest when the units differ in size, and the estimate is corrected as units finish by
//! their measured times ([`nqueens::plan::eta`]): the share shown is of the corrected work, and
//! the ETA replays the workers' schedule of the units left. It is updated once per finished
//! unit and on the engine's ticks, never from the search itself.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::engine::UnitTiming;
use nqueens::plan::eta::{Eta, Planned};
use std::time::{Duration, Instant};

/// How often the ETA is worked out again at most (a bar is redrawn on every finished unit).
const RECOMPUTE: Duration = Duration::from_millis(250);

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
    eta: Eta,
    /// The last (share done, seconds left) worked out, and when.
    cached: Option<(Instant, f64, Option<f64>)>,
}

impl Progress {
    /// Progress of a job of `units_total` units: this run does `todo` (in the order the engine
    /// starts them) on `threads` workers; earlier runs did `done`.
    pub fn new(
        mode: Mode,
        threads: usize,
        units_total: usize,
        todo: Vec<Planned>,
        done: &[Planned],
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
            units_done: done.len(),
            units_at_start: done.len(),
            eta: Eta::new(threads, todo).with_done_before(done),
            cached: None,
        };
        p.draw();
        p
    }

    /// The unit `index` finished, as the engine timed it.
    pub fn unit_done(&mut self, index: u32, timing: &UnitTiming) {
        self.units_done += 1;
        let (started, elapsed) = (timing.started.as_secs_f64(), timing.elapsed.as_secs_f64());
        self.eta.finished(index, timing.worker, started, elapsed);
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
            self.cached = None;
            eprintln!("{}", self.line());
        }
    }

    fn draw(&mut self) {
        match self.mode {
            Mode::Off => {}
            Mode::Bar => {
                if let Some(bar) = self.bar.clone() {
                    self.update_bar(&bar);
                }
            }
            Mode::Lines(every) => {
                if self.last_line.elapsed() >= every {
                    self.last_line = Instant::now();
                    self.cached = None;
                    eprintln!("{}", self.line());
                }
            }
        }
    }

    fn update_bar(&mut self, bar: &ProgressBar) {
        let (fraction, _) = self.estimate();
        bar.set_position((fraction * 1e6) as u64);
        bar.set_message(self.summary());
    }

    /// The share of the (corrected) estimated work done, 0..=1, and the seconds left if known;
    /// worked out again when [`RECOMPUTE`] has passed or the count of finished units changed
    /// to all.
    fn estimate(&mut self) -> (f64, Option<f64>) {
        let all_done = self.units_done == self.units_total;
        if let Some((at, fraction, left)) = self.cached {
            if at.elapsed() < RECOMPUTE && !all_done {
                return (fraction, left);
            }
        }
        let now = self.start.elapsed().as_secs_f64();
        let (fraction, left) = (self.eta.fraction_done(now), self.eta.remaining(now));
        self.cached = Some((Instant::now(), fraction, left));
        (fraction, left)
    }

    fn summary(&mut self) -> String {
        let (_, left) = self.estimate();
        let elapsed = self.start.elapsed();
        let rate = (self.units_done - self.units_at_start) as f64 / elapsed.as_secs_f64().max(1e-9);
        let eta = left.map_or_else(
            || "?".into(),
            |s| clock(Duration::from_secs_f64(s.clamp(0.0, 1e12).round())),
        );
        format!(
            "{}/{} units, {rate:.1} units/s, elapsed {}, ETA {eta}",
            self.units_done,
            self.units_total,
            clock(elapsed)
        )
    }

    fn line(&mut self) -> String {
        let (fraction, _) = self.estimate();
        format!(
            "nqueens: progress: {:.1}% of the estimated work, {}",
            fraction * 100.0,
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
        let mut p = Progress::new(Mode::Off, 1, 3, all[1..].to_vec(), &all[..1]);
        let (fraction, left) = p.estimate();
        assert!((fraction - 0.1).abs() < 1e-9 && left.is_none());
        let timing = |started: u64, elapsed: u64| UnitTiming {
            worker: 0,
            started: Duration::from_secs(started),
            elapsed: Duration::from_secs(elapsed),
        };
        p.unit_done(1, &timing(0, 9));
        p.cached = None;
        let (fraction, left) = p.estimate();
        assert!((fraction - 0.55).abs() < 1e-9);
        // 45 of the estimate took 9 s (as the engine timed it); the unit left started then.
        assert!(left.unwrap() > 0.0 && left.unwrap() <= 9.0);
        p.unit_done(2, &timing(9, 9));
        assert_eq!(p.estimate(), (1.0, Some(0.0)));
        assert!(p
            .line()
            .starts_with("nqueens: progress: 100.0% of the estimated work, 3/3"));
    }
}
