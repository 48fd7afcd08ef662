//! `columns`: one line per solution, the 1-based columns of rows 1, 2, … separated by spaces.

use super::{push_number, Format};

/// The `columns` format.
pub struct Columns;

impl Format for Columns {
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

    #[inline]
    fn solution(&mut self, buf: &mut Vec<u8>, _n: u64, cols: &[u8]) {
        // Every column as "c " from a fixed table, gathered on the stack and appended at once;
        // the last space becomes the newline.
        for part in cols.chunks(PART) {
            // Four spare bytes: a cell is written at `len & (PART * 4 - 1)`, which is `len`
            // itself (at most 4 × 31 before the last cell), and the index stays provably in
            // bounds, so the copy has no bounds check.
            let mut line = [0u8; PART * 4 + 4];
            let mut len = 0usize;
            for &c in part {
                let cell = CELLS[usize::from(c)];
                let at = len & (PART * 4 - 1);
                line[at..at + 4].copy_from_slice(&(cell as u32).to_le_bytes());
                len += (cell >> 32) as usize;
            }
            buf.extend_from_slice(&line[..len]);
        }
        match buf.last_mut() {
            Some(last) if !cols.is_empty() => *last = b'\n',
            _ => buf.push(b'\n'),
        }
    }
}

/// Columns gathered on the stack before each append.
const PART: usize = 32;

/// For each 0-based column byte, "c " with `c` 1-based (1 to 256) in the low four bytes,
/// little-endian, and the length of that text above them.
static CELLS: [u64; 256] = cells();

const fn cells() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let v = (i + 1) as u64;
        let (text, len) = if v < 10 {
            ((b'0' as u64 + v) | (b' ' as u64) << 8, 2)
        } else if v < 100 {
            (
                (b'0' as u64 + v / 10) | (b'0' as u64 + v % 10) << 8 | (b' ' as u64) << 16,
                3,
            )
        } else {
            (
                (b'0' as u64 + v / 100)
                    | (b'0' as u64 + v / 10 % 10) << 8
                    | (b'0' as u64 + v % 10) << 16
                    | (b' ' as u64) << 24,
                4,
            )
        };
        t[i] = text | len << 32;
        i += 1;
    }
    t
}
