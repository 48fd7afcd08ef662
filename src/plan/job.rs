//! A counting job: what to count, validated once, before any work starts.

use crate::error::{Attack, Error, Result};
pub use crate::search::Method;
use crate::search::{MAX_N, MAX_PREFIX};
use std::sync::OnceLock;

/// A queen on the board. People write squares 1-based (row 1 at the top, column 1 leftmost),
/// programs 0-based: each way has its constructor and its accessor, named so.
///
/// ```
/// use nqueens_count::Queen;
///
/// let q = Queen::one_based(1, 3).unwrap();
/// assert_eq!((q.row(), q.col()), (1, 3));
/// assert_eq!(q.zero_based(), (0, 2));
/// assert_eq!(Queen::from_zero_based(0, 2), q);
/// assert_eq!(Queen::one_based(0, 3), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Queen {
    /// Row, 0-based.
    pub(crate) row: u32,
    /// Column, 0-based.
    pub(crate) col: u32,
}

impl Queen {
    /// A queen at 1-based `row` and `col`, as people write them; `None` for row or column 0.
    pub fn one_based(row: u32, col: u32) -> Option<Queen> {
        Some(Queen {
            row: row.checked_sub(1)?,
            col: col.checked_sub(1)?,
        })
    }

    /// A queen at 0-based `row` and `col`, as programs index them.
    pub fn from_zero_based(row: u32, col: u32) -> Queen {
        Queen { row, col }
    }

    /// Its row, 1-based.
    pub fn row(self) -> u32 {
        self.row + 1
    }

    /// Its column, 1-based.
    pub fn col(self) -> u32 {
        self.col + 1
    }

    /// Its row and column, 0-based.
    pub fn zero_based(self) -> (u32, u32) {
        (self.row, self.col)
    }
}

/// The deepest split the engine accepts.
pub const MAX_SPLIT_DEPTH: u32 = MAX_PREFIX as u32;

/// The most worker threads an engine takes: more than the logical cores of any machine this
/// runs on, and few enough that a mistyped count fails at once instead of spending minutes
/// starting threads.
pub const MAX_THREADS: usize = 1024;

/// Checks a worker thread count: 1 to [`MAX_THREADS`].
pub fn check_threads(threads: usize) -> Result<usize> {
    if threads == 0 {
        return Err(Error::ZeroThreads);
    }
    if threads > MAX_THREADS {
        return Err(Error::TooManyThreads {
            threads,
            max: MAX_THREADS,
        });
    }
    Ok(threads)
}

/// A validated counting job: the board, the method, pre-placed queens, the split depth and
/// whether unique counts are wanted. Checked when built, so a bad request fails before any
/// work; the same job always yields the same work units.
///
/// ```
/// use nqueens_count::{Error, Job, Method, Queen};
///
/// let corner = Queen::one_based(1, 1).unwrap();
/// let job = Job::new(10)?
///     .with_method(Method::D4)
///     .with_split_depth(3)?
///     .with_placed(&[corner])?
///     .with_unique(true);
/// assert_eq!((job.n(), job.split_depth(), job.placed()), (10, 3, &[corner][..]));
/// assert!(matches!(Job::new(33), Err(Error::BoardSize { .. })));
/// # Ok::<(), nqueens_count::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Job {
    n: u32,
    method: Method,
    split_depth: Depth,
    placed: Vec<Queen>,
    unique: bool,
}

/// How a job's split depth came about.
#[derive(Clone, Debug)]
enum Depth {
    /// Chosen ([`Job::with_split_depth`], [`Job::with_default_split_depth`]).
    Chosen(u32),
    /// The default for one thread, which follows the method and the placed queens: worked out
    /// on first use, since it plans the units (3 ms at N = 14, a tenth of a second at N = 27)
    /// and a listing never asks for it (`results/2026-12-04-listing-speed/NOTE.md`).
    Default(OnceLock<u32>),
}

/// Two jobs are the same job when they count the same thing the same way: how the split depth
/// came about does not matter.
impl PartialEq for Job {
    fn eq(&self, other: &Job) -> bool {
        self.identity() == other.identity()
    }
}

impl Eq for Job {}

