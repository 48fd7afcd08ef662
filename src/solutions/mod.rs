//! Solutions themselves, not only their number: one solution for any N by an explicit
//! construction, every solution of a job streamed in lexicographic order, the symmetries that
//! tell distinct solutions apart, and the UVa 750 judge problem ([`uva750`]).
//!
//! A solution is its column sequence: the column of the queen in the top row, the next row, …
//! Read 1-based, as people write them (row 1 at the top, column 1 leftmost: what
//! [`construct`] yields and [`Solution::column`] gives), or 0-based, as programs index them
//! ([`Solution::zero_based`], [`symmetry`]); each accessor says which in its name or its doc.
//!
//! ```
//! use nqueens_count::solutions::{construct, for_each_solution};
//! use nqueens_count::{Job, Queen};
//! use std::ops::ControlFlow;
//!
//! // One solution for a large board, row by row, without search.
//! let cols: Vec<u32> = construct(1_000)?.expect("N = 1000 has solutions").collect();
//! assert_eq!(cols.len(), 1_000);
//!
//! // Every 6-queens solution with a queen at row 1, column 2 (1-based), in lexicographic order.
//! let job = Job::new(6)?.with_placed(&[Queen::one_based(1, 2).unwrap()])?;
//! let mut seen = Vec::new();
//! for_each_solution(&job, |s| {
//!     seen.push(s.columns().collect::<Vec<u32>>());
//!     ControlFlow::Continue(())
//! })?;
//! assert_eq!(seen, vec![vec![2, 4, 6, 1, 3, 5]]);
//! # Ok::<(), nqueens_count::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::plan::{Job, Method, Plan, Unit};
use crate::search::dfs::{self, MAX_N};

use std::ops::ControlFlow;

mod chunk;
mod ordered;
mod parallel;
mod spread;
pub mod uva750;
mod write;

/// The eight symmetries of the square and the canonical (lexicographically smallest) member of
/// a solution's class: to tell which solutions are distinct. Solutions are given 0-based here,
/// as [`Solution::zero_based`] gives them.
pub mod symmetry {
    pub use crate::search::symmetry::{canonical, is_canonical, orbit, Orbit, Symmetry};
}
pub use write::{write_solutions, WriteError, WriteOptions, MAX_PARALLEL_N};

/// The largest board [`construct`] accepts: the largest N, as N is a `u32` throughout.
pub const MAX_CONSTRUCT_N: u32 = u32::MAX;

/// One solution of the `n`-queens problem, produced row by row by a closed formula: time O(1)
/// per row, no memory beyond this struct.
///
/// The construction is the classical one by N mod 6 (E. J. Hoffman, J. C. Loessi, R. C. Moore,
/// "Constructions for the Solution of the m Queens Problem", Mathematics Magazine 42(2), 1969,
/// pp. 66–72; in the form given by B. Bernhardsson, "Explicit solutions to the N-queens problem
/// for all N", ACM SIGART Bulletin 2(2), 1991, p. 7). Write the even numbers 2, 4, …, then the
/// odd numbers 1, 3, … (1-based); if N mod 6 is 2, swap 1 and 3 and move 5 to the end of the odd
/// numbers; if N mod 6 is 3, move 2 to the end of the even numbers and 1, 3 to the end of the
/// odd numbers. Position i of that list is the column of the queen in row i (the construction is
/// usually stated per column; a solution transposed is a solution).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Construction {
    n: u32,
    /// The rows already yielded by the iterator.
    next: u32,
}

impl Construction {
    /// The board size.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The 1-based column of the queen in the 1-based `row`; `None` for a row off the board
    /// (0 or past N).
    ///
    /// ```
    /// let c = nqueens_count::solutions::construct(8)?.unwrap();
    /// assert_eq!((c.column(1), c.column(8)), (Some(2), Some(5)));
    /// assert_eq!((c.column(0), c.column(9)), (None, None));
    /// # Ok::<(), nqueens_count::Error>(())
    /// ```
    pub fn column(&self, row: u32) -> Option<u32> {
        (1..=self.n).contains(&row).then(|| self.column_of(row))
    }

    /// [`Construction::column`] of a row on the board, 1 to N (the arithmetic is in `u64`:
    /// `2 * p + 3` passes `u32::MAX` at the largest N).
    fn column_of(&self, row: u32) -> u32 {
        let column = self.column_u64(u64::from(row));
        u32::try_from(column).expect("a column of the board is at most N")
    }

