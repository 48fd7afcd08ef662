//! The listing on several threads: workers format batches of consecutive pieces into chunks,
//! and each chunk is written in order by whichever worker holds the output when it is next.
//!
//! A worker takes the next batch from the listing's one [`Cursor`] (a batch is sized to fill
//! about one chunk, from the bytes per piece so far) and hands each chunk, numbered by batch,
//! to a queue. A worker that hands over a chunk while no other is writing takes the output and
//! writes every chunk that is next in order, its own and the others', then lets it go: one
//! writer at a time, batches in turn, so the bytes are those of one thread whatever the number
//! of threads. Most chunks are written by the worker that filled them, from its own cache, and
//! the threads are the workers alone: a separate writer thread cost a listing on two cores
//! more than a tenth of its time (`results/2026-12-04-listing-speed/NOTE.md`). The calling
//! thread is one of the workers, and the output never leaves the workers' scope; each other
//! worker starts on a core of its own rather than queued behind the calling thread
//! ([`super::spread`]).
//!
//! Memory stays bounded: no worker starts a batch more than [`WINDOW_PER_THREAD`] × workers
//! batches ahead of the one being written, and at most [`CHUNKS_PER_THREAD`] × workers full
//! chunks of later batches wait in the queue (a worker with one more waits). A chunk of the
//! batch being written waits only while another worker writes and [`CURRENT_CHUNKS`] of them
//! are queued; with nobody writing, its worker writes it at once, so the batch being written
//! always moves on and nothing deadlocks. A stop (the limit reached, a failed write, a panic)
//! reaches every worker at its next chunk or piece.

use super::chunk::{Chunk, Filler, Output, CHUNK_BYTES};
use super::ordered::{Cursor, Lister, Piece};
use super::spread::{self, Origin};
use super::write::WriteError;
use crate::error::Error;
use crate::format::encode::Encoder;
use crate::sync::lock;
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Full chunks per worker that may wait in the queue, from batches after the one being
/// written.
pub(crate) const CHUNKS_PER_THREAD: usize = 4;
/// Chunks of the batch being written that may wait while another worker writes.
pub(crate) const CURRENT_CHUNKS: usize = 2;
/// Batches per worker that may be started ahead of the one being written.
pub(crate) const WINDOW_PER_THREAD: usize = 8;
/// The most pieces in a batch.
const MAX_BATCH: usize = 256;
/// The bytes a batch aims at: most batches fit in one chunk.
const BATCH_BYTES: usize = CHUNK_BYTES / 2;

/// Which count of waiting chunks a queued chunk is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    /// A chunk of the batch being written ([`State::current`]).
    Current,
    /// A chunk of a later batch ([`State::later`]).
    Later,
    /// No chunk: the end of a batch with nothing left to write.
    Nothing,
}

/// A chunk of a batch in the queue, and whether the batch ends with it.
struct Part {
    chunk: Option<Chunk>,
    last: bool,
    queue: Queue,
}

/// Where the listing stands: guarded by [`Shared::state`].
struct State {
    /// The pieces not yet taken.
    cursor: Cursor,
    /// The index of the next batch taken.
    next: usize,
    /// The batch being written.
    written: usize,
    /// The chunks handed over and not yet written, by batch, in order within each batch.
    queued: BTreeMap<usize, VecDeque<Part>>,
    /// Chunks of later batches waiting.
    later: usize,
    /// Chunks of the batch being written waiting.
    current: usize,
    /// Whether a worker holds the output.
    writing: bool,
    /// Workers waiting on [`Shared::changed`].
    waiting: usize,
    /// What the bounds let happen, for the tests to check them.
    #[cfg(test)]
    seen: Seen,
}

/// The most chunks that waited in each count, the most batches taken ahead of the one being
/// written, and the waits, over a listing.
#[cfg(test)]
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    later: usize,
    current: usize,
    ahead: usize,
    waits: usize,
}

impl State {
    /// Records the counts now (the tests' check of the bounds; nothing outside them).
    fn note(&mut self, waited: bool) {
        #[cfg(test)]
        {
            let seen = &mut self.seen;
            seen.later = seen.later.max(self.later);
            seen.current = seen.current.max(self.current);
            seen.ahead = seen.ahead.max(self.next - self.written);
            seen.waits += usize::from(waited);
        }
        #[cfg(not(test))]
        let _ = waited;
    }
}

/// What the workers share.
struct Shared<'a, W: Write> {
    lister: &'a Lister,
    encoder: &'a Encoder,
    state: Mutex<State>,
    /// Signalled when a queued chunk is taken or a batch is written, and on a stop.
    changed: Condvar,
    stop: AtomicBool,
    window: usize,
    budget: usize,
    /// Bytes and pieces formatted so far, to size the batches.
    bytes: AtomicUsize,
    pieces: AtomicUsize,
    /// Buffers of written chunks, the last written first (the likeliest still in a cache).
    spare: Mutex<Vec<Vec<u8>>>,
    /// Only ever locked by the worker that holds the output ([`State::writing`]).
    output: Mutex<&'a mut Output<W>>,
    /// The write that failed, which stopped the listing.
    failed: Mutex<Option<io::Error>>,
    workers: usize,
}

