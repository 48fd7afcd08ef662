//! The listing on several threads: workers format batches of consecutive pieces into chunks,
//! the calling thread writes the chunks back in order.
//!
//! A worker takes the next batch from the listing's one [`Cursor`] (a batch is sized to fill
//! about one chunk, from the bytes per piece so far) and sends its chunks, numbered by batch,
//! to the writer, which keeps those that come early and writes each batch's chunks in turn:
//! the bytes are those of one thread, whatever the number of threads.
//!
//! Memory stays bounded: no worker starts a batch more than [`WINDOW_PER_THREAD`] × workers
//! batches ahead of the one being written, and at most [`CHUNKS_PER_THREAD`] × workers full
//! chunks of later batches wait for the writer (a worker with one more waits). The worker of
//! the batch being written only waits while [`CURRENT_CHUNKS`] of its own chunks are queued,
//! so it can always go on, and nothing deadlocks. A stop (the limit reached, a failed write,
//! a panic) reaches every worker at its next chunk or piece.

use super::chunk::{Chunk, Filler, Output, CHUNK_BYTES};
use super::ordered::{Cursor, Lister, Piece};
use super::write::WriteError;
use crate::error::Error;
use crate::format::encode::Encoder;
use crossbeam::channel::{self, Receiver, Sender};
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Full chunks per worker that may wait for the writer, from batches after the one being
/// written.
pub(crate) const CHUNKS_PER_THREAD: usize = 4;
/// Chunks of the batch being written that may wait before its worker waits.
pub(crate) const CURRENT_CHUNKS: usize = 2;
/// Batches per worker that may be started ahead of the one being written.
pub(crate) const WINDOW_PER_THREAD: usize = 8;
/// The most pieces in a batch.
const MAX_BATCH: usize = 256;
/// The bytes a batch aims at: most batches fit in one chunk.
const BATCH_BYTES: usize = CHUNK_BYTES / 2;

/// Which count of waiting chunks a chunk sent is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    /// A chunk of the batch being written ([`State::current`]).
    Current,
    /// A chunk of a later batch ([`State::queued`]).
    Later,
    /// No chunk: the end of a batch with nothing left to write.
    Nothing,
}

/// What a worker sends: a chunk of a batch, and whether the batch ends with it.
struct Part {
    batch: usize,
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
    /// Chunks of later batches waiting to be written.
    queued: usize,
    /// Chunks of the batch being written waiting.
    current: usize,
}

/// What the workers and the writer share.
struct Shared<'a> {
    lister: &'a Lister,
    encoder: &'a Encoder,
    state: Mutex<State>,
    /// Signalled when the writer takes a chunk or a batch, and on a stop.
    changed: Condvar,
    stop: AtomicBool,
    window: usize,
    budget: usize,
    /// Bytes and pieces formatted so far, to size the batches.
    bytes: AtomicUsize,
    pieces: AtomicUsize,
    /// Buffers of written chunks, for the next ones.
    spare: (Sender<Vec<u8>>, Receiver<Vec<u8>>),
}

/// Writes the listing of `lister` on `threads` threads (at most one per logical core) to
/// `output`, in order.
pub(crate) fn write<W: Write>(
    lister: &Lister,
    encoder: &Encoder,
    threads: usize,
    output: &mut Output<W>,
) -> Result<(), WriteError> {
    // One worker per logical core at most: more would share the cores with the writer and
    // with each other, and only delay the first lines.
    let workers = threads.min(std::thread::available_parallelism().map_or(1, |n| n.get()));
    let shared = Shared {
        lister,
        encoder,
        state: Mutex::new(State {
            cursor: lister.cursor(),
            next: 0,
            written: 0,
            queued: 0,
            current: 0,
        }),
        changed: Condvar::new(),
        stop: AtomicBool::new(false),
        window: WINDOW_PER_THREAD * workers,
        budget: CHUNKS_PER_THREAD * workers,
        bytes: AtomicUsize::new(0),
        pieces: AtomicUsize::new(0),
        spare: channel::unbounded(),
    };
    let (parts_tx, parts_rx) = channel::unbounded::<Part>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (tx, shared) = (parts_tx.clone(), &shared);
            let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                let _halt = HaltOnPanic(shared);
                worker(shared, &tx);
            });
            if let Err(e) = spawned {
                // The workers started so far stop, and the scope waits for them.
                shared.halt();
                return Err(Error::ThreadPool {
                    reason: e.to_string(),
                }
                .into());
            }
        }
        drop(parts_tx);
        let result = write_in_order(&shared, &parts_rx, output);
        shared.halt();
        drop(parts_rx);
        Ok(result?)
    })
}

