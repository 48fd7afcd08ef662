//! `columns`: one line per solution, the 1-based columns of rows 1, 2, … separated by spaces.

use super::{push_number, Format};

/// The `columns` format.
pub struct Columns;

impl Format for Columns {
    fn begin(&mut self, _buf: &mut Vec<u8>, _n: u64) {}

    #[inline]
    fn row(&mut self, buf: &mut Vec<u8>, _n: u64, row: u64, col: u64) {
        if row > 0 {
            buf.push(b' ');
        }
        push_number(buf, col + 1);
    }

    fn end(&mut self, buf: &mut Vec<u8>, _n: u64) {
        buf.push(b'\n');
    }
}
