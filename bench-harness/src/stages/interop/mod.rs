//! The interop study (issue 40): other ecosystems' filter files, read by filterlab.
//!
//! - **Reads** ([`reads`]): a foreign file against a filterlab file of the same keys at the same
//!   rate, each read from its path into a queryable filter, in interleaved rounds (the page
//!   cache warm for both): Guava's `BloomFilter` (`GuavaBloom::load`) and RedisBloom's chain
//!   (`RedisBloom::load`) against filterlab's classic filter, a Parquet file's column-chunk
//!   filter (`ParquetFile::open`: the footer, then the filter) against filterlab's split-block
//!   filter (`AnyFilter::load`). The goal: reading a foreign filter costs at most what reading
//!   our own costs, per MB of filter. Both filters answer every member.
//! - **The count a Bloom filter's bits imply** ([`estimate`]): Guava filters built from
//!   disjoint slices of the run's members at a tenth of their capacity up to four times it,
//!   loaded from their bytes (no count recorded), their Swamidass & Baldi estimate against the
//!   true count in units of the documented spread, and the FP rate `filterlab info` reports at the
//!   estimate, `(X/m)^k`, against the rate measured on the run's strangers.

pub mod estimate;
pub mod reads;

use crate::plan::Ctx;
use crate::record::{Machine, Ratio};
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// The rate every filter of the study is sized for.
pub const TARGET_FPR: f64 = 0.01;

/// The study's sizes and loops.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Keys of the files whose reads are timed (the run's first members).
    pub read_keys: u64,
    /// Interleaved rounds of the reads.
    pub read_rounds: usize,
    /// The capacity the count-estimate filters are sized for.
    pub capacity: u64,
    /// Their fills, as shares of the capacity.
    pub fills: Vec<f64>,
    /// Filters (each from its own slice of members) at each fill.
    pub replicates: usize,
    /// Strangers asked of one filter per fill for its measured FP rate.
    pub probes: u64,
}

impl Settings {
    /// The committed study: 10M-key files, 20 filters of up to 200,000 keys at each of five fills.
    #[must_use]
    pub fn full(keys: u64) -> Self {
        Settings {
            read_keys: keys,
            read_rounds: 15,
            capacity: (keys / 200).max(100),
            fills: vec![0.1, 0.5, 1.0, 2.0, 4.0],
            replicates: 20,
            probes: keys / 2,
        }
    }

    /// The quick run's: the same steps, small.
    #[must_use]
    pub fn quick(keys: u64) -> Self {
        Settings {
            read_rounds: 3,
            replicates: 8,
            ..Settings::full(keys)
        }
    }

    /// Members the count-estimate filters take, all fills and replicates together.
    #[must_use]
    pub fn estimate_keys(&self) -> u64 {
        self.fills
            .iter()
            .map(|&f| self.fill_keys(f) * self.replicates as u64)
            .sum()
    }

    /// Keys a filter at `fill` holds.
    #[must_use]
    pub fn fill_keys(&self, fill: f64) -> u64 {
        (self.capacity as f64 * fill).round() as u64
    }
}

/// The study as written to `interop.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InteropReport {
    /// Where and how (the commit, the date and the study's wall time included).
    pub machine: Machine,
    /// Its sizes and loops.
    pub settings: Settings,
    /// Each foreign format's reads against filterlab's.
    pub reads: Vec<reads::ReadPair>,
    /// The count estimate at each fill.
    pub estimates: Vec<estimate::Fill>,
    /// The goals, computed from the figures (`crate::judge::targets::interop`).
    pub goals: Vec<Ratio>,
}

/// The study: the reads, then the count estimates (on the members after the reads' keys).
///
/// # Errors
/// Too few keys for the settings, a file that cannot be written or read, a member missed.
pub fn run(ctx: &Ctx<'_>, settings: Settings, machine: Machine) -> Result<InteropReport> {
    let need = settings.read_keys.max(settings.estimate_keys()) as usize;
    anyhow::ensure!(
        need <= ctx.members.len() && (settings.probes as usize) <= ctx.probes.len(),
        "the interop study needs {need} members and {} strangers",
        settings.probes
    );
    let reads = reads::measure(ctx, &settings)?;
    let estimates = estimate::measure(ctx, &settings)?;
    Ok(InteropReport {
        machine,
        settings,
        reads,
        estimates,
        goals: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
