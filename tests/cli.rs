//! The command line as a user meets it: outputs, and one clear line with exit code 2 for bad input.

use crate::common;
use crate::common::nq;

use predicates::prelude::*;

#[test]
fn count_prints_the_total_alone() {
    nq().args(["count", "8"]).assert().success().stdout("92\n");
    nq().args(["count", "12", "--threads", "3", "--split-depth", "3"])
        .assert()
        .success()
        .stdout("14200\n");
    nq().args(["count", "10", "--method", "plain"])
        .assert()
        .success()
        .stdout("724\n");
    nq().args(["count", "1"]).assert().success().stdout("1\n");
    nq().args(["count", "3"]).assert().success().stdout("0\n");
}

#[test]
fn count_unique_prints_two_numbers() {
    nq().args(["count", "8", "--unique"])
        .assert()
        .success()
        .stdout("92 12\n");
}

#[test]
fn count_json_has_the_fields() {
    let out = nq()
        .args(["count", "10", "--json", "-t", "2", "--split-depth", "2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n"], 10);
    assert_eq!(v["total"], 724);
    assert_eq!(v["threads"], 2);
    assert_eq!(v["split_depth"], 2);
    assert_eq!(v["method"], "edge");
    assert!(v["units"].as_u64().unwrap() > 0);
    assert!(v["elapsed_s"].as_f64().unwrap() >= 0.0);
    // The estimate made before the run: the library's model for this job and kernel.
    let model = nqueens_count::longrun::cpu_time_of(
        10,
        nqueens_count::Method::Edge,
        false,
        nqueens_count::Kernel::best(),
    );
    let estimated = v["estimated_cpu_s"].as_f64().unwrap();
    // Written to the microsecond.
    assert!(
        (estimated - model.as_secs_f64()).abs() <= 0.5e-6 + 1e-12,
        "{estimated} against {model:?}"
    );
    assert!(v.get("unique").is_none());
    let out = nq()
        .args(["count", "10", "--json", "--unique"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unique"], 92);
    // The kernel: the fastest by default, any the processor runs on request; the same counts.
    let best = nqueens_count::Kernel::best().to_string();
    assert_eq!(v["kernel"], best.as_str());
    for kernel in nqueens_count::Kernel::ALL
        .into_iter()
        .filter(|k| k.available())
    {
        let out = nq()
            .args(["count", "14", "--json", "--unique", "--kernel"])
            .arg(kernel.to_string())
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["total"].as_u64(), v["unique"].as_u64()),
            (Some(365596), Some(45752))
        );
        assert_eq!(v["kernel"], kernel.to_string().as_str());
        // Where the searches went: on the lanes of a vector kernel, depth first with dfs.
        let lanes = v["searches"]["lanes"].as_u64().unwrap();
        let depth_first = v["searches"]["depth_first"].as_u64().unwrap();
        if kernel == nqueens_count::Kernel::Dfs {
            assert_eq!(lanes, 0);
            assert!(depth_first > 0);
        } else {
            assert!(lanes > 0, "{kernel}: {v}");
        }
    }
}

#[test]
fn stdin_form_of_boj_9663() {
    nq().write_stdin("8\n").assert().success().stdout("92\n");
    nq().write_stdin("  14 \r\n")
        .assert()
        .success()
        .stdout("365596\n");
}

