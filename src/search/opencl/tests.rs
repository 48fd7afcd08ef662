//! The OpenCL counter against a plain recursive CPU counter.
//!
//! Runs on whatever OpenCL device is present (PoCL on a machine without a GPU), device
//! `NQUEENS_OPENCL_DEVICE` (default 0). Without OpenCL the tests print why and pass, unless
//! `NQUEENS_REQUIRE_OPENCL=1`, which makes that a failure.

use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::skip::skip;

use super::spec::{expand, full_mask};
use super::tuning::{Schedule, StackMemory};
use super::{devices, Counter, OpenClError, RowSpec, Sub, NO_DEADLINE};

/// Known totals, N = 1..=14 (OEIS A000170).
const TOTALS: [u64; 14] = [
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
];

/// The counters shared by the tests (built once; the tests take turns): one with the device's
/// choice of stack memory and one with the other placement, so that both kernels are tested
/// on any device. Empty if there is no OpenCL device and that is allowed.
fn counters() -> Vec<MutexGuard<'static, Counter>> {
    static COUNTERS: OnceLock<Vec<Mutex<Counter>>> = OnceLock::new();
    let counters = COUNTERS.get_or_init(|| {
        let index = std::env::var("NQUEENS_OPENCL_DEVICE").map_or(0, |v| {
            v.parse().expect("NQUEENS_OPENCL_DEVICE: a device index")
        });
        let first = match Counter::new(index) {
            Ok(c) => c,
            Err(e) if e.is_unavailable() && !required() => {
                skip(
                    "every OpenCL counter test",
                    &format!("no OpenCL device ({e}); set NQUEENS_REQUIRE_OPENCL=1 to fail"),
                );
                return Vec::new();
            }
            Err(e) => panic!("no OpenCL counter: {e}"),
        };
        let other = match first.stack_memory() {
            StackMemory::Local => StackMemory::Private,
            StackMemory::Private => StackMemory::Local,
        };
        let second = Counter::with_stack(index, Some(other)).expect("the other stack memory");
        println!("counting on {} (stacks: {other:?} too)", first.device());
        vec![Mutex::new(first), Mutex::new(second)]
    });
    counters
        .iter()
        .map(|c| c.lock().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// Whether a missing OpenCL device fails the tests (`NQUEENS_REQUIRE_OPENCL=1`, as in CI)
/// rather than skipping them.
pub(crate) fn required() -> bool {
    std::env::var("NQUEENS_REQUIRE_OPENCL").is_ok_and(|v| v == "1")
}

/// The completions of `sub`, by plain recursion: row `first` takes each free allowed square,
/// and a placement on the deadline row that leaves a deadline column free is dropped.
fn reference(n: u32, rows: &RowSpec, sub: Sub) -> u64 {
    if sub.first == n {
        return 1;
    }
    let mut free =
        full_mask(n) & !(sub.cols | sub.diag_up | sub.diag_down) & rows.allow[sub.first as usize];
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let next = sub.place(bit);
        if sub.first == rows.dead_row && next.cols & rows.dead_cols != rows.dead_cols {
            continue;
        }
        total += reference(n, rows, next);
    }
    total
}

/// A small deterministic generator (xorshift64*), so that failures reproduce.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, k: u32) -> u32 {
        (self.next() % u64::from(k)) as u32
    }

    /// A mask with each bit set with probability `percent` / 100.
    fn mask(&mut self, percent: u32) -> u32 {
        (0..32).fold(0, |m, b| m | (u32::from(self.below(100) < percent) << b))
    }
}

/// Random rows: allow masks of varying density, sometimes a deadline.
fn random_rows(rng: &mut Rng, n: u32) -> RowSpec {
    let mut rows = RowSpec::unconstrained(n);
    // Denser masks on small boards; sparse enough on large ones that the reference is quick.
    let density = if n >= 14 {
        45 + rng.below(30)
    } else {
        55 + rng.below(40)
    };
    for a in rows.allow.iter_mut() {
        *a = match rng.below(10) {
            0 => full_mask(n),
            1 => 1 << rng.below(n),
            _ => rng.mask(density) & full_mask(n),
        };
    }
    if rng.below(3) != 0 {
        rows.dead_row = rng.below(n);
        // One to three columns, any of them possibly already taken above.
        rows.dead_cols = (0..=rng.below(3)).fold(0, |m, _| m | 1 << rng.below(n));
    }
    rows
}

