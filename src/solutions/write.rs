//! Every solution of a job written in a format, in lexicographic order, by several threads.
//!
//! Workers take the job's work units in index order (lexicographic prefix order), search each
//! with the kernel and format its solutions into chunks of bytes; the calling thread writes the
//! chunks unit by unit, in index order, so the output is exactly the serial one.
//!
//! Memory stays bounded, whatever the number of solutions: the chunks waiting to be written
//! share a budget of [`BUDGET_PER_THREAD`] bytes per thread. A worker on a later unit waits when
//! the budget is spent; the worker on the unit being written only waits while a few of its own
//! chunks are queued, so it can always go on, and nothing deadlocks. No worker starts a unit more
//! than [`WINDOW_PER_THREAD`] × threads units ahead of the one being written.

use super::Listing;
use crate::error::Error;
use crate::format::{Format, Kind, Printer};
use crate::plan::Job;
use crate::plan::Unit;
use crate::search::dfs::MAX_N;
use crossbeam::channel::{self, Receiver, Sender};
use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Bytes a worker gathers before handing a chunk over.
const CHUNK_BYTES: usize = 32 << 10;
/// Chunks of the unit being written that may wait before its worker waits.
const CURRENT_UNIT_CHUNKS: usize = 4;
/// Bytes per thread that may wait to be written, from units after the one being written.
pub(crate) const BUDGET_PER_THREAD: usize = 512 << 10;
/// How many units per thread may be started ahead of the one being written.
pub(crate) const WINDOW_PER_THREAD: usize = 16;

/// The largest board listed by several threads. Workers search a few units ahead of the output,
/// and a unit only notices a stop (limit reached, closed pipe) at its next solution; beyond this
/// size that can take long, so larger boards are listed from the calling thread alone, which
/// stops at once. (Listing every solution of a larger board would take hours anyway.)
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
/// Returns the number written.
///
/// ```
/// use nqueens::solutions::{write_solutions, WriteOptions};
/// use nqueens::{format::Kind, Job};
///
/// let mut out = Vec::new();
/// let opts = WriteOptions { format: Kind::Columns, limit: Some(2), threads: 2 };
/// write_solutions(&Job::new(6)?, &opts, &mut out).unwrap();
/// assert_eq!(out, b"2 4 6 1 3 5\n3 6 2 5 1 4\n");
/// # Ok::<(), nqueens::Error>(())
/// ```
pub fn write_solutions<W: Write>(
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
    if opts.threads == 1 || job.n() > MAX_PARALLEL_N {
        return write_serial(job, format, opts.limit, out);
    }
    write_parallel(job, opts, out)
}

fn write_serial<W: Write>(
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

/// Formatted solutions of one unit: the bytes, and where each solution ends in them.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    ends: Vec<u32>,
}

impl Chunk {
    fn new() -> Chunk {
        Chunk {
            bytes: Vec::with_capacity(CHUNK_BYTES + 1024),
            ends: Vec::new(),
        }
    }
}

/// Where the writing stands: guarded by [`Shared::state`].
#[derive(Default)]
struct WriteState {
    /// Units fully written: the position of the unit being written.
    units_written: usize,
    /// Bytes sent by workers and not yet taken by the writer.
    queued_bytes: usize,
}

/// What the workers and the writing thread share.
struct Shared<'a> {
    listing: &'a Listing,
    /// The units to search, in output order.
    order: Vec<&'a Unit>,
    kind: Kind,
    next: AtomicUsize,
    stop: AtomicBool,
    state: Mutex<WriteState>,
    /// Signalled whenever the writer takes a chunk or moves on, and on a stop.
    changed: Condvar,
    window: usize,
    budget: usize,
}

