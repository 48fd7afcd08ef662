//! Progress of a count on stderr: a bar on a terminal, plain lines in a log. What is shown comes
//! from the library's long run ([`nqueens_count::longrun::Progress`]: the share of the estimated work,
//! corrected by the units' measured times, and the time left); this only draws it, once per
//! finished unit and on the engine's ticks, never from the search itself.
//!
//! The bar's line fits the terminal's width ([`terminal_width`], read at every redraw): a line
//! that wraps cannot be cleared whole, and the part left would stand above the next message.
//! indicatif pads the line to the width it is told and leaves the cursor at its end; it is told
//! [`ECHO_ROOM`] columns fewer than there are ([`stderr_target`]), so that the `^C` a terminal
//! echoes when the user stops a run stays on the bar's line, which the clearing then removes
//! whole.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use nqueens_count::longrun::{clock, LogLines, Progress, SaveEvent, Watch};
use std::io::{IsTerminal, Write};
use std::time::Duration;

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

impl Mode {
    /// The display of a command: none when `quiet`, a bar on a terminal, else a line every
    /// `lines` when asked for.
    pub fn choose(quiet: bool, lines: Option<Duration>) -> Mode {
        match (quiet, std::io::stderr().is_terminal(), lines) {
            (true, _, _) => Mode::Off,
            (false, true, _) => Mode::Bar,
            (false, false, Some(every)) => Mode::Lines(every),
            (false, false, None) => Mode::Off,
        }
    }
}

/// Columns left free at the end of a bar's line: the terminal echoes `^C` after it when the
/// user stops a run, and a line pushed past the width wraps.
pub const ECHO_ROOM: usize = 3;

/// The narrowest width a line is fitted to: below it, the line is cut.
const NARROWEST: usize = 20;

/// The rows and columns of the terminal on stderr (`TIOCGWINSZ`; either is 0 where the
/// terminal does not say). Asked here rather than through `console`, which gives no size at all
/// when the rows are unknown (a pseudo-terminal given only its columns, as `script` makes).
fn window() -> Option<(usize, usize)> {
    #[cfg(unix)]
    {
        let mut size = std::mem::MaybeUninit::<libc::winsize>::zeroed();
        // SAFETY: TIOCGWINSZ writes a `winsize` into the pointer when it returns 0; the buffer
        // is zeroed, so it is a valid `winsize` in every case.
        let (rc, size) = unsafe {
            let rc = libc::ioctl(libc::STDERR_FILENO, libc::TIOCGWINSZ, size.as_mut_ptr());
            (rc, size.assume_init())
        };
        if rc == 0 {
            return Some((usize::from(size.ws_row), usize::from(size.ws_col)));
        }
    }
    None
}

/// The widest line a progress display draws, whatever the terminal says: a line wider than any
/// screen only costs writes (`COLUMNS=100000000` made every redraw 64 KiB).
const WIDEST: usize = 500;

/// The width of the terminal on stderr, in columns: `TIOCGWINSZ`, else `$COLUMNS`, else 80; at
/// most [`WIDEST`].
pub fn terminal_width() -> usize {
    width_of(
        window().map(|(_, cols)| cols),
        std::env::var("COLUMNS").ok().as_deref(),
    )
}

/// The width a line is drawn to, from the terminal's columns (if told) and `$COLUMNS`.
fn width_of(window_cols: Option<usize>, columns: Option<&str>) -> usize {
    let cols = match window_cols {
        Some(cols) if cols > 0 => cols,
        _ => columns
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c > 0)
            .unwrap_or(80),
    };
    cols.min(WIDEST)
}

/// The height of the terminal on stderr, in rows: `TIOCGWINSZ`, else 24.
fn terminal_height() -> usize {
    match window() {
        Some((rows, _)) if rows > 0 => rows,
        _ => 24,
    }
}

/// Standard error as indicatif's terminal, [`ECHO_ROOM`] columns narrower than it is (see the
/// module).
#[derive(Debug)]
struct EchoSafeStderr;

impl EchoSafeStderr {
    fn write(&self, s: &str) -> std::io::Result<()> {
        std::io::stderr().lock().write_all(s.as_bytes())
    }

    /// Moves the cursor `n` cells in the direction of the ANSI final byte `to` (A up, B down,
    /// C right, D left); nothing for 0, which the sequence would read as 1.
    fn cursor(&self, n: usize, to: char) -> std::io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        self.write(&format!("\x1b[{n}{to}"))
    }
}

