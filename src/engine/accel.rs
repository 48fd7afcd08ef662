//! OpenCL devices as workers of the engine: a device takes a batch of units from the shared
//! queue, counts their counted parts ([`crate::plan::count_part`]) as many small sub-problems in
//! one launch, and hands each unit that still has searches to classify to the CPU workers.

use crate::error::{Error, Result};
use crate::plan::{count_part, Plan};
use crate::search::opencl::{self, Counter, DeviceInfo, DeviceKind, OpenClError, RowSpec, Sub};
use crate::search::{Counts, Unit};
use std::collections::HashMap;
use std::ops::Range;

/// Which OpenCL devices an engine counts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Devices {
    /// None: every unit on the CPU workers.
    #[default]
    Cpu,
    /// OpenCL device `index` (of [`crate::engine::opencl::devices`], any type) takes every
    /// unit; the CPU workers only classify the solutions that need it (d4's tied parts,
    /// unique counts of plain and mirror).
    Only(usize),
    /// OpenCL device `index` (any type) beside the CPU workers: both take units from one
    /// queue, as each GPU does with [`Devices::Gpus`].
    Beside(usize),
    /// Every OpenCL GPU, beside the CPU workers: both take units from one queue. With no GPU
    /// (or no OpenCL), the CPU workers do everything and [`crate::Engine::device_note`] says
    /// why.
    Gpus,
}

/// Sub-problems a part is split into before a launch, at least (unless it is small).
const SUBS_PER_PART: usize = 2048;

/// Rows a sub-problem keeps to search, at least: expansion stops there.
const MIN_ROWS_LEFT: u32 = 9;

/// Sub-problems per launch a device worker aims at; it takes units until it has this many.
pub(crate) const SUBS_PER_BATCH: usize = 1 << 18;

/// Opens the devices `which` asks for, building the kernels once each. For [`Devices::Gpus`],
/// no GPU is not an error: the list is empty and the note says why.
pub(crate) fn open(which: Devices) -> Result<(Vec<Counter>, Option<String>)> {
    match which {
        Devices::Cpu => Ok((Vec::new(), None)),
        Devices::Only(index) | Devices::Beside(index) => {
            Ok((vec![Counter::new(index).map_err(to_error)?], None))
        }
        Devices::Gpus => {
            let list = match opencl::devices() {
                Ok(list) => list,
                Err(e) if e.is_unavailable() => return Ok((Vec::new(), Some(e.to_string()))),
                Err(e) => return Err(to_error(e)),
            };
            let gpus: Vec<&DeviceInfo> =
                list.iter().filter(|d| d.kind == DeviceKind::Gpu).collect();
            if gpus.is_empty() {
                let others: Vec<String> = list
                    .iter()
                    .map(|d| format!("{} ({})", d.name, d.kind))
                    .collect();
                return Ok((
                    Vec::new(),
                    Some(format!(
                        "no OpenCL GPU found (other OpenCL devices: {}; use --kernel opencl \
                         --opencl-device I for one of them)",
                        others.join(", ")
                    )),
                ));
            }
            let counters = gpus
                .iter()
                .map(|d| Counter::new(d.index).map_err(to_error))
                .collect::<Result<Vec<_>>>()?;
            Ok((counters, None))
        }
    }
}

/// The library's error for an OpenCL one: a usage error when there is no such device.
pub(crate) fn to_error(e: OpenClError) -> Error {
    if e.is_unavailable() || matches!(e, OpenClError::NoSuchDevice { .. }) {
        Error::NoDevice(format!("cannot count on OpenCL: {e}"))
    } else {
        Error::Device(e.to_string())
    }
}

/// A batch of units prepared for one launch.
#[derive(Default)]
pub(crate) struct Batch {
    /// The rows specs of the batch, each once.
    table: Vec<RowSpec>,
    index_of: HashMap<RowSpec, u32>,
    /// All sub-problems.
    subs: Vec<Sub>,
    /// Per unit: its index, the sub-problems of its counted part and what one completion adds.
    units: Vec<(u32, Range<usize>, Counts)>,
    scratch: Vec<Sub>,
}

impl Batch {
    /// Empties the batch, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
        self.index_of.clear();
        self.subs.clear();
        self.units.clear();
    }

    /// How many sub-problems the batch holds.
    pub(crate) fn subs(&self) -> usize {
        self.subs.len()
    }

    /// Adds `unit`: its counted part, split into sub-problems (none if it has no such part).
    pub(crate) fn push(&mut self, plan: &Plan, unit: &Unit) {
        let n = plan.job().n();
        let start = self.subs.len();
        let Some(part) = count_part(plan, unit) else {
            self.units
                .push((unit.index, start..start, Counts::default()));
            return;
        };
        let (root, spec) = part.sub_problem(0);
        let next_index = self.table.len() as u32;
        let spec_index = *self.index_of.entry(spec).or_insert(next_index);
        if spec_index == next_index {
            self.table.push(spec);
        }
        let root = Sub {
            rows: spec_index,
            ..root
        };
        // Place rows one at a time until the part is in enough pieces or the pieces are small.
        let mut level = std::mem::take(&mut self.scratch);
        level.clear();
        level.push(root);
        let mut first = root.first;
        while level.len() < SUBS_PER_PART && n - first > MIN_ROWS_LEFT {
            let before = self.subs.len();
            for &sub in &level {
                opencl::expand_into(n, &spec, sub, 1, &mut self.subs);
            }
            level.clear();
            level.extend(self.subs.drain(before..));
            first += 1;
            if level.is_empty() {
                break;
            }
        }
        self.subs.extend_from_slice(&level);
        self.scratch = level;
        self.units
            .push((unit.index, start..self.subs.len(), part.counts(1)));
    }

    /// Counts the batch on `counter`: per unit, its index and the counts of its counted part.
    pub(crate) fn count(
        &self,
        counter: &mut Counter,
        n: u32,
    ) -> std::result::Result<Vec<(u32, Counts)>, OpenClError> {
        let found = counter.count(n, &self.table, &self.subs)?;
        Ok(self
            .units
            .iter()
            .map(|(index, range, each)| {
                let completions: u128 = found[range.clone()].iter().map(|&c| u128::from(c)).sum();
                let counts = Counts {
                    total: each.total * completions,
                    unique: each.unique * completions,
                };
                (*index, counts)
            })
            .collect())
    }
}
