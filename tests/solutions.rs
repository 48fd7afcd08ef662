//! The solution paths of the library (explicit construction, streaming listing, formats,
//! pre-placed queens, UVa 750) against the naive solver and independent validators.

use crate::common::count;
use crate::common::{images, naive_solutions};
use nqueens_count::format::{Kind, Printer};
use nqueens_count::known::published;
use nqueens_count::solutions::uva750;
use nqueens_count::solutions::{
    construct, for_each_solution, write_solutions, WriteError, WriteOptions,
};
use nqueens_count::{Error, Job, Method, Queen};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// An O(N) check that `cols` (0-based column of each row) is a solution: a permutation with
/// no two queens on one diagonal.
/// Whether the 0-based columns `cols` (row by row) are a solution.
fn is_solution(cols: &[u64]) -> bool {
    let n = cols.len();
    let mut col = vec![false; n];
    let mut down = vec![false; 2 * n];
    let mut up = vec![false; 2 * n];
    for (r, &c) in cols.iter().enumerate() {
        let Ok(c) = usize::try_from(c) else {
            return false;
        };
        if c >= n || col[c] || down[r + c] || up[n + r - c] {
            return false;
        }
        col[c] = true;
        down[r + c] = true;
        up[n + r - c] = true;
    }
    true
}

fn naive_all(n: usize) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    naive_solutions(n, |s| all.push(s.iter().map(|&c| c as u8).collect()));
    all
}

fn listed(job: &Job) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let flow = for_each_solution(job, |s| {
        out.push(s.zero_based().to_vec());
        ControlFlow::Continue(())
    })
    .unwrap();
    assert_eq!(flow, ControlFlow::Continue(()));
    out
}

#[test]
fn listing_matches_the_naive_solver_solution_by_solution() {
    for n in 1..=10u32 {
        let expect = naive_all(n as usize);
        for depth in 1..=n.min(4) {
            for method in Method::ALL {
                // The job's method and split depth must not change what is listed, or its order.
                let job = Job::new(n)
                    .unwrap()
                    .with_method(method)
                    .with_split_depth(depth)
                    .unwrap();
                assert_eq!(listed(&job), expect, "n = {n}, depth {depth}, {method}");
            }
        }
        let job = Job::new(n).unwrap();
        let total = count(&job, 2).unwrap().counts.total;
        assert_eq!(total, expect.len() as u128, "n = {n}");
        assert_eq!(total, published(n).unwrap().total);
    }
}

/// Parses the printed form of solutions back to column sequences (0-based), independently of
/// the writers.
fn parse_printed(kind: Kind, n: usize, text: &str) -> Vec<Vec<u64>> {
    match kind {
        Kind::Columns => text
            .lines()
            .map(|l| {
                l.split(' ')
                    .map(|t| t.parse::<u64>().unwrap() - 1)
                    .collect()
            })
            .collect(),
        Kind::Json => text
            .lines()
            .map(|l| {
                let v: Vec<u64> = serde_json::from_str(l).unwrap();
                v.into_iter().map(|c| c - 1).collect()
            })
            .collect(),
        Kind::Board | Kind::Matrix => {
            let (queen, sep) = if kind == Kind::Board {
                ("Q", "")
            } else {
                ("1", " ")
            };
            text.split("\n\n")
                .filter(|b| !b.is_empty())
                .map(|b| {
                    let rows: Vec<&str> = b.lines().collect();
                    assert_eq!(rows.len(), n);
                    rows.iter()
                        .map(|row| {
                            let cells: Vec<&str> = if sep.is_empty() {
                                row.split("").filter(|c| !c.is_empty()).collect()
                            } else {
                                row.split(sep).collect()
                            };
                            assert_eq!(cells.len(), n, "{row:?}");
                            assert_eq!(cells.iter().filter(|&&c| c == queen).count(), 1);
                            cells.iter().position(|&c| c == queen).unwrap() as u64
                        })
                        .collect()
                })
                .collect()
        }
    }
}

