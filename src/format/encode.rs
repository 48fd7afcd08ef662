//! Whole solutions of a listed board written at the speed of a copy: each format's text of a
//! row, for every column, worked out once per board (from the format's own
//! [`Format::row`](super::Format::row)), and a solution written as a row of table copies into
//! a byte buffer. No allocation and no digit conversion per solution; the narrow formats
//! (`columns`, `json`) take two rows per copy, from a table of every pair of columns.
//!
//! A solution is written as `separator + begin + row 0 + row 1 + … + end`, the separator first:
//! the bytes of a listing are then the same for every solution (all solutions of a board are
//! permutations of its columns), and the listing is its stream of solutions without the very
//! first separator. The first rows of a solution are written as one precomputed [`Head`] (the
//! rows a search unit shares, see `crate::solutions`).

use super::Kind;

/// The most columns of a board the encoder writes: those a key's five bits a column name
/// (the listing checks that it covers its boards). A power of two: a column is masked with
/// `MAX_N - 1`.
pub(crate) const MAX_N: u32 = 1 << PAIR_BITS;
/// The widest row text of any format on a listed board: a `matrix` row of N = 32
/// (`0 1 … 0\n`, 64 bytes).
const WIDE: usize = 64;
/// The room of a row text in the narrow table (`columns` and `json`, whose rows are at most
/// three bytes: `32 ` or `32,`).
const NARROW: usize = 4;
/// A head of at most this many bytes is copied in one fixed-size move.
const SHORT_HEAD: usize = 32;
/// The most rows a solution's tail may have after its head ([`Encoder::put`]).
pub(crate) const MAX_TAIL: usize = 16;
/// Bits per column in the code of a pair of rows ([`Encoder::put`]).
pub(crate) const PAIR_BITS: u32 = 5;

/// The row texts of one format on one board, each padded to `W` bytes.
struct Cells<const W: usize> {
    /// `text[c]`: a row (not the first) whose queen is in the 0-based column `c`.
    text: [[u8; W]; MAX_N as usize],
    /// The length of each text.
    len: [u8; MAX_N as usize],
}

impl<const W: usize> Cells<W> {
    /// The table of `texts` (one per column), each at most `W` bytes.
    fn new(texts: &[Vec<u8>]) -> Box<Cells<W>> {
        let mut cells = Box::new(Cells {
            text: [[0; W]; MAX_N as usize],
            len: [0; MAX_N as usize],
        });
        for (c, text) in texts.iter().enumerate() {
            cells.text[c][..text.len()].copy_from_slice(text);
            cells.len[c] = text.len() as u8;
        }
        cells
    }

    /// Writes the tail rows `cols` at `pos`; returns the position after them. `out` must have
    /// `W` bytes of room after the last row.
    #[inline(always)]
    fn put(&self, out: &mut [u8], mut pos: usize, cols: &[u8]) -> usize {
        for &c in cols {
            let c = usize::from(c) & (MAX_N as usize - 1);
            out[pos..pos + W].copy_from_slice(&self.text[c]);
            pos += usize::from(self.len[c]);
        }
        pos
    }
}

/// The text of every pair of narrow rows, for the code `first << PAIR_BITS | second`: up to
/// seven bytes, and the length in the top byte, moved eight bytes at a time.
struct Pairs([u64; 1 << (2 * PAIR_BITS)]);

impl Pairs {
    fn new(cells: &Cells<NARROW>) -> Box<Pairs> {
        let mut pairs = Box::new(Pairs([0; 1 << (2 * PAIR_BITS)]));
        for (a, (text_a, &len_a)) in cells.text.iter().zip(&cells.len).enumerate() {
            for (b, (text_b, &len_b)) in cells.text.iter().zip(&cells.len).enumerate() {
                let mut both = [0u8; 8];
                let (la, lb) = (usize::from(len_a), usize::from(len_b));
                both[..la].copy_from_slice(&text_a[..la]);
                both[la..la + lb].copy_from_slice(&text_b[..lb]);
                both[7] = (la + lb) as u8;
                pairs.0[a << PAIR_BITS | b] = u64::from_le_bytes(both);
            }
        }
        pairs
    }
}

