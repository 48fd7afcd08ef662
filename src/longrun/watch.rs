//! Where a run's progress goes ([`Watch`]), how a [`Progress`] reads in a log, and a ready
//! [`Watch`] that writes such lines to standard error ([`LogLines`]), for a library user who
//! wants what `nqueens count --progress` prints without writing a display of their own.

use super::progress::Progress;
use super::run::RunError;
use crate::{Counts, UnitTiming};
use std::fmt;
use std::io::Write;
use std::time::{Duration, Instant};

/// Where a run's progress goes (a progress bar, a log line, nothing: `()`).
pub trait Watch {
    /// Called when a unit finishes and at least every [`crate::longrun::Run::tick`] otherwise.
    fn progress(&mut self, _progress: &Progress) {}

    /// Whether [`Watch::progress`] is wanted at all: a watch that shows nothing says no, and
    /// the run then works out no share and no ETA.
    fn wants_progress(&self) -> bool {
        true
    }

    /// Called when a save of the checkpoint fails during the run, and when one succeeds again
    /// after that: the run goes on counting and tries again at the next save, so that a full
    /// disk costs no finished count ([`crate::longrun::Run::checkpoint`]).
    fn checkpoint(&mut self, _event: &SaveEvent<'_>) {}
    /// Called when the unit `index` of the job's plan finishes, with its counts and how the
    /// engine ran it: for a caller that keeps per-unit figures (a unit's time, its share of
    /// the count).
    fn unit_done(&mut self, _index: u32, _counts: Counts, _timing: &UnitTiming) {}
}

impl Watch for () {
    fn wants_progress(&self) -> bool {
        false
    }
}

/// What became of a save of the checkpoint during a run, told to [`Watch::checkpoint`].
#[derive(Debug)]
pub enum SaveEvent<'a> {
    /// A save failed; the run goes on and tries again at the next.
    Failed {
        /// Why.
        error: &'a RunError,
        /// The units the checkpoint on disk holds (from its last save that succeeded).
        holds: usize,
        /// The units of the run.
        of: usize,
    },
    /// A save succeeded after one or more failed.
    Recovered {
        /// The units the checkpoint holds now.
        holds: usize,
        /// The units of the run.
        of: usize,
    },
}

impl fmt::Display for SaveEvent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SaveEvent::Failed { error, holds, of } => write!(
                f,
                "{error}; the checkpoint keeps the {holds} of {of} units of its last save, and \
                 the run goes on counting and tries the save again"
            ),
            SaveEvent::Recovered { holds, of } => {
                write!(
                    f,
                    "the checkpoint is saved again: it holds {holds} of {of} units"
                )
            }
        }
    }
}

impl Progress {
    /// The units finished in this run per second, minute or hour (the first of them with at
    /// least one unit), for runs of milliseconds to months alike: `12.5 units/s`.
    pub fn rate(&self) -> String {
        self.rate_of("units")
    }

    /// [`Progress::rate`] of what `noun` names (`runs`, say), for a caller whose units are
    /// something else.
    pub fn rate_of(&self, noun: &str) -> String {
        let per_sec = self.units_this_run as f64 / self.elapsed.as_secs_f64().max(1e-9);
        let (r, per) = if per_sec >= 1.0 {
            (per_sec, "s")
        } else if per_sec * 60.0 >= 1.0 {
            (per_sec * 60.0, "min")
        } else {
            (per_sec * 3600.0, "h")
        };
        if r >= 100.0 {
            format!("{r:.0} {noun}/{per}")
        } else {
            format!("{r:.1} {noun}/{per}")
        }
    }

    /// The time left as a clock ([`clock`]), or `?` before it can be told.
    pub fn eta(&self) -> String {
        self.remaining.map_or_else(
            || "?".into(),
            |left| clock(Duration::from_secs(left.as_secs_f64().round() as u64)),
        )
    }
}

/// A line of a log: `12.3% of the estimated work, 120/1000 units, 2.1 units/s, elapsed
/// 0:00:57, ETA 0:05:32`.
impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line_of("units"))
    }
}