#[test]
fn every_printed_solution_is_valid_and_in_order() {
    for n in 1..=10u32 {
        let expect: Vec<Vec<u64>> = naive_all(n as usize)
            .into_iter()
            .map(|s| s.into_iter().map(u64::from).collect())
            .collect();
        for kind in Kind::ALL {
            let mut printer = Printer::new(kind.format(), Vec::new());
            let job = Job::new(n).unwrap();
            let _ = for_each_solution(&job, |s| {
                printer
                    .solution(u64::from(n), s.zero_based().iter().copied())
                    .unwrap();
                ControlFlow::Continue(())
            })
            .unwrap();
            let text = String::from_utf8(printer.finish().unwrap()).unwrap();
            let got = parse_printed(kind, n as usize, &text);
            assert!(got.iter().all(|s| is_solution(s)), "n = {n}, {kind}");
            assert_eq!(got, expect, "n = {n}, {kind}");
        }
    }
}

#[test]
fn unique_representatives_are_class_minima() {
    for n in 1..=12u32 {
        let job = Job::new(n).unwrap().with_unique(true);
        let reps = listed(&job);
        assert_eq!(reps.len() as u128, published(n).unwrap().unique, "n = {n}");
        assert!(
            reps.windows(2).all(|w| w[0] < w[1]),
            "n = {n}: not in order"
        );
        for s in &reps {
            let imgs = images(s);
            assert!(imgs.iter().all(|i| is_solution(&to_u64(i))));
            assert_eq!(imgs.iter().min().unwrap(), s, "n = {n}: {s:?} not minimal");
        }
        // The classes they stand for are all the classes, each once.
        if n <= 10 {
            let minima: BTreeSet<Vec<u8>> = naive_all(n as usize)
                .iter()
                .map(|s| images(s).into_iter().min().unwrap())
                .collect();
            assert_eq!(reps.into_iter().collect::<BTreeSet<_>>(), minima);
        }
    }
}

fn to_u64(s: &[u8]) -> Vec<u64> {
    s.iter().map(|&c| u64::from(c)).collect()
}

#[test]
fn unique_with_placed_queens_is_refused() {
    let job = Job::new(8)
        .unwrap()
        .with_unique(true)
        .with_placed(&[Queen::from_zero_based(0, 0)])
        .unwrap();
    assert!(matches!(
        for_each_solution(&job, |_| ControlFlow::Continue(())),
        Err(Error::UniqueWithPlaced)
    ));
}

#[test]
fn construction_is_valid_for_every_n_to_2000() {
    for n in (1..=2000u32).filter(|&n| n != 2 && n != 3) {
        let s: Vec<u64> = construct(n)
            .unwrap()
            .unwrap()
            .map(|c| u64::from(c) - 1)
            .collect();
        assert_eq!(s.len(), n as usize);
        assert!(is_solution(&s), "n = {n}");
    }
    assert_eq!(construct(2), Ok(None));
    assert_eq!(construct(3), Ok(None));
    assert!(matches!(construct(0), Err(Error::BoardSize { .. })));
}

#[test]
fn construction_is_valid_for_large_n() {
    for n in [100_000u32, 100_001, 100_002, 100_003, 1_000_000, 1_000_003] {
        let s: Vec<u64> = construct(n)
            .unwrap()
            .unwrap()
            .map(|c| u64::from(c) - 1)
            .collect();
        assert!(is_solution(&s), "n = {n}");
    }
}

#[test]
#[ignore = "10^7 rows: a few seconds; run by scripts/slow-checks.sh"]
fn construction_is_valid_for_ten_million() {
    for n in [10_000_000u32, 10_000_001, 10_000_002, 10_000_003] {
        let s: Vec<u64> = construct(n)
            .unwrap()
            .unwrap()
            .map(|c| u64::from(c) - 1)
            .collect();
        assert!(is_solution(&s), "n = {n}");
    }
}