impl std::hash::Hash for Job {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.identity().hash(state);
    }
}

/// Checks that `n` is a board size the counting engine supports (1..=32).
pub fn check_n(n: u32) -> Result<u32> {
    if (1..=MAX_N).contains(&n) {
        Ok(n)
    } else {
        Err(Error::BoardSize {
            n,
            min: 1,
            max: MAX_N,
        })
    }
}

/// Work units per worker thread that the default split depth aims for.
pub const UNITS_PER_THREAD: usize = 16;

impl Job {
    /// A job counting all solutions for an `n`×`n` board with the default method (the fastest:
    /// `docs/ALGORITHM.md`) and the default split depth for one thread
    /// ([`Job::default_split_depth`]), which follows the method and the placed queens until a
    /// depth is chosen. The depth depends on nothing else, so the same calls make the same job
    /// (the same units, the same checkpoint identity) on every machine. Many threads balance
    /// better with a deeper split: [`Job::with_default_split_depth`] chooses it for them.
    pub fn new(n: u32) -> Result<Job> {
        let n = check_n(n)?;
        let job = Job {
            n,
            method: Method::default(),
            split_depth: Depth::Default(OnceLock::new()),
            placed: Vec::new(),
            unique: false,
        };
        Ok(job)
    }

    /// What makes two jobs the same job.
    fn identity(&self) -> (u32, Method, u32, &[Queen], bool) {
        (
            self.n,
            self.method,
            self.split_depth(),
            &self.placed,
            self.unique,
        )
    }

    /// This job with the default split depth for one thread worked out again (the method or
    /// the placed queens changed), unless a depth was chosen.
    fn with_depth_for_one_thread(mut self) -> Job {
        if let Depth::Default(depth) = &mut self.split_depth {
            *depth = OnceLock::new();
        }
        self
    }

    /// The split depth for `threads` workers: the shallowest depth from 2 to 4 whose plan has
    /// at least 16 units per thread, so that the costliest unit is a small share of a thread's
    /// work and the tail of a run is short; never deeper than the board. A job's depth, until
    /// one is chosen, is this for one thread.
    ///
    /// A deeper split balances more threads but is not free: each unit's search on the lane
    /// kernels has a start-up and a drain with partly empty registers, so the rule asks for no
    /// more units than balance needs (the load balance of each depth replayed at 2 to 256
    /// threads, and the cost of a deeper split: `results/2026-11-29-vm-split-depth/NOTE.md`,
    /// `results/2026-11-29-lane-kernel-notes/NOTE.md`). Units are counted on the real plan, so
    /// the rule follows the method and pre-placed queens.
    pub fn default_split_depth(&self, threads: usize) -> u32 {
        let max = MAX_SPLIT_DEPTH.min(self.n);
        let want = UNITS_PER_THREAD.saturating_mul(threads.max(1));
        (2.min(max)..max)
            .find(|&depth| {
                let job = Job {
                    split_depth: Depth::Chosen(depth),
                    ..self.clone()
                };
                crate::plan::Plan::new(job).units().len() >= want
            })
            .unwrap_or(max)
    }

    /// This job split for `threads` workers ([`Job::default_split_depth`]): what the command
    /// line does when no depth is given. The depth is then chosen: call it after setting the
    /// method and the placed queens, which change the units.
    pub fn with_default_split_depth(mut self, threads: usize) -> Job {
        self.split_depth = Depth::Chosen(self.default_split_depth(threads));
        self
    }

    /// Uses `method` to search.
    pub fn with_method(mut self, method: Method) -> Job {
        if method == self.method {
            return self;
        }
        self.method = method;
        self.with_depth_for_one_thread()
    }

    /// Splits the search into units by the queens of the first `depth` rows (1..=4, at most N).
    pub fn with_split_depth(mut self, depth: u32) -> Result<Job> {
        let max = MAX_SPLIT_DEPTH.min(self.n);
        if !(1..=max).contains(&depth) {
            return Err(Error::SplitDepth {
                depth,
                n: self.n,
                max,
            });
        }
        self.split_depth = Depth::Chosen(depth);
        Ok(self)
    }

