//! Progress of a count on stderr: a bar on a terminal, plain lines in a log. What is shown comes
//! from the library's long run ([`nqueens::longrun::Progress`]: the share of the estimated work,
//! corrected by the units' measured times, and the time left); this only draws it, once per
//! finished unit and on the engine's ticks, never from the search itself.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens::longrun::{Progress, Watch};
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

/// The progress display of a run.
pub struct Display {
    mode: Mode,
    bar: Option<ProgressBar>,
    last_line: Instant,
    last: Option<Progress>,
}

impl Display {
    /// A display in `mode`.
    pub fn new(mode: Mode) -> Display {
        let bar = (mode == Mode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1_000_000), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {percent:>3}% {msg}")
                    .expect("valid template"),
            );
            bar
        });
        Display {
            mode,
            bar,
            last_line: Instant::now(),
            last: None,
        }
    }

    /// The run ended (finished or stopped): clear the bar, or print the last line in a log.
    pub fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        } else if let (Mode::Lines(_), Some(p)) = (self.mode, &self.last) {
            eprintln!("{}", line(p));
        }
    }
}

impl Watch for Display {
    fn progress(&mut self, p: &Progress) {
        self.last = Some(*p);
        match self.mode {
            Mode::Off => {}
            Mode::Bar => {
                if let Some(bar) = &self.bar {
                    bar.set_position((p.fraction * 1e6) as u64);
                    bar.set_message(summary(p));
                }
            }
            Mode::Lines(every) => {
                if self.last_line.elapsed() >= every {
                    self.last_line = Instant::now();
                    eprintln!("{}", line(p));
                }
            }
        }
    }
}

/// Units, rate, elapsed time and ETA.
fn summary(p: &Progress) -> String {
    let rate = p.units_this_run as f64 / p.elapsed.as_secs_f64().max(1e-9);
    let eta = p.remaining.map_or_else(
        || "?".into(),
        |left| clock(Duration::from_secs(left.as_secs_f64().round() as u64)),
    );
    format!(
        "{}/{} units, {rate:.1} units/s, elapsed {}, ETA {eta}",
        p.units_done,
        p.units_total,
        clock(p.elapsed)
    )
}

/// A progress line for a log.
fn line(p: &Progress) -> String {
    format!(
        "nqueens: progress: {:.1}% of the estimated work, {}",
        p.fraction * 100.0,
        summary(p)
    )
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
    fn a_line_says_share_units_and_eta() {
        let p = Progress {
            units_done: 3,
            units_total: 3,
            units_this_run: 2,
            fraction: 1.0,
            remaining: Some(Duration::ZERO),
            elapsed: Duration::from_secs(2),
        };
        assert_eq!(
            line(&p),
            "nqueens: progress: 100.0% of the estimated work, 3/3 units, 1.0 units/s, \
             elapsed 0:00:02, ETA 0:00:00"
        );
    }
}