/// What brute force says about a set of placed queens: `None` if they are not a valid
/// placement, else the solutions containing them.
fn brute_force(n: usize, queens: &[(usize, usize)]) -> Option<Vec<Vec<u8>>> {
    let q: BTreeSet<(usize, usize)> = queens.iter().copied().collect();
    let q: Vec<(usize, usize)> = q.into_iter().collect();
    for (i, &(r1, c1)) in q.iter().enumerate() {
        if r1 >= n || c1 >= n {
            return None;
        }
        for &(r2, c2) in &q[i + 1..] {
            if r1 == r2 || c1 == c2 || r1.abs_diff(r2) == c1.abs_diff(c2) {
                return None;
            }
        }
    }
    Some(
        naive_all(n)
            .into_iter()
            .filter(|s| q.iter().all(|&(r, c)| s[r] as usize == c))
            .collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn placed_queens_list_and_count_like_brute_force(
        n in 1u32..=9,
        raw in prop::collection::vec((0u32..10, 0u32..10), 0..=3),
        depth in 1u32..=4,
        threads in 1usize..=3,
        method_plain in any::<bool>(),
    ) {
        // Mostly on the board, sometimes one off it.
        let queens: Vec<Queen> = raw.iter().map(|&(r, c)| Queen::from_zero_based(r % (n + 1), c % (n + 1))).collect();
        let pairs: Vec<(usize, usize)> = queens.iter().map(|q| (q.zero_based().0 as usize, q.zero_based().1 as usize)).collect();
        let method = if method_plain { Method::Plain } else { Method::Mirror };
        let job = Job::new(n).unwrap().with_method(method).with_split_depth(depth.min(n)).unwrap().with_placed(&queens);
        match brute_force(n as usize, &pairs) {
            None => prop_assert!(job.is_err(), "{queens:?} should be refused"),
            Some(expect) => {
                let job = job.unwrap();
                prop_assert_eq!(&listed(&job), &expect);
                let total = count(&job, threads).unwrap().counts.total;
                prop_assert_eq!(total, expect.len() as u128);
                // The writer, on as many threads, prints exactly these, in order.
                let text: String = expect
                    .iter()
                    .map(|s| {
                        let cols: Vec<String> = s.iter().map(|c| (c + 1).to_string()).collect();
                        cols.join(" ") + "\n"
                    })
                    .collect();
                let (k, out) = written(&job, Kind::Columns, None, threads);
                prop_assert_eq!(k, expect.len() as u64);
                prop_assert_eq!(String::from_utf8(out).unwrap(), text);
            }
        }
    }
}

/// The judge's solutions with a queen at row `r`, column `c` (1-based), by the naive solver:
/// for columns 1..8 the 0-based row of the queen in that column, in lexicographic order.
fn judge_naive(r: u8, c: u8) -> Vec<Vec<u8>> {
    // The naive solver's sequences read as column -> row are exactly the judge's sequences.
    let mut all: Vec<Vec<u8>> = naive_all(8)
        .into_iter()
        .filter(|t| t[c as usize - 1] == r - 1)
        .collect();
    all.sort();
    all
}

#[test]
fn uva750_every_queen_like_the_naive_solver() {
    let mut total = 0;
    for r in 1..=8u8 {
        for c in 1..=8u8 {
            let mut got = Vec::new();
            uva750::for_each_judge_solution(uva750::Dataset { row: r, col: c }, |t| {
                got.push(t.zero_based().to_vec())
            });
            // The queen in column c is on row r.
            assert!(got.iter().all(|t| t[c as usize - 1] == r - 1));
            assert_eq!(got, judge_naive(r, c), "row {r}, column {c}");
            total += got.len();
        }
    }
    // Each of the 92 solutions has one queen in each of the 8 columns.
    assert_eq!(total, 92 * 8);
}

#[test]
fn uva750_output_for_two_datasets() {
    let d = uva750::parse("2\n\n3 4\n\n\n8 8\n").unwrap();
    let mut out = Vec::new();
    uva750::write(&mut out, &d).unwrap();
    let text = String::from_utf8(out).unwrap();
    let blocks: Vec<&str> = text.split("\n\n").collect();
    // header | solutions of (3,4) | header | solutions of (8,8)
    assert_eq!(blocks.len(), 4, "{text}");
    assert_eq!(blocks[0], "SOLN       COLUMN\n #      1 2 3 4 5 6 7 8");
    assert_eq!(blocks[2], blocks[0]);
    for (block, (r, c)) in [(blocks[1], (3u8, 4u8)), (blocks[3].trim_end(), (8, 8))] {
        let expect = judge_naive(r, c);
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), expect.len());
        for (i, (line, t)) in lines.iter().zip(&expect).enumerate() {
            let rows: Vec<String> = t.iter().map(|x| (x + 1).to_string()).collect();
            assert_eq!(*line, format!("{:>2}      {}", i + 1, rows.join(" ")));
        }
    }
    assert!(text.ends_with('\n') && !text.ends_with("\n\n"));
}

