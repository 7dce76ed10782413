//! The variants under test, taken from the facade's registry ([`filterlab::any`]): the matrix
//! measures every row but the windowed ones (and the cuckoo filter again in its near layout,
//! a registry knob: [`CUCKOO_NEAR`]), the scenarios that insert keys every row filled by
//! inserts, and a filter's realised parameters are the registry's own [`Detail`]. This file
//! lists no variant of its own.

use crate::dataset::KeySet;
use filterlab::any::{CuckooLayout, Detail, Params as BuildParams};
pub use filterlab::{AnyFilter, Variant};
use filterlab::{HashKind, KeyHasher, Pages, Result};

/// Hash seed of the counting filters (every other filter uses seed 0).
pub const COUNTING_SEED: u64 = 1;

/// The page advice of our filters wherever they are compared with the peers: the peers' tables
/// come from the allocator on 4 KiB pages (this kernel's policy is `madvise`, and they advise
/// nothing), so ours are built without the huge-page advice there too, and every comparison
/// runs on the same pages. The huge-page A/B (`stages::peers::huge_pages`) measures what the
/// advice gains; every other stage builds with the default ([`Pages::Huge`]).
pub const BESIDE_PEERS: Pages = Pages::Small;

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

/// A contender of the matrix: a registry variant and the knob it is built with (none: the
/// variant's defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contender {
    /// The registry's variant.
    pub variant: Variant,
    /// The cuckoo filter's layout, when not its default.
    pub cuckoo_layout: Option<CuckooLayout>,
}

/// The cuckoo filter with its second bucket near the first (issue 21), measured beside the
/// default layout so that the hot-path goals are judged for both.
pub const CUCKOO_NEAR: Contender = Contender {
    variant: Variant::Cuckoo,
    cuckoo_layout: Some(CuckooLayout::near()),
};

impl From<Variant> for Contender {
    fn from(variant: Variant) -> Self {
        Contender {
            variant,
            cuckoo_layout: None,
        }
    }
}

impl Contender {
    /// The name of its rows: the variant's, `cuckoo-near` for the near layout.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self.cuckoo_layout {
            Some(CuckooLayout::Near { .. }) => "cuckoo-near",
            _ => self.variant.name(),
        }
    }

    /// The variant's capabilities.
    #[must_use]
    pub fn capabilities(self) -> filterlab::any::Capabilities {
        self.variant.capabilities()
    }

    /// The contender of the matrix called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Contender> {
        contenders().into_iter().find(|c| c.name() == name)
    }
}

impl std::fmt::Display for Contender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The matrix's contenders: [`in_matrix`], with [`CUCKOO_NEAR`] after the cuckoo filter.
#[must_use]
pub fn contenders() -> Vec<Contender> {
    in_matrix()
        .into_iter()
        .flat_map(|v| {
            let near = (v == CUCKOO_NEAR.variant).then_some(CUCKOO_NEAR);
            std::iter::once(Contender::from(v)).chain(near)
        })
        .collect()
}

/// The name of `f`'s rows: its contender's, read from its realised parameters.
#[must_use]
pub fn row_name(f: &AnyFilter) -> &'static str {
    match f.detail() {
        Ok(Detail::Cuckoo {
            near_window: Some(_),
            ..
        }) => CUCKOO_NEAR.name(),
        _ => filterlab::Filter::name(f),
    }
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

/// The variants of the deletion churn, in registry order: every fixed table that deletes
/// (not those that grow, whose churn is the growth study's, nor the windows, which forget).
#[must_use]
pub fn churned() -> Vec<Variant> {
    measured()
        .into_iter()
        .filter(|v| {
            let c = v.capabilities();
            c.deletes && !c.grows && !c.windowed
        })
        .collect()
}