impl TermLike for EchoSafeStderr {
    fn width(&self) -> u16 {
        let width = terminal_width().max(NARROWEST) - ECHO_ROOM;
        u16::try_from(width).unwrap_or(u16::MAX)
    }
    fn height(&self) -> u16 {
        u16::try_from(terminal_height()).unwrap_or(u16::MAX)
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'A')
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'B')
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'C')
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.cursor(n, 'D')
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.write(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.write("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// A draw target on stderr (a terminal) that leaves room for an echoed `^C` (see the module),
/// redrawn at most 20 times a second.
pub fn stderr_target() -> ProgressDrawTarget {
    ProgressDrawTarget::term_like_with_hz(Box::new(EchoSafeStderr), 20)
}

/// The columns a bar takes in a line `width` columns wide: 30 on a wide terminal, fewer on a
/// narrow one.
pub fn bar_width(width: usize) -> usize {
    (width / 4).clamp(10, 30)
}

/// The longest of `variants` (most detailed first) that fits in `room` columns, else the last
/// cut to fit, ending in `…`.
pub fn fit(variants: &[String], room: usize) -> String {
    let len = |s: &str| s.chars().count();
    if let Some(v) = variants.iter().find(|v| len(v) <= room) {
        return v.clone();
    }
    let last = variants.last().map_or("", String::as_str);
    if room == 0 {
        return String::new();
    }
    let mut cut: String = last.chars().take(room - 1).collect();
    cut.push('…');
    cut
}

/// A bar's style for a line `width` columns wide: the bar, the percentage and the message.
pub fn bar_style(width: usize) -> ProgressStyle {
    ProgressStyle::with_template(&format!(
        "{{bar:{}}} {{percent:>3}}% {{msg}}",
        bar_width(width)
    ))
    .expect("valid template")
}

/// Room for the message after a bar in a line `width` columns wide (the bar, the percentage,
/// their spaces and [`ECHO_ROOM`]).
pub fn message_room(width: usize) -> usize {
    width
        .max(NARROWEST)
        .saturating_sub(bar_width(width) + 6 + ECHO_ROOM)
}

/// Keeps a bar's style fitted to the terminal's width as it changes.
pub struct Fitted {
    width: usize,
}

impl Fitted {
    /// The style of `bar` fitted to the terminal's width now.
    pub fn new(bar: &ProgressBar) -> Fitted {
        let width = terminal_width();
        bar.set_style(bar_style(width));
        Fitted { width }
    }

    /// Refits the style of `bar` if the width changed; the room for its message.
    pub fn room(&mut self, bar: &ProgressBar) -> usize {
        let width = terminal_width();
        if width != self.width {
            self.width = width;
            bar.set_style(bar_style(width));
        }
        message_room(width)
    }
}

/// The progress display of a run.
pub struct Display {
    bar: Option<(ProgressBar, Fitted)>,
    /// The lines of a log (the library's, prefixed as the command's messages are).
    lines: Option<LogLines>,
    /// What the progress counts: `units` (a run's work units), or what [`Display::counting`]
    /// says.
    noun: &'static str,
}

impl Display {
    /// A display in `mode`.
    pub fn new(mode: Mode) -> Display {
        let bar = (mode == Mode::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1_000_000), stderr_target());
            let fitted = Fitted::new(&bar);
            (bar, fitted)
        });
        let lines = match mode {
            Mode::Lines(every) => Some(LogLines::new(every).prefixed("nqueens: progress: ")),
            _ => None,
        };
        Display {
            bar,
            lines,
            noun: "units",
        }
    }

    /// The display, counting `noun` (such as `runs`) rather than units.
    #[cfg(feature = "bench")]
    pub fn counting(self, noun: &'static str) -> Display {
        Display {
            noun,
            lines: self.lines.map(|l| l.counting(noun)),
            ..self
        }
    }

    /// The run ended (finished or stopped): clear the bar, or print the last line in a log.
    pub fn finish(&mut self) {
        if let Some((bar, _)) = &self.bar {
            bar.finish_and_clear();
        } else if let Some(lines) = &mut self.lines {
            lines.finish();
        }
    }
}

impl Watch for Display {
    fn wants_progress(&self) -> bool {
        self.bar.is_some() || self.lines.is_some()
    }