    /// Counts only the solutions that contain every queen of `queens`. They must be on the
    /// board, on distinct rows and columns, and must not attack each other.
    pub fn with_placed(mut self, queens: &[Queen]) -> Result<Job> {
        let n = self.n;
        let mut placed: Vec<Queen> = queens.to_vec();
        for q in &placed {
            if q.row >= n || q.col >= n {
                return Err(Error::QueenOffBoard {
                    row: q.row + 1,
                    col: q.col + 1,
                    n,
                });
            }
        }
        placed.sort();
        placed.dedup();
        if placed == self.placed {
            return Ok(self);
        }
        for (i, a) in placed.iter().enumerate() {
            for b in &placed[i + 1..] {
                let how = if a.row == b.row {
                    Attack::Row
                } else if a.col == b.col {
                    Attack::Column
                } else if a.row.abs_diff(b.row) == a.col.abs_diff(b.col) {
                    Attack::Diagonal
                } else {
                    continue;
                };
                return Err(Error::QueensConflict {
                    first: (a.row + 1, a.col + 1),
                    second: (b.row + 1, b.col + 1),
                    how,
                });
            }
        }
        self.placed = placed;
        Ok(self.with_depth_for_one_thread())
    }

    /// Also counts the solutions distinct up to rotation and reflection (OEIS A002562).
    pub fn with_unique(mut self, unique: bool) -> Job {
        self.unique = unique;
        self
    }

