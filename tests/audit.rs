//! A count that others can check: shard files keep each unit's counts, `audit` recounts a
//! sample of them, `merge` compares replicas, and `scripts/check-shards.py` checks a file
//! without nqueens. A faulty machine is played by editing one unit's count of an honest file and
//! making its sum and checksum consistent, as such a machine would write it.

use crate::common;
use crate::common::nq;

use nqueens_count::known::published;
use nqueens_count::longrun::Checkpoint;
use nqueens_count::longrun::ShardResult;
use nqueens_count::longrun::{self as audit, Recorded, Sample};
use nqueens_count::{Engine, Job, Method, Plan};
use predicates::prelude::*;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Shard `i` of `m` of N = `n` written to `dir/name`, by a run of its own.
fn shard(dir: &Path, n: u32, i: u32, m: u32, name: &str, extra: &[&str]) -> PathBuf {
    let out = dir.join(name);
    nq().args(["count", &n.to_string(), "--shard", &format!("{i}/{m}")])
        .args(["--quiet", "--threads", "2", "--out", out.to_str().unwrap()])
        .args(extra)
        .assert()
        .success();
    out
}

/// A copy of the shard file `from` at `to` with the `k`-th unit's total raised by `by`, and the
/// sum and checksum made to match: what a machine that counted that unit wrong would write.
fn faulty(from: &Path, to: &Path, k: usize, by: u128) -> u32 {
    let mut r = ShardResult::load(from).unwrap();
    r.unit_totals.as_mut().unwrap()[k] += by;
    r.total += by;
    r.host = "faulty-node".into();
    r.seal();
    r.save(to).unwrap();
    r.units[k]
}

fn python<S: AsRef<OsStr>>(args: &[S]) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-shards.py");
    std::process::Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs scripts/check-shards.py (Python 3 is needed for this test)")
}

#[test]
fn a_faulty_machine_passes_the_checksum_but_not_an_audit_nor_a_replica() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..3)
        .map(|i| shard(d, 11, i, 3, &format!("s{i}.json"), &[]))
        .collect();
    let replica = shard(d, 11, 1, 3, "s1.replica.json", &[]);
    let bad = d.join("s1.faulty.json");
    let unit = faulty(&files[1], &bad, 7, 3);
    let right = ShardResult::load(&files[1]).unwrap().unit_counts().unwrap()[&unit].total;
    let total = published(11).unwrap().total;

    // The checksum and the sums pass, by this program and by the standalone script; merged
    // alone, the faulty shard gives a total that only the published value betrays: MISMATCH,
    // exit 1 and no total.
    assert!(ShardResult::load(&bad).is_ok());
    let out = python(&[bad.as_os_str()]);
    assert!(out.status.success(), "{out:?}");
    nq().arg("merge")
        .args([&files[0], &bad, &files[2]])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "the shards add up to {} solutions, but the published count of N = 11 is {total} \
             solutions: MISMATCH",
            total + 3
        )));

    // An audit of every unit finds it, naming the unit, both counts and the host.
    nq().args(["audit", "--sample", "1", "--threads", "2"])
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "unit {unit}: recorded total {}, recounted total {right} (written on host faulty-node)",
            right + 3
        )))
        .stdout(predicate::str::contains("1 MISMATCH"))
        .stdout(predicate::str::contains("FAILED"));
    // Honest files pass, on any kernel.
    for kernel in ["dfs", "auto"] {
        nq().args(["audit", "--sample", "1", "--kernel", kernel])
            .args(&files)
            .arg(&replica)
            .assert()
            .success()
            .stdout(predicate::str::contains("no mismatch: passed"))
            .stdout(predicate::str::contains("MISMATCH").not());
    }

    // Merged with an honest replica, the faulty file is refused: exit 1, no total, the unit
    // and both hosts named.
    let out = nq()
        .arg("merge")
        .args([&files[0], &files[1], &bad, &files[2]])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("replicas disagree on 1 unit(s) of 1 shard(s)"),
        "{err}"
    );
    let host = ShardResult::load(&files[1]).unwrap().host;
    assert!(
        err.contains(&format!(
            "shard 1/3 unit {unit}: total {right} in {} (host {host}); total {} in {} (host faulty-node)",
            files[1].display(),
            right + 3,
            bad.display()
        )),
        "{err}"
    );
    // Honest replicas agree and count once.
    nq().arg("merge")
        .args([&files[0], &files[1], &replica, &files[2]])
        .assert()
        .success()
        .stdout(format!("{total}\n"))
        .stderr(predicate::str::contains(
            "1 of 3 shards confirmed by a replica",
        ));
    nq().args(["merge", "--json"])
        .args([&files[0], &files[1], &replica, &files[2]])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            r#""files":4,"replicated_shards":1,"#,
        ));
    // A copy is not a replica.
    let copy = d.join("copy.json");
    std::fs::copy(&files[1], &copy).unwrap();
    nq().arg("merge")
        .args([&files[0], &files[1], &copy, &files[2]])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("copy.json is a copy of"));
}