/// The serial reference output of a listing: [`for_each_solution`] through a [`Printer`].
fn printed(job: &Job, kind: Kind, limit: Option<u64>) -> Vec<u8> {
    let mut printer = Printer::new(kind.format(), Vec::new());
    let n = u64::from(job.n());
    let _ = for_each_solution(job, |s| {
        if Some(printer.written()) == limit {
            return ControlFlow::Break(());
        }
        printer.solution(n, s.zero_based().iter().copied()).unwrap();
        ControlFlow::Continue(())
    })
    .unwrap();
    printer.finish().unwrap()
}

fn written(job: &Job, kind: Kind, limit: Option<u64>, threads: usize) -> (u64, Vec<u8>) {
    let mut out = Vec::new();
    let opts = WriteOptions {
        format: kind,
        limit,
        threads,
    };
    let k = write_solutions(job, &opts, &mut out).unwrap();
    (k, out)
}

#[test]
fn parallel_writing_is_the_serial_output_for_any_thread_count() {
    let q = |r, c| Queen::one_based(r, c).unwrap();
    let mut jobs = Vec::new();
    for n in 1..=11u32 {
        for depth in 1..=n.min(3) {
            jobs.push(Job::new(n).unwrap().with_split_depth(depth).unwrap());
        }
        jobs.push(Job::new(n).unwrap().with_unique(true));
    }
    jobs.push(Job::new(10).unwrap().with_placed(&[q(2, 3)]).unwrap());
    jobs.push(
        Job::new(11)
            .unwrap()
            .with_placed(&[q(1, 1), q(11, 10)])
            .unwrap(),
    );
    for job in &jobs {
        for kind in Kind::ALL {
            let expect = printed(job, kind, None);
            let count = listed(job).len() as u64;
            for threads in [1, 2, 3, 8] {
                let (k, out) = written(job, kind, None, threads);
                assert_eq!(k, count, "{job:?} {kind} {threads}");
                assert!(out == expect, "{job:?} {kind} on {threads} threads differs");
            }
        }
    }
}

#[test]
fn parallel_writing_crosses_chunks_and_stops_at_the_limit() {
    // N = 12 boards: 14,200 solutions of 156 bytes, far more than one chunk.
    let job = Job::new(12).unwrap().with_split_depth(3).unwrap();
    for kind in [Kind::Board, Kind::Columns] {
        let full = printed(&job, kind, None);
        assert_eq!(written(&job, kind, None, 3).1, full, "{kind}");
        for limit in [0u64, 1, 7, 1000, 5001, 14_200, 20_000] {
            let expect = printed(&job, kind, Some(limit));
            let (k, out) = written(&job, kind, Some(limit), 3);
            assert_eq!(k, limit.min(14_200), "{kind} limit {limit}");
            assert!(out == expect, "{kind} limit {limit}");
            assert!(full.starts_with(&out));
        }
    }
}

#[test]
fn parallel_writing_under_the_memory_budget() {
    // N = 13 boards: 13 MB of output against a budget of 0.5 MiB per thread (the writer's
    // `BUDGET_PER_THREAD`), so the workers on later units must wait for the writer, and the
    // output must still be the serial one.
    let job = Job::new(13).unwrap().with_split_depth(3).unwrap();
    let full = printed(&job, Kind::Board, None);
    assert!(full.len() > 20 * (512 << 10));
    for threads in [2, 5] {
        let (k, out) = written(&job, Kind::Board, None, threads);
        assert_eq!(k, 73_712);
        assert!(out == full, "{threads} threads");
        let (k, out) = written(&job, Kind::Board, Some(50_000), threads);
        assert_eq!(k, 50_000);
        assert!(out == printed(&job, Kind::Board, Some(50_000)));
    }
}