#[test]
fn verify_reports_ok_lines() {
    nq().args(["verify", "--max", "10", "-t", "2"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(" 10          724          724")
                .and(predicate::str::contains("MISMATCH").not()),
        )
        .stdout(predicate::function(|s: &str| {
            s.lines().filter(|l| l.ends_with("OK")).count() == 10
        }));
    nq().args(["verify", "--max", "9", "--unique"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "352          352         46         46",
        ));
}

/// `verify --table`: a table with one value off by one gives `MISMATCH` on that line alone and
/// exit code 1 (the check that `verify` can fail, which `scripts/gpu-check.sh` relies on); the
/// right values pass; a table that cannot serve is a usage error.
#[test]
fn verify_reports_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let table = |name: &str, edit: &dyn Fn(u32, u128, u128) -> String| {
        let path = dir.path().join(name);
        let text: String = (1..=9)
            .map(|n| {
                let p = nqueens_count::known::published(n).unwrap();
                edit(n, p.total, p.unique) + "\n"
            })
            .collect();
        std::fs::write(&path, format!("# N total unique\n{text}")).unwrap();
        path
    };
    let right = table("right.txt", &|n, t, u| format!("{n} {t} {u}"));
    let total_off = table("total.txt", &|n, t, u| {
        format!("{n} {} {u}", if n == 6 { t + 1 } else { t })
    });
    let unique_off = table("unique.txt", &|n, t, u| {
        format!("{n} {t} {}", if n == 8 { u - 1 } else { u })
    });
    let totals_only = table("b000170.txt", &|n, t, _| format!("{n} {t}"));
    let verify = |path: &std::path::Path, unique: bool| {
        let mut cmd = nq();
        cmd.args(["verify", "--max", "9", "-t", "2", "--table"])
            .arg(path);
        if unique {
            cmd.arg("--unique");
        }
        cmd.output().unwrap()
    };
    let statuses = |out: &std::process::Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().last().unwrap().to_string())
            .collect()
    };
    let ok = verify(&right, true);
    assert_eq!(ok.status.code(), Some(0));
    assert_eq!(statuses(&ok), vec!["OK"; 9]);
    for (path, unique, bad) in [
        (&total_off, false, 6),
        (&total_off, true, 6),
        (&unique_off, true, 8),
    ] {
        let out = verify(path, unique);
        assert_eq!(out.status.code(), Some(1), "{path:?} unique {unique}");
        let want: Vec<&str> = (1..=9)
            .map(|n| if n == bad { "MISMATCH" } else { "OK" })
            .collect();
        assert_eq!(statuses(&out), want, "{path:?} unique {unique}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("1 of 9 counts differ from the values in"),
            "{err}"
        );
    }
    // Without --unique the unique column is not compared; an OEIS b-file (totals) serves.
    assert_eq!(verify(&unique_off, false).status.code(), Some(0));
    assert_eq!(verify(&totals_only, false).status.code(), Some(0));
    let table_arg = |p: &std::path::Path| p.to_str().unwrap().to_string();
    let b = table_arg(&totals_only);
    usage_error(
        &["verify", "--max", "9", "--unique", "--table", &b],
        None,
        "has no unique count for N = 1",
    );
    usage_error(
        &["verify", "--max", "10", "--table", &b],
        None,
        "has no value for N = 10",
    );
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "1 1\n2 zero\n").unwrap();
    usage_error(
        &["verify", "--max", "2", "--table", &table_arg(&bad)],
        None,
        "bad.txt line 2: TOTAL is not a whole number",
    );
    std::fs::write(&bad, "1 1\n1 1\n").unwrap();
    usage_error(
        &["verify", "--max", "1", "--table", &table_arg(&bad)],
        None,
        "N = 1 is given twice",
    );
    usage_error(
        &["verify", "--table", "/nonexistent/t.txt"],
        None,
        "cannot read /nonexistent/t.txt",
    );
    // Through the one bounded reader of regular files (issue 33, item 5): a device that never
    // ends, a FIFO no one writes, a file larger than any table are refused at once.
    usage_error(
        &["verify", "--table", "/dev/zero"],
        None,
        "/dev/zero is a character device, not a regular file",
    );
    let big = dir.path().join("big.txt");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    usage_error(
        &["verify", "--table", &table_arg(&big)],
        None,
        "is larger than any table of values could be",
    );
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let started = std::time::Instant::now();
        usage_error(
            &["verify", "--table", &table_arg(&fifo)],
            None,
            "is a FIFO (named pipe), not a regular file",
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }
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
    assert_eq!(
        err.lines().count(),
        1,
        "{args:?}: one line expected, got {err:?}"
    );
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"));
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    usage_error(&["count", "abc"], None, "not a board size");
    usage_error(&["count", "8x"], None, "not a board size");
    usage_error(&["count", "0"], None, "between 1 and 32");
    usage_error(&["count", "33"], None, "between 1 and 32");
    usage_error(
        &["count", "99999999999999999999999"],
        None,
        "not a board size",
    );
    usage_error(&["count", "-3"], None, "'-3' is not a board size");
    usage_error(&["count", "8", "--threads", "0"], None, "at least 1");
    usage_error(
        &["count", "8", "--threads", "-1"],
        None,
        "not a thread count",
    );
    usage_error(
        &["count", "8", "--threads", "two"],
        None,
        "not a thread count",
    );
    // A typo of a thread count fails at once instead of starting a million threads.
    usage_error(
        &["count", "8", "--threads", "1000000"],
        None,
        "at most 1024",
    );
    usage_error(&["bench", "--threads", "1,5000"], None, "at most 1024");
    usage_error(
        &["count", "8", "--split-depth", "-1"],
        None,
        "not a whole number",
    );
    usage_error(
        &["list", "8", "--limit", "1e2"],
        None,
        "'1e2' is not a whole number",
    );
    usage_error(
        &["list", "8", "--limit", "99999999999999999999"],
        None,
        "too large",
    );
    usage_error(&["8"], None, "run `nqueens count 8`");
    // Options that would silently do nothing.
    usage_error(
        &["count", "8", "--checkpoint-every", "5"],
        None,
        "--checkpoint <FILE>",
    );
    // (--progress-every alone implies --progress: `messages_say_what_to_do`.)
    usage_error(
        &["count", "8", "--progress-every", "5", "-q"],
        None,
        "cannot be used with",
    );
    usage_error(
        &["count", "8", "--split-depth", "0"],
        None,
        "split depth must be between 1 and 4",
    );
    usage_error(
        &["count", "8", "--split-depth", "5"],
        None,
        "split depth must be between 1 and 4",
    );
    usage_error(
        &["count", "2", "--split-depth", "3"],
        None,
        "between 1 and 2 for N = 2",
    );
    usage_error(&["count", "8", "--method", "fast"], None, "unknown method");
    usage_error(
        &["count", "8", "--kernel", "sse"],
        None,
        "unknown kernel 'sse'",
    );
    usage_error(&["verify", "--kernel", ""], None, "unknown kernel");
    if let Some(k) = nqueens_count::Kernel::ALL
        .into_iter()
        .find(|k| !k.available())
    {
        usage_error(
            &["count", "8", "--kernel", k.name()],
            None,
            "this processor cannot run",
        );
    }
    usage_error(&["count"], None, "required");
    usage_error(&["verify", "--max", "28"], None, "between 1 and 27");
    usage_error(&["verify", "--max", "0"], None, "between 1 and 27");
    usage_error(&[], Some(""), "expected N on standard input");
    usage_error(&[], Some("   \n"), "expected N on standard input");
    usage_error(&[], Some("eight\n"), "not a board size");
    usage_error(&[], Some("0\n"), "between 1 and 32");
    usage_error(
        &[],
        Some("8 9\n"),
        "expected one board size on standard input, found 2 words",
    );
    // Far from the end of a large input, the number is still read (BOJ inputs are tiny, but
    // the answer must never depend on where the input was cut).
    nq().write_stdin(format!("{}12\n", " ".repeat(10_000)))
        .assert()
        .success()
        .stdout("14200\n");
    usage_error(&[], Some(&"7".repeat(100)), "…' is not a board size");
    usage_error(&[], Some(&" ".repeat(2 << 20)), "larger than 1024 KiB");
    let mut cmd = nq();
    cmd.write_stdin(vec![0xff, 0xfe, b'8', b'\n']);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    usage_error(&["frobnicate"], None, "unrecognized subcommand");
    // Clap's multi-line messages are joined: the missing argument is named on the one line.
    usage_error(
        &["merge"],
        None,
        "required arguments were not provided: <FILE>",
    );
    usage_error(&["count"], None, "not provided: <N>");
}