/// The shard files `files` rewritten by `edit` and resealed (their sums and checksums made to
/// match), under new names in `dir`: a forgery that every check of a single file passes.
fn forged(dir: &Path, files: &[PathBuf], edit: &dyn Fn(usize, &mut ShardResult)) -> Vec<PathBuf> {
    files
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut r = ShardResult::load(f).unwrap();
            edit(i, &mut r);
            reseal(&mut r);
            let to = dir.join(format!("forged{i}.json"));
            r.save(&to).unwrap();
            to
        })
        .collect()
}

/// Makes a shard result's sums agree with its per-unit records, and seals it.
fn reseal(r: &mut ShardResult) {
    if let Some(t) = &r.unit_totals {
        r.total = t.iter().sum();
    }
    if let Some(u) = &r.unit_uniques {
        r.unique = Some(u.iter().sum());
    }
    r.seal();
}

/// `merge` of `files` refused with `code`, nothing on standard output, `why` on stderr.
fn refused(files: &[PathBuf], code: i32, why: &str) {
    let out = nq().arg("merge").args(files).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{why}: {err}");
    assert!(out.stdout.is_empty(), "{why}: a total printed: {out:?}");
    assert!(err.contains(why), "{err} lacks {why}");
}

#[test]
fn forged_but_consistent_shard_sets_are_refused_with_no_total() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..3)
        .map(|i| shard(d, 10, i, 3, &format!("s{i}.json"), &["--unique"]))
        .collect();
    nq().arg("merge")
        .args(&files)
        .assert()
        .success()
        .stdout("724 92\n");
    let loaded: Vec<ShardResult> = files
        .iter()
        .map(|f| ShardResult::load(f).unwrap())
        .collect();
    // One unit claimed by two shard files: shard 0 takes a unit of shard 1 as well.
    let (stolen, stolen_counts) = (loaded[1].units[0], loaded[1].unit_counts().unwrap());
    let two_claims = forged(d, &files, &|i, r| {
        if i == 0 {
            let k = r.units.partition_point(|&u| u < stolen);
            r.units.insert(k, stolen);
            r.unit_totals
                .as_mut()
                .unwrap()
                .insert(k, stolen_counts[&stolen].total);
            r.unit_uniques
                .as_mut()
                .unwrap()
                .insert(k, stolen_counts[&stolen].unique);
        }
    });
    refused(
        &two_claims,
        2,
        &format!("unit {stolen} is not one of the units of shard"),
    );
    // The same set from another version of the program, whose assignment of units to shards
    // this one does not redo: the sum over the units still finds the unit claimed twice.
    let other_version = |r: &mut ShardResult| r.identity.program_version = "0.0.1".into();
    let two_claims = forged(d, &two_claims, &|_, r| other_version(r));
    refused(&two_claims, 2, &format!("unit {stolen} is in both"));
    // A set without unit 0.
    let no_unit_0 = forged(d, &files, &|_, r| {
        if r.units.first() == Some(&0) {
            r.units.remove(0);
            r.unit_totals.as_mut().unwrap().remove(0);
            r.unit_uniques.as_mut().unwrap().remove(0);
        }
    });
    refused(&no_unit_0, 2, "unit 0 of shard");
    refused(&no_unit_0, 2, "is missing");
    // From another version: the sum over the units still finds the unit in no file.
    let no_unit_0 = forged(d, &no_unit_0, &|_, r| other_version(r));
    refused(&no_unit_0, 2, "unit 0 is in none of the 3 shard files");
    // A replica that differs from its shard in one unit's unique count alone.
    let mut replica = ShardResult::load(&shard(d, 10, 1, 3, "r1.json", &["--unique"])).unwrap();
    replica.unit_uniques.as_mut().unwrap()[2] += 1;
    reseal(&mut replica);
    let odd = d.join("r1.odd.json");
    replica.save(&odd).unwrap();
    let mut set = files.clone();
    set.push(odd);
    refused(
        &set,
        1,
        &format!("shard 1/3 unit {}: total", replica.units[2]),
    );
    // Relabelled identities, each on the whole set.
    type Edit<'a> = &'a dyn Fn(&mut ShardResult);
    let relabel: [(&str, Edit); 10] = [
        ("n: 11", &|r| r.identity.n = 11),
        ("n: 0", &|r| r.identity.n = 0),
        ("n: 33", &|r| r.identity.n = 33),
        ("n: u32::MAX", &|r| r.identity.n = u32::MAX),
        ("depth 0", &|r| r.identity.split_depth = 0),
        ("depth u32::MAX", &|r| r.identity.split_depth = u32::MAX),
        ("method bogus", &|r| r.identity.method = "bogus".into()),
        ("plan method plain", &|r| {
            r.identity.plan_method = "plain".into()
        }),
        ("attacking queens", &|r| {
            r.identity.placed = vec![[1, 1], [2, 2]]
        }),
        ("units + 1", &|r| r.identity.units += 1),
    ];
    for (what, edit) in relabel {
        let set = forged(d, &files, &|_, r| edit(r));
        let out = nq().arg("merge").args(&set).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        assert!(out.stdout.is_empty(), "{what}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        // N = 0 has no placement at all: its files' counts alone give it away.
        let why = if what == "n: 0" {
            "more solutions than an N = 0 board has placements"
        } else {
            "no job of this program has its identity"
        };
        assert!(err.contains(why), "{what}: {err}");
    }
    // The whole set downgraded to format 1 (sums only), one sum bumped: only the published
    // value betrays it.
    let old = forged(d, &files, &|i, r| {
        (r.format_version, r.unit_totals, r.unit_uniques, r.run_id) = (1, None, None, None);
        if i == 2 {
            r.total += 2;
        }
    });
    refused(
        &old,
        1,
        "the shards add up to 726 solutions, 92 unique, but the published count",
    );
}

