//! The variants under test, taken from the facade's registry ([`filterlab::any`]): the matrix
//! measures every row filled by inserts whose realised parameters the results model can
//! record ([`Shaped::shape`]); this file lists no variant of its own.

use filterlab::any::Params as BuildParams;
pub use filterlab::{AnyFilter, Variant};
use filterlab::{Filter, HashKind, KeyHasher, Result};

/// Hash seed of the counting filters (every other filter uses seed 0).
pub const COUNTING_SEED: u64 = 1;

/// The variants the matrix, the scenarios and the builds measure, in registry order: every
/// row filled by inserts (static and windowed rows are built and measured otherwise) whose
/// realised parameters [`Shaped::shape`] can record.
#[must_use]
pub fn measured() -> Vec<Variant> {
    Variant::ALL
        .iter()
        .copied()
        .filter(|v| {
            let c = v.capabilities();
            !c.static_set && !c.windowed
        })
        .filter(|&v| build(v, 64, 0.01).ok().is_some_and(|f| f.shape().is_some()))
        .collect()
}

/// A filter of `variant` for `n` items at rate `p`, through the registry's builder.
///
/// # Errors
/// Invalid parameters.
pub fn build(variant: Variant, n: u64, p: f64) -> Result<AnyFilter> {
    let mut params = BuildParams::new(n, p);
    // Another seed than the classic filter's for the counting one: with the same one both
    // would set the same positions and report the very same false positives, which would
    // make the counting row a copy of the classic row instead of an independent measurement.
    if variant == Variant::Counting {
        params = params.hasher(KeyHasher::new(HashKind::Xxh3_128, COUNTING_SEED)?);
    }
    AnyFilter::build(variant, &params)
}

/// A registry parameter as the report's short description writes it.
fn value_text(v: filterlab::any::Value) -> String {
    use filterlab::any::Value;
    match v {
        Value::Count(c) => c.to_string(),
        Value::Ratio(r) => format!("{r:.4}"),
        Value::Rate(r) => filterlab::math::format_real(r),
    }
}

/// What the harness records about a filter beyond the [`Filter`] trait: its realised
/// parameters, typed, and the formulas the report shows beside its `expected_fpr`.
pub trait Shaped {
    /// The exact classic-filter rate where the variant is Bloom-shaped, for the report's
    /// "exact" column (`None` for the others, whose `expected_fpr` is already their formula).
    fn exact_fpr(&self) -> Option<f64>;
    /// The standard approximation at the realised parameters.
    fn approx_fpr(&self) -> f64;
    /// The realised parameters, typed (`None` for a variant the results model has no
    /// parameters for: the matrix does not measure it).
    fn shape(&self) -> Option<crate::record::Params>;
    /// A short description of the realised parameters (`m=…, k=…`, `f=…, buckets=…`).
    fn params(&self) -> String;
}

impl Shaped for AnyFilter {
    fn exact_fpr(&self) -> Option<f64> {
        match self {
            AnyFilter::Classic(f) => {
                filterlab::math::classic_fpr_exact(f.bits(), f.len(), f.hashes())
            }
            AnyFilter::Counting(f) => {
                filterlab::math::classic_fpr_exact(f.counters(), f.len(), f.hashes())
            }
            _ => None,
        }
    }

    fn approx_fpr(&self) -> f64 {
        use filterlab::math;
        match self {
            AnyFilter::Classic(f) => math::classic_fpr(f.bits(), f.len(), f.hashes()),
            AnyFilter::Counting(f) => math::classic_fpr(f.counters(), f.len(), f.hashes()),
            AnyFilter::Scalable(f) => f.expected_fpr(),
            AnyFilter::Cuckoo(f) => f.expected_fpr(),
            // The 256-bit-block model, shown beside the per-lane formula it underestimates.
            AnyFilter::Blocked(f) => {
                filterlab::math::split_block_fpr_block_model(f.blocks(), f.len())
            }
            other => other.expected_fpr(),
        }
    }

    fn shape(&self) -> Option<crate::record::Params> {
        use crate::record::Params;
        Some(match self {
            AnyFilter::Classic(f) => Params::Classic {
                m: f.bits(),
                k: f.hashes(),
            },
            AnyFilter::Counting(f) => Params::Counting {
                m: f.counters(),
                k: f.hashes(),
            },
            AnyFilter::Scalable(f) => Params::Scalable {
                stages: f
                    .stage_shapes()
                    .into_iter()
                    .map(|(m, k, _, len)| (m, k, len))
                    .collect(),
            },
            AnyFilter::Cuckoo(f) => Params::Cuckoo {
                buckets: f.buckets(),
                slots: filterlab::cuckoo::SLOTS,
                fp_bits: f.fingerprint_bits(),
            },
            AnyFilter::Blocked(f) => Params::Blocked { blocks: f.blocks() },
            _ => return None,
        })
    }

    fn params(&self) -> String {
        match self {
            AnyFilter::Classic(f) => format!("m={} k={}", f.bits(), f.hashes()),
            AnyFilter::Counting(f) => format!("m={} counters k={}", f.counters(), f.hashes()),
            AnyFilter::Scalable(f) => format!(
                "stages={} s={} r={}",
                filterlab::Growable::stages(f),
                f.growth(),
                f.tightening()
            ),
            AnyFilter::Cuckoo(f) => format!(
                "f={} buckets={} load={:.4}",
                f.fingerprint_bits(),
                f.buckets(),
                f.load_factor()
            ),
            AnyFilter::Blocked(f) => format!("blocks={} (256-bit, 8 lanes)", f.blocks()),
            other => other
                .parameters()
                .into_iter()
                .map(|(name, value)| format!("{name}={}", value_text(value)))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

#[cfg(test)]
mod tests;
