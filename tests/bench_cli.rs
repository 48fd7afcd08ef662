//! `nqueens bench` as CI runs it: a small real benchmark writes the five result files, with
//! the schema they document, and bad settings get one line and exit code 2.

use crate::common::nq;
use predicates::prelude::*;

use crate::common;

/// The published totals for N = 6..=8.
const TOTALS: [(u32, u64); 3] = [(6, 4), (7, 40), (8, 92)];

/// The columns of `scaling.csv` (schema 6).
const HEADER: [&str; 21] = [
    "n",
    "solver",
    "method",
    "kernel",
    "threads",
    "split_depth",
    "units",
    "repeats",
    "solutions",
    "unique",
    "median_s",
    "min_s",
    "max_s",
    "cpu_s",
    "speedup",
    "efficiency",
    "scaling",
    "solutions_per_s",
    "counts_per_run",
    "too_short",
    "short_for_scaling",
];

/// The cell of column `name` of a `scaling.csv` row.
fn cell<'a>(row: &'a csv::StringRecord, name: &str) -> &'a str {
    &row[HEADER.iter().position(|h| *h == name).unwrap()]
}

#[test]
fn a_small_benchmark_writes_five_valid_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let args = ["bench", "--n-min", "6", "--n-max", "8", "--threads", "1,2"];
    nq().args(args)
        .args(["--repeat", "1", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("scaling.csv"));
    for f in [
        "scaling.csv",
        "scaling.json",
        "scaling.svg",
        "time.svg",
        "summary.md",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }

    // CSV: the documented header, one row per N and solver configuration, verified counts.
    let mut csv = csv::Reader::from_path(out.join("scaling.csv")).unwrap();
    let header: Vec<String> = csv.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, HEADER);
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    // Per N: the serial solver, then the engine with the default method and with mirror on 1
    // and 2 threads.
    assert_eq!(rows.len(), 3 * 5);
    for (i, row) in rows.iter().enumerate() {
        let (n, total) = TOTALS[i / 5];
        assert_eq!(cell(row, "n").parse::<u32>().unwrap(), n);
        assert_eq!(
            cell(row, "solver"),
            if i % 5 == 0 { "serial" } else { "engine" }
        );
        // The default method, then mirror.
        let default = nqueens_count::Method::default().to_string();
        let methods = ["mirror", &default, &default, "mirror", "mirror"];
        assert_eq!(cell(row, "method"), methods[i % 5]);
        assert_eq!(
            cell(row, "threads").parse::<usize>().unwrap(),
            [1, 1, 2, 1, 2][i % 5]
        );
        assert_eq!(cell(row, "repeats").parse::<u32>().unwrap(), 1);
        // The counts the runs made: the published total, and no unique count (not asked for).
        assert_eq!(cell(row, "solutions").parse::<u64>().unwrap(), total);
        assert_eq!(cell(row, "unique"), "");
        let median: f64 = cell(row, "median_s").parse().unwrap();
        let (min, max): (f64, f64) = (
            cell(row, "min_s").parse().unwrap(),
            cell(row, "max_s").parse().unwrap(),
        );
        assert!(median > 0.0 && min <= median && median <= max, "{row:?}");
        // The engine's scaling against its own 1-thread run: exactly 1 on one thread.
        match (i % 5, cell(row, "scaling").parse::<f64>()) {
            (0, _) => assert_eq!(cell(row, "scaling"), ""),
            (1 | 3, Ok(s)) => assert_eq!(s, 1.0),
            (_, Ok(s)) => assert!(s > 0.0),
            (_, Err(e)) => panic!("scaling: {e}"),
        }
        assert!(cell(row, "solutions_per_s").parse::<f64>().unwrap() > 0.0);
        // The kernel: the serial solver's depth-first search, or the engine's best.
        if i % 5 == 0 {
            assert_eq!(cell(row, "kernel"), "dfs");
        } else {
            let kernel = cell(row, "kernel");
            assert!(["avx512", "avx2", "dfs"].contains(&kernel), "{kernel}");
        }
    }

    // JSON: the machine description, the settings and the same rows.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scaling.json")).unwrap()).unwrap();
    let m = &json["machine"];
    for key in [
        "cpu_model",
        "logical_cores",
        "physical_cores",
        "os",
        "rustc",
        "git_commit",
        "command_line",
    ] {
        assert!(!m[key].is_null(), "machine.{key} missing");
    }
    assert!(m["logical_cores"].as_u64().unwrap() >= 1);
    assert!(m["rustc"].as_str().unwrap().starts_with("rustc"));
    assert!(m["command_line"]
        .as_str()
        .unwrap()
        .contains("bench --n-min 6 --n-max 8 --threads 1,2"));
    assert_eq!(json["settings"]["threads"], serde_json::json!([1, 2]));
    let kernel = json["settings"]["kernel"].as_str().unwrap();
    assert!(["avx512", "avx2", "dfs"].contains(&kernel), "{kernel}");
    let jrows = json["rows"].as_array().unwrap();
    assert_eq!(jrows.len(), 15);
    assert_eq!(jrows[14]["n"], 8);
    assert_eq!(jrows[14]["solutions"], 92);

    // The plots are SVG with text; the summary has its table.
    assert_eq!(
        json["default_method"],
        nqueens_count::Method::default().to_string()
    );
    let svg = std::fs::read_to_string(out.join("scaling.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("N = 8"));
    assert!(svg.contains("the default method") && svg.contains("(log scale)"));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| 8 | serial | mirror | dfs | 1 |"));
}

#[test]
fn short_counts_are_repeated_or_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let bench = |min_run_ms: &str| {
        let out = dir.path().join(min_run_ms);
        nq().args(["bench", "--n-min", "6", "--n-max", "6", "--threads", "1"])
            .args([
                "--method",
                "mirror",
                "--repeat",
                "1",
                "--min-run-ms",
                min_run_ms,
            ])
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let mut csv = csv::Reader::from_path(out.join("scaling.csv")).unwrap();
        let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
        let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
        (rows, md)
    };
    // N = 6 counts in microseconds: repeated until each run lasted 50 ms, not flagged.
    let (rows, md) = bench("50");
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let counts: u64 = cell(row, "counts_per_run").parse().unwrap();
        let median: f64 = cell(row, "median_s").parse().unwrap();
        // (A machine loaded enough to take 50 ms for one count needs no repetition.)
        assert!(counts > 1 || median >= 0.05, "{row:?}");
        assert!(median * counts as f64 >= 0.049, "{row:?}");
        assert_eq!(cell(row, "too_short"), "false");
    }
    assert!(md.contains(r#""min_run_ms":50"#) && !md.contains("**Warning**: 2 rows"));
    // No repetition: one count each, flagged in the CSV and the summary when shorter than
    // 10 ms (a microsecond count is, unless the machine is loaded enough to stretch it).
    let (rows, md) = bench("0");
    let mut flagged = 0;
    for row in &rows {
        let median: f64 = cell(row, "median_s").parse().unwrap();
        let short = if median < 0.01 { "true" } else { "false" };
        let flags = (cell(row, "counts_per_run"), cell(row, "too_short"));
        assert_eq!(flags, ("1", short), "{row:?}");
        flagged += usize::from(short == "true");
    }
    if flagged > 0 {
        let warning = format!("- **Warning**: {flagged} rows of 2 marked †: some run lasted");
        let warning = warning.replace("1 rows", "1 row");
        assert!(md.contains(&warning), "{md}");
    }
}

#[test]
fn unique_counts_are_measured_when_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    nq().args([
        "bench",
        "--n-min",
        "6",
        "--n-max",
        "7",
        "--threads",
        "1",
        "--unique",
    ])
    .args(["--repeat", "1", "--min-run-ms", "1", "--out"])
    .arg(&out)
    .assert()
    .success();
    let mut csv = csv::Reader::from_path(out.join("scaling.csv")).unwrap();
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2 * 3);
    for row in &rows {
        let published = nqueens_count::known::published(cell(row, "n").parse().unwrap()).unwrap();
        assert_eq!(
            cell(row, "solutions").parse::<u128>().unwrap(),
            published.total
        );
        // The engine's unique count, checked; the serial solver counts none.
        match cell(row, "solver") {
            "serial" => assert_eq!(cell(row, "unique"), ""),
            _ => assert_eq!(
                cell(row, "unique").parse::<u128>().unwrap(),
                published.unique
            ),
        }
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scaling.json")).unwrap()).unwrap();
    assert_eq!(json["settings"]["unique"], true);
    assert_eq!(json["schema_version"], 6);
}