/// Writes the listing of `lister` on `threads` threads (at most one per logical core, the
/// calling thread one of them) to `output`, in order.
pub(crate) fn write<W: Write + Send>(
    lister: &Lister,
    encoder: &Encoder,
    threads: usize,
    output: &mut Output<W>,
) -> Result<(), WriteError> {
    // One worker per logical core at most: more would only share the cores.
    let workers = threads.min(std::thread::available_parallelism().map_or(1, |n| n.get()));
    write_on(lister, encoder, workers, output)
}

/// [`write()`] on exactly `workers` threads, the calling thread one of them.
fn write_on<W: Write + Send>(
    lister: &Lister,
    encoder: &Encoder,
    workers: usize,
    output: &mut Output<W>,
) -> Result<(), WriteError> {
    Shared::new(lister, encoder, workers, output).run()
}

/// One worker: takes batches and hands over their chunks until the pieces run out or the
/// listing stops.
fn worker<W: Write + Send>(shared: &Shared<'_, W>) {
    let mut filler = Filler::new(shared.lister, shared.encoder);
    let mut batch = Vec::with_capacity(MAX_BATCH);
    let mut chunk = shared.chunk();
    while let Some(b) = shared.claim(&mut batch) {
        for piece in &batch {
            let flow = filler.piece(piece, &mut chunk, |c| shared.hand_over(b, c, false));
            match flow {
                ControlFlow::Continue(bytes) => shared.bytes.fetch_add(bytes, Ordering::Relaxed),
                ControlFlow::Break(()) => return,
            };
            if shared.stopped() {
                return;
            }
        }
        shared.pieces.fetch_add(batch.len(), Ordering::Relaxed);
        if shared.hand_over(b, &mut chunk, true).is_break() {
            return;
        }
    }
}

impl<'a, W: Write + Send> Shared<'a, W> {
    fn new(
        lister: &'a Lister,
        encoder: &'a Encoder,
        workers: usize,
        output: &'a mut Output<W>,
    ) -> Self {
        Shared {
            lister,
            encoder,
            state: Mutex::new(State {
                cursor: lister.cursor(),
                next: 0,
                written: 0,
                queued: BTreeMap::new(),
                later: 0,
                current: 0,
                writing: false,
                waiting: 0,
                #[cfg(test)]
                seen: Seen::default(),
            }),
            changed: Condvar::new(),
            stop: AtomicBool::new(false),
            window: WINDOW_PER_THREAD * workers,
            budget: CHUNKS_PER_THREAD * workers,
            bytes: AtomicUsize::new(0),
            pieces: AtomicUsize::new(0),
            spare: Mutex::new(Vec::new()),
            output: Mutex::new(output),
            failed: Mutex::new(None),
            workers,
        }
    }

