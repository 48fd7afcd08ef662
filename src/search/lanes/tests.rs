//! The lane kernels against the depth-first search.

use super::*;
use crate::search::dfs::unconstrained;
use proptest::prelude::*;

/// Every kernel this processor can run (the integration tests check these against
/// `/proc/cpuinfo`: `tests/common`).
pub(crate) fn kernels() -> Vec<Kernel> {
    Kernel::ALL.into_iter().filter(|k| k.available()).collect()
}

/// Runs `f` with `kernel` set to take every tree of three rows or more on its lanes, and asserts
/// that it searched on the lanes of `kernel` (a vector kernel) or depth first only (`dfs`): a
/// loop over kernels tests the kernels it names.
pub(crate) fn on_lanes<T>(kernel: Kernel, what: &str, f: impl FnOnce(Runner) -> T) -> T {
    let tally = std::cell::Cell::default();
    let out = f(Runner {
        kernel,
        lane_min_rows: 3,
        tally: Some(&tally),
    });
    let ran: Searches = tally.get();
    if kernel == Kernel::Dfs {
        assert_eq!(ran.lanes, 0, "{what}: dfs ran lane searches");
    } else {
        assert!(ran.lanes > 0, "{what}: nothing ran on the {kernel} lanes");
    }
    out
}

/// `kernel` on the lanes from `min_rows` rows below the prefix (the tests use every size),
/// tallying nothing.
pub(crate) fn from_rows(min_rows: u32, kernel: Kernel) -> Runner<'static> {
    Runner {
        kernel,
        lane_min_rows: min_rows,
        tally: None,
    }
}

#[test]
fn names_round_trip() {
    for k in Kernel::ALL {
        assert_eq!(Kernel::from_name(k.name()), Some(k));
    }
    assert_eq!(Kernel::from_name("sse"), None);
    assert!(Kernel::Dfs.available());
    assert!(Kernel::best().available());
}

#[test]
fn counts_whole_boards() {
    for n in 3..=12u32 {
        let rows = Rows {
            allow: unconstrained(n),
            deadline: (MAX_N as usize, 0),
        };
        let want = crate::known::published(n).unwrap().total as u64;
        for k in kernels() {
            assert_eq!(
                count(from_rows(0, k), n, 0, Masks::EMPTY, &rows),
                want,
                "n = {n}, {k:?}"
            );
        }
    }
}