#[test]
fn bad_settings_get_one_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--n-min", "9", "--n-max", "8"][..],
        &["--n-max", "28"],
        &["--n-min", "0"],
        &["--threads", "0"],
        &["--threads", "1,,2"],
        &["--threads", "two"],
        &["--repeat", "0"],
        &["--split-depth", "5"],
        &["--min-run-ms", "-1"],
        &["--n-min", "3", "--n-max", "5", "--split-depth", "4"],
    ] {
        let out = nq()
            .arg("bench")
            .args(args)
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("nqueens: error: "), "{err}");
    }
    // Nothing was measured or written.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// `nqueens bench` with tiny settings (N = 6 and 7, one thread, one run) and `extra`, run in
/// `dir`.
fn tiny(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    nq().current_dir(dir)
        .args(["bench", "--n-min", "6", "--n-max", "7", "--threads", "1"])
        .args(["--repeat", "1", "--min-run-ms", "1"])
        .args(extra)
        .output()
        .unwrap()
}

/// Issue 33, item 8: the paths written are listed with their control characters escaped, as
/// every message quotes a name; the folder itself has the name asked for.
#[test]
fn written_paths_are_listed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a\x1b[2Jb";
    let out = tiny(dir.path(), &["--out", name]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(r"a\u{1b}[2Jb/scaling.json"), "{stdout}");
    assert!(!stdout.contains('\x1b'), "{stdout:?}");
    assert!(dir.path().join(name).join("scaling.json").exists());
}