/// The row table of a format: narrow texts moved four bytes at a time (and in pairs), or wide
/// ones.
enum Table {
    Narrow(Box<Cells<NARROW>>, Box<Pairs>),
    Wide(Box<Cells<WIDE>>),
}

/// Writes whole solutions of one board in one format (see the module documentation).
pub(crate) struct Encoder {
    n: usize,
    table: Table,
    /// The separator and the opening of a solution.
    open: Vec<u8>,
    /// The first row's texts, where they differ from the others' (`columns`, `json`: no
    /// leading delimiter).
    first: Vec<Vec<u8>>,
    /// The closing, padded to [`NARROW`] bytes, and its length.
    close: [u8; NARROW],
    close_len: usize,
    /// The bytes of one solution, its separator included.
    len: usize,
}

/// The first rows of solutions, written once: the separator, the opening and the rows.
#[derive(Clone, Debug, Default)]
pub(crate) struct Head {
    /// The text, padded with zeros to at least [`SHORT_HEAD`] bytes.
    bytes: Vec<u8>,
    len: usize,
    rows: usize,
}

impl Encoder {
    /// The encoder of `kind` on an `n`×`n` board, `n` from 1 to [`MAX_N`].
    pub(crate) fn new(kind: Kind, n: u32) -> Encoder {
        assert!((1..=MAX_N).contains(&n));
        let mut format = kind.format();
        let n64 = u64::from(n);
        let mut open = format.separator().to_vec();
        format.begin(&mut open, n64);
        let mut close = Vec::new();
        format.end(&mut close, n64);
        assert!(close.len() <= NARROW, "{kind}: a closing of {close:?}");
        let mut texts = |row| -> Vec<Vec<u8>> {
            (0..n64)
                .map(|c| {
                    let mut text = Vec::new();
                    format.row(&mut text, n64, row, c);
                    text
                })
                .collect()
        };
        let first = texts(0);
        let rows = texts(1);
        let widest = rows.iter().map(Vec::len).max().unwrap_or(0);
        assert!(widest <= WIDE, "{kind}: rows of {widest} bytes");
        // A pair of narrow rows and its length fit in eight bytes.
        let table = if widest < NARROW {
            let cells = Cells::new(&rows);
            let pairs = Pairs::new(&cells);
            Table::Narrow(cells, pairs)
        } else {
            Table::Wide(Cells::new(&rows))
        };
        let mut e = Encoder {
            n: n as usize,
            table,
            open,
            first,
            close: [0; NARROW],
            close_len: close.len(),
            len: 0,
        };
        e.close[..close.len()].copy_from_slice(&close);
        let mut head = Head::default();
        e.head(&[0], &mut head);
        e.len = head.len + (1..n).map(|c| e.row_len(c as usize)).sum::<usize>() + e.close_len;
        e
    }

    /// The bytes of one solution, its separator included: [`Kind::bytes_per_solution`].
    pub(crate) fn solution_len(&self) -> usize {
        self.len
    }

    /// The room [`Encoder::put`] needs after its position: a solution and the padding of the
    /// widest move.
    pub(crate) fn room(&self) -> usize {
        self.len + WIDE + SHORT_HEAD
    }

    fn row_len(&self, c: usize) -> usize {
        match &self.table {
            Table::Narrow(t, _) => usize::from(t.len[c]),
            Table::Wide(t) => usize::from(t.len[c]),
        }
    }

    /// Sets `head` to the separator, the opening and the rows `prefix` (0-based columns, at
    /// least one row) of the solutions that start with them.
    pub(crate) fn head(&self, prefix: &[u8], head: &mut Head) {
        assert!(!prefix.is_empty() && prefix.len() <= self.n);
        let b = &mut head.bytes;
        b.clear();
        b.extend_from_slice(&self.open);
        b.extend_from_slice(&self.first[usize::from(prefix[0])]);
        for &c in &prefix[1..] {
            let c = usize::from(c);
            match &self.table {
                Table::Narrow(t, _) => b.extend_from_slice(&t.text[c][..usize::from(t.len[c])]),
                Table::Wide(t) => b.extend_from_slice(&t.text[c][..usize::from(t.len[c])]),
            }
        }
        head.len = b.len();
        head.rows = prefix.len();
        b.resize(head.len.max(SHORT_HEAD), 0);
    }