    /// Board size.
    pub fn n(&self) -> u32 {
        self.n
    }
    /// The method asked for (the plan may fall back to a weaker one; see [`crate::Plan::method`]).
    pub fn method(&self) -> Method {
        self.method
    }
    /// The method a plan of this job counts with ([`crate::Plan::method`]), known without
    /// making the plan: the method asked for, or the first of its fall-backs whose symmetry the
    /// pre-placed queens keep (edge and d4 fall back to mirror, mirror to plain; at N = 1 edge
    /// and d4 run as mirror).
    pub fn effective_method(&self) -> Method {
        let squares: Vec<(u32, u32)> = self.placed.iter().map(|q| (q.row, q.col)).collect();
        self.method.for_placement(self.n, &squares)
    }
    /// The method the pre-placed queens make this job count with, when it is not the one the
    /// board alone would count with (at N = 1 edge and d4 run as mirror, queens or not): a
    /// change a caller should say. `None` when the queens changed nothing.
    pub fn placement_fallback(&self) -> Option<Method> {
        let ran = self.effective_method();
        (ran != self.method.for_placement(self.n, &[])).then_some(ran)
    }
    /// Rows whose queens define the work units: the depth chosen, or the default for one
    /// thread ([`Job::default_split_depth`]).
    pub fn split_depth(&self) -> u32 {
        match &self.split_depth {
            Depth::Chosen(depth) => *depth,
            Depth::Default(depth) => *depth.get_or_init(|| self.default_split_depth(1)),
        }
    }
    /// Pre-placed queens, sorted (row first, then column).
    pub fn placed(&self) -> &[Queen] {
        &self.placed
    }
    /// Whether unique solutions are counted too.
    pub fn unique(&self) -> bool {
        self.unique
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A change of method is the queens' only where the board alone would count otherwise.
    #[test]
    fn only_a_change_the_queens_make_is_a_fallback() {
        // 0-based (row, column).
        let job = |n, placed: &[(u32, u32)]| {
            let queens: Vec<Queen> = placed
                .iter()
                .map(|&(row, col)| Queen { row, col })
                .collect();
            Job::new(n).unwrap().with_placed(&queens).unwrap()
        };
        assert_eq!(job(8, &[]).placement_fallback(), None);
        assert_eq!(job(8, &[(0, 0)]).placement_fallback(), Some(Method::Plain));
        assert_eq!(job(9, &[(0, 4)]).placement_fallback(), Some(Method::Mirror));
        assert_eq!(job(9, &[(4, 4)]).placement_fallback(), None);
        // At N = 1 edge runs as mirror with the queen or without it.
        assert_eq!(job(1, &[(0, 0)]).effective_method(), Method::Mirror);
        assert_eq!(job(1, &[(0, 0)]).placement_fallback(), None);
    }

    #[test]
    fn board_size_is_checked() {
        assert!(Job::new(0).is_err());
        assert!(Job::new(33).is_err());
        assert_eq!(Job::new(32).unwrap().n(), 32);
        assert_eq!(
            check_n(u32::MAX),
            Err(Error::BoardSize {
                n: u32::MAX,
                min: 1,
                max: 32
            })
        );
    }

    #[test]
    fn split_depth_is_checked() {
        let j = Job::new(8).unwrap();
        assert!(j.clone().with_split_depth(0).is_err());
        assert!(j.clone().with_split_depth(5).is_err());
        assert_eq!(j.clone().with_split_depth(4).unwrap().split_depth(), 4);
        let small = Job::new(2).unwrap();
        assert_eq!(small.split_depth(), 2);
        assert!(small.with_split_depth(3).is_err());
    }

    #[test]
    fn default_depth_grows_with_threads() {
        let mirror = |n| Job::new(n).unwrap().with_method(Method::Mirror);
        assert_eq!(mirror(16).default_split_depth(1), 2);
        assert_eq!(mirror(16).default_split_depth(16), 3);
        assert_eq!(mirror(16).default_split_depth(256), 4);
        assert_eq!(mirror(4).default_split_depth(1), 4);
        assert_eq!(mirror(1).default_split_depth(1), 1);
        assert_eq!(mirror(2).default_split_depth(1000), 2);
        // The chosen depth gives enough units, and the one above it would be shallower.
        for n in [8u32, 12, 16, 20] {
            for threads in [1usize, 2, 16, 64] {
                let job = Job::new(n).unwrap();
                let k = job.default_split_depth(threads);
                let units = crate::plan::Plan::new(job.clone().with_split_depth(k).unwrap())
                    .units()
                    .len();
                assert!(
                    k == MAX_SPLIT_DEPTH.min(n) || units >= UNITS_PER_THREAD * threads,
                    "n {n} t {threads}"
                );
                if k > 2 {
                    let fewer = crate::plan::Plan::new(job.with_split_depth(k - 1).unwrap())
                        .units()
                        .len();
                    assert!(fewer < UNITS_PER_THREAD * threads, "n {n} t {threads}");
                }
            }
        }
    }

    /// Jobs that differ in anything they count or how (board, method, split depth, placed
    /// queens, unique) are different jobs, and hash apart; how the depth came about does not
    /// count.
    #[test]
    fn jobs_differ_in_each_part_of_their_identity() {
        use std::hash::{BuildHasher, RandomState};
        let hashes = RandomState::new();
        let base = Job::new(10).unwrap().with_split_depth(3).unwrap();
        let others = [
            Job::new(11).unwrap().with_split_depth(3).unwrap(),
            base.clone().with_method(Method::Plain),
            base.clone().with_split_depth(2).unwrap(),
            base.clone()
                .with_placed(&[Queen::from_zero_based(0, 0)])
                .unwrap(),
            base.clone().with_unique(true),
        ];
        for other in &others {
            assert_ne!(&base, other);
            assert_ne!(hashes.hash_one(&base), hashes.hash_one(other), "{other:?}");
        }
        let default = Job::new(10).unwrap();
        let chosen = default.clone().with_split_depth(default.split_depth());
        assert_eq!(hashes.hash_one(&default), hashes.hash_one(chosen.unwrap()));
    }

    #[test]
    fn a_new_jobs_depth_follows_the_job_only() {
        let q = |r, c| Queen::one_based(r, c).unwrap();
        for n in [1u32, 2, 4, 5, 8, 12, 16] {
            for method in Method::ALL {
                for placed in [vec![], vec![q(1, 1)], vec![q(2, 3)]] {
                    let Ok(job) = Job::new(n)
                        .unwrap()
                        .with_method(method)
                        .with_placed(&placed)
                    else {
                        continue;
                    };
                    // The rule for one thread, on the final method and queens, whatever the
                    // order of the calls.
                    assert_eq!(
                        job.split_depth(),
                        job.default_split_depth(1),
                        "{n} {method}"
                    );
                    let other_order = Job::new(n)
                        .unwrap()
                        .with_placed(&placed)
                        .unwrap()
                        .with_method(method);
                    assert_eq!(other_order, job, "{n} {method} {placed:?}");
                }
            }
        }
        // At N = 6 edge has 16 units at depth 2, mirror needs 3 and d4 4.
        let six = |m| Job::new(6).unwrap().with_method(m).split_depth();
        let depths = [Method::Edge, Method::Mirror, Method::D4].map(six);
        assert_eq!(depths, [2, 3, 4]);
        // The default is worked out when first asked for, and again once the method or the
        // queens change.
        let edge = Job::new(6).unwrap().with_method(Method::Edge);
        assert_eq!(edge.split_depth(), 2);
        assert_eq!(edge.clone().with_method(Method::D4).split_depth(), 4);
        let cornered = edge.with_placed(&[q(1, 1)]).unwrap();
        assert_eq!(cornered.split_depth(), cornered.default_split_depth(1));
        assert_ne!(cornered.effective_method(), Method::Edge);
        // A chosen depth stays when the method or the queens change.
        let chosen = Job::new(16).unwrap().with_split_depth(3).unwrap();
        let moved = chosen
            .clone()
            .with_method(Method::Mirror)
            .with_placed(&[q(1, 1)]);
        assert_eq!(moved.unwrap().split_depth(), 3);
        let many = Job::new(16).unwrap().with_method(Method::Mirror);
        let many = many.with_default_split_depth(16);
        assert_eq!(many.split_depth(), 3);
        assert_eq!(many.with_method(Method::Plain).split_depth(), 3);
        // How a depth came about is not part of the job.
        let default = Job::new(16).unwrap();
        let same = Job::new(16)
            .unwrap()
            .with_split_depth(default.split_depth());
        assert_eq!(same.unwrap(), default);
    }

    #[test]
    fn placed_queens_are_checked() {
        let j = Job::new(8).unwrap();
        let q = |r, c| Queen::one_based(r, c).unwrap();
        assert!(matches!(
            j.clone().with_placed(&[q(9, 1)]),
            Err(Error::QueenOffBoard { .. })
        ));
        assert!(matches!(
            j.clone().with_placed(&[q(1, 1), q(1, 5)]),
            Err(Error::QueensConflict {
                first: (1, 1),
                second: (1, 5),
                how: Attack::Row
            })
        ));
        assert!(matches!(
            j.clone().with_placed(&[q(1, 1), q(4, 1)]),
            Err(Error::QueensConflict {
                first: (1, 1),
                second: (4, 1),
                how: Attack::Column
            })
        ));
        assert!(matches!(
            j.clone().with_placed(&[q(1, 1), q(3, 3)]),
            Err(Error::QueensConflict {
                how: Attack::Diagonal,
                ..
            })
        ));
        let ok = j.with_placed(&[q(2, 3), q(1, 1), q(1, 1)]).unwrap();
        assert_eq!(ok.placed(), &[q(1, 1), q(2, 3)]);
    }

    #[test]
    fn the_effective_method_is_the_plans() {
        let q = |r, c| Queen::one_based(r, c).unwrap();
        // (1,1) is not its own mirror image: every method falls to plain. The centre of a 9×9
        // board keeps all 8 symmetries; the middle of its top row keeps only the mirror.
        let cases = [
            (8, vec![], Method::Edge, Method::Edge),
            (8, vec![q(1, 1)], Method::Edge, Method::Plain),
            (8, vec![q(1, 1)], Method::Mirror, Method::Plain),
            (9, vec![q(5, 5)], Method::Edge, Method::Edge),
            (9, vec![q(5, 5)], Method::D4, Method::D4),
            (9, vec![q(1, 5)], Method::Edge, Method::Mirror),
            (9, vec![q(1, 5)], Method::D4, Method::Mirror),
            (1, vec![], Method::Edge, Method::Mirror),
        ];
        for (n, placed, asked, ran) in cases {
            let job = Job::new(n)
                .unwrap()
                .with_method(asked)
                .with_placed(&placed)
                .unwrap();
            assert_eq!(job.effective_method(), ran, "{n} {placed:?} {asked}");
            assert_eq!(crate::plan::Plan::new(job).method(), ran, "{n} {placed:?}");
        }
    }
}
