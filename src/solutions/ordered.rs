//! A listing's solutions in lexicographic order, from the lane search that counts.
//!
//! The board's first rows are placed depth first, in column order: each placement of the first
//! [`Lister::depth`] rows is a *piece* (a work unit of the listing), and the pieces come in
//! lexicographic order ([`Cursor`]). The solutions below a piece come from the lane kernels
//! ([`lanes::visit_keys`]), which find them in no particular order, each as a `u64` key (five
//! bits a row, the first row highest): the keys are sorted, and the sorted keys are the
//! piece's solutions in lexicographic order. A piece leaves at most [`TAIL_ROWS`] rows to the
//! search, so its keys fit in 64 bits and its solutions stay few (a
//! few thousand on average, and a sort of them costs less than their search).

use super::{may_hold_canonical, Listing};
use crate::format::encode::{MAX_TAIL, PAIR_BITS};
use crate::plan::Job;
use crate::search::bounded::Rows;
use crate::search::dfs::{self, full_mask, Masks, MAX_N};
use crate::search::{lanes, symmetry, Kernel, Runner};

/// The most rows below a piece: 13, whose first 12 are a key of 60 bits (the last row takes
/// the column left). From N = 16 on the pieces leave exactly this many rows.
pub(crate) const TAIL_ROWS: u32 = 13;
/// The fewest rows a piece places where the board allows: enough pieces (N × (N − 2) or
/// so) to share among the threads and to interleave with the writing. Fewer rows below a piece
/// make more, smaller lane searches, which cost more per solution: two rows rather than three
/// listed N = 14 14 % faster (`results/2026-12-03-listing-speed/NOTE.md`).
const MIN_DEPTH: u32 = 2;
const _: () = assert!(TAIL_ROWS as usize <= MAX_TAIL && TAIL_ROWS as usize == lanes::KEY_ROWS + 1);
// The encoder writes every board a listing searches.
const _: () = assert!(crate::format::encode::MAX_N >= MAX_N);

/// What a listing searches: the board, the rows placed by its pieces, the squares each row
/// may use, and the kernel. Shared by every thread of a listing.
pub(crate) struct Lister {
    n: u32,
    depth: u32,
    allowed: [u32; MAX_N as usize],
    rows: Rows,
    /// The kernel and its lane threshold (a [`Runner`] that tallies nothing: a listing's
    /// searches are not reported).
    kernel: Kernel,
    lane_min_rows: u32,
    unique: bool,
}

/// A piece: the columns of the first [`Lister::depth`] rows, and their attacks on the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    cols: [u8; MAX_N as usize],
    masks: Masks,
}

impl Piece {
    /// The columns of the piece's rows (0-based), given its depth.
    pub(crate) fn prefix(&self, depth: u32) -> &[u8] {
        &self.cols[..depth as usize]
    }
}

impl Lister {
    /// The listing of `job` (its placed queens and `unique`; its method and split depth do not
    /// matter) on the best kernel of this processor.
    pub(crate) fn new(job: &Job) -> Lister {
        Lister::on(job, Runner::from(Kernel::best()))
    }

    /// The listing of `job` on `runner` (the tests choose the kernel and the lane threshold).
    pub(crate) fn on(job: &Job, runner: Runner) -> Lister {
        let listing = Listing::new(job);
        let n = job.n();
        Lister {
            n,
            depth: n.saturating_sub(TAIL_ROWS).max(MIN_DEPTH.min(n)),
            allowed: listing.rows,
            rows: Rows::allowing(listing.rows),
            kernel: runner.kernel,
            lane_min_rows: runner.lane_min_rows,
            unique: listing.unique,
        }
    }

    /// The rows below each piece.
    pub(crate) fn rows_below(&self) -> usize {
        (self.n - self.depth) as usize
    }

    /// The rows each piece places.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// The pieces from the first.
    pub(crate) fn cursor(&self) -> Cursor {
        let mut c = Cursor {
            row: 0,
            free: [0; MAX_N as usize],
            masks: [Masks::EMPTY; MAX_N as usize + 1],
            cols: [0; MAX_N as usize],
        };
        c.free[0] = Masks::EMPTY.free(full_mask(self.n)) & self.allowed[0];
        c
    }

    /// Sets `keys` to the solutions of `piece`, sorted (see the module documentation); with
    /// `unique`, only the lexicographically smallest member of each class. No I/O; `keys`
    /// grows to the largest piece and is then reused.
    pub(crate) fn solve(&self, piece: &Piece, keys: &mut Keys) {
        let (keys, spare) = (&mut keys.keys, &mut keys.spare);
        keys.clear();
        let (n, first) = (self.n, self.depth);
        if n - first >= 3 {
            let runner = Runner {
                kernel: self.kernel,
                lane_min_rows: self.lane_min_rows,
                tally: None,
            };
            lanes::visit_keys(runner, n, first, piece.masks, &self.rows, |batch| {
                keys.extend_from_slice(batch)
            });
        } else {
            // Two rows or fewer below the piece (N below 6): depth first.
            let mut cols = piece.cols;
            let _ = dfs::visit(n, first, piece.masks, &self.allowed, &mut cols, |s| {
                let tail = &s[first as usize..];
                keys.push(lanes::key_of(&tail[..tail.len().saturating_sub(1)]));
                std::ops::ControlFlow::Continue(())
            });
        }
        sort(keys, spare);
        if self.unique {
            let mut whole = piece.cols;
            keys.retain(|&k| {
                let tail = self.tail(piece, k);
                whole[first as usize..n as usize].copy_from_slice(&tail[..(n - first) as usize]);
                symmetry::is_canonical(&whole[..n as usize])
            });
        }
    }