#[test]
fn a_second_benchmark_never_replaces_the_first() {
    let dir = tempfile::tempdir().unwrap();
    // The default folder: the second run of the day goes to a new one, and says so.
    let first = tiny(dir.path(), &[]);
    assert!(first.status.success(), "{first:?}");
    let first_json = String::from_utf8(first.stdout).unwrap();
    let first_json = first_json
        .lines()
        .find(|l| l.ends_with("scaling.json"))
        .unwrap();
    let before = std::fs::read(dir.path().join(first_json)).unwrap();
    let second = tiny(dir.path(), &[]);
    assert!(second.status.success(), "{second:?}");
    let err = String::from_utf8(second.stderr).unwrap();
    assert!(
        err.contains("holds an earlier benchmark; writing to results/"),
        "{err}"
    );
    let second_json = String::from_utf8(second.stdout).unwrap();
    let second_json = second_json
        .lines()
        .find(|l| l.ends_with("scaling.json"))
        .unwrap();
    assert_eq!(
        second_json,
        first_json.replace("/scaling.json", "-2/scaling.json")
    );
    assert_eq!(std::fs::read(dir.path().join(first_json)).unwrap(), before);
    // A default folder left empty holds no benchmark: the next one goes there.
    let second_dir = dir
        .path()
        .join(second_json.trim_end_matches("/scaling.json"));
    for file in std::fs::read_dir(&second_dir).unwrap() {
        std::fs::remove_file(file.unwrap().path()).unwrap();
    }
    let third = tiny(dir.path(), &[]);
    assert!(third.status.success(), "{third:?}");
    assert!(String::from_utf8(third.stdout)
        .unwrap()
        .contains(second_json));
    // --out naming a folder with results: refused before any run, unless --overwrite.
    let out = dir.path().join("mine");
    assert!(tiny(dir.path(), &["--out", "mine"]).status.success());
    let again = tiny(dir.path(), &["--out", "mine"]);
    assert_eq!(again.status.code(), Some(2));
    let err = String::from_utf8(again.stderr).unwrap();
    assert!(err.starts_with("nqueens: error: mine already holds the results of a benchmark"));
    assert!(
        err.contains("add --overwrite") && err.lines().count() == 1,
        "{err}"
    );
    let json = std::fs::read(out.join("scaling.json")).unwrap();
    let replaced = tiny(dir.path(), &["--out", "mine", "--overwrite"]);
    assert!(replaced.status.success());
    assert_ne!(std::fs::read(out.join("scaling.json")).unwrap(), json);
}

