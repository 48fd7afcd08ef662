//! `json`: JSON Lines, one array of the 1-based columns of rows 1, 2, … per line.

use super::{push_number, Format};

/// The `json` (JSON Lines) format.
pub struct JsonLines;

impl Format for JsonLines {
    fn begin(&mut self, buf: &mut Vec<u8>, _n: u64) {
        buf.push(b'[');
    }

    #[inline]
    fn row(&mut self, buf: &mut Vec<u8>, _n: u64, row: u64, col: u64) {
        if row > 0 {
            buf.push(b',');
        }
        push_number(buf, col + 1);
    }

    fn end(&mut self, buf: &mut Vec<u8>, _n: u64) {
        buf.extend_from_slice(b"]\n");
    }
}