/// The text of `solutions` (0-based columns) in `kind`, written here from the formats'
/// descriptions (not by the library's formatters): the independent reference of a listing.
fn naive_text(kind: Kind, n: usize, solutions: &[Vec<u8>]) -> Vec<u8> {
    let mut out = String::new();
    for (i, s) in solutions.iter().enumerate() {
        let cols: Vec<String> = s.iter().map(|&c| (c + 1).to_string()).collect();
        match kind {
            Kind::Columns => out += &(cols.join(" ") + "\n"),
            Kind::Json => out += &format!("[{}]\n", cols.join(",")),
            Kind::Board | Kind::Matrix => {
                if i > 0 {
                    out += "\n";
                }
                for &c in s {
                    let cells: Vec<&str> = (0..n)
                        .map(|x| match (kind, x == usize::from(c)) {
                            (Kind::Board, true) => "Q",
                            (Kind::Board, false) => ".",
                            (_, true) => "1",
                            (_, false) => "0",
                        })
                        .collect();
                    out += &cells.join(if kind == Kind::Board { "" } else { " " });
                    out += "\n";
                }
            }
        }
    }
    out.into_bytes()
}

/// Every format, on 1, 2 and 3 threads, all solutions, `--unique`, `--place` and `--limit`:
/// byte for byte the naive solver's solutions as [`naive_text`] writes them.
#[test]
fn written_listings_are_the_naive_solutions_in_every_format() {
    let q = |r, c| Queen::one_based(r, c).unwrap();
    for n in 1..=10usize {
        let all = naive_all(n);
        let minima: Vec<Vec<u8>> = all
            .iter()
            .filter(|s| images(s).iter().min() == Some(s))
            .cloned()
            .collect();
        let corner: Vec<Vec<u8>> = all.iter().filter(|s| s[n - 1] == 0).cloned().collect();
        let job = Job::new(n as u32).unwrap();
        let cases = [
            (job.clone(), all.clone(), None),
            (job.clone().with_unique(true), minima, None),
            (
                job.clone().with_placed(&[q(n as u32, 1)]).unwrap(),
                corner,
                None,
            ),
            (job.clone(), all[..all.len().min(7)].to_vec(), Some(7)),
            (job.clone(), all.clone(), Some(1 << 40)),
        ];
        for (job, expect, limit) in &cases {
            for kind in Kind::ALL {
                let text = naive_text(kind, n, expect);
                for threads in [1, 2, 3] {
                    let (k, out) = written(job, kind, *limit, threads);
                    assert_eq!(k, expect.len() as u64, "{job:?} {kind} -t {threads}");
                    assert!(out == text, "{job:?} {kind} -t {threads} {limit:?}");
                }
            }
        }
    }
}