    /// The columns of the rows below `piece` (the first `N - depth` bytes) of the solution
    /// `key` of [`Lister::solve`].
    #[inline(always)]
    pub(crate) fn tail(&self, piece: &Piece, key: u64) -> [u8; MAX_TAIL] {
        let rows = (self.n - self.depth) as usize;
        let mut tail = [0u8; MAX_TAIL];
        if rows == 0 {
            return tail;
        }
        let mut left = full_mask(self.n) & !piece.masks.cols;
        let fields = rows - 1;
        for (i, t) in tail[..fields].iter_mut().enumerate() {
            let c = lanes::key_column(key, i);
            *t = c as u8;
            left &= !(1 << c);
        }
        tail[fields & (MAX_TAIL - 1)] = left.trailing_zeros() as u8;
        tail
    }
}

impl Lister {
    /// The sum of the columns of the rows below `piece` (of any of its solutions).
    pub(crate) fn rest(&self, piece: &Piece) -> u32 {
        let all = self.n * (self.n - 1) / 2;
        all - piece
            .prefix(self.depth)
            .iter()
            .map(|&c| u32::from(c))
            .sum::<u32>()
    }

    /// The rows below a piece of the solution `key` ([`Lister::solve`]) as
    /// [`Encoder::put`](crate::format::encode::Encoder::put) takes them: `P` pairs (the rows
    /// two at a time; `P` must be half their number, rounded down), and the last row alone if
    /// they are odd in number. `rest` is [`Lister::rest`] of the piece: the last row's column
    /// is what the others leave of it.
    #[inline(always)]
    pub(crate) fn rows<const P: usize>(&self, rest: u32, key: u64) -> ([u32; P], Option<u8>) {
        let rows = (self.n - self.depth) as usize;
        debug_assert_eq!(rows / 2, P);
        let last = rest.wrapping_sub(lanes::key_sum(key));
        let pairs = std::array::from_fn(|j| {
            if 2 * j + 2 < rows {
                lanes::key_pair(key, j)
            } else {
                lanes::key_column(key, 2 * j) << PAIR_BITS | last
            }
        });
        (pairs, (rows % 2 == 1).then_some(last as u8))
    }
}

/// The sorted keys of a piece's solutions ([`Lister::solve`]), and room to sort them.
#[derive(Default)]
pub(crate) struct Keys {
    keys: Vec<u64>,
    spare: Vec<u64>,
}

impl Keys {
    /// The keys, sorted.
    pub(crate) fn sorted(&self) -> &[u64] {
        &self.keys
    }
}

/// The fewest keys sorted by [`sort`]'s buckets; fewer go to one comparison sort.
const BUCKETS_FROM: usize = 512;
/// The bits of a key that choose its bucket: its first two rows.
const BUCKET_BITS: u32 = 10;

/// Sorts `keys` (using `spare`): keys of the same first two rows are brought together in
/// one pass (a counting sort on their top bits), then each group is sorted by comparisons. A
/// third faster than one comparison sort of a piece's few thousand keys; a counting sort on
/// three rows and an insertion sort after it was slower.
fn sort(keys: &mut Vec<u64>, spare: &mut Vec<u64>) {
    if keys.len() < BUCKETS_FROM {
        keys.sort_unstable();
        return;
    }
    let shift = 64 - 4 - BUCKET_BITS;
    let bucket = |k: u64| (k >> shift) as usize & ((1 << BUCKET_BITS) - 1);
    let mut ends = [0u32; 1 << BUCKET_BITS];
    for &k in keys.iter() {
        ends[bucket(k)] += 1;
    }
    let mut at = 0;
    for end in &mut ends {
        at += *end;
        *end = at;
    }
    // Each key goes to the end of its bucket's part, from the last key back: `ends` becomes
    // the starts.
    spare.clear();
    spare.resize(keys.len(), 0);
    for &k in keys.iter().rev() {
        let end = &mut ends[bucket(k)];
        *end -= 1;
        spare[*end as usize] = k;
    }
    let mut start = spare.len();
    for &from in ends.iter().rev() {
        spare[from as usize..start].sort_unstable();
        start = from as usize;
    }
    std::mem::swap(keys, spare);
}