    /// Writes at `pos` the solution made of `head` and the rows after it (the rest of the
    /// board's rows), given two at a time: `pairs`, each the code `first << PAIR_BITS |
    /// second` of two rows' 0-based columns, then `odd`, the last row's column, when their
    /// number is odd. Returns the position after the solution; `out` must have
    /// [`Encoder::room`] bytes from `pos`.
    #[inline(always)]
    pub(crate) fn put(
        &self,
        out: &mut [u8],
        pos: usize,
        head: &Head,
        pairs: impl IntoIterator<Item = u32>,
        odd: Option<u8>,
    ) -> usize {
        let out = &mut out[pos..pos + self.room()];
        if head.len <= SHORT_HEAD {
            out[..SHORT_HEAD].copy_from_slice(&head.bytes[..SHORT_HEAD]);
        } else {
            out[..head.len].copy_from_slice(&head.bytes[..head.len]);
        }
        let mut at = head.len;
        let mask = (1 << (2 * PAIR_BITS)) - 1;
        match &self.table {
            Table::Narrow(cells, two) => {
                for pair in pairs {
                    let text = two.0[(pair & mask) as usize];
                    out[at..at + 8].copy_from_slice(&text.to_le_bytes());
                    at += (text >> 56) as usize;
                }
                at = cells.put(out, at, odd.as_slice());
            }
            Table::Wide(cells) => {
                for pair in pairs {
                    let both = [(pair >> PAIR_BITS) as u8, pair as u8];
                    at = cells.put(out, at, &both);
                }
                at = cells.put(out, at, odd.as_slice());
            }
        }
        out[at..at + NARROW].copy_from_slice(&self.close);
        pos + at + self.close_len
    }
}

/// The pairs and the odd row of [`Encoder::put`] for the 0-based columns `tail`.
#[cfg(test)]
pub(crate) fn pairs_of(tail: &[u8]) -> (Vec<u32>, Option<u8>) {
    let pairs = tail
        .chunks_exact(2)
        .map(|p| u32::from(p[0]) << PAIR_BITS | u32::from(p[1]))
        .collect();
    let odd = (tail.len() % 2 == 1).then(|| tail[tail.len() - 1]);
    (pairs, odd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Printer;

    /// Every format, every board to N = 32: the encoder writes what the format's own
    /// `solution` writes, for heads of every length.
    #[test]
    fn solutions_are_the_formats_own_bytes() {
        for kind in Kind::ALL {
            for n in 1..=MAX_N {
                let enc = Encoder::new(kind, n);
                // Two solutions: columns ascending and descending (the encoder does not check
                // that they are solutions; the bytes depend on the columns only).
                let up: Vec<u8> = (0..n as u8).collect();
                let down: Vec<u8> = up.iter().rev().copied().collect();
                let mut p = Printer::new(kind.format(), Vec::new());
                p.solution_bytes(u64::from(n), &up).unwrap();
                p.solution_bytes(u64::from(n), &down).unwrap();
                let expect = p.finish().unwrap();
                assert_eq!(enc.solution_len(), kind.bytes_per_solution(n) as usize);
                for rows in 1..=n as usize {
                    if n as usize - rows > MAX_TAIL {
                        continue;
                    }
                    let mut out = vec![0u8; 2 * enc.room()];
                    let mut head = Head::default();
                    enc.head(&up[..rows], &mut head);
                    let (pairs, odd) = pairs_of(&up[rows..]);
                    let mid = enc.put(&mut out, 0, &head, pairs, odd);
                    enc.head(&down[..rows], &mut head);
                    let (pairs, odd) = pairs_of(&down[rows..]);
                    let end = enc.put(&mut out, mid, &head, pairs, odd);
                    assert_eq!(end - mid, enc.solution_len(), "{kind} {n} {rows}");
                    let sep = kind.format().separator().len();
                    assert!(
                        out[sep..end] == expect[..],
                        "{kind} n = {n}, head of {rows} rows: {:?}",
                        String::from_utf8_lossy(&out[sep..end])
                    );
                }
            }
        }
    }
}