#[test]
fn help_names_the_default_thread_count() {
    nq().args(["count", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("all logical cores"));
}

#[test]
fn devices_without_opencl_say_why() {
    let empty = tempfile::tempdir().unwrap();
    let out = nq()
        .arg("devices")
        .env("OCL_ICD_VENDORS", empty.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[1].starts_with("no OpenCL devices: "), "{text}");
    // The CPU's kernels first, fastest first, as `auto` chooses: what CI prints of its machine.
    let best = nqueens_count::Kernel::best();
    assert!(lines[0].starts_with("cpu: kernels "), "{text}");
    assert!(lines[0].contains(&format!("(auto: {best})")), "{text}");
    for k in common::kernels() {
        assert!(lines[0].contains(k.name()), "{k}: {text}");
    }
}

#[test]
fn usage_errors_keep_clap_tips_and_name_negative_values() {
    let line = |args: &[&str]| {
        let out = nq().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let err = line(&["count", "8", "--thread", "2"]);
    assert!(
        err.contains("a similar argument exists: '--threads'"),
        "{err}"
    );
    let err = line(&["cout", "8"]);
    assert!(
        err.contains("a similar subcommand exists: 'count'"),
        "{err}"
    );
    let err = line(&["count", "8", "--checkpoint-every", "-1"]);
    assert!(
        err.contains("--checkpoint-every cannot be negative, got -1"),
        "{err}"
    );
    // Values the option's own parser reads keep its message.
    let err = line(&["count", "8", "--threads", "-1"]);
    assert!(err.contains("is not a thread count"), "{err}");
}

/// On a terminal the bare form says what it waits for (on stderr); piped input stays the judge
/// form. The terminal is a pseudo-terminal from util-linux `script`; without it, says so and passes.
#[test]
fn bare_nqueens_on_a_terminal_says_what_it_reads() {
    nq().write_stdin("8\n")
        .assert()
        .success()
        .stdout("92\n")
        .stderr("");
    let bin = assert_cmd::cargo::cargo_bin("nqueens");
    let Ok(mut child) = std::process::Command::new("script")
        .args(["-qec"])
        .arg(bin.as_os_str())
        .arg("/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
    else {
        common::skip(
            "bare_nqueens_on_a_terminal",
            "no `script` (util-linux) here",
        );
        return;
    };
    {
        use std::io::Write;
        let mut input = child.stdin.take().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(500));
        input.write_all(b"8\n\x04").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("reading N from standard input"), "{text}");
    assert!(text.contains("92"), "{text}");
}

/// `scripts/gnu-parallel.sh` without GNU parallel says so and how to install it (exit 2), before
/// it creates anything.
#[test]
fn gnu_parallel_script_without_parallel_says_how_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gnu-parallel.sh");
    // bash found on this process's path (the child's is empty).
    let bash = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("bash"))
        .find(|p| p.exists())
        .expect("bash on the path");
    let out = std::process::Command::new(bash)
        .arg(&script)
        .args(["8", "2"])
        .arg(dir.path().join("out"))
        // Nothing on the path: no parallel.
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GNU parallel not found") && err.contains("apt-get install parallel"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists());
}

