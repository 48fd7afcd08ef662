//! `nqueens merge`: adds up the result files of the shards of one job, comparing replicas.

use super::{Exit, Result};
use clap::Args;
use nqueens_count::longrun::{self, MergeError};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

/// Sum the shard result files of one job into its count, every shard and unit checked.
///
/// Checks that FILEs are all M shard results of one job, every unit exactly once, and prints
/// the total. Several files of one shard (replicas, computed apart) must agree unit by unit, and
/// then count once; if they differ, the units, counts and hosts are listed, no total is printed,
/// and the exit code is 1.
#[derive(Args, Debug)]
#[command(after_help = "Examples:\n  \
    nqueens merge shards/*.json                   # the job's count, every shard checked\n  \
    nqueens merge shards/*.json --json")]
pub struct MergeArgs {
    /// Shard result files, written by `nqueens count N --shard I/M --out FILE`; replicas of a
    /// shard under distinct names (one path given twice, or a copy of a file, is refused).
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
    /// Wall time summed over the files, in seconds.
    shard_seconds: f64,
    /// Files read (shards and their replicas).
    files: usize,
    /// Shards given more than once whose results agreed.
    replicated_shards: u32,
    /// Of those, the shards whose results came from more than one host.
    replicated_across_hosts: u32,
}

/// The most disagreements listed on stderr.
const SHOWN: usize = 50;

pub fn run(args: &MergeArgs) -> Result<Exit> {
    let m = match longrun::merge_files(&args.files) {
        Ok(m) => m,
        Err(MergeError::Store(e)) => return Err(e.into()),
        Err(MergeError::Set(e)) => return Err(e.into()),
        Err(MergeError::Disagree(list)) => {
            let shards: std::collections::BTreeSet<_> = list.iter().map(|d| d.shard).collect();
            note!(
                "nqueens: replicas disagree on {} unit(s) of {} shard(s): a machine counted \
                 wrong, and there is no total; `nqueens audit --sample 1 FILE` recounts a file",
                list.len(),
                shards.len()
            );
            for d in list.iter().take(SHOWN) {
                // Paths and hosts come from the files: escaped, never sent raw to a terminal.
                note!("nqueens:   {}", super::escape(&d.to_string()));
            }
            if list.len() > SHOWN {
                note!("nqueens:   ... and {} more", list.len() - SHOWN);
            }
            return Ok(Exit::Disagreed);
        }
        Err(e @ MergeError::Mismatch { .. }) => {
            note!(
                "nqueens: {}; a machine counted wrong, and there is no total: `nqueens audit \
                 FILE...` recounts a sample of each file's units and names the wrong ones",
                super::escape(&e.to_string())
            );
            return Ok(Exit::Disagreed);
        }
    };
    if m.replicated > 0 {
        note!(
            "nqueens: {} of {} shards confirmed by a replica ({} of them from another host)",
            m.replicated,
            m.shards,
            m.replicated_across_hosts
        );
    }
    let id = &m.identity;
    let mut out = Vec::new();
    if args.json {
        let j = MergeJson {
            n: id.n,
            total: m.counts.total,
            unique: id.unique.then_some(m.counts.unique),
            method: id.plan_method.clone(),
            split_depth: id.split_depth,
            units: id.units,
            shards: m.shards,
            shard_seconds: super::report::seconds(m.elapsed),
            files: m.files,
            replicated_shards: m.replicated,
            replicated_across_hosts: m.replicated_across_hosts,
        };
        serde_json::to_writer(&mut out, &j)?;
        writeln!(out)?;
    } else if id.unique {
        writeln!(out, "{} {}", m.counts.total, m.counts.unique)?;
    } else {
        writeln!(out, "{}", m.counts.total)?;
    }
    // The total is kept nowhere else: standard output that cannot take it (a closed pipe
    // included) is a failure, with the total in the message.
    let mut stdout = super::stdout();
    if let Err(e) = stdout.write_all(&out).and_then(|()| stdout.flush()) {
        let text = String::from_utf8_lossy(&out);
        return Err(
            super::Undelivered(format!("{e}; the merged count was {}", text.trim_end())).into(),
        );
    }
    Ok(Exit::Done)
}
