//! `nqueens status`: how far a sharded job is, from its files alone (a Slurm array or GNU
//! parallel's folder, or the files given one by one). Read-only.

use super::{Exit, Result};
use clap::Args;
use nqueens_count::longrun::{self, clock, Status};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Show how far a sharded job is, from its result files and checkpoints.
///
/// Says the shards finished, stopped part way and not started, the units and the estimated
/// work done, the time spent and the time left.
///
/// Reads the folders (as scripts/slurm/ and scripts/gnu-parallel.sh lay them out) or files
/// given, and never writes or locks anything: safe beside live runs.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens status ~/q21                  # the folder of a Slurm array or GNU parallel run\n  \
    nqueens status ~/q21 --json | jq .estimated_share_done\n  \
    nqueens status s0.json s1.ckpt        # files given one by one")]
pub struct StatusArgs {
    /// Folders holding the job's result files and checkpoints, or the files themselves.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Print one JSON object instead of lines.
    #[arg(long)]
    json: bool,
}

/// The JSON form of a job's status.
#[derive(Serialize)]
struct StatusJson {
    n: u32,
    method: String,
    split_depth: u32,
    /// The job's shards.
    shards: u32,
    /// The shards finished (a result file), by index.
    finished: Vec<u32>,
    /// The shards stopped part way (a checkpoint, no result file).
    stopped: Vec<StoppedJson>,
    /// The shards not started (no file), by index.
    not_started: Vec<u32>,
    units_done: usize,
    units: usize,
    /// The share of the job's estimated work done (by the units' estimated costs).
    estimated_share_done: f64,
    /// Wall time summed over the shards, in seconds.
    shard_seconds: f64,
    /// Shard time still to spend at the rate so far, in seconds (`null` before any work).
    remaining_shard_seconds: Option<f64>,
    /// Seconds until the last shard is done, once every shard left runs at a known rate.
    eta_s: Option<f64>,
    files: usize,
}

#[derive(Serialize)]
struct StoppedJson {
    shard: u32,
    units_done: usize,
    units: usize,
    share_done: f64,
    seconds: f64,
}

/// Seconds to the microsecond, as every JSON output writes them.
fn secs(d: Duration) -> f64 {
    super::report::seconds(d)
}

/// A share to the thousandth of a percent.
fn share(x: f64) -> f64 {
    (x * 1e5).round() / 1e5
}

pub fn run(args: &StatusArgs) -> Result<Exit> {
    let s = longrun::status(&args.paths)?;
    let mut out = super::stdout();
    if args.json {
        serde_json::to_writer(&mut out, &json(&s))?;
        writeln!(out)?;
    } else {
        for line in lines(&s) {
            writeln!(out, "{line}")?;
        }
    }
    out.flush()?;
    Ok(Exit::Done)
}

fn json(s: &Status) -> StatusJson {
    StatusJson {
        n: s.identity.n,
        method: s.identity.plan_method.clone(),
        split_depth: s.identity.split_depth,
        shards: s.shards,
        finished: s.finished.clone(),
        stopped: s
            .stopped
            .iter()
            .map(|p| StoppedJson {
                shard: p.shard,
                units_done: p.units_done,
                units: p.units,
                share_done: share(p.share_done),
                seconds: secs(p.elapsed),
            })
            .collect(),
        not_started: s.not_started.clone(),
        units_done: s.units_done,
        units: s.units,
        estimated_share_done: share(s.estimated_share_done),
        shard_seconds: secs(s.shard_time),
        remaining_shard_seconds: s.remaining_shard_time.map(secs),
        eta_s: s.eta.map(secs),
        files: s.files,
    }
}

/// Shard indices in words: "0, 3, 5" (the first 20, then how many more).
fn indices(list: &[u32]) -> String {
    let mut words: Vec<String> = list.iter().take(20).map(u32::to_string).collect();
    if list.len() > 20 {
        words.push(format!("and {} more", list.len() - 20));
    }
    words.join(", ")
}

/// The status in lines of text.
fn lines(s: &Status) -> Vec<String> {
    let id = &s.identity;
    let unique = if id.unique {
        ", with unique counts"
    } else {
        ""
    };
    let mut lines = vec![format!(
        "job: N = {}, {}, split depth {}{unique}: {} shards, {} units ({} files read)",
        id.n, id.plan_method, id.split_depth, s.shards, s.units, s.files
    )];
    let mut shards = vec![format!("{} finished", s.finished.len())];
    if !s.finished.is_empty() {
        shards[0].push_str(&format!(" ({})", indices(&s.finished)));
    }
    let stopped: Vec<String> = s
        .stopped
        .iter()
        .take(20)
        .map(|p| format!("{}: {} of {} units", p.shard, p.units_done, p.units))
        .collect();
    shards.push(format!("{} stopped part way", s.stopped.len()));
    if !stopped.is_empty() {
        shards[1].push_str(&format!(" ({})", stopped.join(", ")));
    }
    shards.push(format!("{} not started", s.not_started.len()));
    if !s.not_started.is_empty() {
        shards[2].push_str(&format!(" ({})", indices(&s.not_started)));
    }
    lines.push(format!("shards: {}", shards.join("; ")));
    lines.push(format!(
        "done: {} of {} units, {:.1}% of the estimated work",
        s.units_done,
        s.units,
        s.estimated_share_done * 100.0
    ));
    let left = match s.remaining_shard_time {
        Some(d) => format!("about {} still to spend", clock(d)),
        None => "no unit done yet to tell the rate".into(),
    };
    let eta = match (s.eta, s.not_started.len()) {
        (Some(d), _) => format!("ETA {}", clock(d)),
        (None, 0) => "ETA ? (a stopped shard has no unit done yet)".into(),
        (None, 1) => "ETA ? (a shard not started)".into(),
        (None, k) => format!("ETA ? ({k} shards not started)"),
    };
    lines.push(format!(
        "time: {} of shard time spent, {left}; {eta}",
        clock(s.shard_time)
    ));
    lines
}