/// Messages that say what to do (issue 22): the flag that resumes a checkpoint, an empty file, a
/// file that is not ours, no "left untouched" where nothing would have been written, the
/// subcommand's help, standard output named when it cannot be written.
#[test]
fn messages_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("c.json");
    let c = ckpt.to_str().unwrap();
    nq().args(["count", "10", "--unique", "-q", "--checkpoint", c])
        .assert()
        .success();
    usage_error(
        &["count", "10", "--checkpoint", c],
        None,
        "the file counts unique solutions and this run does not): resume it with --unique",
    );
    let empty = dir.path().join("e.json");
    std::fs::write(&empty, "").unwrap();
    let e = empty.to_str().unwrap();
    usage_error(
        &["count", "10", "--checkpoint", e],
        None,
        "e.json is empty, not a checkpoint",
    );
    let text = dir.path().join("passwd");
    std::fs::write(&text, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    let t = text.to_str().unwrap();
    usage_error(
        &["merge", t],
        None,
        "passwd is not a shard result file of nqueens",
    );
    for args in [&["merge", t][..], &["merge", c]] {
        let err = String::from_utf8(nq().args(args).output().unwrap().stderr).unwrap();
        assert!(!err.contains("untouched"), "merge writes nothing: {err}");
    }
    usage_error(
        &["count", "8", "--kernel", "avx1024"],
        None,
        ", dfs or opencl)",
    );
    usage_error(
        &["count", "8", "--shard", "-1/4"],
        None,
        "'-1/4' is not a shard I/M",
    );
    // Shards are numbered from 0, and the refusal says so (issue 29, item 4).
    usage_error(
        &["count", "8", "--shard", "8/8"],
        None,
        "there is no shard 8 of 8: shards are numbered 0 to 7",
    );
    usage_error(
        &["count", "8", "--shard", "0/0"],
        None,
        "one shard at least",
    );
    usage_error(
        &["count", "1", "--split-depth", "2"],
        None,
        "split depth must be 1 for N = 1",
    );
    usage_error(&["count", "x"], None, "(see nqueens count --help)");
    usage_error(
        &["list", "8", "--format", "nope"],
        None,
        "(see nqueens list --help)",
    );
    usage_error(&["bogus"], None, "(see nqueens --help)");
    // --progress-every alone implies --progress.
    let out = nq()
        .args(["count", "9", "--progress-every", "0.001"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("nqueens: progress: 100.0%"));
    if std::path::Path::new("/dev/full").exists() {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
            .args(["count", "10"])
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("cannot write to standard output: No space left"),
            "{err}"
        );
    }
}

