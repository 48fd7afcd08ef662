//! `board`: each solution as N lines of `.` and `Q` (the queen of each row), solutions
//! separated by an empty line: the `[".Q..", "...Q", "Q...", "..Q."]` shape of the classic
//! exercise, one string per line.

use super::{Format, MAX_BOARD_N};

/// The `board` format.
pub struct Board;

impl Format for Board {
    fn max_n(&self) -> Option<u64> {
        Some(MAX_BOARD_N)
    }

    fn separator(&self) -> &'static [u8] {
        b"\n"
    }

    fn row(&mut self, buf: &mut Vec<u8>, n: u64, _row: u64, col: u64) {
        let start = buf.len();
        buf.resize(start + n as usize, b'.');
        buf[start + col as usize] = b'Q';
        buf.push(b'\n');
    }
}
