//! The merge's contract: what must merge, and each way a set of files must fail to.

use super::*;
use crate::longrun::Identity;
use crate::plan::{Job, Plan};

/// The counts of every unit of `plan`, by index.
fn records(plan: &Plan) -> BTreeMap<u32, Counts> {
    plan.units()
        .iter()
        .map(|u| {
            (
                u.index,
                crate::plan::evaluate_on(plan, u, crate::Kernel::Dfs),
            )
        })
        .collect()
}

/// A job split into `m` shards: its plan, each unit's counts, and a result of shard `i` from
/// `host`.
struct Job8 {
    plan: Plan,
    counts: BTreeMap<u32, Counts>,
    parts: Vec<Vec<u32>>,
}

impl Job8 {
    fn new(unique: bool, m: u32) -> Job8 {
        let job = Job::new(8)
            .unwrap()
            .with_split_depth(2)
            .unwrap()
            .with_unique(unique);
        let plan = Plan::new(job);
        let counts = records(&plan);
        let parts = assign::assigned(&plan.costs(), m);
        Job8 {
            plan,
            counts,
            parts,
        }
    }

    fn result(&self, i: u32, host: &str) -> ShardResult {
        let done = self.parts[i as usize]
            .iter()
            .map(|&u| (u, self.counts[&u]))
            .collect();
        let spec = ShardSpec {
            index: i,
            count: self.parts.len() as u32,
        };
        let mut r = ShardResult::new(Identity::of(&self.plan), spec, &done, Duration::ZERO, 0.0);
        r.host = host.into();
        r.seal();
        r
    }
}

fn file(name: &str, r: &ShardResult) -> (PathBuf, ShardResult) {
    (PathBuf::from(name), r.clone())
}

#[test]
fn replicas_that_agree_count_once_and_those_that_differ_name_units_and_hosts() {
    let j = Job8::new(false, 2);
    let (a0, a1, b1) = (j.result(0, "a"), j.result(1, "a"), j.result(1, "b"));
    let m = merge(&[file("a0", &a0), file("a1", &a1), file("b1", &b1)]).unwrap();
    assert_eq!((m.counts.total, m.files, m.replicated), (92, 3, 1));
    assert_eq!(m.replicated_across_hosts, 1);
    let a1bis = j.result(1, "a");
    let m = merge(&[file("a0", &a0), file("a1", &a1), file("a1bis", &a1bis)]).unwrap();
    assert_eq!((m.replicated, m.replicated_across_hosts), (1, 0));
    // A copy is not a replica.
    let e = merge(&[file("a0", &a0), file("a1", &a1), file("copy", &a1)]).unwrap_err();
    assert!(e.to_string().contains("copy is a copy of a1"), "{e}");
    // One unit counted wrong on host b, sum and checksum made to match.
    let mut bad = b1.clone();
    let k = 2;
    bad.unit_totals.as_mut().unwrap()[k] += 10;
    bad.total += 10;
    bad.seal();
    let unit = bad.units[k];
    match merge(&[file("a0", &a0), file("a1", &a1), file("bad", &bad)]) {
        Err(e @ MergeError::Disagree(_)) => {
            assert_eq!(e.class(), Class::Disagreement);
            let MergeError::Disagree(d) = &e else {
                unreachable!()
            };
            assert_eq!(d.len(), 1);
            assert_eq!((d[0].shard.index, d[0].unit), (1, Some(unit)));
            let right = j.counts[&unit].total;
            assert_eq!(
                d[0].claims,
                vec![
                    (PathBuf::from("a1"), "a".into(), j.counts[&unit]),
                    (
                        PathBuf::from("bad"),
                        "b".into(),
                        Counts {
                            total: right + 10,
                            unique: 0
                        }
                    ),
                ]
            );
            let line = e.to_string();
            let want = format!(
                "shard 1/2 unit {unit}: total {right} in a1 (host a); total {} in bad (host b)",
                right + 10
            );
            assert!(line.contains(&want), "{line}");
        }
        other => panic!("{other:?}"),
    }
    // A replica with other units is refused.
    let mut other = b1.clone();
    other.units[0] = a0.units[0];
    other.units.sort_unstable();
    other.seal();
    assert!(matches!(
        merge(&[file("a0", &a0), file("a1", &a1), file("other", &other)]),
        Err(MergeError::Store(StoreError::Foreign { .. }))
    ));
}