/// A file at a result file's name that no benchmark wrote (someone's notes, a link) is never
/// replaced, `--overwrite` or not, and is said to be what it is; a benchmark's own file,
/// edited by hand but still one, is replaced only with `--overwrite`.
#[test]
fn files_no_benchmark_wrote_are_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("summary.md"), "my notes\n").unwrap();
    std::fs::write(notes.join("scaling.csv"), "a,b\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("elsewhere.json", notes.join("scaling.json")).unwrap();
    std::fs::create_dir(notes.join("time.svg")).unwrap();
    for extra in [&[][..], &["--overwrite"]] {
        let out = tiny(dir.path(), &[&["--out", "notes"][..], extra].concat());
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("that no benchmark wrote (scaling.csv"),
            "{err}"
        );
        assert!(
            err.contains("summary.md") && err.lines().count() == 1,
            "{err}"
        );
        #[cfg(unix)]
        assert!(err.contains("scaling.json, a symbolic link"), "{err}");
        assert!(err.contains("time.svg, a folder"), "{err}");
        assert!(!err.contains("already holds the results"), "{err}");
    }
    assert_eq!(
        std::fs::read(notes.join("summary.md")).unwrap(),
        b"my notes\n"
    );
    assert_eq!(std::fs::read(notes.join("scaling.csv")).unwrap(), b"a,b\n");
    assert!(!dir.path().join("elsewhere.json").exists());
    // A benchmark's summary with notes added: still one, replaced with --overwrite only.
    assert!(tiny(dir.path(), &["--out", "mine"]).status.success());
    let summary = dir.path().join("mine/summary.md");
    let mut edited = std::fs::read(&summary).unwrap();
    edited.extend_from_slice(b"\nNotes: a quiet machine.\n");
    std::fs::write(&summary, &edited).unwrap();
    assert_eq!(tiny(dir.path(), &["--out", "mine"]).status.code(), Some(2));
    assert_eq!(std::fs::read(&summary).unwrap(), edited);
    assert!(tiny(dir.path(), &["--out", "mine", "--overwrite"])
        .status
        .success());
    assert_ne!(std::fs::read(&summary).unwrap(), edited);
}

