//! The size of shard result files with per-unit records (format 2):
//! `cargo run --release --example result_sizes -- [N [M [BIG]]]` (default 17 1000 27).
//!
//! Counts N (with unique) at the split depth that M shards take by default, keeps every unit's
//! counts, and writes the M result files in memory: their bytes per unit, measured. Then, for
//! N = BIG split into M shards at that depth (not counted: far too long), builds the real split
//! and unit indices and gives each unit the counts of the unit of N at the same index modulo
//! N's unit count, scaled by the ratio of the mean counts per unit (published total over the
//! number of units); so the digits follow N's spread of counts around BIG's mean. The files are
//! serialized as the program writes them, and their bytes reported, beside the same files
//! without per-unit records (format 1), with and without unique counts.

use nqueens_count::known::published;
use nqueens_count::longrun::Identity;
use nqueens_count::longrun::Run;
use nqueens_count::longrun::Watch;
use nqueens_count::longrun::{ShardResult, ShardSpec};
use nqueens_count::{Cancel, Counts, Engine, Job, Plan, UnitTiming};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

struct Collect(BTreeMap<u32, Counts>);
impl Watch for Collect {
    fn wants_progress(&self) -> bool {
        false
    }
    fn unit_done(&mut self, index: u32, c: Counts, _: &UnitTiming) {
        self.0.insert(index, c);
    }
}

/// The plan of N (with unique counts or not) at the default depth of `m` shards.
fn plan(n: u32, m: u32, unique: bool) -> Plan {
    let (method, depth) = Run::defaults(n, None, None, Some(m));
    let job = Job::new(n).unwrap().with_method(method).with_unique(unique);
    Plan::new(job.with_split_depth(depth.unwrap()).unwrap())
}

/// Bytes of the `m` result files of `plan` with per-unit `counts`: (format 2, format 1).
fn sizes(plan: &Plan, m: u32, counts: &BTreeMap<u32, Counts>) -> (usize, usize, usize) {
    let (mut v2, mut v1, mut largest) = (0, 0, 0);
    for index in 0..m {
        let spec = ShardSpec { index, count: m };
        let part = spec.units(plan);
        let done: BTreeMap<u32, Counts> = part.iter().map(|&u| (u, counts[&u])).collect();
        let mut r = ShardResult::new(Identity::of(plan), spec, &done, Duration::ZERO, 0.0);
        let bytes = r.to_bytes().len();
        (v2, largest) = (v2 + bytes, largest.max(bytes));
        (r.format_version, r.unit_totals, r.unit_uniques, r.run_id) = (1, None, None, None);
        r.seal();
        v1 += r.to_bytes().len();
    }
    (v2, v1, largest)
}

fn main() {
    let a: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = a.first().copied().unwrap_or(17);
    let m = a.get(1).copied().unwrap_or(1000);
    let big = a.get(2).copied().unwrap_or(27);

    let small = Arc::new(plan(n, m, true));
    let engine = Engine::new(num_cpus::get()).unwrap();
    let mut seen = Collect(BTreeMap::new());
    engine
        .count_with(small.job(), &mut seen, &Cancel::new())
        .unwrap();
    let counts = seen.0;
    let units = counts.len();
    let total: u128 = counts.values().map(|c| c.total).sum();
    assert_eq!(total, published(n).unwrap().total, "N = {n} miscounted");
    let (v2, v1, largest) = sizes(&small, m, &counts);
    println!(
        "N = {n}, {m} shards, depth {}: {units} units; format 2: {v2} bytes ({:.1} per unit, \
         largest file {largest}); format 1: {v1} bytes; per-unit records {:.1} bytes per unit",
        small.job().split_depth(),
        v2 as f64 / units as f64,
        (v2 - v1) as f64 / units as f64
    );

    let large = plan(big, m, true);
    let big_units = large.units().len();
    let p = published(big).expect("a published count");
    let scale = |c: u128, of: u128| -> f64 {
        (of as f64 / big_units as f64) / (c.max(1) as f64 / units as f64)
    };
    let (st, su) = (scale(total, p.total), {
        let u: u128 = counts.values().map(|c| c.unique).sum();
        scale(u, p.unique)
    });
    let ordered: Vec<Counts> = counts.values().copied().collect();
    let scaled: BTreeMap<u32, Counts> = (0..big_units as u32)
        .map(|j| {
            let c = ordered[j as usize % units];
            (
                j,
                Counts {
                    total: (c.total as f64 * st).round() as u128,
                    unique: (c.unique as f64 * su).round() as u128,
                },
            )
        })
        .collect();
    let (v2, v1, largest) = sizes(&large, m, &scaled);
    println!(
        "N = {big}, {m} shards, depth {}: {big_units} units; format 2: {v2} bytes ({:.1} per \
         unit, {} per file on average, largest {largest}); format 1: {v1} bytes; per-unit \
         records {:.1} bytes per unit (counts of N = {n} scaled by {st:.3e})",
        large.job().split_depth(),
        v2 as f64 / big_units as f64,
        v2 / m as usize,
        (v2 - v1) as f64 / big_units as f64
    );
    let (v2, v1, largest) = sizes(&plan(big, m, false), m, &scaled);
    println!(
        "N = {big} without unique counts: format 2: {v2} bytes ({:.1} per unit, largest file \
         {largest}); format 1: {v1} bytes; per-unit records {:.1} bytes per unit",
        v2 as f64 / big_units as f64,
        (v2 - v1) as f64 / big_units as f64
    );
}
