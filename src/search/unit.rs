//! What a search takes (a [`Unit`]: a placed prefix and its attacks) and gives ([`Counts`]).

use super::dfs::Masks;
use std::ops::AddAssign;

/// The most rows a unit's prefix may fix (the deepest split).
pub const MAX_PREFIX: usize = 4;

/// One independent piece of a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Position in the job's unit list.
    pub index: u32,
    /// Columns of the queens of the first `depth` rows.
    pub prefix: [u8; MAX_PREFIX],
    /// Number of rows the prefix fixes.
    pub depth: u8,
    /// Attacks on row `depth` from the prefix.
    pub masks: Masks,
    /// How many solutions each completion found in this unit stands for: 1 or 2 (plain,
    /// mirror); 8 for the D4 method, the class size of an asymmetric solution (its smaller
    /// classes are recognised solution by solution).
    pub weight: u8,
}

impl Unit {
    /// The prefix columns.
    pub fn prefix(&self) -> &[u8] {
        &self.prefix[..self.depth as usize]
    }
}

/// Solution counts of a unit or of a whole job.
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
