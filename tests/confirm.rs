//! A run estimated to take more than an hour of CPU time needs `--yes`: without it the command
//! stops at once with the estimate and exit code 2. Shards and resumed runs count their part.

use crate::common::nq;
use nqueens_count::longrun;
use nqueens_count::longrun::Checkpoint;
use nqueens_count::longrun::Identity;
use nqueens_count::{Counts, Job, Kernel, Method, Plan};
use predicates::prelude::*;
use std::time::{Duration, Instant};

/// The estimated CPU time in hours that a refusal names ("... estimated to take 9.2 years of
/// CPU time ...").
fn refused_hours(args: &[&str], stdin: &str) -> f64 {
    let t0 = Instant::now();
    let out = nq().args(args).write_stdin(stdin).output().unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(20),
        "{args:?} was not refused at once"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}");
    assert_eq!(
        err.lines().count(),
        err.matches("nqueens: error:").count(),
        "{err}"
    );
    assert!(err.contains("--yes to start it anyway"), "{err}");
    let text = err
        .split("estimated to take ")
        .nth(1)
        .and_then(|t| t.split(" of CPU time").next())
        .unwrap_or_else(|| panic!("no estimate in {err}"));
    let (value, unit) = text.split_once(' ').unwrap();
    let value: f64 = value.parse().unwrap();
    value
        * match unit {
            "hour" | "hours" => 1.0,
            "days" => 24.0,
            "years" => 24.0 * 365.25,
            _ => panic!("unit {unit} in {err}"),
        }
}

#[test]
fn verify_and_count_of_centuries_stop_at_once_with_the_estimate() {
    // The estimate is the library's, for the kernel this machine runs (AVX-512 on the
    // development machine: N = 22 6.7 hours, N = 27 66 years), rounded to two digits.
    let model = |n: u32| longrun::cpu_time_of(n, Method::default(), false, Kernel::best());
    let close = |shown: f64, hours: f64| (shown / hours - 1.0).abs() < 0.05;
    let hours = |d: Duration| d.as_secs_f64() / 3600.0;
    // verify --max 27: the sum over N = 1..27, most of it N = 27.
    let all = refused_hours(&["verify", "--max", "27"], "");
    assert!(close(all, hours((1..=27).map(model).sum())), "{all}");
    let n27 = refused_hours(&["count", "27"], "");
    assert!(close(n27, hours(model(27))), "{n27}");
    // The first N over an hour with the defaults (22 with AVX-512, 21 with AVX2) is refused,
    // the one before it is not over an hour; slower choices get there sooner.
    let first = (1..=27)
        .find(|&n| model(n) > longrun::CONFIRM_ABOVE)
        .unwrap();
    assert!((21..=22).contains(&first), "{first}");
    let shown = refused_hours(&["count", &first.to_string()], "");
    assert!(close(shown, hours(model(first))) && shown > 1.0, "{shown}");
    refused_hours(
        &[
            "count", "20", "--method", "d4", "--kernel", "dfs", "--quiet",
        ],
        "",
    );
    refused_hours(
        &["verify", "--max", "20", "--method", "plain", "--unique"],
        "",
    );
    // The judge form has no options: its refusal says how to confirm.
    nq().write_stdin("25\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run `nqueens count 25 --yes`"));
    // Pre-placed queens count their share: one queen fixed in the first row of 24.
    let placed = refused_hours(&["count", "24", "--place", "1,4"], "");
    let whole = refused_hours(&["count", "24"], "");
    assert!(placed < whole / 2.0, "{placed} of {whole}");
}

#[test]
fn yes_is_accepted_and_small_runs_need_none() {
    nq().args(["verify", "--max", "8", "--yes"])
        .assert()
        .success();
    nq().args(["count", "10", "--yes"])
        .assert()
        .success()
        .stdout("724\n");
    nq().args(["count", "10", "--yes", "--progress"])
        .assert()
        .success()
        .stdout("724\n");
}

#[test]
fn a_shard_and_a_resumed_run_count_only_their_part() {
    let whole = refused_hours(&["count", "26"], "");
    let half = refused_hours(&["count", "26", "--shard", "0/2", "--quiet"], "");
    assert!((0.45..0.55).contains(&(half / whole)), "{half} of {whole}");
    // A checkpoint of N = 22 (6.7 hours) with every unit done leaves nothing to do: no --yes.
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::new(Job::new(22).unwrap().with_split_depth(3).unwrap());
    let units = plan.units().len() as u32;
    let one = Counts {
        total: 1,
        unique: 0,
    };
    let save = |name: &str, done: &mut dyn Iterator<Item = u32>| {
        let mut c = Checkpoint::new(Identity::of(&plan), None);
        c.done.extend(done.map(|i| (i, one)));
        let p = dir.path().join(name);
        c.save(&p).unwrap();
        p
    };
    // (Each unit's count forged to 1: the total is then checked against the published value,
    // and refused as a MISMATCH, though it needed no --yes to start.)
    let all_done = save("all.ckpt", &mut (0..units));
    nq().args(["count", "22", "--quiet", "--checkpoint"])
        .arg(&all_done)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "the count of N = 22 is {units} solutions, but the published count is \
             2691008701644 solutions: MISMATCH"
        )));
    // Half the units done: about half the time left, still over an hour.
    let part = save("part.ckpt", &mut (0..units).filter(|i| i % 2 == 0));
    let left = refused_hours(
        &[
            "count",
            "22",
            "--quiet",
            "--checkpoint",
            part.to_str().unwrap(),
        ],
        "",
    );
    let n22 = refused_hours(&["count", "22"], "");
    assert!((0.2..0.8).contains(&(left / n22)), "{left} of {n22}");
    // The refusal left the checkpoint as it was.
    assert_eq!(
        Checkpoint::load(&part).unwrap().done.len(),
        units.div_ceil(2) as usize
    );
}
