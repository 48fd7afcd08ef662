//! One run per checkpoint and per result file: a second run stops at once with exit code 2 and
//! the holder's process ID; the lock goes with its process however it ends.

use crate::common;
use crate::common::nq;

use crate::common::lock_path;
use nqueens_count::known::published;
use nqueens_count::longrun::RunLock;
use predicates::prelude::*;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[String]) -> Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `child` holds the lock of `target` (its lock file names it).
fn wait_for_lock(child: &Child, target: &Path) {
    let t0 = Instant::now();
    let want = format!("{} ", child.id());
    while !std::fs::read_to_string(lock_path(target)).is_ok_and(|s| s.starts_with(&want)) {
        assert!(t0.elapsed() < Duration::from_secs(30), "no lock taken");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn a_second_run_on_a_checkpoint_exits_2_naming_the_holder() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("q.ckpt");
    let held = RunLock::acquire(&ckpt).unwrap();
    let t0 = Instant::now();
    nq().args(["count", "10", "--checkpoint"])
        .arg(&ckpt)
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains(format!("process {}", std::process::id()))
                .and(predicate::str::contains("in use by another nqueens run"))
                .and(predicate::str::contains("q.ckpt.lock")),
        );
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert!(!ckpt.exists(), "the refused run wrote the checkpoint");
    drop(held);
    nq().args(["count", "10", "--checkpoint"])
        .arg(&ckpt)
        .assert()
        .success()
        .stdout("724\n");
    // Released after a normal finish: the lock file is gone and the lock is free.
    assert!(!lock_path(&ckpt).exists());
    RunLock::acquire(&ckpt).unwrap();
}

#[test]
fn a_second_shard_run_on_one_out_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.json");
    let held = RunLock::acquire(&out).unwrap();
    nq().args(["count", "10", "--shard", "0/2", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "process {}",
            std::process::id()
        )));
    assert!(!out.exists());
    // The same file given as --out without --shard is locked too.
    nq().args(["count", "9", "--out"])
        .arg(&out)
        .assert()
        .code(2);
    drop(held);
    nq().args(["count", "10", "--shard", "0/2", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert!(out.exists() && !lock_path(&out).exists());
}

#[test]
fn two_real_runs_on_one_checkpoint_then_kill_9_frees_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("q.ckpt");
    let args = common::slow_count(15, &ckpt);
    let mut first = spawn(&args);
    wait_for_lock(&first, &ckpt);
    // The second process stops at once, naming the first.
    let second = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("process {}", first.id())),
        "{stderr}"
    );
    // kill -9 leaves the lock file behind but no lock: the next run takes it over and finishes.
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(lock_path(&ckpt).exists());
    nq().args(&args)
        .assert()
        .success()
        .stdout(format!("{}\n", published(15).unwrap().total));
    assert!(!lock_path(&ckpt).exists());
}

#[test]
fn a_stale_lock_file_of_a_dead_process_does_not_block() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("q.ckpt");
    let out = dir.path().join("r.json");
    // A process ID no live process has (above Linux's limit), as a killed run would leave.
    std::fs::write(lock_path(&ckpt), "4000000000 elsewhere\n").unwrap();
    std::fs::write(lock_path(&out), "4000000000 elsewhere\n").unwrap();
    nq().args(["count", "9", "--shard", "0/1", "--checkpoint"])
        .arg(&ckpt)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(!lock_path(&ckpt).exists() && !lock_path(&out).exists());
    nq().arg("merge")
        .arg(&out)
        .assert()
        .success()
        .stdout("352\n");
}

/// Two names of one file (hard links) are one checkpoint: a run through either stops a second
/// through the other, whether the file was there before the first run or written by it
/// (issue 28, item 14).
#[test]
fn hard_links_to_one_checkpoint_cannot_run_twice() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.ckpt");
    let b = dir.path().join("b.ckpt");
    nq().args(["count", "10", "--checkpoint"])
        .arg(&a)
        .assert()
        .success();
    std::fs::hard_link(&a, &b).unwrap();
    let held = RunLock::acquire(&a).unwrap();
    nq().args(["count", "10", "--checkpoint"])
        .arg(&b)
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("the file has hard links"));
    drop(held);
    nq().args(["count", "10", "--checkpoint"])
        .arg(&b)
        .assert()
        .success()
        .stdout("724\n");
    // A file the run itself wrote, linked while it runs.
    let c = dir.path().join("c.ckpt");
    let d = dir.path().join("d.ckpt");
    let mut child = spawn(&common::slow_count(16, &c));
    wait_for_lock(&child, &c);
    let t0 = Instant::now();
    while !c.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no first save");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(200));
    std::fs::hard_link(&c, &d).unwrap();
    let second = nq().args(common::slow_count(16, &d)).output().unwrap();
    let still = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    let _ = child.wait();
    if !still {
        common::skip(
            "hard_links_to_one_checkpoint_cannot_run_twice",
            "N = 16 finished first",
        );
        return;
    }
    assert_eq!(second.status.code(), Some(2), "{second:?}");
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("hard link"),
        "{second:?}"
    );
}
