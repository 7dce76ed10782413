//! The variants under test, taken from the facade's registry ([`filterlab::any`]): the matrix
//! measures every row but the windowed ones, the scenarios that insert keys every row filled by
//! inserts, and a filter's realised parameters are the registry's own
//! [`Detail`](filterlab::any::Detail). This file lists no variant of its own.

use crate::dataset::KeySet;
use filterlab::any::Params as BuildParams;
pub use filterlab::{AnyFilter, Variant};
use filterlab::{HashKind, KeyHasher, Result};

/// Hash seed of the counting filters (every other filter uses seed 0).
pub const COUNTING_SEED: u64 = 1;

/// The variants of the matrix, in registry order: every row but the windowed ones (they hold
/// recent keys only and are measured by their own stage). Static rows are built from the
/// whole key set ([`build_from_keys`]), the others filled by inserts.
#[must_use]
pub fn in_matrix() -> Vec<Variant> {
    Variant::ALL
        .iter()
        .copied()
        .filter(|v| !v.capabilities().windowed)
        .collect()
}

/// The variants of the scenarios that insert keys one by one (growth, size sweep, the
/// course's insert runs), in registry order: the matrix's rows filled by inserts.
#[must_use]
pub fn measured() -> Vec<Variant> {
    in_matrix()
        .into_iter()
        .filter(|v| !v.capabilities().static_set)
        .collect()
}

/// The registry's parameters of a `variant` filter for `n` items at rate `p`.
///
/// # Errors
/// An invalid seed (not expected).
pub fn params(variant: Variant, n: u64, p: f64) -> Result<BuildParams> {
    let params = BuildParams::new(n, p);
    // Another seed than the classic filter's for the counting one: with the same one both
    // would set the same positions and report the very same false positives, which would
    // make the counting row a copy of the classic row instead of an independent measurement.
    if variant == Variant::Counting {
        return Ok(params.hasher(KeyHasher::new(HashKind::Xxh3_128, COUNTING_SEED)?));
    }
    Ok(params)
}

/// Whether the registry can size a `variant` filter for `n` items at `p` (a binary fuse
/// filter of 8-bit fingerprints cannot meet a rate below 2^-8).
#[must_use]
pub fn buildable(variant: Variant, n: u64, p: f64) -> bool {
    params(variant, n, p).is_ok_and(|params| variant.plan(&params).is_ok())
}

/// An empty filter of `variant` for `n` items at rate `p`, through the registry's builder.
///
/// # Errors
/// Invalid parameters.
pub fn build(variant: Variant, n: u64, p: f64) -> Result<AnyFilter> {
    AnyFilter::build(variant, &params(variant, n, p)?)
}

/// A filter of `variant` at rate `p` holding `keys[..n]`, built through the registry's one
/// constructor from the keys' hashes (a static row is built once from the whole set; any other
/// is sized for `n` and filled). Hashing is part of the build.
///
/// # Errors
/// Invalid parameters, a build that fails.
pub fn build_from_keys(variant: Variant, keys: &KeySet, n: usize, p: f64) -> Result<AnyFilter> {
    let params = params(variant, n as u64, p)?;
    let hashes: Vec<filterlab::Hash128> = (0..n).map(|i| params.hasher.hash(keys.get(i))).collect();
    AnyFilter::build_from_hashes(variant, &params, &hashes)
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

/// What the harness records about a filter beyond the [`filterlab::Filter`] trait and its
/// realised [`Detail`](filterlab::any::Detail) ([`AnyFilter::detail`]), from the registry.
pub trait Shaped {
    /// A short description of the realised parameters (`m=… k=…`, `fingerprint_bits=… …`).
    fn params(&self) -> String;
}

impl Shaped for AnyFilter {
    fn params(&self) -> String {
        self.parameters()
            .into_iter()
            .map(|(name, value)| format!("{name}={}", value_text(value)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

#[cfg(test)]
mod tests;
