//! `nqueens bench` as CI runs it: a small real benchmark writes the five result files, with
//! the schema they document, and bad settings get one line and exit code 2.

use assert_cmd::Command;
use predicates::prelude::*;

fn nq() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// The published totals for N = 6..=8.
const TOTALS: [(u32, u64); 3] = [(6, 4), (7, 40), (8, 92)];

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
    assert_eq!(
        header,
        [
            "n",
            "solver",
            "method",
            "threads",
            "split_depth",
            "units",
            "repeats",
            "solutions",
            "median_s",
            "min_s",
            "cpu_s",
            "speedup",
            "efficiency",
            "scaling",
            "solutions_per_s",
            "nodes",
            "nodes_per_s",
            "unit_max_over_mean",
            "tail_share",
            "kernel",
            "counts_per_run",
            "too_short"
        ]
    );
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    // Per N: the serial solver, then the engine with the default method and with mirror on 1
    // and 2 threads.
    assert_eq!(rows.len(), 3 * 5);
    for (i, row) in rows.iter().enumerate() {
        let (n, total) = TOTALS[i / 5];
        assert_eq!(row[0].parse::<u32>().unwrap(), n);
        assert_eq!(&row[1], if i % 5 == 0 { "serial" } else { "engine" });
        // The default method (d4 today), then mirror.
        let default = nqueens::bench::default_method(8).to_string();
        let methods = ["mirror", &default, &default, "mirror", "mirror"];
        assert_eq!(&row[2], methods[i % 5]);
        assert_eq!(row[3].parse::<usize>().unwrap(), [1, 1, 2, 1, 2][i % 5]);
        assert_eq!(row[6].parse::<u32>().unwrap(), 1);
        assert_eq!(row[7].parse::<u64>().unwrap(), total);
        let median: f64 = row[8].parse().unwrap();
        assert!(median > 0.0);
        // The engine's scaling against its own 1-thread run: exactly 1 on one thread.
        match (i % 5, row[13].parse::<f64>()) {
            (0, _) => assert_eq!(&row[13], ""),
            (1 | 3, Ok(s)) => assert_eq!(s, 1.0),
            (_, Ok(s)) => assert!(s > 0.0),
            (_, Err(e)) => panic!("scaling: {e}"),
        }
        // Nodes below the units' prefixes: none at all where edge's units (the four edge queens
        // and the split rows) already fix every row of a 6×6 board.
        let nodes: u64 = row[15].parse().unwrap();
        assert!(
            nodes > 0 || (&row[2] == "edge" && &row[0] == "6"),
            "{row:?}"
        );
        // The kernel: the serial solver's depth-first search, or the engine's best.
        if i % 5 == 0 {
            assert_eq!(&row[19], "dfs");
        } else {
            assert!(
                ["avx512", "avx2", "dfs"].contains(&&row[19]),
                "{:?}",
                &row[19]
            );
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
        nqueens::bench::default_method(8).to_string()
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
        let counts: u64 = row[20].parse().unwrap();
        let median: f64 = row[8].parse().unwrap();
        // (A machine loaded enough to take 50 ms for one count needs no repetition.)
        assert!(counts > 1 || median >= 0.05, "{row:?}");
        assert!(median * counts as f64 >= 0.049, "{row:?}");
        assert_eq!(&row[21], "false");
    }
    assert!(md.contains("at least 50 ms") && !md.contains("**Warning**: 2 rows"));
    // No repetition: one count each, flagged in the CSV and the summary when shorter than
    // 10 ms (a microsecond count is, unless the machine is loaded enough to stretch it).
    let (rows, md) = bench("0");
    let mut flagged = 0;
    for row in &rows {
        let median: f64 = row[8].parse().unwrap();
        let short = if median < 0.01 { "true" } else { "false" };
        assert_eq!((&row[20], &row[21]), ("1", short), "{row:?}");
        flagged += usize::from(short == "true");
    }
    if flagged > 0 {
        let warning = format!("- **Warning**: {flagged} rows of 2 marked †");
        let warning = warning.replace("1 rows", "1 row");
        assert!(md.contains(&warning), "{md}");
    }
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