/// Issue 33, item 3: a finished checkpoint whose counts a faulty machine changed and resealed
/// resumes to a total that `count` checks against the published value, as merge and audit do:
/// MISMATCH, exit 1, no count printed, the file named and `audit` suggested.
#[test]
fn a_forged_resumed_total_is_a_mismatch_not_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("q.ckpt");
    let args = |extra: &[&str]| {
        let mut v: Vec<String> = ["count", "16", "--quiet", "--checkpoint"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.push(ckpt.to_str().unwrap().into());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    nq().args(args(&[])).assert().success().stdout("14772512\n");
    let honest = Checkpoint::load(&ckpt).unwrap();
    let units = honest.done.len();
    let forge = |edit: &dyn Fn(&mut Checkpoint)| {
        let mut c = honest.clone();
        edit(&mut c);
        c.save(&ckpt).unwrap();
    };
    let first = *honest.done.keys().next().unwrap();
    for (edit, total) in [
        (
            &(|c: &mut Checkpoint| c.done.get_mut(&first).unwrap().total += 8)
                as &dyn Fn(&mut Checkpoint),
            14772520,
        ),
        (
            &|c: &mut Checkpoint| c.done.values_mut().for_each(|x| x.total = 1),
            units as u128,
        ),
    ] {
        forge(edit);
        let out = nq().args(args(&[])).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(out.stdout.is_empty(), "a count printed: {out:?}");
        assert!(
            err.contains(&format!(
                "the count of N = 16 is {total} solutions, but the published count is \
                 14772512 solutions: MISMATCH"
            )),
            "{err}"
        );
        assert!(
            err.contains("q.ckpt resumed holds each unit's counts"),
            "{err}"
        );
        assert!(err.contains("nqueens audit --sample 1"), "{err}");
        // The audit the message suggests finds the forged units.
        nq().args(["audit", "--sample", "1"])
            .arg(&ckpt)
            .assert()
            .code(1)
            .stdout(predicate::str::contains("MISMATCH"));
    }
}

/// A checkpoint is one run's own: a unit outside the run's shard, put there and resealed, is
/// refused on resume, and the checkpoint left as it was.
#[test]
fn a_checkpoint_unit_outside_the_shard_is_refused_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let ckpt = dir.path().join("s0.ckpt");
    let run = |extra: &[&str]| {
        nq().args(["count", "11", "--shard", "0/2", "--quiet", "--checkpoint"])
            .arg(&ckpt)
            .args(extra)
            .output()
            .unwrap()
    };
    let first = run(&[]);
    assert!(first.status.success(), "{first:?}");
    let mut c = Checkpoint::load(&ckpt).unwrap();
    let plan = Recorded::of_checkpoint(c.clone()).plan(&ckpt).unwrap();
    let theirs = nqueens_count::longrun::ShardSpec { index: 1, count: 2 }.units(&plan);
    c.done.insert(theirs[0], nqueens_count::Counts::default());
    c.save(&ckpt).unwrap();
    let before = std::fs::read(&ckpt).unwrap();
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "unit {} is not one of the units of shard 0/2",
            theirs[0]
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(&ckpt).unwrap(), before);
}