    /// The listing on the workers; the error of a failed write, if one stopped it.
    fn run(&self) -> Result<(), WriteError> {
        std::thread::scope(|scope| {
            for _ in 1..self.workers {
                // Each worker starts on another core than this thread's (see `spread`).
                let origin = Origin::here();
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    origin.leave();
                    let _halt = HaltOnPanic(self);
                    worker(self);
                });
                if let Err(e) = spawned {
                    // The workers started so far stop, and the scope waits for them.
                    self.halt();
                    return Err(Error::ThreadPool {
                        reason: e.to_string(),
                    });
                }
                spread::step_aside();
            }
            let _halt = HaltOnPanic(self);
            worker(self);
            Ok(())
        })?;
        match lock(&self.failed).take() {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Waits for a change, counted among the waiters so that a change with none to wake
    /// signals nobody.
    fn wait<'g>(&self, mut state: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        state.waiting += 1;
        let mut state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
        state.waiting -= 1;
        state.note(true);
        state
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Stops every worker at its next chunk or piece.
    fn halt(&self) {
        self.stop.store(true, Ordering::Relaxed);
        // Taking the lock orders the store before any waiter's next check.
        drop(self.lock());
        self.changed.notify_all();
    }

    /// An empty chunk, in the buffer of a written one where there is one.
    fn chunk(&self) -> Chunk {
        let spare = lock(&self.spare).pop();
        Chunk::from_buffer(spare.unwrap_or_default())
    }

    /// Sets `batch` to the pieces of the next batch, within the window; its index, or `None`
    /// when the pieces are all taken or the listing stopped.
    fn claim(&self, batch: &mut Vec<Piece>) -> Option<usize> {
        batch.clear();
        let pieces = self.pieces.load(Ordering::Relaxed);
        let size = match self.bytes.load(Ordering::Relaxed) {
            0 => 1,
            bytes => BATCH_BYTES * pieces.max(1) / bytes,
        }
        .clamp(1, MAX_BATCH);
        let mut state = self.lock();
        while state.next >= state.written + self.window {
            if self.stopped() {
                return None;
            }
            state = self.wait(state);
        }
        if self.stopped() {
            return None;
        }
        while batch.len() < size {
            match state.cursor.next(self.lister) {
                Some(piece) => batch.push(piece),
                None => break,
            }
        }
        if batch.is_empty() {
            return None;
        }
        state.next += 1;
        state.note(false);
        Some(state.next - 1)
    }

    /// Hands over `chunk` as the next part of `batch` (the last when `last`), once the bounds
    /// allow, and writes what is in order if no other worker is writing; leaves `chunk` empty.
    /// `Break` when the listing stopped.
    fn hand_over(&self, batch: usize, chunk: &mut Chunk, last: bool) -> ControlFlow<()> {
        let mut state = self.lock();
        let queue = loop {
            if self.stopped() {
                return ControlFlow::Break(());
            }
            if chunk.is_empty() {
                break Queue::Nothing;
            }
            if batch == state.written {
                if !state.writing || state.current < CURRENT_CHUNKS {
                    state.current += 1;
                    break Queue::Current;
                }
            } else if state.later < self.budget {
                state.later += 1;
                break Queue::Later;
            }
            state = self.wait(state);
        };
        state.note(false);
        let full = (queue != Queue::Nothing).then(|| std::mem::take(chunk));
        let part = Part {
            chunk: full,
            last,
            queue,
        };
        state.queued.entry(batch).or_default().push_back(part);
        let flow = if state.writing {
            // The worker writing takes it when its turn comes.
            drop(state);
            ControlFlow::Continue(())
        } else {
            self.write_in_order(state)
        };
        if queue != Queue::Nothing {
            *chunk = self.chunk();
        }
        flow
    }

    /// Takes the output and writes the queued chunks that are next in order, until the next
    /// one is not there yet; `Break` when the listing stopped (its limit reached or a write
    /// failed).
    fn write_in_order<'s>(&'s self, mut state: MutexGuard<'s, State>) -> ControlFlow<()> {
        state.writing = true;
        loop {
            let written = state.written;
            let Some(part) = state.queued.get_mut(&written).and_then(VecDeque::pop_front) else {
                state.writing = false;
                return ControlFlow::Continue(());
            };
            match part.queue {
                Queue::Current => state.current -= 1,
                Queue::Later => state.later -= 1,
                Queue::Nothing => {}
            }
            if part.last {
                state.queued.remove(&written);
                state.written += 1;
            }
            let wake = state.waiting > 0;
            drop(state);
            if wake {
                self.changed.notify_all();
            }
            if let Some(chunk) = part.chunk {
                let flow = lock(&self.output).write(chunk.bytes());
                lock(&self.spare).push(chunk.into_buffer());
                match flow {
                    Ok(ControlFlow::Continue(())) => {}
                    Ok(ControlFlow::Break(())) => {
                        self.halt();
                        return ControlFlow::Break(());
                    }
                    Err(e) => {
                        *lock(&self.failed) = Some(e);
                        self.halt();
                        return ControlFlow::Break(());
                    }
                }
            }
            state = self.lock();
        }
    }
}

/// Stops the listing when its worker panics, so that no other worker waits for it for ever.
struct HaltOnPanic<'s, 'a, W: Write + Send>(&'s Shared<'a, W>);