/// The writer: each batch's chunks in turn, those of later batches kept until then.
fn write_in_order<W: Write>(
    shared: &Shared<'_>,
    parts: &Receiver<Part>,
    output: &mut Output<W>,
) -> io::Result<()> {
    let mut early: BTreeMap<usize, VecDeque<Part>> = BTreeMap::new();
    let mut batch = 0;
    loop {
        while let Some(part) = early.get_mut(&batch).and_then(VecDeque::pop_front) {
            shared.taken(part.queue);
            if let Some(chunk) = part.chunk {
                let flow = output.write(chunk.bytes())?;
                // The receiver lives as long as the listing.
                let _ = shared.spare.0.send(chunk.into_buffer());
                if flow.is_break() {
                    return Ok(());
                }
            }
            if part.last {
                early.remove(&batch);
                batch += 1;
                shared.advance(batch);
            }
        }
        match parts.recv() {
            Ok(part) => early.entry(part.batch).or_default().push_back(part),
            // Every worker has finished: every batch is written (or a worker panicked, which
            // the scope passes on).
            Err(_) => return Ok(()),
        }
    }
}

/// One worker: takes batches and sends their chunks until the pieces run out or the listing
/// stops.
fn worker(shared: &Shared<'_>, parts: &Sender<Part>) {
    let mut filler = Filler::new(shared.lister, shared.encoder);
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while let Some(b) = shared.claim(&mut batch) {
        let mut chunk = shared.chunk();
        for piece in &batch {
            let flow = filler.piece(piece, &mut chunk, |c| shared.send(b, c, false, parts));
            match flow {
                ControlFlow::Continue(bytes) => shared.bytes.fetch_add(bytes, Ordering::Relaxed),
                ControlFlow::Break(()) => return,
            };
            if shared.stopped() {
                return;
            }
        }
        shared.pieces.fetch_add(batch.len(), Ordering::Relaxed);
        if shared.send(b, &mut chunk, true, parts).is_break() {
            return;
        }
    }
}

impl Shared<'_> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'g>(&self, state: MutexGuard<'g, State>) -> MutexGuard<'g, State> {
        self.changed.wait(state).unwrap_or_else(|e| e.into_inner())
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
        Chunk::from_buffer(self.spare.1.try_recv().unwrap_or_default())
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
        Some(state.next - 1)
    }

    /// Sends `chunk` as the next part of `batch` (the last when `last`), once the bounds allow,
    /// and leaves it empty; `Break` when the listing stopped.
    fn send(
        &self,
        batch: usize,
        chunk: &mut Chunk,
        last: bool,
        parts: &Sender<Part>,
    ) -> ControlFlow<()> {
        let queue = {
            let mut state = self.lock();
            loop {
                if self.stopped() {
                    return ControlFlow::Break(());
                }
                if chunk.is_empty() {
                    break Queue::Nothing;
                }
                if batch == state.written {
                    if state.current < CURRENT_CHUNKS {
                        state.current += 1;
                        break Queue::Current;
                    }
                } else if state.queued < self.budget {
                    state.queued += 1;
                    break Queue::Later;
                }
                state = self.wait(state);
            }
        };
        let chunk = (queue != Queue::Nothing).then(|| std::mem::replace(chunk, self.chunk()));
        let part = Part {
            batch,
            chunk,
            last,
            queue,
        };
        match parts.send(part) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    }

    /// The writer took a chunk from `queue`.
    fn taken(&self, queue: Queue) {
        let mut state = self.lock();
        match queue {
            Queue::Current => state.current -= 1,
            Queue::Later => state.queued -= 1,
            Queue::Nothing => return,
        }
        drop(state);
        self.changed.notify_all();
    }

    /// The writer moved on to `batch`.
    fn advance(&self, batch: usize) {
        self.lock().written = batch;
        self.changed.notify_all();
    }
}

/// Stops the listing when its worker panics, so that no other worker waits for it for ever.
struct HaltOnPanic<'s, 'a>(&'s Shared<'a>);

impl Drop for HaltOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.halt();
        }
    }
}