#[test]
fn a_sampled_audit_finds_one_wrong_unit_as_often_as_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let honest = shard(dir.path(), 11, 0, 2, "s0.json", &[]);
    let bad = dir.path().join("bad.json");
    let unit = faulty(&honest, &bad, 11, 1);
    let honest = Recorded::of_shard(&ShardResult::load(&honest).unwrap()).unwrap();
    let bad = Recorded::of_shard(&ShardResult::load(&bad).unwrap()).unwrap();
    let plan = Arc::new(honest.plan(Path::new("s0.json")).unwrap());
    let engine = Engine::new(2).unwrap();
    let n = honest.units.len();
    let sample = |seed| Sample {
        fraction: 0.25,
        min_units: 0,
        seed,
    };
    let k = sample(0).size(n);
    // One wrong unit of n, k drawn without replacement: found with probability k / n.
    let p = k as f64 / n as f64;
    assert!((p - (1.0 - audit::pass_probability(n, k, 1))).abs() < 1e-12);
    let seeds = 200u64;
    let mut found = 0;
    for seed in 0..seeds {
        let path = Path::new("bad.json");
        let a = audit::audit(&engine, &plan, &bad, &sample(seed), path).unwrap();
        assert_eq!(a.checked.len(), k);
        match a.mismatches[..] {
            [] => assert!(!a.checked.contains(&unit)),
            [m] => {
                assert_eq!(m.unit, unit);
                assert_eq!(m.recorded.total, m.recounted.total + 1);
                found += 1;
            }
            _ => panic!("{:?}", a.mismatches),
        }
        let a = audit::audit(&engine, &plan, &honest, &sample(seed), path).unwrap();
        assert!(a.mismatches.is_empty());
    }
    // Binomial: mean 200 p, standard deviation sqrt(200 p (1 - p)); four of them either side.
    let mean = seeds as f64 * p;
    let sd = (seeds as f64 * p * (1.0 - p)).sqrt();
    assert!(
        (found as f64 - mean).abs() <= 4.0 * sd,
        "found in {found} of {seeds} audits, expected {mean:.1} ± {:.1}",
        4.0 * sd
    );
    eprintln!("found in {found} of {seeds} audits of {k} of {n} units (expected {mean:.1})");
}