    fn progress(&mut self, p: &Progress) {
        if let Some((bar, fitted)) = &mut self.bar {
            let room = fitted.room(bar);
            bar.set_position((p.fraction * 1e6) as u64);
            bar.set_message(fit(&summaries(p, self.noun), room));
        } else if let Some(lines) = &mut self.lines {
            lines.progress(p);
        }
    }

    /// A save of the checkpoint that failed (or succeeded again) is said at once, above the
    /// bar, even with `--quiet`: the run goes on, but the file lags behind it.
    fn checkpoint(&mut self, event: &SaveEvent<'_>) {
        let level = match event {
            SaveEvent::Failed { .. } => "warning: ",
            SaveEvent::Recovered { .. } => "",
        };
        let line = format!("nqueens: {level}{}", super::escape(&event.to_string()));
        match &self.bar {
            Some((bar, _)) => bar.suspend(|| note!("{line}")),
            None => note!("{line}"),
        }
    }
}

/// The bar's message, from the most detailed (units, rate, elapsed time and ETA) to the
/// shortest (the ETA), for [`fit`]; `noun` names the units; the rate outlasts the elapsed time.
fn summaries(p: &Progress, noun: &str) -> Vec<String> {
    let (units, rate, elapsed, eta) = (
        format!("{}/{} {noun}", p.units_done, p.units_total),
        p.rate_of(noun),
        clock(p.elapsed),
        p.eta(),
    );
    vec![
        format!("{units}, {rate}, elapsed {elapsed}, ETA {eta}"),
        format!("{units}, {rate}, ETA {eta}"),
        format!("{units}, ETA {eta}"),
        format!("ETA {eta}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_come_from_the_terminal_then_columns_and_stay_bounded() {
        assert_eq!(width_of(Some(120), Some("60")), 120);
        assert_eq!(width_of(None, Some(" 60 ")), 60);
        assert_eq!(width_of(Some(0), None), 80);
        assert_eq!(width_of(None, Some("wide")), 80);
        assert_eq!(width_of(None, Some("100000000")), WIDEST);
        assert_eq!(width_of(Some(65535), None), WIDEST);
    }

    #[test]
    fn a_bar_line_fits_the_terminal() {
        // A long run at its widest: 6 digits of units, a day and more left.
        let p = Progress {
            units_done: 123_456,
            units_total: 708_526,
            units_this_run: 100_000,
            fraction: 0.174,
            remaining: Some(Duration::from_secs(90_061)),
            elapsed: Duration::from_secs(36_000),
        };
        for width in [20, 40, 60, 79, 80, 100, 120, 200] {
            let msg = fit(&summaries(&p, "units"), message_room(width));
            // The bar, " 17% " and the message, with room for an echoed ^C.
            let line = bar_width(width) + 6 + msg.chars().count();
            assert!(
                line + ECHO_ROOM <= width.max(NARROWEST),
                "{width}: {line} ({msg})"
            );
            if width >= 40 {
                assert!(msg.contains("ETA 1d 1:01:01"), "{width}: {msg}");
            }
        }
        // On 80 columns, the units, the rate and the ETA of this long run (CLUSTER.md promises
        // the rate); at 120, everything.
        let at80 = fit(&summaries(&p, "units"), message_room(80));
        assert_eq!(at80, "123456/708526 units, 2.8 units/s, ETA 1d 1:01:01");
        assert!(fit(&summaries(&p, "units"), message_room(120)).contains("elapsed 10:00:00"));
        // A count of minutes too: its rate rather than its elapsed time.
        let short = Progress {
            units_done: 1_234,
            units_total: 3_206,
            units_this_run: 1_234,
            remaining: Some(Duration::from_secs(207)),
            elapsed: Duration::from_secs(62),
            ..p
        };
        let at80 = fit(&summaries(&short, "units"), message_room(80));
        assert_eq!(at80, "1234/3206 units, 19.9 units/s, ETA 0:03:27");
        // The style's bar is the width counted here.
        assert_eq!(bar_width(80), 20);
        assert_eq!(bar_width(200), 30);
        assert_eq!(bar_width(20), 10);
    }

    #[test]
    fn fitting_cuts_only_what_does_not_fit() {
        let v = vec!["a long message".to_string(), "short".to_string()];
        assert_eq!(fit(&v, 20), "a long message");
        assert_eq!(fit(&v, 5), "short");
        assert_eq!(fit(&v, 4), "sho…");
        assert_eq!(fit(&v, 0), "");
    }
}
