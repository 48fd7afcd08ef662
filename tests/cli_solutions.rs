//! `solve`, `list`, `count --place` and `uva750` as a user meets them: exact outputs, agreement
//! with the naive solver, and one clear line with exit code 2 for bad input.

use crate::common::nq;

use crate::common::naive_solutions;

/// The standard output of a command that succeeds, or of a listing that finds no solution (exit
/// code 1 with nothing on stdout, as `list` answers a board or queens without solutions).
fn stdout_of(args: &[&str]) -> String {
    let out = nq().args(args).output().unwrap();
    let none_found = out.status.code() == Some(1) && out.stdout.is_empty() && args[0] == "list";
    assert!(
        out.status.success() || none_found,
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Independent check of one printed solution (1-based columns).
fn valid(cols: &[usize]) -> bool {
    let n = cols.len();
    let mut seen = vec![false; n + 1];
    let mut d1 = vec![false; 2 * n + 2];
    let mut d2 = vec![false; 2 * n + 2];
    cols.iter().enumerate().all(|(r, &c)| {
        (1..=n).contains(&c)
            && !std::mem::replace(&mut seen[c], true)
            && !std::mem::replace(&mut d1[r + c], true)
            && !std::mem::replace(&mut d2[n + r + 1 - c], true)
    })
}

fn columns(text: &str) -> Vec<Vec<usize>> {
    text.lines()
        .map(|l| l.split(' ').map(|t| t.parse().unwrap()).collect())
        .collect()
}

fn naive_one_based(n: usize, keep: impl Fn(&[usize]) -> bool) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    naive_solutions(n, |s| {
        if keep(s) {
            all.push(s.iter().map(|c| c + 1).collect());
        }
    });
    all
}

#[test]
fn list_4_board_is_the_two_classic_boards() {
    nq().args(["list", "4", "--format", "board"])
        .assert()
        .success()
        .stdout(".Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n");
    nq().args(["list", "4", "-f", "matrix"])
        .assert()
        .success()
        .stdout("0 1 0 0\n0 0 0 1\n1 0 0 0\n0 0 1 0\n\n0 0 1 0\n1 0 0 0\n0 0 0 1\n0 1 0 0\n");
    nq().args(["list", "4", "-f", "json"])
        .assert()
        .success()
        .stdout("[2,4,1,3]\n[3,1,4,2]\n");
    nq().args(["list", "4"])
        .assert()
        .success()
        .stdout("2 4 1 3\n3 1 4 2\n");
}

#[test]
fn list_agrees_with_naive_and_count() {
    for n in 1..=10usize {
        let got = columns(&stdout_of(&["list", &n.to_string()]));
        assert!(got.iter().all(|s| s.len() == n && valid(s)), "n = {n}");
        assert_eq!(got, naive_one_based(n, |_| true), "n = {n}");
        for t in ["1", "2", "3"] {
            let on = columns(&stdout_of(&["list", &n.to_string(), "-t", t]));
            assert_eq!(on, got, "n = {n}, -t {t}");
        }
        let counted: usize = stdout_of(&["count", &n.to_string()])
            .trim()
            .parse()
            .unwrap();
        assert_eq!(counted, got.len(), "n = {n}");
    }
    // No solution: nothing listed, and said as `solve` says it (stderr, exit code 1).
    for n in ["2", "3"] {
        nq().args(["list", n])
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicates::str::contains(format!(
                "N = {n} has no solution"
            )));
    }
    // Queens no solution contains: the same answer, naming them.
    nq().args(["list", "4", "--place", "1,1"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicates::str::contains("contains the given queens"));
    // A limit of zero asks for nothing: not a failure.
    nq().args(["list", "8", "--limit", "0"])
        .assert()
        .success()
        .stdout("");
}

#[test]
fn list_limit_takes_a_prefix() {
    let all = stdout_of(&["list", "8"]);
    let first5: String = all.lines().take(5).map(|l| format!("{l}\n")).collect();
    assert_eq!(stdout_of(&["list", "8", "--limit", "5"]), first5);
    assert_eq!(stdout_of(&["list", "8", "--limit", "1000"]), all);
    assert_eq!(stdout_of(&["list", "8", "--limit", "0"]), "");
    // Large boards are listed lazily: the first solution of N = 32 comes at once.
    let first = columns(&stdout_of(&["list", "32", "--limit", "1"]));
    assert_eq!(first.len(), 1);
    assert!(valid(&first[0]));
}

/// Issue 29 item 1: a listing of hours or of more bytes than the disk holds stops at once with
/// its estimate (exit 2, nothing written) unless --yes or a small --limit.
#[test]
fn endless_listings_ask_for_yes_or_a_limit() {
    for args in [&["list", "25"][..], &["list", "20", "--unique"]] {
        let started = std::time::Instant::now();
        let out = nq().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.starts_with("nqueens: error: the listing is estimated to write about ")
                && err.contains(" of CPU time ")
                && err.trim_end().ends_with(
                    "add --limit K to write the first K solutions, or --yes to start it anyway"
                )
                && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        assert!(started.elapsed().as_secs() < 10, "{args:?}");
    }
    let err =
        String::from_utf8_lossy(&nq().args(["list", "25"]).output().unwrap().stderr).into_owned();
    assert!(err.contains("about 2.2e15 solutions, 146 PB, in "), "{err}");
    // A limit that keeps it short, or --yes (the first line through a pipe, then stopped).
    assert_eq!(
        columns(&stdout_of(&["list", "25", "--limit", "2"])).len(),
        2
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#""$0" list 22 --yes | head -n 1"#)
        .arg(crate::common::bin())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let first = columns(&String::from_utf8(out.stdout).unwrap());
    assert!(first.len() == 1 && valid(&first[0]), "{first:?}");
    // Small listings need neither.
    assert_eq!(columns(&stdout_of(&["list", "12"])).len(), 14200);
}

#[test]
fn list_unique_gives_a002562_class_minima() {
    let expect = [1usize, 0, 0, 1, 2, 1, 6, 12, 46, 92];
    for (i, &e) in expect.iter().enumerate() {
        let n = i + 1;
        let got = columns(&stdout_of(&["list", &n.to_string(), "--unique"]));
        assert_eq!(got.len(), e, "n = {n}");
        assert!(got.iter().all(|s| valid(s)));
        assert!(got.windows(2).all(|w| w[0] < w[1]), "n = {n}");
        for t in ["1", "3"] {
            let on = columns(&stdout_of(&["list", &n.to_string(), "--unique", "-t", t]));
            assert_eq!(on, got, "n = {n}, -t {t}");
        }
    }
    assert_eq!(
        stdout_of(&["list", "6", "--unique", "-f", "json"]),
        "[2,4,6,1,3,5]\n"
    );
    assert_eq!(stdout_of(&["count", "10", "--unique"]), "724 92\n");
}

#[test]
fn place_filters_list_and_count() {
    let cases: [&[(usize, usize)]; 5] = [
        &[(1, 1)],
        &[(3, 5)],
        &[(1, 2), (2, 4)],
        &[(8, 8), (1, 4)],
        &[(2, 1), (5, 8), (7, 3)],
    ];
    for n in [6usize, 8, 9] {
        for q in cases {
            if q.iter().any(|&(r, c)| r > n || c > n) {
                continue;
            }
            // One, two or three threads, in turn.
            let threads = 1 + (n + q.len()) % 3;
            let mut args = vec![
                "list".to_string(),
                n.to_string(),
                "-t".into(),
                threads.to_string(),
            ];
            for (r, c) in q {
                args.push("--place".into());
                args.push(format!("{r},{c}"));
            }
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let expect = naive_one_based(n, |s| q.iter().all(|&(r, c)| s[r - 1] == c - 1));
            let got = columns(&stdout_of(&argv));
            assert_eq!(got, expect, "{argv:?}");
            args[0] = "count".into();
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(stdout_of(&argv), format!("{}\n", expect.len()), "{argv:?}");
        }
    }
    // A placement no solution extends: nothing, and a count of zero.
    assert_eq!(stdout_of(&["list", "4", "--place", "1,1"]), "");
    assert_eq!(stdout_of(&["count", "4", "--place", "1,1"]), "0\n");
}

#[test]
fn solve_prints_a_valid_solution() {
    for n in (1..=60usize).filter(|&n| n != 2 && n != 3) {
        let s = columns(&stdout_of(&["solve", &n.to_string()]));
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].len(), n);
        assert!(valid(&s[0]), "n = {n}");
    }
    let big = columns(&stdout_of(&["solve", "100000"]));
    assert!(valid(&big[0]) && big[0].len() == 100_000);
    let json: Vec<usize> =
        serde_json::from_str(stdout_of(&["solve", "1000", "-f", "json"]).trim()).unwrap();
    assert!(valid(&json));
    let board = stdout_of(&["solve", "1000", "-f", "board"]);
    assert_eq!(board.lines().count(), 1000);
    assert!(board
        .lines()
        .all(|l| l.len() == 1000 && l.matches('Q').count() == 1));
    assert_eq!(
        stdout_of(&["solve", "4", "-f", "board"]),
        ".Q..\n...Q\nQ...\n..Q.\n"
    );
}