#[test]
fn per_unit_records_are_each_units_own_count() {
    // With the plain method a unit is a placement of the first rows, and its count the
    // solutions that extend it: the textbook solver checks every record of every shard, and
    // the units' unique counts add up to the job's.
    let dir = tempfile::tempdir().unwrap();
    let args = ["--method", "plain", "--split-depth", "2", "--unique"];
    let plan = Plan::new(
        Job::new(8)
            .unwrap()
            .with_method(Method::Plain)
            .with_split_depth(2)
            .unwrap(),
    );
    let (mut seen, mut unique) = (0, 0);
    for i in 0..3 {
        let r =
            ShardResult::load(&shard(dir.path(), 8, i, 3, &format!("p{i}.json"), &args)).unwrap();
        assert_eq!(r.unit_uniques.as_ref().unwrap().len(), r.units.len());
        for (u, counts) in r.unit_counts().unwrap() {
            let prefix: Vec<usize> = plan.units()[u as usize]
                .prefix()
                .iter()
                .map(|&c| usize::from(c))
                .collect();
            let mut naive = 0u128;
            common::naive_solutions(8, |cols| naive += u128::from(cols.starts_with(&prefix)));
            assert_eq!(counts.total, naive, "unit {u} {prefix:?}");
            unique += counts.unique;
            seen += 1;
        }
    }
    assert_eq!(seen, plan.units().len());
    assert_eq!(unique, published(8).unwrap().unique);
    // Unit i is the i-th placement of the first rows in lexicographic order of the columns:
    // a numbering any program can reproduce (docs/CLUSTER.md).
    let prefixes: Vec<&[u8]> = plan.units().iter().map(|u| u.prefix()).collect();
    assert!(prefixes.windows(2).all(|w| w[0] < w[1]));
    let mut all = Vec::new();
    for a in 0..8u8 {
        for b in 0..8u8 {
            if a.abs_diff(b) > 1 {
                all.push([a, b]);
            }
        }
    }
    assert_eq!(prefixes, all.iter().map(|p| &p[..]).collect::<Vec<_>>());
}

