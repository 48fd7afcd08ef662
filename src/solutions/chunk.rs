//! Formatted solutions in chunks of bytes, and the one place that writes them: the pieces of a
//! listing ([`super::ordered`]) formatted into a fixed buffer ([`Filler`]), and the buffers
//! written in order, the first separator dropped and the listing cut at its limit ([`Output`]).

use super::ordered::{Keys, Lister, Piece};
use crate::format::encode::{Encoder, Head};
use std::io::{self, Write};
use std::ops::ControlFlow;

/// The bytes of a chunk: a listing is written in one `write` call per chunk.
pub(crate) const CHUNK_BYTES: usize = 256 << 10;

/// A buffer of formatted solutions: `bytes[..len]`, of a fixed capacity so that each solution
/// is written at a position without growing it. The default has no buffer: it stands in for a
/// chunk taken away, and is replaced before anything is formatted into it.
#[derive(Default)]
pub(crate) struct Chunk {
    bytes: Vec<u8>,
    len: usize,
}

impl Chunk {
    /// An empty chunk of [`CHUNK_BYTES`].
    pub(crate) fn new() -> Chunk {
        Chunk::from_buffer(Vec::new())
    }

    /// An empty chunk in `bytes` (a buffer of an earlier chunk, or a new one).
    pub(crate) fn from_buffer(mut bytes: Vec<u8>) -> Chunk {
        bytes.resize(CHUNK_BYTES, 0);
        Chunk { bytes, len: 0 }
    }

    /// The formatted solutions.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Whether it holds no solution.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets its solutions.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Its buffer, for another chunk.
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.bytes
    }
}

/// Formats the solutions of pieces into chunks; one per thread.
pub(crate) struct Filler<'a> {
    lister: &'a Lister,
    encoder: &'a Encoder,
    keys: Keys,
    head: Head,
}

impl<'a> Filler<'a> {
    pub(crate) fn new(lister: &'a Lister, encoder: &'a Encoder) -> Filler<'a> {
        assert!(encoder.room() <= CHUNK_BYTES);
        Filler {
            lister,
            encoder,
            keys: Keys::default(),
            head: Head::default(),
        }
    }

    /// Appends the solutions of `piece` to `chunk` in order, calling `full` on the chunk
    /// whenever it has no room for another solution (`full` takes its bytes and empties it);
    /// `full` breaking stops the piece. Returns the bytes appended.
    pub(crate) fn piece<F: FnMut(&mut Chunk) -> ControlFlow<()>>(
        &mut self,
        piece: &Piece,
        chunk: &mut Chunk,
        mut full: F,
    ) -> ControlFlow<(), usize> {
        let (lister, enc) = (self.lister, self.encoder);
        lister.solve(piece, &mut self.keys);
        let keys = self.keys.sorted();
        if keys.is_empty() {
            return ControlFlow::Continue(0);
        }
        enc.head(piece.prefix(lister.depth()), &mut self.head);
        // The loop for the number of pairs of rows below the piece: unrolled.
        let fill = match lister.rows_below() / 2 {
            0 => fill::<0, F>,
            1 => fill::<1, F>,
            2 => fill::<2, F>,
            3 => fill::<3, F>,
            4 => fill::<4, F>,
            5 => fill::<5, F>,
            _ => fill::<6, F>,
        };
        fill(lister, enc, piece, &self.head, keys, chunk, &mut full)?;
        ControlFlow::Continue(keys.len() * enc.solution_len())
    }
}

/// Appends the solutions `keys` of `piece` to `chunk` (see [`Filler::piece`]), `P` pairs of
/// rows below the piece.
#[inline(always)]
fn fill<const P: usize, F: FnMut(&mut Chunk) -> ControlFlow<()>>(
    lister: &Lister,
    enc: &Encoder,
    piece: &Piece,
    head: &Head,
    keys: &[u64],
    chunk: &mut Chunk,
    full: &mut F,
) -> ControlFlow<()> {
    let rest = lister.rest(piece);
    let room = enc.room();
    for &key in keys {
        if chunk.len + room > chunk.bytes.len() {
            full(chunk)?;
        }
        let (pairs, odd) = lister.rows::<P>(rest, key);
        chunk.len = enc.put(&mut chunk.bytes, chunk.len, head, pairs, odd);
    }
    ControlFlow::Continue(())
}

/// Where the chunks go: the writer, the listing's first separator dropped, and the limit.
pub(crate) struct Output<W: Write> {
    out: W,
    /// The bytes of a solution, its separator included.
    solution: u64,
    /// Bytes of the separator before the first solution, not written.
    skip: u64,
    /// Bytes of the listing's stream (solutions with their separators) taken so far.
    taken: u64,
    /// Where the stream ends: the limit's solutions, if any.
    end: Option<u64>,
}

impl<W: Write> Output<W> {
    /// An output of solutions of `encoder`'s length into `out`, up to `limit` solutions.
    pub(crate) fn new(out: W, encoder: &Encoder, skip: usize, limit: Option<u64>) -> Output<W> {
        let solution = encoder.solution_len() as u64;
        Output {
            out,
            solution,
            skip: skip as u64,
            taken: 0,
            end: limit.map(|k| k.saturating_mul(solution)),
        }
    }

    /// Writes the next `bytes` of the stream (whole solutions) in one call, up to the limit;
    /// `Break` once the limit is reached.
    pub(crate) fn write(&mut self, bytes: &[u8]) -> io::Result<ControlFlow<()>> {
        let len = bytes.len() as u64;
        let keep = self.end.map_or(len, |end| len.min(end - self.taken));
        let from = self.skip.saturating_sub(self.taken).min(keep);
        if keep > from {
            self.out.write_all(&bytes[from as usize..keep as usize])?;
        }
        self.taken += keep;
        Ok(if Some(self.taken) == self.end {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    }

    /// Whether the limit is reached.
    pub(crate) fn done(&self) -> bool {
        Some(self.taken) == self.end
    }

    /// The writer.
    #[cfg(test)]
    pub(crate) fn into_inner(self) -> W {
        self.out
    }

    /// Flushes the writer; returns the solutions written.
    pub(crate) fn finish(mut self) -> io::Result<u64> {
        self.out.flush()?;
        Ok(self.taken / self.solution)
    }
}