impl Progress {
    /// The line of [`Progress`]'s `Display`, of what `noun` names.
    pub fn line_of(&self, noun: &str) -> String {
        format!(
            "{:.1}% of the estimated work, {}/{} {noun}, {}, elapsed {}, ETA {}",
            self.fraction * 100.0,
            self.units_done,
            self.units_total,
            self.rate_of(noun),
            clock(self.elapsed),
            self.eta()
        )
    }
}

/// A duration as `h:mm:ss`, or `Nd h:mm:ss` from a day on.
pub fn clock(d: Duration) -> String {
    let s = d.as_secs();
    let (days, h, m, s) = (s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    if days > 0 {
        format!("{days}d {h}:{m:02}:{s:02}")
    } else {
        format!("{h}:{m:02}:{s:02}")
    }
}

/// A [`Watch`] that writes a line of progress to standard error every interval, and the last
/// one when [`LogLines::finish`] is called: a log of a long run, as `nqueens count --progress`
/// writes it. A failed write to stderr is ignored: a message never costs what it reports.
///
/// ```
/// use nqueens_count::longrun::{Finish, LogLines, Run};
/// use nqueens_count::{Engine, Job};
/// use std::time::Duration;
///
/// let engine = Engine::new(2)?;
/// let mut log = LogLines::new(Duration::from_secs(10)).prefixed("n12: ");
/// let finish = Run::new(Job::new(12)?).prepare(&engine)?.execute(&engine, &mut log)?;
/// log.finish();
/// assert!(matches!(finish, Finish::Done(d) if d.report.counts.total == 14200));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct LogLines {
    every: Duration,
    prefix: String,
    noun: &'static str,
    last_line: Instant,
    last: Option<Progress>,
}

impl LogLines {
    /// A line every `every` (the first after `every` has passed).
    pub fn new(every: Duration) -> LogLines {
        LogLines {
            every,
            prefix: String::new(),
            noun: "units",
            last_line: Instant::now(),
            last: None,
        }
    }

    /// The same, each line beginning with `prefix` (`"nqueens: progress: "`).
    pub fn prefixed(mut self, prefix: impl Into<String>) -> LogLines {
        self.prefix = prefix.into();
        self
    }

    /// The same, counting `noun` (`runs`, say) rather than units.
    pub fn counting(mut self, noun: &'static str) -> LogLines {
        self.noun = noun;
        self
    }

    /// The run ended: writes its last progress, if it had any not written yet.
    pub fn finish(&mut self) {
        if let Some(p) = self.last.take() {
            self.write(&p);
        }
    }

    fn write(&self, p: &Progress) {
        let _ = writeln!(std::io::stderr(), "{}{}", self.prefix, p.line_of(self.noun));
    }
}

impl Watch for LogLines {
    fn progress(&mut self, p: &Progress) {
        // Kept for `finish` only while unwritten: the last line is never written twice.
        self.last = Some(*p);
        if self.last_line.elapsed() >= self.every {
            self.last_line = Instant::now();
            self.write(p);
            self.last = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(units_this_run: usize, elapsed_s: u64, remaining: Option<u64>) -> Progress {
        Progress {
            units_done: units_this_run + 10,
            units_total: 1000,
            units_this_run,
            fraction: 0.123,
            remaining: remaining.map(Duration::from_secs),
            elapsed: Duration::from_secs(elapsed_s),
        }
    }

    #[test]
    fn progress_reads_as_a_log_line() {
        assert_eq!(
            progress(110, 57, Some(332)).to_string(),
            "12.3% of the estimated work, 120/1000 units, 1.9 units/s, elapsed 0:00:57, \
             ETA 0:05:32"
        );
        assert_eq!(progress(1, 120, None).eta(), "?");
        assert_eq!(progress(1, 120, None).rate(), "30.0 units/h");
        assert_eq!(progress(3, 120, None).rate(), "1.5 units/min");
        assert_eq!(progress(1, 7200, None).rate(), "0.5 units/h");
        assert_eq!(progress(5000, 10, None).rate(), "500 units/s");
        assert_eq!(clock(Duration::from_secs(3725)), "1:02:05");
        assert_eq!(clock(Duration::from_secs(90000)), "1d 1:00:00");
    }
}
