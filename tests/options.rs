//! Options that change what `count` writes are honoured or refused, never ignored: `--json` with
//! a shard, `--out` without one, the unique count of a result file, the reported split depth.

use crate::common::nq;
use nqueens_count::longrun::ShardResult;
use predicates::prelude::*;

fn json_of(args: &[&str]) -> serde_json::Value {
    let out = nq().args(args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_with_a_shard_and_out_prints_the_shards_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.json");
    let o = out.to_str().unwrap();
    let v = json_of(&[
        "count", "12", "--shard", "0/2", "--json", "--out", o, "--quiet",
    ]);
    let r = ShardResult::load(&out).unwrap();
    assert_eq!(v["shard"], "0/2");
    assert_eq!(v["total"], serde_json::json!(r.total));
    assert_eq!(v["units"], serde_json::json!(r.units.len()));
    assert_eq!(v["split_depth"], r.identity.split_depth);
    assert_eq!(v["n"], 12);
    assert!(v.get("unique").is_none());
    // Without --out, stdout is the result file: --json there is refused, not ignored.
    nq().args(["count", "12", "--shard", "0/2", "--json"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--json with --shard needs --out"));
    // Without --json a written shard prints nothing, as before.
    let other = dir.path().join("z.json");
    nq().args(["count", "12", "--shard", "1/2", "--quiet", "--out"])
        .arg(&other)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn out_without_a_shard_is_the_whole_job_and_unique_is_absent_unless_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.json");
    let o = out.to_str().unwrap();
    nq().args(["count", "8", "--out", o, "--quiet"])
        .assert()
        .success()
        .stdout("92\n");
    let file: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert!(file.get("unique").is_none(), "{file}");
    let r = ShardResult::load(&out).unwrap();
    assert_eq!((r.shard.index, r.shard.count, r.unique), (0, 1, None));
    nq().args(["merge", "--json", o])
        .assert()
        .success()
        .stdout(predicate::str::contains(r#""total":92,"method""#));
    // Another job's result (here: with unique counts) does not replace it unasked (issue 33,
    // item 4); with --overwrite it does.
    let before = std::fs::read(&out).unwrap();
    nq().args(["count", "8", "--unique", "--out", o, "--quiet"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "this run counts unique solutions and the file does not); it was left untouched; \
             add --overwrite to replace it",
        ));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    // Asked for, the unique count is in the file, on stdout and in the merge.
    let v = json_of(&[
        "count",
        "8",
        "--unique",
        "--json",
        "--out",
        o,
        "--overwrite",
        "--quiet",
    ]);
    assert_eq!(
        (v["total"].as_u64(), v["unique"].as_u64()),
        (Some(92), Some(12))
    );
    assert_eq!(ShardResult::load(&out).unwrap().unique, Some(12));
    nq().args(["merge", o]).assert().success().stdout("92 12\n");
}

#[test]
fn result_files_of_the_version_before_still_merge() {
    // Written before the unique count became optional: "unique":0 for a job without it.
    let old = r#"{"format":"nqueens-shard","format_version":1,"identity":{"n":8,"method":"d4","plan_method":"d4","split_depth":3,"placed":[],"unique":false,"units":44,"units_version":1,"program_version":"0.1.0"},"shard":"0/1","units":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43],"total":92,"unique":0,"elapsed_ms":2,"host":"vm","estimated_imbalance_bp":0,"checksum":"sha256:0e218fe078918799c87dda04abb5597f32fe9804a75c6ea024fca77d86c0a69d"}"#;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("old.json");
    std::fs::write(&p, format!("{old}\n")).unwrap();
    nq().arg("merge").arg(&p).assert().success().stdout("92\n");
    nq().args(["merge", "--json"])
        .arg(&p)
        .assert()
        .success()
        .stdout(predicate::str::contains("unique").not());
}

#[test]
fn the_reported_split_depth_is_the_one_the_units_use() {
    // No units on a 2x2 or 3x3 board: nothing was split.
    for n in ["2", "3"] {
        let v = json_of(&["count", n, "--json"]);
        assert_eq!(
            (v["units"].as_u64(), &v["split_depth"]),
            (Some(0), &serde_json::Value::Null)
        );
    }
    // Given or chosen, the depth the plan split at (never beyond the board).
    for (args, depth) in [
        (
            &[
                "count",
                "3",
                "--json",
                "--method",
                "plain",
                "--split-depth",
                "2",
            ][..],
            2,
        ),
        (&["count", "4", "--json", "--split-depth", "4"][..], 4),
        (
            &[
                "count",
                "5",
                "--json",
                "--method",
                "mirror",
                "--split-depth",
                "1",
            ][..],
            1,
        ),
        (&["count", "1", "--json"][..], 1),
    ] {
        let v = json_of(args);
        assert_eq!(v["split_depth"], depth, "{args:?}");
        assert!(v["units"].as_u64().unwrap() > 0, "{args:?}");
    }
    nq().args(["count", "3", "--split-depth", "4"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("between 1 and 3"));
}

#[test]
fn a_repeated_option_takes_its_last_value() {
    // Issue 22: `-t 1 -t 2` was an error; the last value wins, as in most tools.
    let v = json_of(&["count", "10", "-t", "1", "-t", "2", "--json"]);
    assert_eq!(v["threads"], 2);
    let v = json_of(&[
        "count",
        "10",
        "--threads",
        "2",
        "--threads",
        "1",
        "--method",
        "d4",
        "--method",
        "mirror",
        "--json",
    ]);
    assert_eq!((&v["threads"], &v["method"]), (&1.into(), &"mirror".into()));
    nq().args(["count", "8", "--unique", "--unique"])
        .assert()
        .success()
        .stdout("92 12\n");
    // A list option still collects every value: both queens are placed. Of the four
    // solutions with a queen at (1,1), one has its second queen at (2,5).
    assert_eq!(
        json_of(&["count", "8", "--place", "1,1", "--json"])["total"],
        4
    );
    let both = json_of(&["count", "8", "--place", "1,1", "--place", "2,5", "--json"]);
    assert_eq!(both["total"], 1);
    nq().args(["list", "8", "--place", "1,1", "--place", "2,5"])
        .assert()
        .success()
        .stdout("1 5 8 6 3 7 2 4\n");
}

#[test]
fn a_method_change_under_place_is_said_on_stderr() {
    // (row, col) placements of an 8x8 and a 9x9 board: the method asked for, the one that ran.
    let cases = [
        (&["count", "8", "--place", "1,1"][..], "edge", "plain"),
        (
            &["count", "8", "--place", "1,1", "--method", "mirror"],
            "mirror",
            "plain",
        ),
        (
            &["count", "8", "--place", "1,1", "--method", "d4"],
            "d4",
            "plain",
        ),
        (&["count", "9", "--place", "1,5"], "edge", "mirror"),
    ];
    for (args, asked, ran) in cases {
        let out = nq().args(args).arg("--json").output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["method"], ran, "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            format!(
                "nqueens: --place: the queens break the symmetry {asked} needs; counting with \
                 {ran}\n"
            ),
            "{args:?}"
        );
    }
    // With --out too: one path for every count, the note once its checks have passed; none
    // with --quiet ("no notes"), the report still naming the method that ran.
    let dir = tempfile::tempdir().unwrap();
    let out = nq()
        .args(["count", "8", "--place", "1,1", "--out"])
        .arg(dir.path().join("r.json"))
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"4\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(
            "nqueens: --place: the queens break the symmetry edge needs; counting with plain\n"
        ),
        "{err}"
    );
    let out = nq()
        .args(["count", "8", "--place", "1,1", "--quiet", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["method"], "plain");
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    // At N = 1 every method counts as mirror, queen or not: the queen changed nothing.
    let out = nq()
        .args(["count", "1", "--place", "1,1"])
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"1\n");
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    // A refused job gets its one line alone.
    let out = nq()
        .args(["count", "8", "--place", "1,1", "--unique"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stderr).unwrap().lines().count(), 1);
    // The centre of an odd board keeps every symmetry: no change, no note.
    let out = nq()
        .args(["count", "9", "--place", "5,5", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["method"].as_str(), out.stderr.len()), (Some("edge"), 0));
}

#[test]
fn help_says_edge_is_the_default_method() {
    let help = |sub: &str| {
        let out = nq().args([sub, "--help"]).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let count = help("count");
    assert!(count.contains("[default: edge"), "{count}");
    assert!(count.contains("a note on stderr and the report name the method that ran"));
    let verify = help("verify");
    assert!(
        verify.contains("[default: edge]") && !verify.contains("with d4"),
        "{verify}"
    );
    let bench = help("bench");
    assert!(
        bench.contains("[default: edge, the default method of `nqueens count`")
            && bench.contains("- edge:   the four edge queens first"),
        "{bench}"
    );
}

/// Issue 33, item 8: a result file of the whole job is its one shard 0/1, whether asked for as
/// `--out` alone or as `--shard 0/1 --out`: one job, one identity (the split depth was the
/// machine's default in one and the shards' in the other), so the two files are replicas.
#[test]
fn out_alone_and_shard_0_of_1_write_one_job() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    nq().args(["count", "12", "-q", "--out"])
        .arg(&a)
        .assert()
        .success();
    nq().args(["count", "12", "-q", "--shard", "0/1", "--out"])
        .arg(&b)
        .assert()
        .success();
    let (ra, rb) = (
        ShardResult::load(&a).unwrap(),
        ShardResult::load(&b).unwrap(),
    );
    assert_eq!(ra.identity, rb.identity);
    nq().arg("merge")
        .args([&a, &b])
        .assert()
        .success()
        .stdout("14200\n")
        .stderr(predicate::str::contains(
            "1 of 1 shards confirmed by a replica",
        ));
}

/// A number of seconds too large to wait is said to be too long, not to be no number.
#[test]
fn seconds_too_long_and_not_numbers_are_told_apart() {
    for (value, words) in [
        ("1e300", "'1e300' seconds is too long (under 1e9 seconds)"),
        ("inf", "'inf' seconds is too long"),
        ("ten", "'ten' is not a number of seconds"),
        ("NaN", "'NaN' is not a number of seconds"),
    ] {
        let out = nq()
            .args(["count", "8", "--progress-every", value])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{value}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(words) && err.lines().count() == 1, "{err}");
    }
}