/// Boards whose pieces are searched on the lanes (N = 13 and 14: eleven and twelve rows below
/// each piece): every format and thread count, `--unique`, `--place` and limits that end inside a
/// piece and inside a chunk, against the serial depth-first reference; the whole listing of
/// N = 13 is the naive solver's, valid and strictly increasing across every piece, batch and
/// chunk boundary.
#[test]
fn lane_listings_are_the_serial_reference() {
    let q = |r, c| Queen::one_based(r, c).unwrap();
    let thirteen = Job::new(13).unwrap();
    let naive = naive_text(Kind::Columns, 13, &naive_all(13));
    for threads in [1, 2, 3] {
        let (k, out) = written(&thirteen, Kind::Columns, None, threads);
        assert_eq!(k, 73_712);
        assert!(out == naive, "-t {threads}");
    }
    let jobs = [
        thirteen.clone(),
        thirteen.clone().with_unique(true),
        thirteen.clone().with_placed(&[q(13, 7)]).unwrap(),
        Job::new(14)
            .unwrap()
            .with_placed(&[q(2, 5), q(9, 1)])
            .unwrap(),
    ];
    for job in &jobs {
        for kind in Kind::ALL {
            let expect = printed(job, kind, None);
            let parsed = parse_printed(
                kind,
                job.n() as usize,
                std::str::from_utf8(&expect).unwrap(),
            );
            assert!(parsed.iter().all(|s| is_solution(s)), "{job:?}");
            assert!(parsed.windows(2).all(|w| w[0] < w[1]), "{job:?}: order");
            for threads in [1, 2, 3] {
                assert!(
                    written(job, kind, None, threads).1 == expect,
                    "{job:?} {kind} -t {threads}"
                );
            }
            for limit in [1, 999, 4321] {
                let cut = printed(job, kind, Some(limit));
                for threads in [1, 2, 3] {
                    let (k, out) = written(job, kind, Some(limit), threads);
                    assert_eq!(
                        k as usize,
                        parse_printed(kind, job.n() as usize, std::str::from_utf8(&cut).unwrap())
                            .len()
                    );
                    assert!(out == cut, "{job:?} {kind} -t {threads} --limit {limit}");
                }
            }
        }
    }
}

/// Pieces of thousands of solutions (N = 16: 272 bytes each in `board`, a batch spans many
/// chunks), cut by a limit deep inside them, on 1 to 3 threads; and N = 14 whole, every
/// thread count.
#[test]
fn large_pieces_span_chunks_and_limits_cut_inside_them() {
    let sixteen = Job::new(16).unwrap();
    for (kind, limit) in [(Kind::Board, 30_000), (Kind::Json, 250_000)] {
        let expect = printed(&sixteen, kind, Some(limit));
        for threads in [1, 2, 3] {
            let (k, out) = written(&sixteen, kind, Some(limit), threads);
            assert_eq!(k, limit);
            assert!(out == expect, "{kind} -t {threads}");
        }
    }
    let fourteen = Job::new(14).unwrap();
    let expect = printed(&fourteen, Kind::Columns, None);
    for threads in [1, 2, 3] {
        assert!(
            written(&fourteen, Kind::Columns, None, threads).1 == expect,
            "-t {threads}"
        );
    }
}

/// A writer that fails once it has taken `room` bytes, like a closed pipe.
struct Fails {
    room: usize,
}

impl std::io::Write for Fails {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.room == 0 {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        let k = buf.len().min(self.room);
        self.room -= k;
        Ok(k)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn writing_errors_stop_the_listing() {
    let job = Job::new(14).unwrap().with_split_depth(3).unwrap();
    for (threads, room) in [
        (1, 100_000),
        (2, 100_000),
        (3, 0),
        (3, 1_000_000),
        (4, 100_000),
    ] {
        let opts = WriteOptions {
            format: Kind::Columns,
            limit: None,
            threads,
        };
        let r = write_solutions(&job, &opts, Fails { room });
        assert!(
            matches!(r, Err(WriteError::Io(ref e)) if e.kind() == std::io::ErrorKind::BrokenPipe),
            "{threads}: {r:?}"
        );
    }
    let opts = WriteOptions {
        format: Kind::Columns,
        limit: None,
        threads: 0,
    };
    assert!(matches!(
        write_solutions(&job, &opts, Vec::new()),
        Err(WriteError::Invalid(Error::ZeroThreads))
    ));
    let opts = WriteOptions {
        threads: nqueens_count::MAX_THREADS + 1,
        ..opts
    };
    assert!(matches!(
        write_solutions(&job, &opts, Vec::new()),
        Err(WriteError::Invalid(Error::TooManyThreads { .. }))
    ));
    let unique_placed = Job::new(8)
        .unwrap()
        .with_unique(true)
        .with_placed(&[Queen::from_zero_based(0, 0)])
        .unwrap();
    let opts = WriteOptions { threads: 2, ..opts };
    assert!(matches!(
        write_solutions(&unique_placed, &opts, Vec::new()),
        Err(WriteError::Invalid(Error::UniqueWithPlaced))
    ));
}