/// Files of format version 1 keep only sums: replicas are compared on them, unique counts
/// included (a planted fault compared totals only, and no test saw it).
#[test]
fn replicas_of_format_1_are_compared_on_total_and_unique() {
    let j = Job8::new(true, 2);
    let old = |r: &ShardResult| {
        let mut o = r.clone();
        (o.format_version, o.unit_totals, o.unit_uniques, o.run_id) = (1, None, None, None);
        o.seal();
        o
    };
    let (a0, a1, b1) = (
        j.result(0, "a"),
        old(&j.result(1, "a")),
        old(&j.result(1, "b")),
    );
    let m = merge(&[file("a0", &a0), file("a1", &a1), file("b1", &b1)]).unwrap();
    assert_eq!((m.counts.total, m.counts.unique, m.replicated), (92, 12, 1));
    for (dt, du) in [(1, 0), (0, 1)] {
        let mut bad = b1.clone();
        bad.total += dt;
        *bad.unique.as_mut().unwrap() += du;
        bad.seal();
        match merge(&[file("a0", &a0), file("a1", &a1), file("bad", &bad)]) {
            Err(MergeError::Disagree(d)) => assert_eq!((d.len(), d[0].unit), (1, None)),
            other => panic!("{dt} {du}: {other:?}"),
        }
    }
}

/// A whole job must add up to the published count: the total, and the unique count where it
/// was counted (a planted fault compared totals only, and no test saw it).
#[test]
fn a_whole_job_off_the_published_count_is_a_mismatch_total_or_unique() {
    let j = Job8::new(true, 2);
    let (a0, a1) = (j.result(0, "a"), j.result(1, "a"));
    for (dt, du) in [(1u128, 0u128), (0, 1)] {
        let mut bad = a1.clone();
        let k = 0;
        bad.unit_totals.as_mut().unwrap()[k] += dt;
        bad.unit_uniques.as_mut().unwrap()[k] += du;
        bad.total += dt;
        *bad.unique.as_mut().unwrap() += du;
        bad.seal();
        match merge(&[file("a0", &a0), file("bad", &bad)]) {
            Err(e @ MergeError::Mismatch { .. }) => {
                assert_eq!(e.class(), Class::Disagreement);
                let text = e.to_string();
                assert!(
                    text.contains(&format!(
                        "the shards add up to {} solutions, {} unique, but the published count \
                         of N = 8 is 92 solutions, 12 unique: MISMATCH",
                        92 + dt,
                        12 + du
                    )),
                    "{text}"
                );
            }
            other => panic!("{dt} {du}: {other:?}"),
        }
    }
}