proptest! {
    #[test]
    fn kernels_agree_with_the_depth_first_search(
        n in 5u32..=12,
        first in 0u32..3,
        holes in proptest::collection::vec(any::<u32>(), 32),
        dead_row in 0usize..12,
        dead_cols in any::<u32>(),
    ) {
        let full = full_mask(n);
        let mut allow = [0u32; 32];
        for r in 0..n as usize {
            // Sparse holes, so that many searches still find solutions.
            allow[r] = full & !(holes[r] & holes[(r + 7) % 32] & holes[(r + 13) % 32]);
        }
        let rows = Rows { allow, deadline: (dead_row, dead_cols & full & 0b1000_0001) };
        let mut m = Masks::EMPTY;
        for &row in &allow[..first as usize] {
            let free = m.free(full) & row;
            prop_assume!(free != 0);
            m = m.place(free & free.wrapping_neg());
        }
        let want = count(from_rows(0, Kernel::Dfs), n, first, m, &rows);
        for k in kernels() {
            prop_assert_eq!(count(from_rows(0, k), n, first, m, &rows), want, "{:?}", k);
        }
    }

    #[test]
    fn visits_every_solution_once(
        n in 5u32..=12,
        first in 0u32..3,
        holes in proptest::collection::vec(any::<u32>(), 32),
    ) {
        let full = full_mask(n);
        let mut allow = [0u32; 32];
        for r in 0..n as usize {
            allow[r] = full & !(holes[r] & holes[(r + 5) % 32]);
        }
        let rows = Rows { allow, deadline: (MAX_N as usize, 0) };
        let mut m = Masks::EMPTY;
        for &row in &allow[..first as usize] {
            let free = m.free(full) & row;
            prop_assume!(free != 0);
            m = m.place(free & free.wrapping_neg());
        }
        let solutions = |k| {
            let mut all = Vec::new();
            visit(from_rows(0, k), n, first, m, &rows, |tail| all.push(tail.to_vec()));
            all.sort();
            all
        };
        let want = solutions(Kernel::Dfs);
        prop_assert_eq!(want.len() as u64, count(from_rows(0, Kernel::Dfs), n, first, m, &rows));
        for tail in &want {
            // Each is a valid completion of the prefix within the allowed squares.
            let mut at = m;
            for (i, &col) in tail.iter().enumerate() {
                let bit = 1u32 << col;
                prop_assert!(at.free(full) & allow[first as usize + i] & bit != 0);
                at = at.place(bit);
            }
        }
        for k in kernels() {
            prop_assert_eq!(&solutions(k), &want, "{:?}", k);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Boards up to 32 columns, kept small by sparse rows: each row allows a known
    /// solution's square and a few random ones (some rows all squares, as many as 32 roots
    /// to deal), with random deadlines; counts and visited solutions as the depth-first
    /// search finds them, on every kernel, with and without the small-tree cut-over.
    #[test]
    fn kernels_agree_on_large_sparse_boards(
        n in 16u32..=32,
        extra in proptest::collection::vec(any::<u32>(), 32),
        density in 0u32..3,
        open_rows in proptest::collection::vec(0usize..32, 0..3),
        first in 0u32..5,
        dead_row in 0usize..40,
        dead_cols in any::<u32>(),
    ) {
        let full = full_mask(n);
        let c = crate::solutions::construct(n).unwrap().unwrap();
        // The known solution's 0-based column in 0-based row `r`.
        let col = |r: usize| c.column(r as u32 + 1).unwrap() - 1;
        let mut allow = [0u32; 32];
        for r in 0..n as usize {
            // Random squares: a quarter of the row down to a sixteenth (`extra` ANDed).
            let thin = (0..=density).fold(extra[r], |x, i| x & extra[(r + 7 * i as usize + 5) % 32]);
            allow[r] = (1 << col(r) | thin) & full;
        }
        for &r in open_rows.iter().filter(|&&r| r < n as usize) {
            allow[r] = full;
        }
        // The deadline asks for some of the columns the known solution has taken by then,
        // so that it, and others like it, survive.
        let taken = (0..=dead_row.min(n as usize - 1)).fold(0, |t, r| t | 1 << col(r));
        let rows = Rows { allow, deadline: (dead_row, dead_cols & taken) };
        // The prefix: the known solution's first queens.
        let m = (0..first as usize).fold(Masks::EMPTY, |m, r| m.place(1 << col(r)));
        prop_assume!(small(n, first as usize, m, &rows, &mut 1_000_000));
        let solutions = |k, min_rows| {
            let mut all = Vec::new();
            visit(from_rows(min_rows, k), n, first, m, &rows, |tail| all.push(tail.to_vec()));
            all.sort();
            all
        };
        let want = solutions(Kernel::Dfs, 0);
        for k in kernels() {
            for min_rows in [0, MIN_ROWS] {
                prop_assert_eq!(
                    count(from_rows(min_rows, k), n, first, m, &rows),
                    want.len() as u64,
                    "{:?}", k
                );
                prop_assert_eq!(&solutions(k, min_rows), &want, "{:?}", k);
            }
        }
    }
}

/// Whether the tree below row `row` (deadline aside) has at most `budget` nodes: the
/// random boards above are kept to those, so that every case is quick.
pub(crate) fn small(n: u32, row: usize, m: Masks, rows: &Rows, budget: &mut u64) -> bool {
    if row == n as usize {
        return true;
    }
    let mut free = m.free(full_mask(n)) & rows.allow[row];
    while free != 0 {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        if !small(n, row + 1, m.place(bit), rows, budget) {
            return false;
        }
    }
    true
}

#[test]
fn visits_the_largest_boards() {
    // Rows 0..=2 placed, 27 rows recorded in five history words, columns up to 31.
    let n = 32;
    let mut rows = Rows {
        allow: unconstrained(n),
        deadline: (MAX_N as usize, 0),
    };
    // A known solution (the explicit construction), pinned down from row 3 to row 24: the
    // search only has the last rows to find, the history all five words.
    let c = crate::solutions::construct(n).unwrap().unwrap();
    let s: Vec<u8> = c.map(|col| col as u8 - 1).collect();
    let mut m = Masks::EMPTY;
    for (r, &c) in s.iter().enumerate() {
        if r < 3 {
            m = m.place(1 << c);
        } else if r < 25 {
            rows.allow[r] = 1 << c;
        }
    }
    let mut found = Vec::new();
    for k in kernels() {
        visit(from_rows(0, k), n, 3, m, &rows, |tail| {
            found.push((k, tail.to_vec()))
        });
    }
    assert!(found.iter().all(|(_, t)| t.len() == 29));
    assert!(found.iter().any(|(_, t)| t[..] == s[3..]));
    let dfs: Vec<_> = found
        .iter()
        .filter(|(k, _)| *k == Kernel::Dfs)
        .map(|(_, t)| t)
        .collect();
    for k in kernels() {
        let mine: Vec<_> = found
            .iter()
            .filter(|(x, _)| *x == k)
            .map(|(_, t)| t)
            .collect();
        let (mut a, mut b) = (mine.clone(), dfs.clone());
        a.sort();
        b.sort();
        assert_eq!(a, b, "{k:?}");
    }
}

/// The solutions `keys` of [`visit_keys`] name, as the columns of their rows (the last row
/// the column left of `free`, the columns of the rows below the prefix).
fn decoded(keys: &[u64], rows: usize, free: u32) -> Vec<Vec<u8>> {
    let mut all: Vec<Vec<u8>> = keys
        .iter()
        .map(|&k| {
            let mut tail: Vec<u8> = (0..rows - 1).map(|i| key_column(k, i) as u8).collect();
            let used = tail.iter().fold(0u32, |u, &c| u | 1 << c);
            tail.push((free & !used).trailing_zeros() as u8);
            tail
        })
        .collect();
    all.sort();
    all
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The keys of [`visit_keys`] name exactly the solutions [`visit`] finds, and sort as
    /// they do, on every kernel, with and without the small-tree cut-over: boards to
    /// [`scheduler::KEY_MAX_N`] columns, from 3 to 13 rows below the prefix (so every place a
    /// row's column takes in a key: the word, the spare bits of `cols` and `free`, the step
    /// itself), sparse rows around a known solution as above, random deadlines.
    #[test]
    fn keys_name_the_visited_solutions(
        n in 5u32..=scheduler::KEY_MAX_N,
        below in 3u32..=KEY_ROWS as u32 + 1,
        extra in proptest::collection::vec(any::<u32>(), 32),
        density in 0u32..3,
        dead_row in 0usize..40,
        dead_cols in any::<u32>(),
    ) {
        prop_assume!(below <= n && n >= 6);
        let first = n - below;
        let full = full_mask(n);
        let c = crate::solutions::construct(n).unwrap().unwrap();
        let col = |r: usize| c.column(r as u32 + 1).unwrap() - 1;
        let mut allow = [0u32; 32];
        for r in 0..n as usize {
            let thin = (0..=density).fold(extra[r], |x, i| x & extra[(r + 7 * i as usize + 5) % 32]);
            allow[r] = (1 << col(r) | thin) & full;
        }
        let taken = (0..=dead_row.min(n as usize - 1)).fold(0, |t, r| t | 1 << col(r));
        let rows = Rows { allow, deadline: (dead_row, dead_cols & taken) };
        let m = (0..first as usize).fold(Masks::EMPTY, |m, r| m.place(1 << col(r)));
        prop_assume!(small(n, first as usize, m, &rows, &mut 300_000));
        let mut want = Vec::new();
        visit(from_rows(0, Kernel::Dfs), n, first, m, &rows, |tail| want.push(tail.to_vec()));
        want.sort();
        prop_assert!(want.iter().any(|t| t[..] == (first as usize..n as usize).map(|r| col(r) as u8).collect::<Vec<_>>()[..]));
        for k in kernels() {
            for min_rows in [0, MIN_ROWS] {
                let mut keys = Vec::new();
                visit_keys(from_rows(min_rows, k), n, first, m, &rows, |batch| keys.extend_from_slice(batch));
                let got = decoded(&keys, below as usize, full & !m.cols);
                prop_assert_eq!(&got, &want, "{:?} from {}", k, min_rows);
                // Keys sort as their solutions.
                keys.sort();
                prop_assert_eq!(decoded(&keys, below as usize, full & !m.cols), want.clone());
                let mut in_key_order = keys.clone();
                in_key_order.dedup();
                prop_assert_eq!(in_key_order.len(), keys.len());
            }
        }
    }
}

/// The keys of a tight search ([`scheduler::History`]) below prefixes whose queens hug the
/// right edge, whose diagonals leave the board's bits above its columns, where the tight
/// search keeps its history: every kernel against [`visit`] depth first, on the largest tight
/// board with the rows a listing leaves it and on smaller ones, and one board past it (a
/// history word).
#[test]
fn tight_keys_below_prefixes_at_the_edge() {
    for (n, first) in [(16, 3), (16, 4), (15, 2), (13, 2), (10, 3), (17, 4)] {
        let full = full_mask(n);
        let rows = Rows::allowing([full; MAX_N as usize]);
        // Prefixes with a queen next to the top right corner and the next one close to the
        // edge, depth first from the right; the right column stays free for the last rows,
        // which a tight search settles with history just above the board.
        let mut prefixes = vec![Masks::EMPTY.place(1 << (n - 2))];
        for row in 1..first {
            prefixes = prefixes
                .iter()
                .flat_map(|&m| {
                    let near = if row == 1 { !0 << (n - 5) } else { !0 };
                    let free = m.free(full) & near & !(1 << (n - 1));
                    (0..n)
                        .rev()
                        .filter(move |c| free >> c & 1 == 1)
                        .map(move |c| m.place(1 << c))
                })
                .collect();
        }
        let mut tested = 0;
        for m in prefixes {
            assert!(m.diag_up > full, "the prefix's diagonal leaves the board");
            let mut want = Vec::new();
            visit(from_rows(0, Kernel::Dfs), n, first, m, &rows, |t| {
                want.push(t.to_vec())
            });
            if want.is_empty() {
                continue;
            }
            want.sort();
            for k in kernels() {
                let mut keys = Vec::new();
                visit_keys(from_rows(3, k), n, first, m, &rows, |batch| {
                    keys.extend_from_slice(batch)
                });
                let got = decoded(&keys, (n - first) as usize, full & !m.cols);
                assert!(got == want, "{k:?}, N = {n} from row {first}, {m:?}");
            }
            tested += 1;
            if tested == 3 {
                break;
            }
        }
        assert!(tested >= 2, "N = {n} from row {first}: {tested} prefixes");
    }
}

/// A step's keys are combined from their halves, as many as the step found: every count a
/// step can find (none to two a lane of the widest vector), from the most down, so that a key
/// left uncombined would show the one of an earlier step.
#[test]
fn a_steps_keys_are_combined_whole() {
    let mut got = Vec::new();
    let mut want = Vec::new();
    let mut sink = Keys::new(|batch: &[u64]| got.extend_from_slice(batch), 0, 0);
    for count in (0..=2 * MAX_LANES).rev() {
        let room = sink.key_room();
        for i in 0..count {
            room.high[i] = (count * 64 + i) as u32;
            room.low[i] = (i * 7919 + count * 31) as u32 | 1 << 29;
            want.push(u64::from(room.high[i]) << 30 | u64::from(room.low[i]));
        }
        sink.keys(count);
    }
    sink.flush();
    assert_eq!(got, want);
}

#[test]
fn keys_pack_rows_and_sum_columns() {
    let cols = [3u8, 31, 0, 7, 12, 5, 30, 1, 9, 2, 17, 26];
    let key = key_of(&cols);
    assert!(key < 1 << 60);
    for (i, &c) in cols.iter().enumerate() {
        assert_eq!(key_column(key, i), u32::from(c));
    }
    for j in 0..6 {
        assert_eq!(
            key_pair(key, j),
            u32::from(cols[2 * j]) << 5 | u32::from(cols[2 * j + 1])
        );
    }
    assert_eq!(
        key_sum(key),
        cols.iter().map(|&c| u32::from(c)).sum::<u32>()
    );
    assert_eq!(key_sum(key_of(&[31; 12])), 372);
    assert_eq!(key_sum(key_of(&[4, 9])), 13);
    // The first row weighs most.
    assert!(key_of(&[1, 0, 0]) > key_of(&[0, 31, 31]));
}

/// Every operation of the vector `V` on lanes `a`, `b`, `c` (as many as `V` has) against the
/// same operation on each lane. `keep` chooses lanes for the compress operation and for lanes
/// made equal; `by` the shift count.
///
/// # Safety
/// The processor must have `V`'s features.
unsafe fn ops_agree<V: Vector>(
    lanes: [[u32; MAX_LANES]; 3],
    keep: u32,
    by: usize,
    allow: u32,
) -> Result<(), TestCaseError> {
    let n = V::LANES;
    let all = (1u32 << n) - 1;
    let [a, mut b, c] = lanes;
    for i in 0..n {
        if keep >> (i + 3) & 1 == 1 {
            b[i] = a[i];
        }
    }
    let (va, vb, vc) = (
        V::load(a.as_ptr()),
        V::load(b.as_ptr()),
        V::load(c.as_ptr()),
    );
    let out = |v: V| {
        let mut o = [0u32; MAX_LANES];
        v.store(o.as_mut_ptr());
        o
    };
    let lanes_where =
        |f: &dyn Fn(usize) -> bool| (0..n).filter(|&i| f(i)).fold(0, |m, i| m | 1 << i);
    let each = |v: V, f: &dyn Fn(usize) -> u32, what: &str| -> Result<(), TestCaseError> {
        for (i, &x) in out(v)[..n].iter().enumerate() {
            prop_assert_eq!(x, f(i), "{} lane {}", what, i);
        }
        Ok(())
    };
    each(V::splat(allow), &|_| allow, "splat")?;
    each(va.and(vb), &|i| a[i] & b[i], "and")?;
    each(va.or(vb), &|i| a[i] | b[i], "or")?;
    each(va.xor(vb), &|i| a[i] ^ b[i], "xor")?;
    each(va.and_not(vb), &|i| !a[i] & b[i], "and_not")?;
    each(va.lowest(), &|i| a[i] & a[i].wrapping_neg(), "lowest")?;
    each(va.shl1(), &|i| a[i] << 1, "shl1")?;
    each(va.shr1(), &|i| a[i] >> 1, "shr1")?;
    let shl = |x: u32| x.checked_shl(by as u32).unwrap_or(0);
    let shr = |x: u32| x.checked_shr(by as u32).unwrap_or(0);
    each(va.shl(by), &|i| shl(a[i]), "shl")?;
    each(va.shr(by), &|i| shr(a[i]), "shr")?;
    let one = va.lowest();
    let o = out(one.index());
    for i in (0..n).filter(|&i| a[i] != 0) {
        prop_assert_eq!(o[i], a[i].trailing_zeros(), "index lane {}", i);
    }
    prop_assert_eq!(va.nonzero(), lanes_where(&|i| a[i] != 0), "nonzero");
    prop_assert_eq!(
        va.and(vc).nonzero(),
        lanes_where(&|i| a[i] & c[i] != 0),
        "nonzero"
    );
    let zeros = va.and(V::splat(0));
    prop_assert_eq!(zeros.nonzero(), 0, "nonzero of zero lanes");
    prop_assert_eq!(
        va.or(V::splat(1)).nonzero(),
        all,
        "nonzero of lanes with a bit"
    );
    prop_assert_eq!(va.eq(vb), lanes_where(&|i| a[i] == b[i]), "eq");
    prop_assert_eq!(
        va.free_in(vb, vc, allow),
        lanes_where(&|i| allow & !(a[i] | b[i] | c[i]) != 0),
        "free_in"
    );
    // Sparse lanes too, so that free_in finds free squares.
    let (sb, sc) = (va.and(vb), vb.and(vc));
    prop_assert_eq!(
        va.and(vc).free_in(sb, sc, allow),
        lanes_where(&|i| allow & !((a[i] & c[i]) | (a[i] & b[i]) | (b[i] & c[i])) != 0),
        "free_in, sparse"
    );
    // Compress: the kept lanes in order, nothing written past `LANES` values.
    let mut dest = [u32::MAX; 2 * MAX_LANES];
    va.compress_store(keep & all, dest.as_mut_ptr());
    let kept: Vec<u32> = (0..n)
        .filter(|&i| keep >> i & 1 == 1)
        .map(|i| a[i])
        .collect();
    prop_assert_eq!(
        &dest[..kept.len()],
        &kept[..],
        "compress_store {:#x}",
        keep & all
    );
    prop_assert!(
        dest[n..].iter().all(|&x| x == u32::MAX),
        "compress_store past the end"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    /// Every operation of every vector this processor can run against the scalar operation,
    /// lane by lane, on random lanes, lane sets and shift counts (0 to 33: from 32 on, 0).
    #[test]
    fn vector_operations_act_lane_by_lane(
        a in proptest::array::uniform16(any::<u32>()),
        b in proptest::array::uniform16(any::<u32>()),
        c in proptest::array::uniform16(any::<u32>()),
        keep in any::<u32>(),
        by in 0usize..34,
        allow in any::<u32>(),
    ) {
        let lanes = [a, b, c];
        // SAFETY: each vector runs only where its kernel is available.
        unsafe {
            ops_agree::<super::portable::Lanes>(lanes, keep, by, allow)?;
            #[cfg(target_arch = "x86_64")]
            {
                ops_agree::<super::sse2::Sse2>(lanes, keep, by, allow)?;
                if Kernel::Avx2.available() {
                    ops_agree::<super::avx2::Ymm>(lanes, keep, by, allow)?;
                }
                if Kernel::Avx512.available() {
                    ops_agree::<super::avx512::Zmm>(lanes, keep, by, allow)?;
                }
            }
            #[cfg(target_arch = "aarch64")]
            if Kernel::Neon.available() {
                ops_agree::<super::neon::Neon>(lanes, keep, by, allow)?;
            }
        }
    }
}