#[test]
fn solve_says_when_there_is_no_solution() {
    for n in ["2", "3"] {
        let out = nq().args(["solve", n]).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("N = {n} has no solution")), "{err}");
        assert_eq!(err.lines().count(), 1);
    }
}

const UVA_SAMPLE_OUT: &str = "SOLN       COLUMN\n #      1 2 3 4 5 6 7 8\n\n \
1      1 5 8 6 3 7 2 4\n \
2      1 6 8 3 7 4 2 5\n \
3      1 7 4 6 8 2 5 3\n \
4      1 7 5 8 2 4 6 3\n";

#[test]
fn uva750_sample_and_own_cases() {
    nq().arg("uva750")
        .write_stdin("1\n\n1 1\n")
        .assert()
        .success()
        .stdout(UVA_SAMPLE_OUT);
    // Twice the sample, blank lines anywhere, CRLF: one empty line between the datasets.
    nq().arg("uva750")
        .write_stdin("\n2\r\n\r\n1 1\r\n\n\n  1   1 \n\n")
        .assert()
        .success()
        .stdout(format!("{UVA_SAMPLE_OUT}\n{UVA_SAMPLE_OUT}"));
    // Row 1, column 2: the queen of column 2 is on row 1, so every line's second entry is 1.
    let out = stdout_of_stdin(&["uva750"], "1\n1 2\n");
    let lines: Vec<&str> = out.lines().skip(3).collect();
    assert_eq!(lines.len(), 8);
    assert_eq!(lines[0], " 1      3 1 7 5 8 2 4 6");
    assert!(lines.iter().all(|l| l.as_bytes()[10] == b'1'));
    nq().arg("uva750")
        .write_stdin("0\n")
        .assert()
        .success()
        .stdout("");
}