    /// The column of the list of the type's doc at the 1-based position `row`.
    fn column_u64(&self, row: u64) -> u64 {
        let n = u64::from(self.n);
        // The 1-based position in the list of the doc comment, and the number of even entries.
        let p = row;
        let evens = n / 2;
        match n % 6 {
            2 => {
                if p <= evens {
                    2 * p
                } else {
                    // Odd part (n even, n/2 entries): 3, 1, 7, 9, …, n-1, 5.
                    let j = p - evens;
                    match j {
                        1 => 3,
                        2 => 1,
                        _ if j == n / 2 => 5,
                        _ => 2 * j + 1,
                    }
                }
            }
            3 => {
                if p < evens {
                    // 4, 6, …, n-1, then 2.
                    2 * p + 2
                } else if p == evens {
                    2
                } else {
                    // Odd part ((n+1)/2 entries): 5, 7, …, n, 1, 3.
                    let odds = n - evens;
                    let j = p - evens;
                    if j + 1 < odds {
                        2 * j + 3
                    } else if j + 1 == odds {
                        1
                    } else {
                        3
                    }
                }
            }
            _ => {
                if p <= evens {
                    2 * p
                } else {
                    2 * (p - evens) - 1
                }
            }
        }
    }
}

impl Iterator for Construction {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        (self.next < self.n).then(|| {
            self.next += 1;
            self.column_of(self.next)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.n - self.next).unwrap_or(usize::MAX);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Construction {}

/// One solution for an `n`×`n` board, as an iterator of the 1-based columns of rows 1, 2, …:
/// `Ok(None)` for N = 2 and 3, which have no solution; an error for N = 0 or N above
/// [`MAX_CONSTRUCT_N`]. Time linear in N, constant memory: no search.
pub fn construct(n: u32) -> Result<Option<Construction>> {
    if n == 0 {
        return Err(Error::BoardSize {
            n,
            min: 1,
            max: MAX_CONSTRUCT_N,
        });
    }
    Ok((n != 2 && n != 3).then_some(Construction { n, next: 0 }))
}

/// Calls `f` with every solution of `job` (all solutions of its board that contain its placed
/// queens), in lexicographic order of the column sequence; with [`Job::unique`], only the
/// lexicographically smallest member of each symmetry class.
///
/// Streams: memory does not grow with the number of solutions. `f` returning `Break` stops the
/// walk, and the result is `Ok(Break)`. The job's method is ignored (every unit of the plain
/// method is walked, in index order, which is lexicographic prefix order). `unique` together
/// with placed queens is refused: a class may have members with and without the queens, so
/// "one per class" would not be well defined.
///
/// ```
/// use nqueens_count::{solutions::for_each_solution, Job};
/// use std::ops::ControlFlow;
///
/// let mut first = Vec::new();
/// for_each_solution(&Job::new(8)?, |s| {
///     first = s.columns().collect();
///     ControlFlow::Break(())
/// })?;
/// assert_eq!(first, [1, 5, 8, 6, 3, 7, 2, 4]);
/// # Ok::<(), nqueens_count::Error>(())
/// ```
pub fn for_each_solution<F>(job: &Job, mut f: F) -> Result<ControlFlow<()>>
where
    F: FnMut(Solution<'_>) -> ControlFlow<()>,
{
    check_listing(job)?;
    let listing = Listing::new(job);
    let mut cols = [0u8; MAX_N as usize];
    for unit in listing.units() {
        let flow = listing.visit(unit, &mut cols, |s| f(Solution(s)));
        if flow.is_break() {
            return Ok(flow);
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// One solution, as the column of its queen in each row, top row first. Read 1-based, as people
/// write it (`column(1)` is the top row's queen, columns from 1), or 0-based, as programs index
/// it ([`Solution::zero_based`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solution<'a>(&'a [u8]);

impl<'a> Solution<'a> {
    /// The board size.
    pub fn n(self) -> u32 {
        self.0.len() as u32
    }

    /// The 1-based column of the queen in the 1-based `row`; `None` for a row off the board
    /// (0 or past N).
    pub fn column(self, row: u32) -> Option<u32> {
        let index = usize::try_from(row.checked_sub(1)?).ok()?;
        self.0.get(index).map(|&c| u32::from(c) + 1)
    }

    /// The 1-based columns, top row first.
    pub fn columns(self) -> impl ExactSizeIterator<Item = u32> + 'a {
        self.0.iter().map(|&c| u32::from(c) + 1)
    }

    /// The 0-based columns, top row first, as bytes.
    pub fn zero_based(self) -> &'a [u8] {
        self.0
    }
}

/// What a listing walks: the job's units under the plain method (index order is lexicographic
/// prefix order) and its row masks; the one piece shared by the serial and parallel listings.
pub(crate) struct Listing {
    pub(crate) plan: Plan,
    rows: [u32; MAX_N as usize],
    pub(crate) unique: bool,
}

impl Listing {
    pub(crate) fn new(job: &Job) -> Listing {
        let plan = Plan::new(job.clone().with_method(Method::Plain));
        let rows = plan
            .allowed()
            .copied()
            .unwrap_or_else(|| dfs::unconstrained(job.n()));
        Listing {
            plan,
            rows,
            unique: job.unique(),
        }
    }

    /// The units to walk, in order: with `unique`, those whose prefix may start a canonical
    /// solution.
    pub(crate) fn units(&self) -> impl Iterator<Item = &Unit> {
        let n = self.plan.job().n();
        self.plan
            .units()
            .iter()
            .filter(move |u| !self.unique || may_hold_canonical(n, u.prefix()))
    }

    /// Calls `f` with the solutions of `unit` in lexicographic order (with `unique`, only the
    /// canonical ones); `cols` is scratch space.
    pub(crate) fn visit<F>(
        &self,
        unit: &Unit,
        cols: &mut [u8; MAX_N as usize],
        f: F,
    ) -> ControlFlow<()>
    where
        F: FnMut(&[u8]) -> ControlFlow<()>,
    {
        let mut f = f;
        let prefix = unit.prefix();
        cols[..prefix.len()].copy_from_slice(prefix);
        let unique = self.unique;
        dfs::visit(
            self.plan.job().n(),
            u32::from(unit.depth),
            unit.masks,
            &self.rows,
            cols,
            |s| {
                if unique && !symmetry::is_canonical(s) {
                    ControlFlow::Continue(())
                } else {
                    f(s)
                }
            },
        )
    }
}

/// Refuses what cannot be listed: unique solutions with pre-placed queens.
fn check_listing(job: &Job) -> Result<()> {
    if job.unique() && !job.placed().is_empty() {
        return Err(Error::UniqueWithPlaced);
    }
    Ok(())
}

/// Whether a unit with this prefix can hold the smallest member of a class: that member is not
/// greater than its mirror image, so neither is its prefix.
fn may_hold_canonical(n: u32, prefix: &[u8]) -> bool {
    let mirrored = prefix.iter().map(|&c| n as u8 - 1 - c);
    mirrored.ge(prefix.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(cols: &[u32]) -> bool {
        let n = cols.len();
        let mut col = vec![false; n];
        let mut d1 = vec![false; 2 * n];
        let mut d2 = vec![false; 2 * n];
        cols.iter().enumerate().all(|(r, &c)| {
            let c = c as usize - 1;
            c < n
                && !std::mem::replace(&mut col[c], true)
                && !std::mem::replace(&mut d1[r + c], true)
                && !std::mem::replace(&mut d2[r + n - c], true)
        })
    }

    #[test]
    fn constructions_by_residue() {
        let get = |n| construct(n).unwrap().unwrap().collect::<Vec<_>>();
        // N mod 6 = 4: evens then odds.
        assert_eq!(get(4), vec![2, 4, 1, 3]);
        // N mod 6 = 2: 2 4 6 8 | 3 1 7 5.
        assert_eq!(get(8), vec![2, 4, 6, 8, 3, 1, 7, 5]);
        // N mod 6 = 3: 4 6 8 2 | 5 7 9 1 3.
        assert_eq!(get(9), vec![4, 6, 8, 2, 5, 7, 9, 1, 3]);
        assert_eq!(get(1), vec![1]);
        for n in [4, 5, 6, 7, 8, 9, 10, 11, 14, 15, 20, 21, 26, 27] {
            assert!(valid(&get(n)), "n = {n}");
        }
        assert_eq!(construct(2), Ok(None));
        assert_eq!(construct(3), Ok(None));
        assert!(construct(0).is_err());
        assert_eq!(construct(10).unwrap().unwrap().len(), 10);
        // The largest N: the first rows and the last, each row's column on the board.
        let c = construct(MAX_CONSTRUCT_N).unwrap().unwrap();
        let n = MAX_CONSTRUCT_N;
        for row in [1, 2, n / 2, n / 2 + 1, n - 1, n] {
            assert!((1..=n).contains(&c.column(row).unwrap()), "row {row}");
        }
        assert_eq!((c.column(0), c.column(n - 1).is_some()), (None, true));
        // A row off the board has no column, rather than a wrong one.
        let c = construct(9).unwrap().unwrap();
        assert_eq!(
            (c.column(0), c.column(10), c.column(9)),
            (None, None, Some(3))
        );
    }

    #[test]
    fn listing_is_lexicographic_and_limited() {
        let job = Job::new(6).unwrap();
        let mut seen = Vec::new();
        let r = for_each_solution(&job, |s| {
            seen.push(s.zero_based().to_vec());
            if seen.len() == 3 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(r, Ok(ControlFlow::Break(())));
        let s = Solution(&seen[0]);
        assert_eq!((s.column(1), s.column(6)), (Some(2), Some(5)));
        assert_eq!((s.column(0), s.column(7)), (None, None));
        assert_eq!(
            seen,
            vec![
                vec![1, 3, 5, 0, 2, 4],
                vec![2, 5, 1, 4, 0, 3],
                vec![3, 0, 4, 1, 5, 2]
            ]
        );
        let job = Job::new(6)
            .unwrap()
            .with_unique(true)
            .with_placed(&[crate::Queen { row: 0, col: 1 }])
            .unwrap();
        assert!(for_each_solution(&job, |_| ControlFlow::Continue(())).is_err());
    }
}
