//! The size sweep study: lookup cost against filter size, from cache-resident to memory-resident
//! (10^4 to 10^7 keys, or 10^8 with `--large`), every variant at 1%, each built once (its build
//! cost is the main job's, timed in interleaved rounds) and measured by
//! [`crate::stages::matrix::size_sweep`]. Written to `sweep.json` and `sweep.md` with two plots.

use crate::record::{Machine, Record};
use serde::{Deserialize, Serialize};

/// The rate every filter of the sweep is built for.
pub const TARGET_FPR: f64 = 0.01;

/// The sweep as written to `sweep.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SweepReport {
    /// Where and how (the commit, the date and the study's wall time included).
    pub machine: Machine,
    /// The sizes, in keys.
    pub sizes: Vec<usize>,
    /// One row per variant and size (scenario `size_sweep`).
    pub records: Vec<Record>,
}

/// Sizes of the sweep: powers of ten from 10^4 up to `top`, and `top` itself.
#[must_use]
pub fn sizes(top: usize) -> Vec<usize> {
    let mut sizes: Vec<usize> = (4..=8)
        .map(|e| 10usize.pow(e))
        .filter(|&s| s <= top)
        .collect();
    if sizes.last() != Some(&top) {
        sizes.push(top);
    }
    sizes
}
