//! Output formats for solutions, one file per format behind the [`Format`] trait.
//!
//! A format writes into a byte buffer, one row at a time, so that a solution of any size streams:
//! [`Printer`] hands the buffer to the real writer whenever it fills up, and no solution is ever
//! held in memory whole. Coordinates in the output are 1-based.

mod board;
mod columns;
pub(crate) mod encode;
mod json;
mod matrix;

pub use board::Board;
pub use columns::Columns;
pub use json::JsonLines;
pub use matrix::Matrix;

use crate::error::{Error, Result};
use crate::names::named_enum;
use std::io::{self, Write};

/// The largest board the board-shaped formats print: beyond it a picture has no use.
pub const MAX_BOARD_N: u64 = 1000;

/// One way of writing solutions.
pub trait Format {
    /// The largest board the format accepts, if it has a limit.
    fn max_n(&self) -> Option<u64> {
        None
    }
    /// What is written between two solutions (nothing, or an empty line).
    fn separator(&self) -> &'static [u8] {
        b""
    }
    /// Starts a solution of an `n`×`n` board (nothing, unless the format has an opening).
    fn begin(&mut self, _buf: &mut Vec<u8>, _n: u64) {}
    /// Writes the queen of the 0-based `row`, at the 0-based column `col`; rows come in order.
    fn row(&mut self, buf: &mut Vec<u8>, n: u64, row: u64, col: u64);
    /// Ends a solution (nothing, unless the format has a closing).
    fn end(&mut self, _buf: &mut Vec<u8>, _n: u64) {}
    /// Writes a whole solution of an `n`×`n` board given as its 0-based columns (one byte each,
    /// as the search produces them): the same bytes as `begin`, `row` for every row and `end`.
    /// A format may write it faster at once.
    fn solution(&mut self, buf: &mut Vec<u8>, n: u64, cols: &[u8]) {
        self.begin(buf, n);
        for (row, &c) in (0u64..).zip(cols) {
            self.row(buf, n, row, u64::from(c));
        }
        self.end(buf, n);
    }
}

named_enum! {
    /// The formats by name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Kind as "format" {
        /// One line per solution: the 1-based columns separated by spaces.
        Columns = "columns", "one line per solution: the columns, 1-based";
        /// N lines of `.` and `Q` per solution, solutions separated by an empty line.
        Board = "board", "N lines of . and Q per solution";
        /// N lines of space-separated `0`/`1` per solution, solutions separated by an empty
        /// line.
        Matrix = "matrix", "N lines of 0 and 1 per solution";
        /// JSON Lines: one array of 1-based columns per line.
        Json = "json", "JSON Lines: one array of columns per line";
    }
}

impl Kind {
    /// A writer of this format.
    pub fn format(self) -> Box<dyn Format> {
        match self {
            Kind::Columns => Box::new(Columns),
            Kind::Board => Box::new(Board),
            Kind::Matrix => Box::new(Matrix),
            Kind::Json => Box::new(JsonLines),
        }
    }
}

impl Kind {
    /// The bytes each solution of an `n`×`n` board takes in this format after the first, the
    /// separator included: the same for every solution, whose columns are a permutation of
    /// 1 to `n` (for an estimate of a listing's size before it starts).
    pub fn bytes_per_solution(self, n: u32) -> u64 {
        let written = |solutions: usize| {
            let mut p = Printer::new(self.format(), Vec::new());
            for _ in 0..solutions {
                // Writing into a Vec cannot fail.
                let _ = p.solution(u64::from(n), 0..u64::from(n));
            }
            p.finish().map_or(0, |out| out.len() as u64)
        };
        written(2).saturating_sub(written(1))
    }
}

/// Refuses a board too large for `format`.
pub fn check_size(format: &dyn Format, name: &'static str, n: u64) -> Result<()> {
    match format.max_n() {
        Some(max) if n > max => Err(Error::TooLargeToDraw {
            format: name,
            max,
            n,
        }),
        _ => Ok(()),
    }
}

/// How full the buffer may get before it is written out.
const FLUSH_AT: usize = 1 << 16;

/// Writes solutions in a format to a writer, through one reused buffer: no allocation per
/// solution once the buffer has grown.
pub struct Printer<F: ?Sized, W: Write> {
    out: W,
    buf: Vec<u8>,
    written: u64,
    separator: &'static [u8],
    format: Box<F>,
}

impl<F: Format + ?Sized, W: Write> Printer<F, W> {
    /// A printer of `format` into `out`.
    pub fn new(format: Box<F>, out: W) -> Self {
        Printer {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
            written: 0,
            separator: format.separator(),
            format,
        }
    }

