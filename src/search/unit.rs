//! What a search takes (a [`Unit`]: a placed prefix and its attacks) and gives ([`Counts`]).

use super::bounded::Rows;
use super::dfs::{Masks, MAX_N};
use super::Runner;
use std::ops::AddAssign;

/// The most rows a unit's prefix may fix (the deepest split).
pub const MAX_PREFIX: usize = 4;

/// One independent piece of a search: the queens of its first rows, and what each solution
/// below them stands for. Its fields are the engine's; a caller reads them through the
/// accessors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Position in the job's unit list.
    pub(crate) index: u32,
    /// Columns of the queens of the first `depth` rows.
    pub(crate) prefix: [u8; MAX_PREFIX],
    /// Number of rows the prefix fixes.
    pub(crate) depth: u8,
    /// Attacks on row `depth` from the prefix.
    pub(crate) masks: Masks,
    /// How many solutions each completion found in this unit stands for: 1 or 2 (plain,
    /// mirror); 8 for the D4 method, the class size of an asymmetric solution (its smaller
    /// classes are recognised solution by solution); for the edge method the size of the
    /// unit's class of frames (8, 4 or 2).
    pub(crate) weight: u8,
    /// The edge method only (zeros otherwise): the unit's edge queens, `[top column, bottom
    /// column, left row, right row]` (`search::edge::Frame`).
    pub(crate) frame: [u8; 4],
}

impl Unit {
    /// Its position in its plan's units ([`crate::Plan::units`]), as checkpoints and shard
    /// files name it.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The 0-based columns of the queens of its first rows, row 0 first.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix[..self.depth as usize]
    }

    /// How many solutions each solution found below its prefix stands for (1 to 8: see the
    /// field's documentation).
    pub fn weight(&self) -> u8 {
        self.weight
    }

    /// The edge method's queens on the board's edges, 0-based: `[top column, bottom column,
    /// left row, right row]`; zeros for the other methods.
    pub fn frame(&self) -> [u8; 4] {
        self.frame
    }
}

/// Appends to `units` a unit for each valid placement of the first `depth` rows of an `n`
/// board under `rows` (1 to [`MAX_PREFIX`] rows, at most N), in lexicographic order of the
/// prefix, numbered on from the units already there: of the weight `weight` gives its prefix
/// (`None`: left out) and with `frame`.
pub(crate) fn push_units(
    units: &mut Vec<Unit>,
    n: u32,
    rows: &Rows,
    depth: usize,
    frame: [u8; 4],
    weight: impl Fn(&[u8]) -> Option<u8>,
) {
    let mut prefix = [0u8; MAX_PREFIX];
    let full = super::dfs::full_mask(n);
    super::bounded::prefixes(
        full,
        rows,
        depth,
        0,
        Masks::EMPTY,
        &mut prefix,
        &mut |p, m| {
            if let Some(weight) = weight(&p[..depth]) {
                units.push(Unit {
                    index: units.len() as u32,
                    prefix: p,
                    depth: depth as u8,
                    masks: m,
                    weight,
                    frame,
                });
            }
        },
    );
}

/// Solution counts of a unit or of a whole job, in `u128`; adding them never wraps (a sum that
/// would overflow panics rather than give a wrong count).
///
/// ```
/// use nqueens_count::Counts;
///
/// let mut sum = Counts::default();
/// sum += Counts { total: 8, unique: 1 };
/// sum += Counts { total: 4, unique: 1 };
/// assert_eq!(sum, Counts { total: 12, unique: 2 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Counts {
    /// All solutions (OEIS A000170 for a whole unconstrained job).
    pub total: u128,
    /// Solutions distinct up to rotation and reflection, when the job asks for them (A002562).
    pub unique: u128,
}

impl AddAssign for Counts {
    fn add_assign(&mut self, o: Counts) {
        // u128 cannot overflow here: a(32) is far below 2^128. Checked anyway: never wrap.
        self.total = self
            .total
            .checked_add(o.total)
            .expect("solution count overflowed u128");
        self.unique = self
            .unique
            .checked_add(o.unique)
            .expect("solution count overflowed u128");
    }
}

