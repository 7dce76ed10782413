//! The count a Bloom filter's set bits imply, against the true count (issue 40, item 5).
//!
//! At each fill, `replicates` Guava filters sized for the same capacity at 1% each take their
//! own slice of the run's members (no key in two filters), are written to bytes and read back
//! (a Guava file records no count), and give their Swamidass & Baldi estimate
//! ([`GuavaBloom::estimated_count`]). The first filter of each fill is also asked the run's
//! strangers, for its measured FP rate beside the rate `filterlab info` reports at the estimate.

use super::{Settings, TARGET_FPR};
use crate::plan::Ctx;
use anyhow::Result;
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::math::{bloom_count_estimate_sd, bloom_fpr_at_fill};
use filterlab::Filter;
use serde::{Deserialize, Serialize};

/// The figures of one fill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fill {
    /// Keys over the capacity.
    pub fill: f64,
    /// Keys each filter holds: the true count.
    pub keys: u64,
    /// Bits, `m`.
    pub bits: u64,
    /// Hash functions, `k`.
    pub hashes: u32,
    /// Each filter's estimate, in the order they were built.
    pub estimates: Vec<f64>,
    /// Bits set in the first filter.
    pub ones: u64,
    /// Strangers the first filter reported present.
    pub false_positives: u64,
    /// Strangers asked of it.
    pub probes: u64,
}

impl Fill {
    /// The documented spread of the estimate at the true count
    /// ([`filterlab::math::bloom_count_estimate_sd`]).
    #[must_use]
    pub fn documented_sd(&self) -> f64 {
        bloom_count_estimate_sd(self.bits, self.hashes, self.keys as f64)
    }

    /// The rate at the first filter's estimate, `(X/m)^k`: what `filterlab info` reports.
    #[must_use]
    pub fn reported_fpr(&self) -> f64 {
        bloom_fpr_at_fill(self.bits, self.hashes, self.ones).unwrap_or(f64::NAN)
    }

    /// Each estimate's error in units of the documented spread.
    #[must_use]
    pub fn z_scores(&self) -> Vec<f64> {
        let sd = self.documented_sd();
        self.estimates
            .iter()
            .map(|e| (e - self.keys as f64) / sd)
            .collect()
    }
}

/// One filter of `keys` members from `start`, read back from its bytes.
fn filter(ctx: &Ctx<'_>, capacity: u64, start: usize, keys: usize) -> Result<GuavaBloom> {
    let mut g = GuavaBloom::new(capacity, TARGET_FPR, Strategy::Murmur128Mitz64)?;
    (start..start + keys).try_for_each(|i| g.insert(ctx.members.get(i)))?;
    Ok(GuavaBloom::from_bytes(&g.to_bytes())?)
}

/// Every fill's figures.
///
/// # Errors
/// A filter that cannot be built, or a member it misses.
pub fn measure(ctx: &Ctx<'_>, settings: &Settings) -> Result<Vec<Fill>> {
    let mut next = 0usize;
    let mut fills = Vec::new();
    for &fill in &settings.fills {
        let keys = settings.fill_keys(fill) as usize;
        let mut estimates = Vec::with_capacity(settings.replicates);
        let mut first = None;
        for _ in 0..settings.replicates {
            let g = filter(ctx, settings.capacity, next, keys)?;
            anyhow::ensure!(
                (next..next + keys).all(|i| g.contains(ctx.members.get(i))),
                "a Guava filter read back from its bytes missed a member"
            );
            next += keys;
            estimates.push(g.estimated_count());
            first.get_or_insert(g);
        }
        let g = first.expect("at least one replicate");
        let probes = settings.probes as usize;
        let false_positives = (0..probes)
            .filter(|&i| g.contains(ctx.probes.get(i)))
            .count() as u64;
        fills.push(Fill {
            fill,
            keys: keys as u64,
            bits: g.bits(),
            hashes: g.hashes(),
            estimates,
            ones: g.ones(),
            false_positives,
            probes: probes as u64,
        });
    }
    Ok(fills)
}