#[test]
fn audits_repeat_by_seed_take_checkpoints_and_refuse_what_they_cannot_recount() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = shard(d, 12, 0, 2, "s.json", &["--unique"]);
    // The seed printed repeats the audit exactly.
    let first = nq()
        .args(["audit", "--threads", "1"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(first.status.success(), "{first:?}");
    let text = String::from_utf8(first.stdout).unwrap();
    let seed = text
        .split("--seed ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap()
        .to_string();
    nq().args(["audit", "--threads", "2", "--seed", &seed])
        .arg(&f)
        .assert()
        .success()
        .stdout(text.replace(", 1 threads", ", 2 threads"));
    assert!(text.contains("30 of "), "{text}");
    assert!(text.contains("passes with probability at most"), "{text}");

    // A checkpoint: its finished units, one made wrong in its unique count.
    let ckpt = d.join("c.ckpt");
    nq().args(["count", "11", "--unique", "--quiet", "--checkpoint"])
        .arg(&ckpt)
        .assert()
        .success();
    let mut c = Checkpoint::load(&ckpt).unwrap();
    let (&unit, counts) = c.done.iter_mut().nth(5).unwrap();
    let right = *counts;
    counts.unique += 1;
    c.save(&ckpt).unwrap();
    nq().args(["audit", "--sample", "1"])
        .arg(&ckpt)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "unit {unit}: recorded total {} unique {}, recounted total {} unique {} (host not recorded in a checkpoint)",
            right.total,
            right.unique + 1,
            right.total,
            right.unique
        )));

    // A file of the version before keeps only its sum: it merges, it cannot be audited.
    let old = d.join("old.json");
    std::fs::write(&old, OLD).unwrap();
    nq().arg("audit")
        .arg(&old)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("format version 1"))
        .stderr(predicate::str::contains("cannot be audited"));
    // Another program version of the same unit enumeration: its units are recounted by index
    // all the same (an audit is how another build's counts are checked). Another unit
    // enumeration cannot be: the other files are still audited, and a mismatch outranks the
    // refusal.
    let mut r = ShardResult::load(&f).unwrap();
    r.identity.program_version = "0.0.9".into();
    r.seal();
    let older = d.join("older.json");
    r.save(&older).unwrap();
    nq().arg("audit")
        .args([&older, &f])
        .assert()
        .success()
        .stdout(predicate::str::contains("older.json: shard 0/2"))
        .stdout(predicate::str::contains("no mismatch: passed"));
    r.identity.units_version += 1;
    r.seal();
    let other = d.join("other.json");
    r.save(&other).unwrap();
    nq().arg("audit")
        .args([&other, &f])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no job of this program has its identity: the unit version",
        ))
        .stdout(predicate::str::contains("s.json: shard 0/2"))
        .stdout(predicate::str::contains("INCOMPLETE"));
    let bad = d.join("bad.json");
    faulty(&f, &bad, 0, 1);
    nq().args(["audit", "--sample", "1"])
        .args([&other, &bad])
        .assert()
        .code(1);
    // Bad options and files: one line, exit 2.
    for args in [
        &["audit", "--sample", "0"][..],
        &["audit", "--sample", "1.5"][..],
        &["audit", "--sample", "x"][..],
        &["audit", "--seed", "-1"][..],
        &["audit", "--min-units", "x"][..],
    ] {
        let out = nq().args(args).arg(&f).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{out:?}"
        );
    }
    nq().arg("audit").assert().code(2);
    nq().args(["audit", "no-such-file.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no-such-file.json"));
}

/// A result file written before per-unit records (format version 1).
const OLD: &str = r#"{"format":"nqueens-shard","format_version":1,"identity":{"n":8,"method":"d4","plan_method":"d4","split_depth":3,"placed":[],"unique":false,"units":44,"units_version":1,"program_version":"0.1.0"},"shard":"0/1","units":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43],"total":92,"unique":0,"elapsed_ms":2,"host":"vm","estimated_imbalance_bp":0,"checksum":"sha256:0e218fe078918799c87dda04abb5597f32fe9804a75c6ea024fca77d86c0a69d"}
"#;