impl Shared<'_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, WriteState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // Taking the lock orders the store before any waiter's next check.
        drop(self.lock());
        self.changed.notify_all();
    }

    /// Waits until the worker of the unit at `pos` may queue `len` more bytes on `tx`; false
    /// when the run stopped.
    fn reserve(&self, pos: usize, len: usize, tx: &Sender<Chunk>) -> bool {
        let mut state = self.lock();
        loop {
            if self.stopped() {
                return false;
            }
            let fits = if pos == state.units_written {
                tx.len() < CURRENT_UNIT_CHUNKS
            } else {
                state.queued_bytes + len <= self.budget
            };
            if fits {
                state.queued_bytes += len;
                return true;
            }
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The writer took a chunk of `len` bytes.
    fn taken(&self, len: usize) {
        self.lock().queued_bytes -= len;
        self.changed.notify_all();
    }

    /// The writer finished the unit at `pos`.
    fn advance(&self, pos: usize) {
        self.lock().units_written = pos + 1;
        self.changed.notify_all();
    }
}

fn write_parallel<W: Write>(job: &Job, opts: &WriteOptions, out: W) -> Result<u64, WriteError> {
    // One worker per logical core at most: more would share the cores with the one on the unit
    // being written, and only delay the first lines, never add speed.
    let workers = opts
        .threads
        .min(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let listing = Listing::new(job);
    let shared = Shared {
        listing: &listing,
        order: listing.units().collect(),
        kind: opts.format,
        next: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        state: Mutex::new(WriteState::default()),
        changed: Condvar::new(),
        window: WINDOW_PER_THREAD * workers,
        budget: BUDGET_PER_THREAD * workers,
    };
    let (announce_tx, announce_rx) = channel::unbounded::<(usize, Receiver<Chunk>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = announce_tx.clone();
            let shared = &shared;
            let spawned =
                std::thread::Builder::new().spawn_scoped(scope, move || worker(shared, &tx));
            if let Err(e) = spawned {
                // The workers started so far stop, and the scope waits for them.
                shared.halt();
                return Err(Error::ThreadPool {
                    reason: e.to_string(),
                }
                .into());
            }
        }
        drop(announce_tx);
        let result = write_in_order(&shared, &announce_rx, opts, out);
        shared.halt();
        drop(announce_rx);
        result
    })
}

/// The writing side: takes each unit's chunks in output order.
fn write_in_order<W: Write>(
    shared: &Shared<'_>,
    announced: &Receiver<(usize, Receiver<Chunk>)>,
    opts: &WriteOptions,
    out: W,
) -> Result<u64, WriteError> {
    let mut out = BufWriter::with_capacity(CHUNK_BYTES * 2, out);
    let separator = opts.format.format().separator();
    let mut pending: BTreeMap<usize, Receiver<Chunk>> = BTreeMap::new();
    let mut written = 0u64;
    'units: for pos in 0..shared.order.len() {
        let rx = loop {
            if let Some(rx) = pending.remove(&pos) {
                break rx;
            }
            match announced.recv() {
                Ok((p, rx)) => {
                    pending.insert(p, rx);
                }
                // Every worker has quit before this unit: only after a panic, which the scope
                // passes on.
                Err(_) => break 'units,
            }
        };
        for chunk in rx.iter() {
            shared.taken(chunk.bytes.len());
            let whole = separator.is_empty()
                && opts
                    .limit
                    .is_none_or(|l| written + chunk.ends.len() as u64 <= l);
            if whole {
                out.write_all(&chunk.bytes)?;
                written += chunk.ends.len() as u64;
                continue;
            }
            let mut start = 0usize;
            for &end in &chunk.ends {
                if Some(written) == opts.limit {
                    break 'units;
                }
                if written > 0 {
                    out.write_all(separator)?;
                }
                out.write_all(&chunk.bytes[start..end as usize])?;
                start = end as usize;
                written += 1;
            }
        }
        if Some(written) == opts.limit {
            break;
        }
        shared.advance(pos);
    }
    out.flush()?;
    Ok(written)
}

/// One worker: searches units in order and sends their formatted solutions.
fn worker(shared: &Shared<'_>, announce: &Sender<(usize, Receiver<Chunk>)>) {
    let n64 = u64::from(shared.listing.plan.job().n());
    let mut format = shared.kind.format();
    let mut cols = [0u8; MAX_N as usize];
    loop {
        if shared.stopped() {
            return;
        }
        let pos = shared.next.fetch_add(1, Ordering::Relaxed);
        let Some(unit) = shared.order.get(pos) else {
            return;
        };
        {
            let mut state = shared.lock();
            while pos >= state.units_written + shared.window && !shared.stopped() {
                state = shared
                    .changed
                    .wait(state)
                    .unwrap_or_else(|e| e.into_inner());
            }
        }
        if shared.stopped() {
            return;
        }
        let (tx, rx) = channel::unbounded::<Chunk>();
        if announce.send((pos, rx)).is_err() {
            return;
        }
        let mut chunk = Chunk::new();
        let send =
            |chunk: Chunk| shared.reserve(pos, chunk.bytes.len(), &tx) && tx.send(chunk).is_ok();
        let flow = shared.listing.visit(unit, &mut cols, |s| {
            // A halted run (limit reached, closed pipe) ends every unit at its next solution.
            if shared.stopped() {
                return ControlFlow::Break(());
            }
            format.solution(&mut chunk.bytes, n64, s);
            chunk.ends.push(chunk.bytes.len() as u32);
            if chunk.bytes.len() >= CHUNK_BYTES
                && !send(std::mem::replace(&mut chunk, Chunk::new()))
            {
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        });
        if flow.is_continue() && !chunk.ends.is_empty() {
            send(chunk);
        }
    }
}