#[test]
fn an_output_folder_that_cannot_be_written_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    for (out, why) in [
        (file.clone(), "it is not a folder"),
        (file.join("sub"), "Not a directory"),
    ] {
        // N = 18 to 20 would take minutes: the refusal comes first.
        let started = std::time::Instant::now();
        let o = nq()
            .args(["bench", "--n-min", "18", "--n-max", "20", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(
            err.starts_with("nqueens: error: cannot write the results to"),
            "{err}"
        );
        assert!(err.contains(why) && err.lines().count() == 1, "{err}");
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    // A folder the probe cannot fill (a file-size limit of 50 KiB): refused in one line that
    // names the folder and the reason, not the probe's temporary file.
    let out = dir.path().join("limited");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -f 100 && exec "$0" bench --n-min 18 --n-max 20 --out "$1""#)
        .arg(common::bin())
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        format!(
            "nqueens: error: cannot write the results to {}: File too large (os error 27)\n",
            out.display()
        )
    );
}

/// Issue 33, item 8: a signal in the first moments (while the machine is described and the
/// folder prepared) stops the benchmark by its handler, as `count`'s does: exit 128 + 15, and
/// no empty folder left behind. Before, SIGTERM then killed it and left `--out` empty.
#[test]
fn a_signal_before_the_first_run_leaves_no_empty_folder() {
    let dir = tempfile::tempdir().unwrap();
    for delay_ms in [30, 60, 90] {
        let out = dir.path().join(format!("run{delay_ms}"));
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"));
        let mut child = common::with_default_signals(&mut cmd)
            .args(["bench", "--n-min", "10", "--n-max", "19", "--threads", "1"])
            .arg("--out")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SAFETY: kill sends a signal to the child this test started; no memory is involved.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
        let status = child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        if status.code().is_none() {
            // Still starting (a loaded machine): before the handlers, the signal's default.
            common::skip(
                "a_signal_before_the_first_run_leaves_no_empty_folder",
                &format!("the signal at {delay_ms} ms came before the program started"),
            );
            assert!(!out.exists() || std::fs::read_dir(&out).unwrap().count() > 0);
            continue;
        }
        assert_eq!(status.code(), Some(143), "{err}");
        assert!(err.contains("stopped by signal 15"), "{err}");
        // Nothing measured: nothing written, no folder; else the rows, marked partial.
        if out.exists() {
            assert!(out.join("scaling.json").exists(), "an empty folder: {err}");
        } else {
            assert!(
                err.contains("before any run was measured; nothing written"),
                "{err}"
            );
        }
    }
}

#[test]
fn a_signal_keeps_what_was_measured_marked_partial() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // N = 10 to 19 on one thread: minutes of work; stopped after a second or two.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"));
    let mut child = common::with_default_signals(&mut child)
        .args([
            "bench",
            "--n-min",
            "10",
            "--n-max",
            "19",
            "--threads",
            "1",
            "--repeat",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: kill sends a signal to the child this test started; no memory is involved.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let stopped = std::time::Instant::now();
    let status = child.wait().unwrap();
    // The serial solver's count in progress is not waited for.
    assert!(stopped.elapsed().as_secs() < 20, "{:?}", stopped.elapsed());
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("nqueens: stopped by signal 2: the "), "{err}");
    assert!(
        err.contains("rows measured by then are written, marked partial"),
        "{err}"
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("**Partial**: stopped during N = "), "{md}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scaling.json")).unwrap()).unwrap();
    assert!(json["partial"]
        .as_str()
        .unwrap()
        .starts_with("stopped during N = "));
    // Every row kept is a finished, checked count.
    for row in json["rows"].as_array().unwrap() {
        let n = row["n"].as_u64().unwrap() as u32;
        let total = nqueens_count::known::published(n).unwrap().total;
        assert_eq!(u128::from(row["solutions"].as_u64().unwrap()), total);
        assert!(row["median_s"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn the_default_range_ends_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    // From N = 8 with a budget of 3 s: the range goes on while the next N fits.
    let o = nq()
        .args([
            "bench",
            "--n-min",
            "8",
            "--budget",
            "3s",
            "--threads",
            "1,2",
            "--repeat",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("scaling.json")).unwrap()).unwrap();
    assert_eq!(json["settings"]["budget_s"], 3);
    let end = json["range_end"].as_str().unwrap();
    assert!(end.contains("past the budget of 3 s"), "{end}");
    let ns: Vec<u64> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["n"].as_u64().unwrap())
        .collect();
    assert_eq!(ns[0], 8);
    assert!(
        ns.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1),
        "{ns:?}"
    );
    // The engine rows on 2 threads, far under a second here, are marked.
    for r in json["rows"].as_array().unwrap() {
        let short =
            r["solver"] == "engine" && r["threads"] == 2 && r["median_s"].as_f64().unwrap() < 1.0;
        assert_eq!(r["short_for_scaling"], short, "{r}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains(r#""budget_s":3,"#), "{md}");
    assert!(md.contains("the range ended: N = "), "{md}");
    // A budget with a fixed range makes no sense: refused.
    let o = nq()
        .args(["bench", "--n-max", "9", "--budget", "3s"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A budget too small for the first N alone.
    let o = nq()
        .args(["bench", "--n-min", "20", "--budget", "1s", "--out"])
        .arg(dir.path().join("none"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("N = 20 alone is expected to take"), "{err}");
    assert!(!dir.path().join("none").exists());
}
