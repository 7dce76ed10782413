//! The scalable Bloom filter (Almeida, Baquero, Preguiça & Hutchison, "Scalable Bloom Filters",
//! Information Processing Letters 2007), for sets whose size is not known in advance.
//!
//! A classic Bloom filter sized for `n` items degrades quickly past `n`: at 2n items sized for 1%
//! it answers "maybe" 16% of the time. A scalable filter is a list of classic *stages*. Inserts go
//! to the newest stage; when it holds its capacity, a new stage is added that is `s` times larger
//! (growth factor) with a false-positive rate `r` times tighter (tightening ratio). A query asks
//! every stage. With a first-stage rate `P0 = P(1 - r)` the compound rate is bounded by
//!
//! ```text
//! P_total <= Σ_i P0 · r^i = P0 / (1 - r) = P
//! ```
//!
//! at *any* size ([`math::scalable_fpr_bound`]). Defaults: `s = 2` and `r = 0.9`, in the range
//! the paper recommends (0.8–0.9) for sets that grow by orders of magnitude, and the defaults of
//! Python's `pybloom_live` named in the articles. Inserts never fail for lack of capacity.
//!
//! ```
//! use filter_scalable::ScalableBloom;
//! use filter_core::{Filter, Growable};
//!
//! // Sized for 1,000 sign-ups, then 50,000 arrive.
//! let mut users = ScalableBloom::builder().capacity(1_000).fpr(0.01).build()?;
//! for i in 0..50_000 {
//!     users.insert(format!("user{i}@example.com").as_bytes())?;
//! }
//! assert!(users.stages() > 1);
//! assert!(users.expected_fpr() <= 0.01);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(3, "scalable");

mod builder;
mod codec;
mod stages;

pub use builder::ScalableBuilder;
use builder::{check_growth, check_tightening};
use stages::Stage;
pub use stages::StageSizing;

use filter_core::{
    math, FileKind, Filter, Growable, Hash128, MemoryCap, Prefetch, Result, Sizing, TableOptions,
};

/// Default growth factor `s`.
pub const DEFAULT_GROWTH: f64 = 2.0;
/// Default tightening ratio `r`.
pub const DEFAULT_TIGHTENING: f64 = 0.9;
/// Most stages a filter may have. The builder only accepts a growth factor with which the
/// stages reach 2^63 bits (the address limit) before this count, so memory, not the stage count,
/// is what ends growth.
pub const MAX_STAGES: usize = 256;

/// A scalable Bloom filter.
///
/// # False-positive rate
///
/// Stage `i` (from 0) is a classic filter for `n0 · s^i` items at rate `P0 · r^i`; a key is a
/// false positive if any stage says yes, so the rate at the current load is
///
/// ```text
/// p = 1 - Π_i (1 - p_i),   p_i = (1 - e^(-k_i n_i / m_i))^k_i
/// ```
///
/// ([`math::compound_fpr`] of [`math::classic_fpr`]), never more than `P` however many items are
/// inserted. [`Filter::expected_fpr`] returns this compound value with each stage's exact rate
/// ([`math::classic_fpr_best`]), combined as `-expm1(Σ ln_1p(-p_i))` so that stages far below
/// `1e-16` still count (a filter sized for 1M keys at 1e-6 holding 100k keys is at 7.7e-28,
/// not 0). Each stage is sized like the classic filter ([`math::classic_shape`]: the fewest bits
/// whose exact rate meets the stage's share), so no stage misses its own rate. (Files saved
/// before this rule, whose stages have the textbook [`math::optimal_bits`] and
/// [`math::optimal_hashes`], still load, and grow by that rule; see [`StageSizing`].)
///
/// # Repeated keys
///
/// An insert of a key the filter already reports present changes nothing (as in the paper and
/// in pybloom_live): [`Filter::len`] counts the keys actually added, and a stream of 1M events
/// from 10k users costs what 10k users cost, not a stage for every repeat.
///
/// ```
/// use filter_scalable::ScalableBloom;
/// use filter_core::{math, testkit, Filter, Growable, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 3)?;
/// let mut f = ScalableBloom::builder().capacity(2_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 30_000)?; // 15x the initial capacity
/// let theory = f.expected_fpr();
/// testkit::assert_others_fpr("scalable", &f, 200_000, theory);
/// assert!(theory <= f.fpr_bound() && f.fpr_bound() <= 0.01 + 1e-12);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct ScalableBloom {
    stages: Vec<Stage>,
    sizing: Sizing,
    growth: f64,
    tightening: f64,
    len: u64,
    /// How the stages are sized: fixed by the first stage of a loaded file.
    sizing_rule: StageSizing,
    /// Not saved: runtime policies of this process, the memory cap (see
    /// [`Growable::set_max_bytes`](filter_core::Growable::set_max_bytes)) and the page advice for new stages
    /// ([`ScalableBuilder::pages`]).
    tables: TableOptions,
}