/// Issue 36, item 5: the Slurm script on a machine without Slurm says in one line what is
/// missing and exits 2 (it died at its first sbatch with 127).
#[test]
fn the_slurm_script_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    // A PATH with the shell's tools but no Slurm.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for tool in ["bash", "dirname", "mkdir", "sed"] {
        let real = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        let real = String::from_utf8(real.stdout).unwrap();
        std::os::unix::fs::symlink(real.trim(), bin.join(tool)).unwrap();
    }
    let out = std::process::Command::new(bin.join("bash"))
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/slurm/submit.sh"
        ))
        .args(["12", "2"])
        .arg(dir.path().join("job"))
        .env("PATH", &bin)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("sbatch not found"), "{err}");
    assert!(!dir.path().join("job").exists());
}

/// Issue 36, item 4: `verify --json` writes one object per N (the count, the value compared
/// with, the time, OK or MISMATCH), and every JSON output writes its seconds as measured, to the
/// microsecond (`merge --json` wrote `1.5270000000000001`).
#[test]
fn verify_json_and_seconds_to_the_microsecond() {
    let out = nq()
        .args(["verify", "--max", "9", "--unique", "--json", "-t", "2"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 9);
    for (k, v) in lines.iter().enumerate() {
        let n = k as u32 + 1;
        let p = nqueens_count::known::published(n).unwrap();
        assert_eq!(v["n"], n);
        assert_eq!(v["total"].as_u64(), Some(p.total as u64));
        assert_eq!(v["expected_total"].as_u64(), Some(p.total as u64));
        assert_eq!(v["unique"].as_u64(), Some(p.unique as u64));
        assert_eq!(v["status"], "OK");
        assert!(v["elapsed_s"].as_f64().unwrap() >= 0.0);
    }
    // A table one value off: that line says MISMATCH, and the exit code is 1.
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.txt");
    std::fs::write(&table, "1 1\n2 0\n3 1\n").unwrap();
    let out = nq()
        .args(["verify", "--max", "3", "--json", "--table"])
        .arg(&table)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines()
            .nth(2)
            .unwrap()
            .contains(r#""status":"MISMATCH""#),
        "{text}"
    );
    // Seconds in every JSON output: at most six decimals.
    let s0 = dir.path().join("s0.json");
    nq().args(["count", "11", "-q", "--out"])
        .arg(&s0)
        .assert()
        .success();
    for args in [
        vec!["count", "11", "--json"],
        vec!["merge", "--json", s0.to_str().unwrap()],
        vec!["status", "--json", s0.to_str().unwrap()],
        vec!["verify", "--max", "8", "--json"],
    ] {
        let out = nq().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?} {out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        for number in text.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
            if let Some((_, decimals)) = number.split_once('.') {
                assert!(decimals.len() <= 6, "{args:?}: {number} in {text}");
            }
        }
    }
}