fn stdout_of_stdin(args: &[&str], stdin: &str) -> String {
    let out = nq().args(args).write_stdin(stdin).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

fn usage_error(args: &[&str], stdin: Option<&str>, needle: &str) {
    let mut cmd = nq();
    cmd.args(args);
    if let Some(s) = stdin {
        cmd.write_stdin(s);
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    usage_error(&["list", "0"], None, "between 1 and 32");
    usage_error(&["list", "33"], None, "between 1 and 32");
    usage_error(&["list", "8", "-f", "svg"], None, "unknown format 'svg'");
    usage_error(&["list", "8", "--limit", "ten"], None, "--limit");
    usage_error(&["list", "8", "--place", "1"], None, "not a queen position");
    usage_error(
        &["list", "8", "--place", "1,x"],
        None,
        "not a queen position",
    );
    usage_error(&["list", "8", "--place", "0,3"], None, "count from 1");
    usage_error(&["list", "8", "--place", "9,1"], None, "off the 8x8 board");
    usage_error(
        &["list", "8", "--place", "1,1", "--place", "1,5"],
        None,
        "share a row",
    );
    usage_error(
        &["count", "8", "--place", "1,1", "--place", "4,1"],
        None,
        "share a column",
    );
    usage_error(
        &["count", "8", "--place", "1,1", "--place", "3,3"],
        None,
        "diagonal",
    );
    usage_error(&["count", "8", "--place", "2,9"], None, "off the 8x8 board");
    usage_error(
        &["list", "8", "--unique", "--place", "1,1"],
        None,
        "--unique cannot be combined with --place",
    );
    usage_error(
        &["count", "8", "--unique", "--place", "1,1"],
        None,
        "--unique cannot be combined with --place",
    );
    usage_error(&["solve", "0"], None, "between 1 and 4294967295");
    usage_error(&["solve", "4294967296"], None, "between 1 and 4294967295");
    usage_error(&["solve", "ten"], None, "not a board size");
    usage_error(&["solve", "1001", "-f", "board"], None, "stops at N = 1000");
    usage_error(
        &["solve", "5000", "-f", "matrix"],
        None,
        "stops at N = 1000",
    );
    usage_error(&["uva750"], Some(""), "input line 1");
    usage_error(&["uva750"], Some("x\n"), "input line 1");
    usage_error(&["uva750"], Some("2\n1 1\n\n"), "input line 4");
    usage_error(&["uva750"], Some("1\n\n1\n"), "input line 3");
    usage_error(
        &["uva750"],
        Some("1\n9 1\n"),
        "row must be a number from 1 to 8",
    );
    usage_error(
        &["uva750"],
        Some("1\n1 0\n"),
        "column must be a number from 1 to 8",
    );
    usage_error(&["uva750"], Some("1\n1 1\n1 2\n"), "input line 3");
    usage_error(&["uva750"], Some("1\n1 a\n"), "input line 2");
}

#[test]
fn list_output_does_not_depend_on_threads() {
    let one = stdout_of(&["list", "12", "-t", "1"]);
    assert_eq!(one.lines().count(), 14_200);
    for t in ["2", "3", "7"] {
        assert!(stdout_of(&["list", "12", "-t", t]) == one, "-t {t}");
    }
    let one = stdout_of(&["list", "11", "-f", "board", "--unique", "-t", "1"]);
    assert_eq!(one.split("\n\n").count(), 341);
    assert!(stdout_of(&["list", "11", "-f", "board", "--unique", "-t", "3"]) == one);
}

#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let dir = tempfile::tempdir().unwrap();
    for format in ["columns", "board"] {
        let first = stdout_of(&["list", "16", "--limit", "2", "-f", format]);
        for t in ["1", "2", "3"] {
            // The listing's own exit status, after `head` has closed the pipe.
            let out = std::process::Command::new("bash")
                .arg("-c")
                .arg(format!(
                    "'{}' list 16 -t {t} -f {format} 2>err.txt | head -n {}; \
                     echo \"exit ${{PIPESTATUS[0]}}\"; cat err.txt; rm -f err.txt",
                    bin.display(),
                    first.lines().count(),
                ))
                .current_dir(dir.path())
                .output()
                .unwrap();
            // The first lines, exit code 0 and nothing on stderr: a closed pipe is no error.
            let text = String::from_utf8(out.stdout).unwrap();
            assert_eq!(text, format!("{first}exit 0\n"), "-t {t} -f {format}");
        }
    }
}

#[test]
#[ignore = "10^7 columns through the binary: a few seconds; run by scripts/slow-checks.sh"]
fn solve_ten_million_through_the_binary() {
    let text = stdout_of(&["solve", "10000000"]);
    let cols: Vec<usize> = text
        .trim_end()
        .split(' ')
        .map(|t| t.parse().unwrap())
        .collect();
    assert_eq!(cols.len(), 10_000_000);
    assert!(valid(&cols));
}

mod place_property {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(40))]

        #[test]
        fn list_and_count_with_random_placements(
            n in 1usize..=9,
            raw in prop::collection::vec((1usize..=10, 1usize..=10), 1..=3),
            threads in 1usize..=3,
        ) {
            let queens: Vec<(usize, usize)> =
                raw.iter().map(|&(r, c)| ((r - 1) % (n + 1) + 1, (c - 1) % (n + 1) + 1)).collect();
            let mut args = vec!["list".to_string(), n.to_string(), "-t".into(), threads.to_string()];
            for (r, c) in &queens {
                args.push("--place".into());
                args.push(format!("{r},{c}"));
            }
            // Brute force: the placement is valid when every queen is on the board and no two
            // distinct ones share a row, a column or a diagonal.
            let valid_placement = queens.iter().all(|&(r, c)| r <= n && c <= n)
                && queens.iter().enumerate().all(|(i, &(r1, c1))| {
                    queens[i + 1..].iter().all(|&(r2, c2)| {
                        (r1, c1) == (r2, c2)
                            || (r1 != r2 && c1 != c2 && r1.abs_diff(r2) != c1.abs_diff(c2))
                    })
                });
            for cmd in ["list", "count"] {
                args[0] = cmd.into();
                let out = nq().args(&args).output().unwrap();
                if !valid_placement {
                    prop_assert_eq!(out.status.code(), Some(2), "{:?}", args);
                    continue;
                }
                let text = String::from_utf8(out.stdout).unwrap();
                let expect =
                    naive_one_based(n, |s| queens.iter().all(|&(r, c)| s[r - 1] == c - 1));
                // `list` finding nothing exits 1 (as `solve` does); `count` prints 0.
                let code = if cmd == "list" && expect.is_empty() { 1 } else { 0 };
                prop_assert_eq!(out.status.code(), Some(code), "{:?}", args);
                if cmd == "list" {
                    prop_assert_eq!(columns(&text), expect);
                } else {
                    prop_assert_eq!(text, format!("{}\n", expect.len()));
                }
            }
        }
    }
}