/// Each shard's units must be the very ones this program assigns it, not merely as many
/// (a planted fault compared the number of units only, and no test saw it).
#[test]
fn shards_that_trade_units_are_refused_though_their_sizes_match() {
    let j = Job8::new(false, 2);
    let (a0, a1) = (j.result(0, "a"), j.result(1, "a"));
    // Trade one unit of shard 0 for one of shard 1, counts and all.
    let (u0, u1) = (a0.units[0], a1.units[0]);
    let trade = |r: &ShardResult, out: u32, inn: u32| {
        let mut done = r.unit_counts().unwrap();
        done.remove(&out);
        done.insert(inn, j.counts[&inn]);
        let mut t = ShardResult::new(r.identity.clone(), r.shard, &done, Duration::ZERO, 0.0);
        t.host = r.host.clone();
        t.seal();
        t
    };
    let (t0, t1) = (trade(&a0, u0, u1), trade(&a1, u1, u0));
    assert_eq!(
        (t0.units.len(), t1.units.len()),
        (a0.units.len(), a1.units.len())
    );
    match merge(&[file("t0", &t0), file("t1", &t1)]) {
        Err(e @ MergeError::Store(StoreError::Foreign { .. })) => {
            let text = e.to_string();
            assert!(
                text.contains(&format!("unit {u1} is not one of the units of shard 0/2")),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// As many shards as the job has units (one unit each) merge; three replicas of a shard are
/// compared all together (one of them off is a disagreement).
#[test]
fn one_unit_a_shard_and_three_replicas() {
    let units = Job8::new(false, 1).plan.units().len() as u32;
    let j = Job8::new(false, units);
    let files: Vec<(PathBuf, ShardResult)> = (0..units)
        .map(|i| file(&format!("s{i}"), &j.result(i, "a")))
        .collect();
    assert_eq!(merge(&files).unwrap().counts.total, 92);
    let j = Job8::new(false, 2);
    let (a0, a1, b1, c1) = (
        j.result(0, "a"),
        j.result(1, "a"),
        j.result(1, "b"),
        j.result(1, "c"),
    );
    let m = merge(&[
        file("a0", &a0),
        file("a1", &a1),
        file("b1", &b1),
        file("c1", &c1),
    ])
    .unwrap();
    assert_eq!((m.counts.total, m.files, m.replicated), (92, 4, 1));
    let mut bad = c1.clone();
    bad.unit_totals.as_mut().unwrap()[0] += 1;
    bad.total += 1;
    bad.seal();
    let e = merge(&[
        file("a0", &a0),
        file("a1", &a1),
        file("b1", &b1),
        file("bad", &bad),
    ]);
    assert!(matches!(e, Err(MergeError::Disagree(_))), "{e:?}");
}

#[test]
fn sets_that_are_not_one_whole_job_are_refused() {
    let j = Job8::new(false, 3);
    let (a0, a1, a2) = (j.result(0, "a"), j.result(1, "a"), j.result(2, "a"));
    let set = |e: MergeError, want: &str| {
        assert_eq!(e.class(), Class::Request, "{e}");
        assert!(e.to_string().contains(want), "{e} lacks {want}");
    };
    set(merge(&[]).unwrap_err(), "no shard files given");
    set(
        merge(&[file("a0", &a0), file("a2", &a2)]).unwrap_err(),
        "1 of 3 shards missing: 1/3",
    );
    set(
        merge(&[file("a0", &a0), file("a0", &a1)]).unwrap_err(),
        "a0 is given twice",
    );
    // The same file by another name: given twice, not "a copy".
    set(
        merge(&[file("a0", &a0), file("./a0", &a0)]).unwrap_err(),
        "./a0 is given twice (also as a0)",
    );
    // Another job.
    let k = Job8 {
        plan: Plan::new(Job::new(8).unwrap().with_split_depth(3).unwrap()),
        counts: BTreeMap::new(),
        parts: vec![],
    };
    let mut other = a1.clone();
    other.identity = Identity::of(&k.plan);
    other.seal();
    set(
        merge(&[file("a0", &a0), file("other", &other), file("a2", &a2)]).unwrap_err(),
        "compared with a0: the split depth is 2 here but 3 in the file",
    );
    // Another number of shards.
    let two = Job8::new(false, 2).result(1, "a");
    set(
        merge(&[file("a0", &a0), file("two", &two)]).unwrap_err(),
        "it is shard 1/2 but the others are of 3",
    );
    // More shards than units; an identity no job has.
    let mut many = a0.clone();
    many.shard = ShardSpec {
        index: 0,
        count: a0.identity.units + 1,
    };
    many.seal();
    set(
        merge(&[file("many", &many)]).unwrap_err(),
        "shards, but the job has only",
    );
    let mut odd = a0.clone();
    odd.identity.units += 1;
    odd.seal();
    set(
        merge(&[file("odd", &odd)]).unwrap_err(),
        "no job of this program has its identity",
    );
}

/// Files of another program version of the same units merge (their assignment may differ, so
/// it is not checked), and then each unit must still be counted exactly once.
#[test]
fn files_of_another_version_merge_each_unit_once() {
    let j = Job8::new(false, 2);
    let older = |r: &ShardResult, units: &[u32]| {
        let done = units.iter().map(|&u| (u, j.counts[&u])).collect();
        let mut id = r.identity.clone();
        id.program_version = "0.0.1".into();
        let mut o = ShardResult::new(id, r.shard, &done, Duration::ZERO, 0.0);
        o.seal();
        o
    };
    let all: Vec<u32> = (0..j.plan.units().len() as u32).collect();
    let (lo, hi) = all.split_at(all.len() / 2);
    let (a0, a1) = (j.result(0, "a"), j.result(1, "a"));
    let m = merge(&[file("o0", &older(&a0, lo)), file("o1", &older(&a1, hi))]).unwrap();
    assert_eq!(m.counts.total, 92);
    let e = merge(&[
        file("o0", &older(&a0, lo)),
        file("o1", &older(&a1, &all[1..])),
    ])
    .unwrap_err();
    assert!(
        e.to_string()
            .contains(&format!("unit {} is in both o0 and o1", all[1])),
        "{e}"
    );
    let e = merge(&[
        file("o0", &older(&a0, &lo[1..])),
        file("o1", &older(&a1, hi)),
    ])
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("unit 0 is in none of the 2 shard files"),
        "{e}"
    );
}
