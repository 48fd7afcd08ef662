//! Published values: the number of solutions of the N-Queens problem (OEIS A000170) and the
//! number of them that are distinct up to rotation and reflection (OEIS A002562), N = 1..=27.
//!
//! Sources: N. J. A. Sloane (ed.), The On-Line Encyclopedia of Integer Sequences,
//! <https://oeis.org/A000170> and <https://oeis.org/A002562>. The values for N = 26 were computed
//! by the Queens@TUD project (T. B. Preußer et al., 2009) and for N = 27 by the Q27 project
//! (T. B. Preußer, M. Engelhardt, 2016).

use crate::Counts;

/// One published row: board size, total solutions (A000170), distinct solutions (A002562).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Published {
    /// Board size.
    pub n: u32,
    /// All solutions, OEIS A000170.
    pub total: u128,
    /// Solutions distinct under the 8 symmetries of the square, OEIS A002562.
    pub unique: u128,
}

/// The largest N with a published count.
pub const MAX_KNOWN_N: u32 = 27;

const fn p(n: u32, total: u128, unique: u128) -> Published {
    Published { n, total, unique }
}

/// The published table, indexed by `n - 1`.
pub const TABLE: [Published; 27] = [
    p(1, 1, 1),
    p(2, 0, 0),
    p(3, 0, 0),
    p(4, 2, 1),
    p(5, 10, 2),
    p(6, 4, 1),
    p(7, 40, 6),
    p(8, 92, 12),
    p(9, 352, 46),
    p(10, 724, 92),
    p(11, 2680, 341),
    p(12, 14200, 1787),
    p(13, 73712, 9233),
    p(14, 365596, 45752),
    p(15, 2279184, 285053),
    p(16, 14772512, 1846955),
    p(17, 95815104, 11977939),
    p(18, 666090624, 83263591),
    p(19, 4968057848, 621012754),
    p(20, 39029188884, 4878666808),
    p(21, 314666222712, 39333324973),
    p(22, 2691008701644, 336376244042),
    p(23, 24233937684440, 3029242658210),
    p(24, 227514171973736, 28439272956934),
    p(25, 2207893435808352, 275986683743434),
    p(26, 22317699616364044, 2789712466510289),
    p(27, 234907967154122528, 29363495934315694),
];

/// The published values for `n`, if any.
pub fn published(n: u32) -> Option<Published> {
    n.checked_sub(1)
        .and_then(|i| TABLE.get(i as usize))
        .copied()
}

/// How an announced count stands against the published table ([`check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// The published value, exactly.
    AsPublished,
    /// Nothing to compare with: N beyond the table, or a job with pre-placed queens.
    Unpublished,
}

/// A count of a whole job that differs from the published value: some machine or some build
/// counted wrong, and the count must not be announced as a success.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the count of N = {n} is {}, but the published count is {}: MISMATCH",
    self.found_words(),
    self.published_words()
)]
pub struct Mismatch {
    /// The board.
    pub n: u32,
    /// What was counted (the unique count 0 where the job does not count it).
    pub found: Counts,
    /// The published values (the unique count 0 where the job does not count it).
    pub published: Counts,
    /// Whether the job counts unique solutions.
    pub unique: bool,
}

impl crate::Classify for Mismatch {
    fn class(&self) -> crate::Class {
        crate::Class::Disagreement
    }
}

impl Mismatch {
    /// The count found, in words: "14200 solutions, 1787 unique" or "14200 solutions".
    pub fn found_words(&self) -> String {
        counts_words(self.found, self.unique)
    }

    /// The published count, in words.
    pub fn published_words(&self) -> String {
        counts_words(self.published, self.unique)
    }
}

fn counts_words(c: Counts, unique: bool) -> String {
    if unique {
        format!("{} solutions, {} unique", c.total, c.unique)
    } else {
        format!("{} solutions", c.total)
    }
}

/// The one check of every count announced as a whole job's (count, fresh or resumed; merge;
/// audit; verify): `found` for the board `n`, with pre-placed queens or not, counting unique
/// solutions or not, against the published table. The unique count is compared exactly where
/// it was counted.
pub fn check(n: u32, placed: bool, unique: bool, found: Counts) -> Result<Checked, Mismatch> {
    let Some(p) = published(n).filter(|_| !placed) else {
        return Ok(Checked::Unpublished);
    };
    let published = Counts {
        total: p.total,
        unique: p.unique,
    };
    compare(n, unique, found, published).map(|()| Checked::AsPublished)
}

/// The rule of [`check`] against values given rather than the table's (`verify --table`): the
/// total always, the unique count where it was counted.
pub fn compare(n: u32, unique: bool, found: Counts, expected: Counts) -> Result<(), Mismatch> {
    let asked = |c: Counts| Counts {
        total: c.total,
        unique: if unique { c.unique } else { 0 },
    };
    let (found, published) = (asked(found), asked(expected));
    if found == published {
        Ok(())
    } else {
        Err(Mismatch {
            n,
            found,
            published,
            unique,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn announced_counts_are_checked_total_and_unique() {
        let c = |total, unique| Counts { total, unique };
        assert_eq!(check(8, false, true, c(92, 12)), Ok(Checked::AsPublished));
        assert_eq!(check(8, false, false, c(92, 0)), Ok(Checked::AsPublished));
        // A unique count not asked for is not compared.
        assert_eq!(check(8, false, false, c(92, 11)), Ok(Checked::AsPublished));
        let off = check(8, false, true, c(92, 11)).unwrap_err();
        assert_eq!((off.found, off.published), (c(92, 11), c(92, 12)));
        assert_eq!(
            off.to_string(),
            "the count of N = 8 is 92 solutions, 11 unique, but the published count is 92 \
             solutions, 12 unique: MISMATCH"
        );
        assert!(check(8, false, false, c(93, 12)).is_err());
        assert!(check(1, false, false, c(0, 0)).is_err());
        assert_eq!(check(2, false, true, c(0, 0)), Ok(Checked::AsPublished));
        assert_eq!(
            check(27, false, false, c(234907967154122528, 0)),
            Ok(Checked::AsPublished)
        );
        // Nothing published: beyond the table, or with placed queens.
        assert_eq!(check(28, false, false, c(1, 0)), Ok(Checked::Unpublished));
        assert_eq!(check(8, true, false, c(4, 0)), Ok(Checked::Unpublished));
        // Given values: the same rule.
        assert_eq!(compare(5, true, c(10, 2), c(10, 2)), Ok(()));
        assert_eq!(compare(5, false, c(10, 2), c(10, 3)), Ok(()));
        assert!(compare(5, true, c(10, 2), c(10, 3)).is_err());
        assert!(compare(5, false, c(11, 2), c(10, 2)).is_err());
    }

    #[test]
    fn table_is_indexed_by_n() {
        for (i, row) in TABLE.iter().enumerate() {
            assert_eq!(row.n as usize, i + 1);
            // Each class has at most 8 members and at least one.
            assert!(row.unique <= row.total && row.total <= 8 * row.unique);
        }
        assert_eq!(published(8).unwrap().total, 92);
        assert_eq!(published(27).unwrap().unique, 29363495934315694);
        assert_eq!(published(0), None);
        assert_eq!(published(28), None);
    }
}
