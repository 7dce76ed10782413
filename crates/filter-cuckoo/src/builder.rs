//! Sizing and building: the bucket count for a capacity, the fingerprint width for a rate,
//! and [`CuckooBuilder`].

use crate::{buckets_for, CuckooFilter, Lanes, Layout, PAD, SLOTS};
use filter_core::{accept_if, math, Error, MemoryCap, Result, Sizing};

/// Builds a [`CuckooFilter`].
#[derive(Clone, Debug)]
pub struct CuckooBuilder {
    sizing: Sizing,
    fp_bits: Option<u32>,
    /// `None`: the layout's default ([`Layout::default_max_kicks`]).
    max_kicks: Option<u32>,
    cap: MemoryCap,
    pages: filter_core::Pages,
    layout: Layout,
}

impl Default for CuckooBuilder {
    fn default() -> Self {
        CuckooBuilder {
            sizing: Sizing::default(),
            fp_bits: None,
            max_kicks: None,
            cap: MemoryCap::NONE,
            pages: filter_core::Pages::Huge,
            layout: Layout::default(),
        }
    }
}

impl CuckooBuilder {
    filter_core::table_builder_setters!();

    filter_core::setters! {
        /// Uses `f`-bit fingerprints (1 to 32) instead of the size derived from the rate.
        fingerprint_bits(f: u32) => fp_bits as Some;
        /// Bounds the evictions one insert may make before it fails (1 to
        /// [`MAX_KICKS`](crate::MAX_KICKS); by default
        /// [`DEFAULT_MAX_KICKS`](crate::DEFAULT_MAX_KICKS), or
        /// [`NEAR_MAX_KICKS`](crate::layout::NEAR_MAX_KICKS) for the near layout).
        max_kicks(kicks: u32) => max_kicks as Some;
        /// Where each key's second bucket lies: [`Layout::Spread`] (the default) or
        /// [`Layout::near()`], whose second bucket lies within a window of buckets around the
        /// first (see [`crate::layout`]). A near window wider than the table is narrowed to it.
        layout(layout: Layout) => layout;
    }

    /// Builds the filter: `ceil(capacity / (4 · 0.95))` buckets, more for small capacities
    /// ([`buckets_for`]), so the filter holds its capacity.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1) or too small for 32-bit fingerprints (below about
    /// 2e-9), fingerprint bits outside 1..=32, kicks outside 1..=[`MAX_KICKS`](crate::MAX_KICKS),
    /// a table above the memory cap, a near window that is not a power of two from
    /// [`MIN_WINDOW`](crate::layout::MIN_WINDOW) to [`MAX_WINDOW`](crate::layout::MAX_WINDOW),
    /// or a table too large to allocate.
    pub fn build(self) -> Result<CuckooFilter> {
        let sizing = self.sizing.validate()?;
        let f = match self.fp_bits {
            Some(f) => f,
            None => math::cuckoo_fingerprint_bits(sizing.fpr, SLOTS)?,
        };
        check_fp_bits(f)?;
        let max_kicks = self
            .max_kicks
            .unwrap_or_else(|| self.layout.default_max_kicks());
        filter_core::check_max_kicks(max_kicks)?;
        self.layout.check()?;
        let buckets = self.layout.buckets(buckets_for(sizing.capacity)?);
        let table = filter_core::try_zeroed_table(
            table_bytes(buckets, f)?,
            self.table_options(),
            "cuckoo table",
        )?;
        Ok(CuckooFilter {
            table,
            buckets,
            fp_bits: f,
            lanes: Lanes::new(f),
            max_kicks,
            len: 0,
            sizing,
            layout: self.layout.fit(buckets),
        })
    }
}

pub(crate) fn check_fp_bits(f: u32) -> Result<()> {
    let expected = "between 1 and 32 fingerprint bits; rates below ~2e-9 need more, \
                    use a Bloom filter there";
    accept_if((1..=32).contains(&f), "fingerprint_bits", f, expected).map(drop)
}

/// Bytes of packed slots (without padding).
pub(crate) fn table_bytes(buckets: u64, f: u32) -> Result<usize> {
    buckets
        .checked_mul(u64::from(SLOTS) * u64::from(f))
        .and_then(|bits| usize::try_from(bits.div_ceil(8)).ok())
        .filter(|&b| b < isize::MAX as usize - PAD)
        .map(|b| b + PAD)
        .ok_or_else(|| Error::SizeOverflow {
            what: "cuckoo table",
            hint: format!("{buckets} buckets of {f}-bit slots; lower the capacity"),
        })
}