#[test]
fn the_standalone_script_checks_checksums_sums_and_prints_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..2)
        .map(|i| shard(d, 10, i, 2, &format!("s{i}.json"), &["--unique"]))
        .collect();
    let replica = shard(d, 10, 1, 2, "s1.replica.json", &["--unique"]);
    let all = |extra: &[&Path]| -> Vec<std::ffi::OsString> {
        files
            .iter()
            .map(|p| p.as_os_str().to_owned())
            .chain(extra.iter().map(|p| p.as_os_str().to_owned()))
            .collect()
    };
    let out = python(&all(&[&replica]));
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .matches(": ok: shard")
            .count(),
        3
    );
    // The table: every unit once (the replica agrees), as the files record it.
    let mut args = vec![std::ffi::OsString::from("--table")];
    args.extend(all(&[&replica]));
    let out = python(&args);
    assert!(out.status.success(), "{out:?}");
    let table = String::from_utf8(out.stdout).unwrap();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("unit,total,unique"));
    let mut expected = std::collections::BTreeMap::new();
    for f in &files {
        expected.extend(ShardResult::load(f).unwrap().unit_counts().unwrap());
    }
    let rows: Vec<String> = lines.map(str::to_string).collect();
    let want: Vec<String> = expected
        .iter()
        .map(|(u, c)| format!("{u},{},{}", c.total, c.unique))
        .collect();
    assert_eq!(rows, want);
    let sum: u128 = expected.values().map(|c| c.total).sum();
    assert_eq!(sum, published(10).unwrap().total);

    // A host name with quotes, a tab and non-ASCII letters: the script serializes as nqueens.
    let mut r = ShardResult::load(&files[0]).unwrap();
    r.host = "nœud \"7\"\tß\u{1}".into();
    r.seal();
    let odd = d.join("odd.json");
    r.save(&odd).unwrap();
    let out = python(&[odd.as_os_str()]);
    assert!(out.status.success(), "{out:?}");
    // Keys reordered (the identity's too), pretty-printed, with a byte-order mark: nqueens reads
    // it as it was written, and so does the script (issue 33, item 8).
    // (serde_json's maps keep their keys in alphabetical order: "checksum" first, and the
    // identity's "method" before "n".)
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend(serde_json::to_vec_pretty(&value).unwrap());
    let reordered = d.join("reordered.json");
    std::fs::write(&reordered, &bytes).unwrap();
    let shown = String::from_utf8_lossy(&bytes[3..]).into_owned();
    assert!(
        shown.find("\"checksum\"") < shown.find("\"format\""),
        "{shown}"
    );
    assert_eq!(
        ShardResult::load(&reordered).unwrap(),
        ShardResult::load(&files[0]).unwrap()
    );
    let out = python(&[reordered.as_os_str()]);
    assert!(out.status.success(), "{out:?}");
    // Checksum made to match but the units not adding up: refused, by both.
    let mut r = ShardResult::load(&files[0]).unwrap();
    r.unit_totals.as_mut().unwrap()[0] += 1;
    r.seal();
    let sums = d.join("sums.json");
    r.save(&sums).unwrap();
    let out = python(&[sums.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not make up total"));
    assert!(ShardResult::load(&sums).is_err());
    // One bit changed: the checksum fails.
    let mut bytes = std::fs::read(&files[0]).unwrap();
    let i = bytes.len() / 2;
    bytes[i] ^= 0x02;
    let flipped = d.join("flipped.json");
    std::fs::write(&flipped, bytes).unwrap();
    let out = python(&[flipped.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    // A replica that disagrees stops the table.
    let bad = d.join("bad.json");
    faulty(&files[1], &bad, 0, 1);
    let mut args = vec![std::ffi::OsString::from("--table")];
    args.extend(all(&[&bad]));
    let out = python(&args);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(out.stdout.is_empty());
    // The file of the version before and a checkpoint pass their checksums.
    let old = d.join("old.json");
    std::fs::write(&old, OLD).unwrap();
    let ckpt = d.join("c.ckpt");
    nq().args(["count", "9", "--quiet", "--checkpoint"])
        .arg(&ckpt)
        .assert()
        .success();
    let out = python(&[old.as_os_str(), ckpt.as_os_str()]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("version 1: sums only"), "{text}");
    assert!(text.contains("checkpoint of N = 9"), "{text}");
}

/// File names and the `host` a file records reach the terminal escaped, in `merge`'s
/// disagreement lines and in `audit`'s report (issue 28, item 13).
#[test]
fn file_names_and_hosts_are_escaped_in_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..2)
        .map(|i| shard(d, 9, i, 2, &format!("s{i}.json"), &[]))
        .collect();
    let mut r = ShardResult::load(&shard(d, 9, 1, 2, "r.json", &[])).unwrap();
    r.unit_totals.as_mut().unwrap()[0] += 1;
    r.host = "evil\x1b[2J\u{202e}".into();
    reseal(&mut r);
    let odd = d.join("odd\x1b]0;title\x07.json");
    r.save(&odd).unwrap();
    let raw = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        text.contains('\x1b') || text.contains('\x07') || text.contains('\u{202e}')
    };
    let out = nq().arg("merge").args(&files).arg(&odd).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!raw(&out.stderr), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(r"odd\u{1b}]0;title\u{7}.json (host evil\u{1b}[2J\u{202e})"),
        "{err}"
    );
    let out = nq()
        .args(["audit", "--sample", "1"])
        .arg(&odd)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(!raw(&out.stdout) && !raw(&out.stderr), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r"written on host evil\u{1b}[2J\u{202e}"),
        "{text}"
    );
    // A host name of 100 000 characters (a real one has at most 255 bytes) is cut to a line's
    // length, in merge's disagreement and in audit's report alike.
    r.host = "h".repeat(100_000);
    reseal(&mut r);
    let long = d.join("long.json");
    r.save(&long).unwrap();
    let merged = nq().arg("merge").args(&files).arg(&long).output().unwrap();
    let audited = nq()
        .args(["audit", "--sample", "1"])
        .arg(&long)
        .output()
        .unwrap();
    assert_eq!(
        (merged.status.code(), audited.status.code()),
        (Some(1), Some(1))
    );
    for (text, says) in [
        (&merged.stderr, true),
        (&audited.stdout, true),
        (&audited.stderr, false),
    ] {
        let text = String::from_utf8_lossy(text);
        assert!(text.contains("hhhh…") == says, "{text}");
        assert!(text.lines().all(|l| l.len() < 1000), "{}", text.len());
    }
}

