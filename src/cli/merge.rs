//! `nqueens merge`: adds up the result files of the shards of one job.

use anyhow::Result;
use clap::Args;
use nqueens::longrun;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Check that FILEs are all M shard results of one job, each exactly once, and print the total.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Shard result files, written by `nqueens count N --shard I/M --out FILE`.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Print one JSON object instead of the bare count.
    #[arg(long)]
    json: bool,
}

/// The JSON form of a merged count.
#[derive(Serialize)]
struct MergeJson {
    n: u32,
    total: u128,
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<u128>,
    method: String,
    split_depth: u32,
    units: u32,
    shards: u32,
    /// Wall time summed over the shards, in seconds.
    shard_seconds: f64,
}

pub fn run(args: &MergeArgs) -> Result<ExitCode> {
    let m = longrun::merge_files(&args.files)?;
    let id = &m.identity;
    let mut out = std::io::stdout().lock();
    if args.json {
        let j = MergeJson {
            n: id.n,
            total: m.counts.total,
            unique: id.unique.then_some(m.counts.unique),
            method: id.plan_method.clone(),
            split_depth: id.split_depth,
            units: id.units,
            shards: m.shards,
            shard_seconds: m.elapsed.as_secs_f64(),
        };
        serde_json::to_writer(&mut out, &j)?;
        writeln!(out)?;
    } else if id.unique {
        writeln!(out, "{} {}", m.counts.total, m.counts.unique)?;
    } else {
        writeln!(out, "{}", m.counts.total)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
