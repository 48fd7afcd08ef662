//! `matrix`: each solution as N lines of N space-separated `0`/`1` (1 for a queen), solutions
//! separated by an empty line.

use super::{Format, MAX_BOARD_N};

/// The `matrix` format.
pub struct Matrix;

impl Format for Matrix {
    fn max_n(&self) -> Option<u64> {
        Some(MAX_BOARD_N)
    }

    fn separator(&self) -> &'static [u8] {
        b"\n"
    }

    fn row(&mut self, buf: &mut Vec<u8>, n: u64, _row: u64, col: u64) {
        for c in 0..n {
            buf.push(if c == col { b'1' } else { b'0' });
            buf.push(if c + 1 == n { b'\n' } else { b' ' });
        }
    }
}