    /// Writes one solution: the 0-based columns of rows 0, 1, … of an `n`×`n` board.
    pub fn solution<I>(&mut self, n: u64, cols: I) -> io::Result<()>
    where
        I: IntoIterator,
        I::Item: Into<u64>,
    {
        if self.written > 0 {
            self.buf.extend_from_slice(self.separator);
        }
        self.format.begin(&mut self.buf, n);
        for (row, c) in (0u64..).zip(cols) {
            self.format.row(&mut self.buf, n, row, c.into());
            if self.buf.len() >= FLUSH_AT {
                self.out.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        self.format.end(&mut self.buf, n);
        self.written += 1;
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes one solution given as the byte columns the search produces (see
    /// [`Format::solution`]): the same output as [`Printer::solution`], with one format call.
    pub fn solution_bytes(&mut self, n: u64, cols: &[u8]) -> io::Result<()> {
        if self.written > 0 {
            self.buf.extend_from_slice(self.separator);
        }
        self.format.solution(&mut self.buf, n, cols);
        self.written += 1;
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// How many solutions were written.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Writes out what is buffered and flushes the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Appends the decimal form of `v`.
#[inline]
fn push_number(buf: &mut Vec<u8>, v: u64) {
    // One and two digits (every listed board) without a copy call; itoa for the rest.
    if v < 10 {
        buf.push(b'0' + v as u8);
    } else if v < 100 {
        buf.push(b'0' + (v / 10) as u8);
        buf.push(b'0' + (v % 10) as u8);
    } else {
        let mut digits = itoa::Buffer::new();
        buf.extend_from_slice(digits.format(v).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(kind: Kind, n: u64, sols: &[&[u8]]) -> String {
        let mut p = Printer::new(kind.format(), Vec::new());
        for s in sols {
            p.solution(n, s.iter().copied()).unwrap();
        }
        assert_eq!(p.written(), sols.len() as u64);
        String::from_utf8(p.finish().unwrap()).unwrap()
    }

    #[test]
    fn every_format_on_the_4_queens() {
        let sols: [&[u8]; 2] = [&[1, 3, 0, 2], &[2, 0, 3, 1]];
        assert_eq!(render(Kind::Columns, 4, &sols), "2 4 1 3\n3 1 4 2\n");
        assert_eq!(render(Kind::Json, 4, &sols), "[2,4,1,3]\n[3,1,4,2]\n");
        assert_eq!(
            render(Kind::Board, 4, &sols),
            ".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n"
        );
        assert_eq!(
            render(Kind::Matrix, 4, &sols[..1]),
            "0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n"
        );
        assert_eq!(render(Kind::Columns, 1, &[&[0]]), "1\n");
        assert_eq!(render(Kind::Board, 1, &[&[0]]), "Q\n");
    }

    #[test]
    fn bytes_per_solution_are_those_written() {
        // Two-digit columns from N = 10 on: a solution of N = 12 in each format.
        let twelve: &[u8] = &[0, 2, 4, 7, 9, 11, 5, 10, 1, 6, 8, 3];
        for kind in Kind::ALL {
            for (n, sol) in [(4, &[1u8, 3, 0, 2][..]), (12, twelve)] {
                let one = render(kind, n, &[sol]).len();
                let two = render(kind, n, &[sol, sol]).len();
                assert_eq!(
                    kind.bytes_per_solution(n as u32),
                    (two - one) as u64,
                    "{kind} {n}"
                );
            }
        }
        assert_eq!(Kind::Columns.bytes_per_solution(12), 27);
        assert_eq!(Kind::Board.bytes_per_solution(4), 21);
    }

    #[test]
    fn whole_solutions_match_row_by_row() {
        let wide: Vec<u8> = (0..=255).rev().collect();
        let sols: [&[u8]; 5] = [&[1, 3, 0, 2], &[0], &[9, 10, 99, 100, 255], &wide, &[]];
        for kind in Kind::ALL {
            for s in sols {
                // Board-shaped formats need every column inside the board.
                let n = s.iter().map(|&c| u64::from(c) + 1).max().unwrap_or(1);
                let mut a = Printer::new(kind.format(), Vec::new());
                let mut b = Printer::new(kind.format(), Vec::new());
                for _ in 0..2 {
                    a.solution(n, s.iter().copied()).unwrap();
                    b.solution_bytes(n, s).unwrap();
                }
                assert_eq!(a.finish().unwrap(), b.finish().unwrap(), "{kind} {s:?}");
            }
        }
    }

    #[test]
    fn large_solutions_stream_through_the_buffer() {
        let n = 100_000u64;
        let mut p = Printer::new(Kind::Columns.format(), Vec::new());
        p.solution(n, 0..n).unwrap();
        let text = String::from_utf8(p.finish().unwrap()).unwrap();
        let nums: Vec<u64> = text
            .trim_end()
            .split(' ')
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(nums, (1..=n).collect::<Vec<_>>());
        assert!(text.ends_with("100000\n"));
    }

    #[test]
    fn names_and_limits() {
        for k in Kind::ALL {
            assert_eq!(k.name().parse::<Kind>().unwrap(), k);
        }
        assert!("svg".parse::<Kind>().is_err());
        let board = Kind::Board.format();
        assert!(check_size(board.as_ref(), "board", 1000).is_ok());
        assert!(check_size(board.as_ref(), "board", 1001).is_err());
        assert!(check_size(Kind::Columns.format().as_ref(), "columns", 1 << 40).is_ok());
    }
}
