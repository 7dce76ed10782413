//! What the quotient filter's test binaries share: a filter whose hasher is seeded, so that each
//! test names its seed and a rerun probes the same slots.

use filter_core::{HashKind, KeyHasher};
use filter_quotient::QuotientFilter;

/// A quotient filter for `capacity` items at rate `fpr`, hashing with XXH3-128 under `seed`.
pub fn filter(capacity: u64, fpr: f64, seed: u64) -> QuotientFilter {
    QuotientFilter::builder()
        .capacity(capacity)
        .fpr(fpr)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, seed).unwrap())
        .build()
        .unwrap()
}