/// The pieces of a listing in lexicographic order: a depth-first walk of the first rows with
/// its own stack, so that it can stop after any piece and go on later (the threads of a
/// listing take pieces from one cursor).
#[derive(Clone, Debug)]
pub(crate) struct Cursor {
    /// The row being placed.
    row: usize,
    /// The squares of each row not yet tried.
    free: [u32; MAX_N as usize],
    /// The attacks on each row from the rows above.
    masks: [Masks; MAX_N as usize + 1],
    cols: [u8; MAX_N as usize],
}

impl Cursor {
    /// The next piece of `lister`, or `None` after the last.
    pub(crate) fn next(&mut self, lister: &Lister) -> Option<Piece> {
        let depth = lister.depth as usize;
        let full = full_mask(lister.n);
        loop {
            while self.free[self.row] == 0 {
                if self.row == 0 {
                    return None;
                }
                self.row -= 1;
            }
            let r = self.row;
            let bit = self.free[r] & self.free[r].wrapping_neg();
            self.free[r] ^= bit;
            self.cols[r] = bit.trailing_zeros() as u8;
            self.masks[r + 1] = self.masks[r].place(bit);
            if r + 1 < depth {
                self.row = r + 1;
                self.free[r + 1] = self.masks[r + 1].free(full) & lister.allowed[r + 1];
                continue;
            }
            if lister.unique && !may_hold_canonical(lister.n, &self.cols[..depth]) {
                continue;
            }
            return Some(Piece {
                cols: self.cols,
                masks: self.masks[depth],
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Queen;
    use std::ops::ControlFlow;

    /// Every solution of `lister`, piece by piece, as whole column sequences.
    fn listed(lister: &Lister) -> Vec<Vec<u8>> {
        let (n, depth) = (lister.n as usize, lister.depth);
        let mut cursor = lister.cursor();
        let mut keys = Keys::default();
        let mut all = Vec::new();
        while let Some(piece) = cursor.next(lister) {
            lister.solve(&piece, &mut keys);
            for &k in keys.sorted() {
                let mut s = piece.prefix(depth).to_vec();
                s.extend_from_slice(&lister.tail(&piece, k)[..n - depth as usize]);
                all.push(s);
            }
        }
        all
    }

    /// The depth-first reference: [`super::super::for_each_solution`].
    fn reference(job: &Job) -> Vec<Vec<u8>> {
        let mut all = Vec::new();
        let _ = super::super::for_each_solution(job, |s| {
            all.push(s.zero_based().to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        all
    }

    /// Every kernel this processor has (the lane kernels and the depth-first search), with the
    /// lanes from three rows on, so that small boards run on them too.
    fn runners() -> Vec<Runner<'static>> {
        crate::search::lanes::tests::kernels()
            .into_iter()
            .map(|kernel| Runner {
                kernel,
                lane_min_rows: 3,
                tally: None,
            })
            .collect()
    }

    #[test]
    fn pieces_in_order_are_the_depth_first_listing() {
        let q = |r, c| Queen::one_based(r, c).unwrap();
        let mut jobs = Vec::new();
        for n in 1..=12 {
            jobs.push(Job::new(n).unwrap());
            jobs.push(Job::new(n).unwrap().with_unique(true));
        }
        jobs.push(Job::new(11).unwrap().with_placed(&[q(2, 3)]).unwrap());
        jobs.push(
            Job::new(12)
                .unwrap()
                .with_placed(&[q(1, 1), q(12, 11)])
                .unwrap(),
        );
        jobs.push(Job::new(12).unwrap().with_placed(&[q(7, 5)]).unwrap());
        for runner in runners() {
            for job in &jobs {
                let lister = Lister::on(job, runner);
                assert_eq!(listed(&lister), reference(job), "{runner:?} {job:?}");
            }
        }
    }

    #[test]
    fn deep_boards_leave_thirteen_rows_to_the_search() {
        // N = 17: pieces of four rows, every key of twelve rows of five bits; the first
        // pieces' solutions are those the depth-first listing starts with.
        let job = Job::new(17).unwrap();
        let lister = Lister::new(&job);
        assert_eq!((lister.depth(), lister.n - lister.depth()), (4, TAIL_ROWS));
        let mut expect = Vec::new();
        let _ = super::super::for_each_solution(&job, |s| {
            expect.push(s.zero_based().to_vec());
            if expect.len() == 3000 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        let mut got = Vec::new();
        let mut cursor = lister.cursor();
        let mut keys = Keys::default();
        while got.len() < expect.len() {
            let piece = cursor.next(&lister).unwrap();
            lister.solve(&piece, &mut keys);
            for &k in keys.sorted() {
                let mut s = piece.prefix(4).to_vec();
                s.extend_from_slice(&lister.tail(&piece, k)[..13]);
                got.push(s);
            }
        }
        assert_eq!(got[..expect.len()], expect[..]);
        // Pieces of small boards: at least two rows where the board has them.
        for (n, depth) in [(1, 1), (2, 2), (4, 2), (15, 2), (16, 3), (20, 7), (32, 19)] {
            assert_eq!(Lister::new(&Job::new(n).unwrap()).depth(), depth, "{n}");
        }
    }
}