/// Counts `subs` and checks every count against [`reference`].
fn check(counter: &mut Counter, n: u32, table: &[RowSpec], subs: &[Sub]) {
    let got = counter.count(n, table, subs).expect("count");
    assert_eq!(got.len(), subs.len());
    for (sub, &g) in subs.iter().zip(&got) {
        let want = reference(n, &table[sub.rows as usize], *sub);
        assert_eq!(
            g,
            want,
            "n = {n}, {sub:?}, rows {:?}, stacks {:?}",
            table[sub.rows as usize],
            counter.stack_memory()
        );
    }
}

#[test]
fn full_boards_from_the_root() {
    for mut counter in counters() {
        for n in 1..=12u32 {
            let table = [RowSpec::unconstrained(n)];
            let got = counter.count(n, &table, &[Sub::root(0)]).expect("count");
            assert_eq!(got, vec![TOTALS[n as usize - 1]], "n = {n}");
        }
    }
}

#[test]
fn full_boards_from_expanded_prefixes() {
    for mut counter in counters() {
        for n in 1..=12u32 {
            let rows = RowSpec::unconstrained(n);
            for depth in 1..=5 {
                let subs = expand(n, &rows, Sub::root(0), depth);
                let got = counter.count(n, &[rows], &subs).expect("count");
                assert_eq!(
                    got.iter().sum::<u64>(),
                    TOTALS[n as usize - 1],
                    "n = {n}, depth {depth}"
                );
                if n <= 10 {
                    for (sub, &g) in subs.iter().zip(&got) {
                        assert_eq!(g, reference(n, &rows, *sub), "n = {n}, {sub:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn known_totals_of_larger_boards() {
    for mut counter in counters() {
        for (n, depth) in [(8, 2), (10, 3), (12, 3), (13, 4), (14, 4)] {
            let rows = RowSpec::unconstrained(n);
            let subs = expand(n, &rows, Sub::root(0), depth);
            let total: u64 = counter
                .count(n, &[rows], &subs)
                .expect("count")
                .iter()
                .sum();
            assert_eq!(total, TOTALS[n as usize - 1], "n = {n}");
        }
    }
}

#[test]
fn random_allow_masks_and_deadlines() {
    for mut counter in counters() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut found, mut pruned) = (0u64, 0u32);
        for n in 10..=16u32 {
            for _ in 0..6 {
                let rows = random_rows(&mut rng, n);
                // Large boards start lower, so that the reference stays quick.
                let depth = rng.below(5) + n.saturating_sub(12);
                let subs = expand(n, &rows, Sub::root(0), depth);
                check(&mut counter, n, &[rows], &subs);
                // Make sure that the cases are not all trivial.
                let got: u64 = counter
                    .count(n, &[rows], &subs)
                    .expect("count")
                    .iter()
                    .sum();
                found += got;
                let loose = RowSpec {
                    dead_row: NO_DEADLINE,
                    ..rows
                };
                let without: u64 = expand(n, &loose, Sub::root(0), depth)
                    .iter()
                    .map(|s| reference(n, &loose, *s))
                    .sum();
                pruned += u32::from(without != got);
                if n <= 13 {
                    let total = counter.count(n, &[rows], &[Sub::root(0)]).expect("count")[0];
                    assert_eq!(
                        total,
                        reference(n, &rows, Sub::root(0)),
                        "n = {n}, {rows:?}"
                    );
                }
            }
        }
        println!("{found} solutions; the deadline removed some in {pruned} cases");
        assert!(
            found > 1000 && pruned >= 5,
            "{found} solutions, {pruned} pruned"
        );
    }
}

#[test]
fn mixed_rows_and_first_rows_in_one_batch() {
    for mut counter in counters() {
        let mut rng = Rng(42);
        for n in [9u32, 11, 13] {
            let mut table = vec![RowSpec::unconstrained(n)];
            table.extend((0..5).map(|_| random_rows(&mut rng, n)));
            let mut subs = Vec::new();
            for (i, rows) in table.iter().enumerate() {
                for depth in [0, 1, 3, 4, n - 2, n - 1, n] {
                    let root = Sub::root(i as u32);
                    subs.extend(expand(n, rows, root, depth.max(n.saturating_sub(11))));
                }
            }
            // Shuffle, so that neighbouring work-items have different rows and depths.
            for i in (1..subs.len()).rev() {
                subs.swap(i, rng.below(i as u32 + 1) as usize);
            }
            check(&mut counter, n, &table, &subs);
        }
    }
}

#[test]
fn edge_cases() {
    for mut counter in counters() {
        let table = [RowSpec::unconstrained(8)];
        assert_eq!(
            counter.count(8, &table, &[]).expect("count"),
            Vec::<u64>::new()
        );
        assert_eq!(
            counter.count(8, &[], &[]).expect("count"),
            Vec::<u64>::new()
        );
        // Complete placements count 1; one row left counts its free squares.
        let solutions = expand(8, &table[0], Sub::root(0), 8);
        assert_eq!(
            counter.count(8, &table, &solutions).expect("count"),
            vec![1; 92]
        );
        let seven = expand(8, &table[0], Sub::root(0), 7);
        check(&mut counter, 8, &table, &seven);
        let six = expand(8, &table[0], Sub::root(0), 6);
        check(&mut counter, 8, &table, &six);
        // A sub-problem whose first row is already blocked.
        let blocked = Sub {
            cols: 0xff,
            ..Sub::root(0)
        };
        assert_eq!(
            counter.count(8, &table, &[blocked]).expect("count"),
            vec![0]
        );
        // A deadline on the last row, and one before the first row (not checked).
        let mut rows = RowSpec::unconstrained(8);
        rows.dead_row = 7;
        rows.dead_cols = 0x81;
        check(&mut counter, 8, &[rows], &expand(8, &rows, Sub::root(0), 3));
        rows.dead_row = 1;
        rows.dead_cols = 0xff;
        let late = expand(8, &table[0], Sub::root(0), 3);
        let got: u64 = counter
            .count(8, &[rows], &late)
            .expect("count")
            .iter()
            .sum();
        assert_eq!(got, 92);
        // Bits outside the board are ignored.
        let wide = RowSpec::allowing([u32::MAX; 32]);
        assert_eq!(
            counter.count(8, &[wide], &[Sub::root(0)]).expect("count"),
            vec![92]
        );
        // The smallest boards.
        assert_eq!(
            counter
                .count(1, &[RowSpec::unconstrained(1)], &[Sub::root(0)])
                .expect("count"),
            vec![1]
        );
        assert_eq!(
            counter
                .count(0, &[RowSpec::unconstrained(0)], &[Sub::root(0)])
                .expect("count"),
            vec![1]
        );
    }
}

#[test]
fn invalid_input_is_an_error() {
    for mut counter in counters() {
        let table = [RowSpec::unconstrained(8)];
        let bad_rows = Sub::root(1);
        let bad_first = Sub {
            first: 9,
            ..Sub::root(0)
        };
        for (n, subs) in [
            (8, vec![bad_rows]),
            (8, vec![Sub::root(0), bad_first]),
            (33, vec![]),
        ] {
            match counter.count(n, &table, &subs) {
                Err(OpenClError::InvalidInput(why)) => println!("{why}"),
                other => panic!("n = {n}, {subs:?}: {other:?}"),
            }
        }
        match Counter::new(usize::MAX) {
            Err(OpenClError::NoSuchDevice { index, .. }) => assert_eq!(index, usize::MAX),
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("device usize::MAX exists"),
        }
        // Still counts after the errors.
        assert_eq!(
            counter.count(8, &table, &[Sub::root(0)]).expect("count"),
            vec![92]
        );
    }
}

/// Boards of 30 to 32 columns, constrained to a few squares per row around a known solution:
/// the deepest stacks, and the bits that shift out of 32-bit masks.
#[test]
fn large_boards_with_tight_masks() {
    for mut counter in counters() {
        let mut rng = Rng(7);
        for n in [24u32, 30, 31, 32] {
            let solution = explicit_solution(n);
            for extra in [0u32, 3, 6] {
                let mut rows = RowSpec::unconstrained(n);
                for (r, &c) in solution.iter().enumerate() {
                    // Edge columns often, where bits shift out of the masks.
                    let edges = (1 | 2 | 3 << (n - 2)) & rng.mask(50);
                    rows.allow[r] = (1 << c | edges | rng.mask(extra)) & full_mask(n);
                }
                let subs = [
                    Sub::root(0),
                    Sub::root(0).place(rows.allow[0] & rows.allow[0].wrapping_neg()),
                ];
                let got = counter.count(n, &[rows], &subs).expect("count");
                assert!(got[0] >= 1, "n = {n}: the solution was not found");
                check(&mut counter, n, &[rows], &subs);
                for depth in [1, 5, n / 2] {
                    check(
                        &mut counter,
                        n,
                        &[rows],
                        &expand(n, &rows, Sub::root(0), depth),
                    );
                }
            }
        }
    }
}

/// One solution of the `n`-queens problem (the columns of rows `0..n`), by the explicit
/// construction of Bernhardsson (1991) / Hoffman, Loessi & Moore (1969), as on Wikipedia.
fn explicit_solution(n: u32) -> Vec<u32> {
    let mut evens: Vec<u32> = (1..=n).filter(|c| c % 2 == 0).collect();
    let mut odds: Vec<u32> = (1..=n).filter(|c| c % 2 == 1).collect();
    match n % 6 {
        2 => {
            odds.swap(0, 1);
            let five = odds.remove(2);
            odds.push(five);
        }
        3 => {
            let two = evens.remove(0);
            evens.push(two);
            odds.drain(..2);
            odds.extend([1, 3]);
        }
        _ => {}
    }
    let cols: Vec<u32> = evens.into_iter().chain(odds).map(|c| c - 1).collect();
    // Check it: one queen per column and diagonal.
    let sub = cols.iter().fold(Sub::root(0), |s, &c| {
        let bit = 1 << c;
        assert_eq!(
            s.free(n, &RowSpec::unconstrained(n)) & bit,
            bit,
            "n = {n}: {cols:?}"
        );
        s.place(bit)
    });
    assert_eq!(sub.first, n);
    cols
}

#[test]
fn schedules_work_groups_and_launch_sizes() {
    for mut counter in counters() {
        let n = 11;
        let rows = RowSpec::unconstrained(n);
        let subs = expand(n, &rows, Sub::root(0), 4);
        let want: Vec<u64> = subs.iter().map(|s| reference(n, &rows, *s)).collect();
        for schedule in [Schedule::OnePerItem, Schedule::Persistent] {
            for work_group in [1, 7, 64, 256] {
                for launch in [1000, usize::MAX] {
                    counter.set_schedule(schedule);
                    counter.set_work_group_size(work_group);
                    counter.set_max_launch(launch);
                    let got = counter.count(n, &[rows], &subs).expect("count");
                    assert_eq!(
                        got, want,
                        "{schedule:?}, work-group {work_group}, launch {launch}"
                    );
                    // A smaller batch reuses the buffers.
                    let got = counter.count(n, &[rows], &subs[..37]).expect("count");
                    assert_eq!(got, want[..37], "{schedule:?}, work-group {work_group}");
                }
            }
        }
        counter.set_schedule(Schedule::Persistent);
        counter.set_work_group_size(128);
        counter.set_max_launch(usize::MAX);
    }
}

#[test]
fn device_list() {
    match devices() {
        Ok(list) => {
            assert!(!list.is_empty());
            for (i, d) in list.iter().enumerate() {
                println!("{d}");
                assert_eq!(d.index, i);
                assert!(d.compute_units > 0 && d.max_work_group_size > 0);
            }
        }
        Err(e) => {
            assert!(e.is_unavailable() && !required(), "{e}");
            skip("device_list", &e.to_string());
        }
    }
}

/// With an empty `OCL_ICD_VENDORS` folder the loader finds no platform: the listing and the
/// counter must say so, not panic. Runs in a child process (the loader reads the variable once).
#[test]
fn no_platforms_is_a_clean_error() {
    if std::env::var_os("NQUEENS_OCL_CHILD").is_some() {
        let e = devices().expect_err("no platform with an empty OCL_ICD_VENDORS");
        println!("devices(): {e}");
        assert!(e.is_unavailable(), "{e}");
        if !matches!(e, OpenClError::NoLibrary(_)) {
            assert!(matches!(e, OpenClError::NoPlatforms), "{e:?}");
        }
        let e = Counter::new(0).err().expect("no counter without platforms");
        assert!(e.is_unavailable(), "{e}");
        return;
    }
    let empty = std::env::temp_dir().join(format!("nqueens-no-icd-{}", std::process::id()));
    std::fs::create_dir_all(&empty).expect("temporary folder");
    let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "no_platforms_is_a_clean_error", "--nocapture"])
        .env("NQUEENS_OCL_CHILD", "1")
        .env("OCL_ICD_VENDORS", &empty)
        .env_remove("OCL_ICD_FILENAMES")
        .output()
        .expect("run the child test");
    let _ = std::fs::remove_dir(&empty);
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the child failed");
}

/// The last rows of 31- and 32-column boards with the free columns at the edges: the attacks
/// that shift to bit 31 and bit 0, and the bits that shift out of the masks.
#[test]
fn edge_columns_of_wide_boards() {
    for mut counter in counters() {
        for n in [31u32, 32] {
            let edges = [0, 1, 2, n - 3, n - 2, n - 1];
            let mut table = Vec::new();
            let mut subs = Vec::new();
            for &a in &edges {
                for &b in &edges {
                    for &c in &edges {
                        let left = 1u32 << a | 1 << b | 1 << c;
                        let mut rows = RowSpec::unconstrained(n);
                        for (r, col) in [(n - 3, a), (n - 2, b), (n - 1, c)] {
                            rows.allow[r as usize] = 1 << col | 1 << edges[(col as usize * 7) % 6];
                        }
                        table.push(rows);
                        for (up, down) in [(0, 0), (1 << 31, 0), (0, 1), (1 << 31 | 1 << 30, 3)] {
                            subs.push(Sub {
                                cols: full_mask(n) & !left,
                                diag_up: up,
                                diag_down: down,
                                first: n - 3,
                                rows: table.len() as u32 - 1,
                            });
                        }
                    }
                }
            }
            check(&mut counter, n, &table, &subs);
            let total: u64 = counter.count(n, &table, &subs).expect("count").iter().sum();
            assert!(total > 0, "n = {n}: no completion at all");
        }
    }
}

/// The solutions of `sub` (rows above it in `prefix`) classified on the CPU by
/// `symmetry::orbit`: `[solutions, canonical, class sizes of the canonical ones]`.
fn classify_reference(n: u32, rows: &RowSpec, sub: Sub, prefix: &mut [u8; 32]) -> [u64; 3] {
    if sub.first == n {
        let o = crate::search::symmetry::orbit(&prefix[..n as usize]);
        return [
            1,
            u64::from(o.canonical),
            u64::from(o.size) * u64::from(o.canonical),
        ];
    }
    let mut free =
        full_mask(n) & !(sub.cols | sub.diag_up | sub.diag_down) & rows.allow[sub.first as usize];
    let mut acc = [0u64; 3];
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let next = sub.place(bit);
        if sub.first == rows.dead_row && next.cols & rows.dead_cols != rows.dead_cols {
            continue;
        }
        prefix[sub.first as usize] = bit.trailing_zeros() as u8;
        let r = classify_reference(n, rows, next, prefix);
        (0..3).for_each(|k| acc[k] += r[k]);
    }
    acc
}

/// The sub-problems `depth` rows below the root, each with the columns of its placed rows.
fn expand_with_prefixes(n: u32, rows: &RowSpec, depth: u32) -> (Vec<Sub>, Vec<[u8; 32]>) {
    let mut level = vec![(Sub::root(0), [0u8; 32])];
    for _ in 0..depth.min(n) {
        let mut next = Vec::new();
        for (sub, prefix) in level {
            for child in expand(n, rows, sub, 1) {
                let mut p = prefix;
                p[sub.first as usize] = (child.cols ^ sub.cols).trailing_zeros() as u8;
                next.push((child, p));
            }
        }
        level = next;
    }
    level.into_iter().unzip()
}

#[test]
fn classification_matches_the_published_and_the_cpu() {
    // A002562, N = 1..=12.
    const UNIQUE: [u64; 12] = [1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787];
    for mut counter in counters() {
        for n in 1..=12u32 {
            let rows = RowSpec::unconstrained(n);
            for depth in [0, 1, 3, n.saturating_sub(1), n] {
                let (subs, prefixes) = expand_with_prefixes(n, &rows, depth);
                let got = counter
                    .classify(n, &[rows], &subs, &prefixes)
                    .expect("classify");
                let sum = |k: usize| got.iter().map(|g| g[k]).sum::<u64>();
                let total = TOTALS[n as usize - 1];
                assert_eq!(
                    (sum(0), sum(1), sum(2)),
                    (total, UNIQUE[n as usize - 1], total),
                    "n = {n}, depth {depth}"
                );
            }
        }
        // Random rows and deadlines: every sub-problem against the CPU.
        let mut rng = Rng(0x5DEE_CE66_D1CE_4E5B);
        for n in 8..=13u32 {
            for _ in 0..4 {
                let rows = random_rows(&mut rng, n);
                let (subs, prefixes) = expand_with_prefixes(n, &rows, rng.below(4));
                let got = counter
                    .classify(n, &[rows], &subs, &prefixes)
                    .expect("classify");
                for ((sub, prefix), g) in subs.iter().zip(&prefixes).zip(&got) {
                    let want = classify_reference(n, &rows, *sub, &mut prefix.clone());
                    assert_eq!(*g, want, "n = {n}, {sub:?}, {rows:?}");
                }
            }
        }
        // Columns off the board are refused.
        let rows = RowSpec::unconstrained(8);
        let (subs, mut prefixes) = expand_with_prefixes(8, &rows, 2);
        prefixes[0][1] = 9;
        assert!(matches!(
            counter.classify(8, &[rows], &subs, &prefixes),
            Err(OpenClError::InvalidInput(_))
        ));
    }
}
