//! The command line with OpenCL: `--kernel opencl`, `--gpu`, their errors, and a killed and
//! resumed checkpointed run. Runs on whatever OpenCL device is present (PoCL in CI); without
//! OpenCL the tests that need a device print why and pass, unless `NQUEENS_REQUIRE_OPENCL=1`.

use crate::common;
use crate::common::nq;

use nqueens_count::known::published;

/// Whether an OpenCL device is present; panics when one is required and missing.
fn have_opencl() -> bool {
    let out = nq().arg("devices").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let have = out.status.success() && !text.contains("no OpenCL devices");
    if !have {
        assert!(
            std::env::var("NQUEENS_REQUIRE_OPENCL").map_or(true, |v| v != "1"),
            "NQUEENS_REQUIRE_OPENCL=1 but no device: {text}"
        );
        common::skip("an OpenCL test", text.trim());
    }
    have
}

#[test]
fn kernel_opencl_counts_and_reports_its_device() {
    if !have_opencl() {
        return;
    }
    for (args, total, unique) in [
        (&["12", "--unique"][..], 14200, Some(1787)),
        // A launch per unit: the same counts.
        (
            &["12", "--unique", "--opencl-batch", "1"][..],
            14200,
            Some(1787),
        ),
        (
            &["11", "--method", "mirror", "--split-depth", "3"][..],
            2680,
            None,
        ),
        (&["10", "--method", "plain", "--place", "1,3"][..], 0, None),
    ] {
        let out = nq()
            .arg("count")
            .args(args)
            .args(["--kernel", "opencl", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let want = if total == 0 {
            // With a pre-placed queen: the CPU's count of the same job.
            let cpu = nq().arg("count").args(args).output().unwrap();
            String::from_utf8(cpu.stdout)
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        } else {
            total
        };
        assert_eq!(j["total"], want, "{args:?}");
        if let Some(u) = unique {
            assert_eq!(j["unique"], u);
        }
        let devices = j["devices"].as_array().expect("a devices list");
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0]["index"], 0);
        assert_eq!(
            devices[0]["units"], j["units"],
            "the device took every unit"
        );
        // Its batches and their times (issue 12's measurement on a GPU).
        let batches = devices[0]["batches"].as_u64().unwrap();
        assert!(batches >= 1, "{j}");
        let (host, launch) = (
            devices[0]["host_s"].as_f64(),
            devices[0]["launch_s"].as_f64(),
        );
        let elapsed = j["elapsed_s"].as_f64().unwrap();
        // Each figure is rounded to the microsecond on its own.
        assert!(host.unwrap() + launch.unwrap() <= elapsed + 3e-6, "{j}");
        // `kernel` names what counted (issue 29, item 7).
        assert_eq!(j["kernel"], "opencl", "{args:?}");
    }
    // One device beside the CPU threads.
    let out = nq()
        .args([
            "count",
            "13",
            "--gpu",
            "--opencl-device",
            "0",
            "-t",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["total"], 73712);
    assert_eq!(j["devices"].as_array().map(Vec::len), Some(1));
    let shared = j["devices"][0]["units"].as_u64().unwrap() < j["units"].as_u64().unwrap();
    let cpu = nqueens_count::Kernel::best().name();
    let want = if shared {
        format!("{cpu}+opencl")
    } else {
        "opencl".into()
    };
    assert_eq!(j["kernel"], want.as_str());
    // verify takes the same options.
    nq().args(["verify", "--max", "11", "--unique", "--kernel", "opencl"])
        .assert()
        .success();
}

#[test]
fn without_opencl_kernel_opencl_is_one_line_and_exit_2() {
    let empty = tempfile::tempdir().unwrap();
    let out = nq()
        .args(["count", "10", "--kernel", "opencl"])
        .env("OCL_ICD_VENDORS", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot count on OpenCL: "), "{err}");
    assert!(out.stdout.is_empty());
    // CPU counts are unaffected; --gpu says why it counts on the CPU.
    nq().args(["count", "10"])
        .env("OCL_ICD_VENDORS", empty.path())
        .assert()
        .success()
        .stdout("724\n");
    let out = nq()
        .args(["count", "10", "--gpu"])
        .env("OCL_ICD_VENDORS", empty.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, b"724\n");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("nqueens: --gpu: ") && err.contains("counting on the CPU"),
        "{err}"
    );
    // --quiet: no notes, the count the same.
    let out = nq()
        .args(["count", "10", "--gpu", "--quiet"])
        .env("OCL_ICD_VENDORS", empty.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        (&out.stdout[..], &out.stderr[..]),
        (&b"724\n"[..], &b""[..])
    );
}

#[test]
fn gpu_counts_with_or_without_a_gpu() {
    let out = nq()
        .args(["count", "12", "--gpu", "--unique", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (j["total"].as_u64(), j["unique"].as_u64()),
        (Some(14200), Some(1787))
    );
    let err = String::from_utf8(out.stderr).unwrap();
    // No GPU (as in CI): one line says so; with GPUs, they are listed in the JSON.
    assert!(
        err.is_empty() != j["devices"].is_null(),
        "stderr {err:?}, devices {}",
        j["devices"]
    );
}

#[test]
fn conflicting_device_options_are_usage_errors() {
    for (args, why) in [
        (&["--kernel", "opencl", "--gpu"][..], "choose one"),
        (
            &["--opencl-device", "1"][..],
            "--opencl-device needs --kernel opencl or --gpu",
        ),
        (&["--kernel", "cuda"][..], "dfs or opencl"),
        (
            &["--opencl-batch", "1000"][..],
            "--opencl-batch needs --kernel opencl or --gpu",
        ),
        (
            &["--kernel", "opencl", "--opencl-batch", "0"][..],
            "the device batch must be 1 to 16777216 sub-problems, got 0",
        ),
        (
            &["--gpu", "--opencl-batch", "16777217"][..],
            "the device batch must be 1 to 16777216 sub-problems, got 16777217",
        ),
        (
            &["--gpu", "--opencl-batch", "-1"][..],
            "--opencl-batch cannot be negative, got -1",
        ),
    ] {
        let out = nq().args(["count", "8"]).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    if have_opencl() {
        let out = nq()
            .args(["count", "8", "--kernel", "opencl", "--opencl-device", "99"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("there is no OpenCL device 99"), "{err}");
    }
}

/// kill -9 during a checkpointed `--kernel opencl` run, then resume (on the device again):
/// the exact total, nothing lost, nothing counted twice.
#[test]
fn kill_9_during_an_opencl_run_then_resume() {
    if !have_opencl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("ckpt.json");
    let args = |n: u32| -> Vec<String> {
        [
            "count",
            &n.to_string(),
            "--threads",
            "2",
            "--method",
            "plain",
            "--split-depth",
            "4",
            "--kernel",
            "opencl",
            "--checkpoint",
            ckpt.to_str().unwrap(),
            "--checkpoint-every",
            "0.05",
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    // A GPU may finish N = 15 before the kill lands: then a larger N.
    let (n, args) = common::kill_mid_run(&[15, 16, 17], &ckpt, args);
    let out = nq().args(&args).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let total = String::from_utf8(out.stdout).unwrap();
    assert_eq!(total.trim(), published(n).unwrap().total.to_string());
}

/// A device that fails while it counts alone (`--kernel opencl`) is an error naming it (exit
/// 1, no count printed), for `count` and `verify`, with a checkpoint too; beside the CPU
/// (`--gpu`, with or without `--opencl-device`) the CPU counts its units, the count is
/// right, and stderr and `--json` say how many units the device counted.
#[test]
fn a_failing_device_is_seen() {
    if !have_opencl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("c.json");
    for args in [
        &["count", "12", "--kernel", "opencl"][..],
        &["count", "12", "--kernel", "opencl", "--json"],
        &["verify", "--max", "9", "--kernel", "opencl"],
        &[
            "count",
            "12",
            "--kernel",
            "opencl",
            "--checkpoint",
            ckpt.to_str().unwrap(),
        ],
    ] {
        let out = nq()
            .args(args)
            .env("NQUEENS_OPENCL_FAIL_AFTER", "0")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.contains("OpenCL device 0 (") && last.contains("failed"),
            "{args:?}: {err}"
        );
        assert!(
            last.contains("failure injected on purpose after 0 batches"),
            "{err}"
        );
        if args[0] == "count" {
            assert!(out.stdout.is_empty(), "{args:?}: a count was printed");
        }
    }
    // The checkpoint of the failed run holds what was finished, and resumes on a working device.
    nq().args(["count", "12", "--kernel", "opencl", "--checkpoint"])
        .arg(&ckpt)
        .assert()
        .success()
        .stdout("14200\n");
    for extra in [&["--gpu", "--opencl-device", "0"][..], &["--gpu"]] {
        if extra == ["--gpu"] && !gpu_present() {
            continue;
        }
        let out = nq()
            .args(["count", "12", "--unique", "--json"])
            .args(extra)
            .env("NQUEENS_OPENCL_FAIL_AFTER", "0")
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}: {out:?}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (j["total"].as_u64(), j["unique"].as_u64()),
            (Some(14200), Some(1787))
        );
        let device = &j["devices"][0];
        assert_eq!(device["units"], 0, "{j}");
        assert!(
            device["error"].as_str().unwrap().contains("injected"),
            "{j}"
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("failed after counting 0 units; the CPU counted the rest"),
            "{err}"
        );
    }
    // A bad value of the knob is refused, not ignored.
    let out = nq()
        .args(["count", "8", "--kernel", "opencl"])
        .env("NQUEENS_OPENCL_FAIL_AFTER", "soon")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// Whether `nqueens devices` lists a GPU.
fn gpu_present() -> bool {
    let out = nq().arg("devices").output().unwrap();
    String::from_utf8_lossy(&out.stdout).contains(", GPU, ")
}

#[test]
fn bench_takes_the_device_options() {
    if !have_opencl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    nq().args([
        "bench",
        "--n-min",
        "8",
        "--n-max",
        "9",
        "--threads",
        "1",
        "--repeat",
        "1",
    ])
    .args([
        "--method",
        "d4",
        "--kernel",
        "opencl",
        "--opencl-batch",
        "10",
        "--out",
    ])
    .arg(dir.path())
    .assert()
    .success();
    let csv = std::fs::read_to_string(dir.path().join("scaling.csv")).unwrap();
    let engine_rows: Vec<&str> = csv.lines().filter(|l| l.contains(",engine,")).collect();
    assert_eq!(engine_rows.len(), 2, "{csv}");
    // The kernel column names the device: every count was checked against the published value.
    assert!(engine_rows.iter().all(|l| l.contains(",opencl,")), "{csv}");
    // The launch size asked for is the settings' (and taken, not ignored).
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("scaling.json")).unwrap()).unwrap();
    assert_eq!(json["settings"]["device_batch"], 10, "{json}");
}

/// Shards counted on the device merge to the exact total, mixed with a shard counted on the CPU.
#[test]
fn opencl_shards_merge_to_the_total() {
    if !have_opencl() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for i in 0..3 {
        let out = dir.path().join(format!("s{i}.json"));
        let mut cmd = nq();
        cmd.args([
            "count",
            "13",
            "--unique",
            "--shard",
            &format!("{i}/3"),
            "--quiet",
            "--out",
        ])
        .arg(&out);
        if i != 1 {
            cmd.args(["--kernel", "opencl"]);
        }
        cmd.assert().success();
        files.push(out);
    }
    nq().arg("merge")
        .args(&files)
        .assert()
        .success()
        .stdout(predicates::str::starts_with("73712 9233"));
}