/// The registry's parameters of a `variant` filter for `n` items at rate `p`.
///
/// # Errors
/// An invalid seed (not expected).
pub fn params(variant: impl Into<Contender>, n: u64, p: f64) -> Result<BuildParams> {
    let Contender {
        variant,
        cuckoo_layout,
    } = variant.into();
    let mut params = BuildParams::new(n, p);
    if let Some(layout) = cuckoo_layout {
        params = params.cuckoo_layout(layout);
    }
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
pub fn buildable(variant: impl Into<Contender>, n: u64, p: f64) -> bool {
    let c = variant.into();
    params(c, n, p).is_ok_and(|params| c.variant.plan(&params).is_ok())
}

/// The rate a fixed-size `variant` filter sized for `n` items at `p` has once it holds them, from
/// the registry's plan alone (no table allocated); `None` for a growing filter (its rate depends
/// on the stages it made) or parameters the registry refuses.
#[must_use]
pub fn planned_fpr(variant: impl Into<Contender>, n: u64, p: f64) -> Option<f64> {
    let c = variant.into();
    let plan = c.variant.plan(&params(c, n, p).ok()?).ok()?;
    plan.detail.fpr_at(n)
}

/// An empty filter of `variant` for `n` items at rate `p`, its large tables advised as
/// `pages` says, through the registry's builder.
///
/// # Errors
/// Invalid parameters.
pub fn build(variant: impl Into<Contender>, n: u64, p: f64, pages: Pages) -> Result<AnyFilter> {
    let c = variant.into();
    AnyFilter::build(c.variant, &params(c, n, p)?.pages(pages))
}

/// A filter of `variant` at rate `p` holding `keys[..n]`, built through the registry's one
/// constructor from the keys' hashes (a static row is built once from the whole set; any other
/// is sized for `n` and filled), its large tables advised as `pages` says. Hashing is part of
/// the build.
///
/// # Errors
/// Invalid parameters, a build that fails.
pub fn build_from_keys(
    variant: impl Into<Contender>,
    keys: &KeySet,
    n: usize,
    p: f64,
    pages: Pages,
) -> Result<AnyFilter> {
    from_keys(variant.into(), (keys, n), p, pages, None)
}

/// [`build_from_keys`] with the hash function `kind` in place of the variant's default (its
/// seed kept): the peers stage's hash twins, built with the hash of the peer they face.
///
/// # Errors
/// Invalid parameters, a build that fails.
pub fn build_from_keys_hashed(
    variant: impl Into<Contender>,
    (keys, n): (&KeySet, usize),
    p: f64,
    pages: Pages,
    kind: HashKind,
) -> Result<AnyFilter> {
    from_keys(variant.into(), (keys, n), p, pages, Some(kind))
}

/// `keys[..n]` hashed with the variant's hasher (its kind replaced by `kind`, its seed kept),
/// then the registry's one constructor.
fn from_keys(
    c: Contender,
    (keys, n): (&KeySet, usize),
    p: f64,
    pages: Pages,
    kind: Option<HashKind>,
) -> Result<AnyFilter> {
    let mut params = params(c, n as u64, p)?.pages(pages);
    if let Some(kind) = kind {
        params = params.hasher(KeyHasher::new(kind, params.hasher.seed())?);
    }
    let hashes: Vec<filterlab::Hash128> = (0..n).map(|i| params.hasher.hash(keys.get(i))).collect();
    AnyFilter::build_from_hashes(c.variant, &params, &hashes)
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
/// realised [`Detail`] ([`AnyFilter::detail`]), from the registry.
pub trait Shaped {
    /// A short description of the realised parameters (`m=… k=…`, `fingerprint_bits=… …`),
    /// read when the filter is filled: its running figures (the fill ratio, the load) included.
    fn params(&self) -> String;
    /// The parameters of the filter's design only (no running figure, see
    /// [`filterlab::any::Figure`]): the same before and after any stream of inserts.
    fn design(&self) -> String;
}

impl Shaped for AnyFilter {
    fn params(&self) -> String {
        joined(self.parameters())
    }

    fn design(&self) -> String {
        let mut parameters = self.parameters();
        parameters.retain(|p| !p.is_running());
        joined(parameters)
    }
}

/// `name=value` pairs, space-separated.
fn joined(parameters: Vec<filterlab::any::Parameter>) -> String {
    parameters
        .into_iter()
        .map(|p| format!("{}={}", p.name, value_text(p.value)))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
