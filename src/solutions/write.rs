//! Every solution of a job written in a format, in lexicographic order, on one thread or
//! several: the public entry point, and the path of one thread.
//!
//! The solutions come from the lane search, piece by piece, sorted within each piece
//! ([`super::ordered`]), are formatted into chunks of bytes without allocating
//! ([`super::chunk`]), and each chunk is written in one call. On several threads the pieces go
//! to workers in batches and the chunks are written in order, one worker at a time
//! ([`super::parallel`]): the bytes are the same for any thread count. Boards past
//! [`MAX_PARALLEL_N`] are listed depth first, solution by solution, as before.

use super::chunk::{Chunk, Filler, Output};
use super::ordered::Lister;
use crate::error::Error;
use crate::format::encode::Encoder;
use crate::format::{Format, Kind, Printer};
use crate::plan::Job;
use std::io::{self, Write};
use std::ops::ControlFlow;

/// The largest board listed from the lane search, on several threads. Larger boards are
/// listed depth first on the calling thread, solution by solution: a listing of them is for
/// `--limit` only (N = 21 has 314 billion solutions), and their first solutions lie behind
/// millions of placements of the first rows without one, which the lane search would each
/// start and stop (`list 32 --limit 1`: a minute instead of a second).
pub const MAX_PARALLEL_N: u32 = 20;

/// How to write the solutions of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// The output format.
    pub format: Kind,
    /// Stop after this many solutions.
    pub limit: Option<u64>,
    /// Worker threads; 1 writes from the calling thread alone.
    pub threads: usize,
}

/// Why writing solutions failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The request cannot be carried out: it is invalid (for example unique with pre-placed
    /// queens), or the worker threads could not be started ([`Error::ThreadPool`]).
    #[error(transparent)]
    Invalid(#[from] Error),
    /// Writing the output failed (a closed pipe, a full disk).
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// The request's fault for an invalid request; the machine's for threads that would not start
/// or output that could not be written.
impl crate::Classify for WriteError {
    fn class(&self) -> crate::Class {
        match self {
            WriteError::Invalid(e) => crate::Classify::class(e),
            WriteError::Io(_) => crate::Class::Machine,
        }
    }
}

/// Writes every solution of `job` (see [`super::for_each_solution`]: lexicographic order,
/// canonical members only with [`Job::unique`]) to `out` in `opts.format`, on `opts.threads`
/// threads (for N up to [`MAX_PARALLEL_N`]); the output does not depend on the thread count.
/// Returns the number written. On several threads the workers write, so `out` must be `Send`:
/// `std::io::stdout()`, a `File` or a `Vec` is, a `StdoutLock` is not.
///
/// ```
/// use nqueens_count::solutions::{write_solutions, WriteOptions};
/// use nqueens_count::{format::Kind, Job};
///
/// let mut out = Vec::new();
/// let opts = WriteOptions { format: Kind::Columns, limit: Some(2), threads: 2 };
/// write_solutions(&Job::new(6)?, &opts, &mut out).unwrap();
/// assert_eq!(out, b"2 4 6 1 3 5\n3 6 2 5 1 4\n");
/// # Ok::<(), nqueens_count::Error>(())
/// ```
pub fn write_solutions<W: Write + Send>(
    job: &Job,
    opts: &WriteOptions,
    out: W,
) -> Result<u64, WriteError> {
    crate::plan::check_threads(opts.threads)?;
    super::check_listing(job)?;
    let format = opts.format.format();
    crate::format::check_size(format.as_ref(), opts.format.name(), u64::from(job.n()))?;
    if opts.limit == Some(0) {
        return Ok(0);
    }
    if job.n() > MAX_PARALLEL_N {
        return write_depth_first(job, format, opts.limit, out);
    }
    let lister = Lister::new(job);
    let encoder = Encoder::new(opts.format, job.n());
    let mut output = Output::new(out, &encoder, format.separator().len(), opts.limit);
    if opts.threads == 1 {
        write_serial(&lister, &encoder, &mut output)?;
    } else {
        super::parallel::write(&lister, &encoder, opts.threads, &mut output)?;
    }
    Ok(output.finish()?)
}

/// The listing on the calling thread: each piece formatted into one chunk, each full chunk
/// written.
fn write_serial<W: Write>(
    lister: &Lister,
    encoder: &Encoder,
    output: &mut Output<W>,
) -> io::Result<()> {
    let mut filler = Filler::new(lister, encoder);
    let mut chunk = Chunk::new();
    let mut failed = None;
    let mut cursor = lister.cursor();
    while let Some(piece) = cursor.next(lister) {
        let mut full = |c: &mut Chunk| {
            let flow = output.write(c.bytes()).unwrap_or_else(|e| {
                failed = Some(e);
                ControlFlow::Break(())
            });
            c.clear();
            flow
        };
        let flow = filler.piece(&piece, &mut chunk, &mut full);
        if let Some(e) = failed {
            return Err(e);
        }
        if flow.is_break() || output.done() {
            return Ok(());
        }
    }
    let _ = output.write(chunk.bytes())?;
    Ok(())
}

/// The listing of a board past [`MAX_PARALLEL_N`]: [`super::for_each_solution`] through a
/// [`Printer`], up to `limit` solutions.
fn write_depth_first<W: Write>(
    job: &Job,
    format: Box<dyn Format>,
    limit: Option<u64>,
    out: W,
) -> Result<u64, WriteError> {
    let n = u64::from(job.n());
    let mut printer = Printer::new(format, out);
    let mut failed = None;
    let _ = super::for_each_solution(job, |s| {
        if let Err(e) = printer.solution_bytes(n, s.zero_based()) {
            failed = Some(e);
            return ControlFlow::Break(());
        }
        if Some(printer.written()) == limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    let written = printer.written();
    printer.finish()?;
    Ok(written)
}