/// A file that cannot be audited is said on stderr before any report: with no file left,
/// nothing at all on standard output (issue 29, item 8).
#[test]
fn audit_of_files_it_cannot_read_prints_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.json");
    std::fs::write(&other, "{}").unwrap();
    for file in [dir.path().join("missing.json"), other] {
        let out = nq().arg("audit").arg(&file).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).lines().count(),
            1,
            "{out:?}"
        );
    }
}

/// Files that record every unit of a job with a published count are summed and compared with
/// it in the audit's summary (issue 29, item 2): a wrong unit the sample missed still fails.
#[test]
fn audit_compares_a_whole_job_with_the_published_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..2)
        .map(|i| shard(d, 10, i, 2, &format!("s{i}.json"), &["--unique"]))
        .collect();
    nq().args(["audit", "--sample", "0.01", "--min-units", "1"])
        .args(&files)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "N = 10: the files record every unit of the job: total 724 unique 92, as published",
        ));
    let bad = d.join("bad.json");
    faulty(&files[1], &bad, 0, 2);
    nq().args([
        "audit",
        "--sample",
        "0.01",
        "--min-units",
        "1",
        "--seed",
        "1",
    ])
    .args([&files[0], &bad])
    .assert()
    .code(1)
    .stdout(predicate::str::contains(
        "total 726 unique 92, MISMATCH with the published total 724 unique 92",
    ))
    .stdout(predicate::str::contains("FAILED"));
}

/// A shard file reformatted by an editor (pretty-printed, its content the same) is read as
/// written; one whose content changed says so (issue 29, item 5).
#[test]
fn a_pretty_printed_shard_file_is_still_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: Vec<PathBuf> = (0..2)
        .map(|i| shard(d, 9, i, 2, &format!("s{i}.json"), &[]))
        .collect();
    let pretty = d.join("pretty.json");
    let out = std::process::Command::new("python3")
        .args(["-m", "json.tool", "--indent", "2"])
        .arg(&files[1])
        .arg(&pretty)
        .output()
        .expect("python3 runs json.tool (Python 3 is needed for this test)");
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&pretty).unwrap();
    assert!(
        text.starts_with("{\n  \"format\": \"nqueens-shard\""),
        "{text}"
    );
    nq().arg("merge")
        .args([&files[0], &pretty])
        .assert()
        .success()
        .stdout("352\n");
    assert!(python(&[pretty.as_os_str()]).status.success());
    // One digit changed in the unit totals, nothing else.
    let at = text.find("\"unit_totals\": [").unwrap();
    let digit = at + text[at..].find(|c: char| c.is_ascii_digit()).unwrap();
    let mut changed = text.clone().into_bytes();
    changed[digit] = if changed[digit] == b'9' {
        b'8'
    } else {
        changed[digit] + 1
    };
    std::fs::write(&pretty, changed).unwrap();
    nq().arg("merge")
        .args([&files[0], &pretty])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "checksum mismatch: the file was changed after nqueens wrote it",
        ));
}
