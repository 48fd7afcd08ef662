//! Published values: the number of solutions of the N-Queens problem (OEIS A000170) and the
//! number of them that are distinct up to rotation and reflection (OEIS A002562), N = 1..=27.
//!
//! Sources: N. J. A. Sloane (ed.), The On-Line Encyclopedia of Integer Sequences,
//! <https://oeis.org/A000170> and <https://oeis.org/A002562>. The values for N = 26 were computed
//! by the Queens@TUD project (T. B. Preußer et al., 2009) and for N = 27 by the Q27 project
//! (T. B. Preußer, M. Engelhardt, 2016).

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

#[cfg(test)]
mod tests {
    use super::*;

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