/// A piece of a unit's search that is counted, not classified: the completions of rows
/// `first..n` below `masks`, each row within `rows`, every completion standing for `total`
/// solutions and `unique` classes. Any counting kernel may take it (the lanes, or an OpenCL
/// device through [`CountedPart::sub_problem`]); the rest of the unit, whose solutions must be
/// classified one by one, stays on the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountedPart {
    /// What each row may use, and the column deadline.
    pub rows: Rows,
    /// The first row to place; at most `n - 3` (the lanes need three rows).
    pub first: u32,
    /// Attacks on row `first` from the rows above.
    pub(crate) masks: Masks,
    /// Solutions per completion.
    pub total: u8,
    /// Classes per completion (0 when the job does not count them).
    pub unique: u8,
}

impl CountedPart {
    /// The completions of this part on an `n` board, counted on the lanes of `kernel`.
    pub fn count_on(&self, run: Runner, n: u32) -> u64 {
        super::lanes::count(run, n, self.first, self.masks, &self.rows)
    }

    /// What `found` completions of this part add to a unit's counts.
    pub fn counts(&self, found: u64) -> Counts {
        Counts {
            total: u128::from(found) * u128::from(self.total),
            unique: u128::from(found) * u128::from(self.unique),
        }
    }

    /// This part as an OpenCL sub-problem with rows spec `rows_index`, and that spec.
    #[cfg(feature = "opencl")]
    pub fn sub_problem(&self, rows_index: u32) -> (super::opencl::Sub, super::opencl::RowSpec) {
        let (dead_row, dead_cols) = self.rows.deadline;
        let spec = super::opencl::RowSpec {
            allow: self.rows.allow,
            dead_row: (dead_row as u32).min(super::opencl::NO_DEADLINE),
            dead_cols,
        };
        let sub = super::opencl::Sub {
            cols: self.masks.cols,
            diag_up: self.masks.diag_up,
            diag_down: self.masks.diag_down,
            first: self.first,
            rows: rows_index,
        };
        (sub, spec)
    }
}

/// A piece of a unit's search whose solutions are classified one by one under the symmetries
/// of the square: the completions of rows `first..n` below `masks` within `rows`, the columns
/// of the rows above in `prefix`. The CPU walks it on the lanes ([`ClassifiedPart::evaluate_on`]);
/// an OpenCL device classifies it on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassifiedPart {
    /// What each row may use, and the column deadline.
    pub rows: Rows,
    /// The first row to place; at most `n - 3`.
    pub first: u32,
    /// Attacks on row `first` from the rows above.
    pub(crate) masks: Masks,
    /// The columns of rows `0..first`.
    pub prefix: [u8; MAX_N as usize],
    /// What a solution adds.
    pub weight: SolutionWeight,
    /// Whether unique counts are wanted (else they are reported as 0).
    pub unique: bool,
}

/// What a classified solution adds to the counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolutionWeight {
    /// A canonical solution adds its class size and one class; any other, nothing (d4's tied
    /// parts: the search meets every class there through its canonical member).
    Classes,
    /// Every solution adds this weight; a canonical one also adds one class (plain and mirror
    /// with unique counts).
    Weighted(u8),
}

impl ClassifiedPart {
    /// The counts of this part on an `n` board, walked on the lanes of `kernel`.
    pub fn evaluate_on(&self, run: Runner, n: u32) -> Counts {
        let mut s = self.prefix;
        let (first, n_us) = (self.first as usize, n as usize);
        let mut counts = Counts::default();
        super::lanes::visit(run, n, self.first, self.masks, &self.rows, |tail| {
            s[first..n_us].copy_from_slice(tail);
            match self.weight {
                SolutionWeight::Classes => {
                    let o = super::symmetry::orbit(&s[..n_us]);
                    if o.canonical {
                        counts.total += u128::from(o.size);
                        counts.unique += 1;
                    }
                }
                SolutionWeight::Weighted(w) => {
                    counts.total += u128::from(w);
                    counts.unique += u128::from(super::symmetry::is_canonical(&s[..n_us]));
                }
            }
        });
        if !self.unique {
            counts.unique = 0;
        }
        counts
    }

    /// The counts from a device's classification `[solutions, canonical solutions, class
    /// sizes of the canonical ones]`.
    #[cfg_attr(not(feature = "opencl"), allow(dead_code))]
    pub fn counts(&self, found: [u128; 3]) -> Counts {
        let [solutions, canonical, sizes] = found;
        let total = match self.weight {
            SolutionWeight::Classes => sizes,
            SolutionWeight::Weighted(w) => solutions * u128::from(w),
        };
        Counts {
            total,
            unique: if self.unique { canonical } else { 0 },
        }
    }
}