impl<W: Write + Send> Drop for HaltOnPanic<'_, '_, W> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.halt();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Kind;
    use crate::plan::{Job, Queen};
    use std::time::Duration;

    /// The listing of `job` on `workers` threads (however many cores this machine has), up to
    /// `limit` solutions, into `out`.
    fn listed<W: Write + Send>(
        job: &Job,
        kind: Kind,
        workers: usize,
        limit: Option<u64>,
        out: W,
    ) -> Result<W, WriteError> {
        let lister = Lister::new(job);
        let encoder = Encoder::new(kind, job.n());
        let skip = kind.format().separator().len();
        let mut output = Output::new(out, &encoder, skip, limit);
        write_on(&lister, &encoder, workers, &mut output)?;
        Ok(output.into_inner())
    }

    fn serial(job: &Job, kind: Kind, limit: Option<u64>) -> Vec<u8> {
        let opts = crate::solutions::WriteOptions {
            format: kind,
            limit,
            threads: 1,
        };
        let mut out = Vec::new();
        crate::solutions::write_solutions(job, &opts, &mut out).unwrap();
        out
    }

    /// More workers than this machine may have cores, on boards of many chunks (N = 13: 13 MB
    /// of boards against chunks of 256 KiB and a queue of 4 per worker), so that workers wait
    /// for the window, for the queue and for the one writing: the bytes are the serial ones,
    /// whole and cut at limits inside a piece and inside a chunk.
    #[test]
    fn any_number_of_workers_writes_the_serial_bytes() {
        let job = Job::new(13).unwrap();
        let full = serial(&job, Kind::Board, None);
        for workers in [2, 3, 5] {
            assert!(
                full.len() > 6 * workers * CHUNK_BYTES,
                "few chunks for {workers}"
            );
            let out = listed(&job, Kind::Board, workers, None, Vec::new()).unwrap();
            assert!(out == full, "{workers} workers");
        }
        for limit in [1u64, 4_321, 50_000] {
            let expect = serial(&job, Kind::Columns, Some(limit));
            let out = listed(&job, Kind::Columns, 8, Some(limit), Vec::new()).unwrap();
            assert!(out == expect, "{limit} on 8 workers");
        }
    }

    /// A slow reader at the other end: every `every`-th write, the first included, stalls for
    /// `stall`.
    struct Slow {
        every: usize,
        stall: Duration,
        writes: usize,
        taken: Vec<u8>,
    }

    impl Write for Slow {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.writes.is_multiple_of(self.every) {
                std::thread::sleep(self.stall);
            }
            self.writes += 1;
            self.taken.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Against an output that stalls, the queue fills: workers wait for the batch being
    /// written, both counts of waiting chunks reach their bounds and go no further, and no
    /// batch starts further ahead than the window; the bytes are the serial ones. The board
    /// (N = 15, a queen at row 1, column 8: 53 MB of boards in 12 pieces) gives batches of
    /// about 17 chunks, so that the one being written has chunks waiting too.
    #[test]
    fn a_slow_output_holds_the_workers_within_the_bounds() {
        let job = Job::new(15)
            .unwrap()
            .with_placed(&[Queen::one_based(1, 8).unwrap()])
            .unwrap();
        let (kind, workers) = (Kind::Board, 3);
        let lister = Lister::new(&job);
        let encoder = Encoder::new(kind, job.n());
        let skip = kind.format().separator().len();
        let slow = Slow {
            every: 16,
            stall: Duration::from_millis(150),
            writes: 0,
            taken: Vec::new(),
        };
        let mut output = Output::new(slow, &encoder, skip, None);
        let shared = Shared::new(&lister, &encoder, workers, &mut output);
        shared.run().unwrap();
        let state = shared.lock();
        // Every chunk written, and taken off its count.
        let left = (
            state.later,
            state.current,
            state.queued.len(),
            state.written,
        );
        assert_eq!(left, (0, 0, 0, state.next), "{:?}", state.seen);
        let seen = state.seen;
        drop(state);
        drop(shared);
        let expect = serial(&job, kind, None);
        assert!(expect.len() > 80 * CHUNK_BYTES);
        assert!(output.into_inner().taken == expect);
        assert!(seen.waits > 0, "{seen:?}");
        assert_eq!(seen.later, CHUNKS_PER_THREAD * workers, "{seen:?}");
        assert_eq!(seen.current, CURRENT_CHUNKS, "{seen:?}");
        assert!(seen.ahead <= WINDOW_PER_THREAD * workers, "{seen:?}");
    }

    /// A writer that takes `room` bytes, then fails as a closed pipe does.
    struct Closes {
        room: usize,
        taken: Vec<u8>,
    }

    impl Write for Closes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
            let k = buf.len().min(self.room);
            self.room -= k;
            self.taken.extend_from_slice(&buf[..k]);
            Ok(k)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A failed write stops every worker (none is left waiting for the failed one), the error
    /// comes back, and what was written is a prefix of the listing.
    #[test]
    fn a_failed_write_stops_every_worker_and_leaves_a_prefix() {
        let job = Job::new(13).unwrap();
        let full = serial(&job, Kind::Board, None);
        for workers in [2, 8] {
            for room in [0, 300_000, 3_000_000] {
                let out = Closes {
                    room,
                    taken: Vec::new(),
                };
                let lister = Lister::new(&job);
                let encoder = Encoder::new(Kind::Board, job.n());
                let skip = Kind::Board.format().separator().len();
                let mut output = Output::new(out, &encoder, skip, None);
                let r = write_on(&lister, &encoder, workers, &mut output);
                assert!(
                    matches!(r, Err(WriteError::Io(ref e)) if e.kind() == io::ErrorKind::BrokenPipe),
                    "{workers} {room}: {r:?}"
                );
                let taken = output.into_inner().taken;
                assert_eq!(taken.len(), room, "{workers} {room}");
                assert!(full.starts_with(&taken), "{workers} {room}");
            }
        }
    }
}