/// Issue 36, item 3: a mistyped subcommand gets a tip (clap finds none for `cnt`); every
/// subcommand's `--help` ends with examples; `-h` sums each subcommand up in one line; the man
/// pages' SYNOPSIS names the value of each option.
#[test]
fn help_has_tips_examples_summaries_and_value_names() {
    for (typed, meant) in [
        ("cnt", "count"),
        ("lst", "list"),
        ("mrge", "merge"),
        ("stat", "status"),
    ] {
        let out = nq().args([typed, "8"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("a similar subcommand exists: '{meant}'")),
            "{err}"
        );
    }
    let out = nq().args(["xyz", "8"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("tip:"));
    let subcommands = [
        "count", "verify", "solve", "list", "uva750", "merge", "audit", "status", "bench",
        "devices",
    ];
    for sub in subcommands {
        let out = nq().args([sub, "--help"]).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let examples = help
            .rfind("Examples:\n")
            .unwrap_or_else(|| panic!("{sub}: {help}"));
        assert!(
            help[examples..].contains(&format!("nqueens {sub}")),
            "{sub}: {help}"
        );
    }
    let out = nq().arg("-h").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for sub in subcommands {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{sub} ")))
            .unwrap_or_else(|| panic!("{sub} missing: {help}"));
        assert!(line.len() <= 100, "{line}");
    }
    let out = nq().args(["generate", "man", "count"]).output().unwrap();
    let man = String::from_utf8(out.stdout).unwrap();
    let synopsis = man
        .split(".SH SYNOPSIS")
        .nth(1)
        .unwrap()
        .split(".SH ")
        .next()
        .unwrap();
    assert!(
        synopsis.contains(r"[\fB\-t\fR|\fB\-\-threads\fR \fITHREADS\fR]"),
        "{synopsis}"
    );
    assert!(
        synopsis.contains(r"[\fB\-\-checkpoint\fR \fIFILE\fR]"),
        "{synopsis}"
    );
    assert!(synopsis.contains(r"[\fB\-\-unique\fR]"), "{synopsis}");
}

/// Issue 36, item 5: a long run started with SIGINT ignored (a script's background job) says
/// once how to stop it; a run with SIGINT as usual does not.
#[test]
fn a_run_with_sigint_ignored_says_how_to_stop_it() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("q.ckpt");
    let run = |trap: &str| {
        let script = format!("{trap} exec \"$0\" count 10 --checkpoint \"$1\"");
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .arg(common::bin())
            .arg(&ckpt)
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&ckpt);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "724\n");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run("trap '' INT;");
    assert_eq!(err.matches("SIGTERM").count(), 1, "{err}");
    assert!(err.contains("stop this run with SIGTERM (kill "), "{err}");
    assert!(err.contains("which saves the checkpoint"), "{err}");
    // A run started where SIGINT is ignored already (this test under nohup, or from a script's
    // background) inherits that: only where it is not does the plain run stay quiet.
    let ignored_here = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let mask = s
                .lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))?
                .trim()
                .to_string();
            u64::from_str_radix(&mask, 16).ok()
        })
        .is_some_and(|mask| mask & (1 << (2 - 1)) != 0);
    if !ignored_here {
        let err = run("");
        assert!(!err.contains("SIGTERM"), "{err}");
    }
}
