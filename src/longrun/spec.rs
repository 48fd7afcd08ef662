//! Which shard of a job a run computes: `I/M`, numbered from 0 as Slurm numbers the tasks of an
//! array.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Shard `index` of `count` (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShardSpec {
    /// Which shard, `0..count`.
    pub index: u32,
    /// How many shards the job is split into.
    pub count: u32,
}

impl ShardSpec {
    /// The whole job, as its one shard: what a run with a result file and no shard writes.
    pub const WHOLE: ShardSpec = ShardSpec { index: 0, count: 1 };

    /// The units of `plan` this shard computes, ascending: every machine assigns them alike,
    /// from the units' estimated costs ([`crate::Plan::costs`]), greedy longest first.
    ///
    /// ```
    /// use nqueens_count::longrun::ShardSpec;
    /// use nqueens_count::{Job, Plan};
    ///
    /// let plan = Plan::new(Job::new(12)?.with_split_depth(2)?);
    /// let shards: Vec<Vec<u32>> = (0..3).map(|index| ShardSpec { index, count: 3 }.units(&plan)).collect();
    /// let mut all: Vec<u32> = shards.concat();
    /// all.sort_unstable();
    /// assert_eq!(all, (0..plan.units().len() as u32).collect::<Vec<_>>());
    /// # Ok::<(), nqueens_count::Error>(())
    /// ```
    pub fn units(&self, plan: &crate::Plan) -> Vec<u32> {
        let mut units =
            super::assign::assign(&plan.costs(), self.count).swap_remove(self.index as usize);
        units.sort_unstable();
        units
    }
}

/// Why a text is not a shard `I/M`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ShardSpecError {
    /// Not two whole numbers around a slash.
    #[error("'{0}' is not a shard I/M with 0 <= I < M (for example 3/8)")]
    Form(String),
    /// No shard at all.
    #[error("'{0}': a job is split into one shard at least")]
    NoShards(String),
    /// An index past the last shard.
    #[error("there is no shard {index} of {count}: shards are numbered 0 to {}", count - 1)]
    Index {
        /// The index given.
        index: u32,
        /// The shards.
        count: u32,
    },
}

impl crate::Classify for ShardSpecError {
    fn class(&self) -> crate::Class {
        crate::Class::Request
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = ShardSpecError;
    /// Parses `I/M` with `0 <= I < M`.
    fn from_str(s: &str) -> Result<Self, ShardSpecError> {
        let shown = super::envelope::short(&s.escape_debug().to_string());
        let bad = || ShardSpecError::Form(shown.clone());
        let (i, m) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = m.trim().parse().map_err(|_| bad())?;
        match count {
            0 => Err(ShardSpecError::NoShards(shown)),
            _ if index >= count => Err(ShardSpecError::Index { index, count }),
            _ => Ok(ShardSpec { index, count }),
        }
    }
}

// Stored as the string "I/M": readable in a file and in a log.
impl Serialize for ShardSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ShardSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_specs_parse() {
        let s: ShardSpec = "3/8".parse().unwrap();
        assert_eq!((s.index, s.count), (3, 8));
        assert_eq!(s.to_string(), "3/8");
        assert_eq!(" 0 / 1 ".parse::<ShardSpec>(), Ok(ShardSpec::WHOLE));
        for bad in ["1", "a/2", "-1/3", "1/2/3", ""] {
            assert!(
                matches!(bad.parse::<ShardSpec>(), Err(ShardSpecError::Form(_))),
                "{bad}"
            );
        }
        assert_eq!(
            "8/8".parse::<ShardSpec>(),
            Err(ShardSpecError::Index { index: 8, count: 8 })
        );
        assert_eq!(
            "8/8".parse::<ShardSpec>().unwrap_err().to_string(),
            "there is no shard 8 of 8: shards are numbered 0 to 7"
        );
        assert!(matches!(
            "0/0".parse::<ShardSpec>(),
            Err(ShardSpecError::NoShards(_))
        ));
    }
}