impl ScalableBloom {
    /// A builder; defaults to one million items at 1%, `s = 2`, `r = 0.9`.
    pub fn builder() -> ScalableBuilder {
        ScalableBuilder::default()
    }

    /// An empty filter (no stage) with these settings, after the one validation the builder
    /// and the loader share: a file can hold only what the builder would build.
    fn validated(sizing: Sizing, growth: f64, tightening: f64) -> Result<Self> {
        let f = ScalableBloom {
            stages: Vec::new(),
            sizing: sizing.validate()?,
            growth: check_growth(growth)?,
            tightening: check_tightening(tightening)?,
            len: 0,
            sizing_rule: StageSizing::Exact,
            tables: TableOptions::default(),
        };
        f.check_growth_is_unbounded()?;
        Ok(f)
    }

    /// The growth factor `s`.
    pub fn growth(&self) -> f64 {
        self.growth
    }

    /// The tightening ratio `r`.
    pub fn tightening(&self) -> f64 {
        self.tightening
    }

    /// The first stage's rate, `P0 = P(1 - r)`.
    pub fn initial_fpr(&self) -> f64 {
        math::scalable_initial_fpr(self.sizing.fpr, self.tightening)
    }
}

impl Filter for ScalableBloom {
    /// Adds the key unless the filter already reports it present (the paper's insert, and
    /// pybloom_live's): a key added again, or a false positive, changes nothing, so repeats
    /// neither fill stages nor add new ones. [`Filter::len`] counts the keys that were added.
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.insert_if_absent_hash(hash).map(|_| ())
    }

    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        if self.contains_hash(hash) {
            return Ok(false);
        }
        let last = self.stages.len() - 1;
        if self.stages[last].len >= self.stages[last].capacity {
            let stage = self.new_stage(last + 1)?;
            self.stages.push(stage);
        }
        let active = self.stages.last_mut().expect("at least one stage");
        active.bits.insert(hash);
        active.len += 1;
        self.len += 1;
        Ok(true)
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        // Newest first: the largest stage holds most keys, so positive lookups end sooner.
        self.stages.iter().rev().any(|s| s.bits.contains(hash))
    }

    filter_core::prefetched_batches!();

    filter_core::filter_accessors!(self,
        name: "scalable",
        table: self.stages,
        len: self.len,
        capacity: self.stages.iter().map(|s| s.capacity).sum(),
        expected_fpr: math::compound_fpr(
            self.stages
                .iter()
                .map(|s| math::classic_fpr_best(s.bits.bits(), s.len, s.bits.hashes())),
        ),
    );
}

/// Inserts go to the newest stage, which is also the largest and holds most keys: its lines
/// are the ones worth prefetching.
impl Prefetch for ScalableBloom {
    fn lines_per_key(&self) -> u32 {
        self.stages[self.stages.len() - 1].bits.hashes()
    }

    fn prefetch_hash(&self, hash: Hash128) {
        let newest = &self.stages[self.stages.len() - 1].bits;
        newest.prefetch(hash, newest.hashes());
    }
}

impl Growable for ScalableBloom {
    fn stages(&self) -> usize {
        self.stages.len()
    }

    fn fpr_bound(&self) -> f64 {
        math::scalable_fpr_bound(self.initial_fpr(), self.tightening)
    }

    fn set_max_bytes(&mut self, cap: Option<u64>) {
        self.tables.cap = MemoryCap(cap);
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(ScalableBloom);

mod explain;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
