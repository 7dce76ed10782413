//! The quotient filter (Bender, Farach-Colton, Johnson, Kraner, Kuszmaul, Medjedovic, Montes,
//! Shetty, Spillane & Zadok, "Don't Thrash: How to Cache Your Hash on Flash", PVLDB 2012), in
//! the rank-and-select layout of Pandey, Bender, Johnson & Patro ("A General-Purpose Counting
//! Filter: Making Every Bit Count", SIGMOD 2017): the RSQF.
//!
//! A key's hash gives a *quotient*, its home slot among `Q`, and an `r`-bit *remainder*, which
//! is all that is stored. Remainders of one quotient form a *run*, runs are kept in quotient
//! order, and a run that finds its home slot taken is shifted right; a lookup finds its run
//! and compares remainders. Because the fingerprint is stored whole (its quotient implied by
//! the run), the filter can delete, count copies, merge and resize without the keys.
//!
//! **Which layout, and why.** The rank-and-select one (module `rsqf`): two metadata bits per
//! slot (`occupieds`, `runends`) instead of the three of Bender et al. (occupied,
//! continuation, shifted), and a run is found by rank and select over 64-bit words from a
//! per-block index instead of by walking back slot by slot to the start of its cluster. That
//! makes lookups cheap at 95% load, where the classic layout's walks grow long, so the
//! builder sizes for 95% ([`math::MAX_LOAD`]) instead of the 75% common for the classic one.
//! What is left out of the CQF: its counter encoding (here every copy of a key takes a slot,
//! as in the RSQF) and its 8-bit offsets (here a 32-bit `spill` per 64 slots, so a run may
//! cover whole blocks): 2.5 metadata bits per slot against 2.125.
//!
//! **Blocks.** The table is one array of blocks of 64 slots, each holding its offset, its
//! `occupieds` and `runends` words and its remainders (as the RSQF and the `qfilter` crate lay
//! it out), so a lookup in a short run reads one block, two where its run crosses into the
//! next; the offsets cost what a separate index did.
//!
//! **Batches.** [`Filter::insert_hash_batch`] into an empty filter builds the table in one
//! pass: the keys' (quotient, remainder) pairs sorted by quotient (a stable radix sort, so a
//! run's remainders stay in insertion order), then written run after run: the table inserts
//! one by one give, bit for bit, without their shifts (it holds two 16-byte pairs per key
//! while it sorts). Keys that do not fit go in one by one, so the batch fails where an insert
//! would. Later batches and [`Filter::contains_hash_batch`] prefetch the block of the key
//! [`filter_core::PREFETCH_AHEAD`] places ahead.
//!
//! **Opened in place.** A version 3 file saves the blocks as they are in memory, so
//! `format::mapped::decode_in_place` (and `filterlab::AnyFilter::open`) use the file's bytes as
//! the table with O(1) checks. (A version 2 file, its table in separate arrays, is copied into
//! blocks and checked in full by an open, as by a load: the filter then holds memory of its
//! own.) No pass over a version 3 table derives the offsets or validates the metadata. Lookups stay in bounds and end whatever a damaged file holds (module `rsqf`); the
//! first change (insert, removal, resize, merge) makes the checks of a load first, and refuses
//! a table that fails them.
//!
//! **Any number of slots.** The papers split a `q + r` bit hash, so the table has `2^q` home
//! slots and a filter for 10M keys gets 2^24 (60% full at its capacity: 15.9 bits per key at
//! 1%). Here the quotient is `⌊h·Q/2^64⌋` of one 64-bit half of the hash (Lemire's reduction)
//! and the remainder comes from the other half, so `Q` is sized for the capacity at 95% load
//! (10.0 bits per key at 1%, against 10.5 for this workspace's cuckoo filter). Resizing still
//! works without the keys: after `k` doublings a key's quotient is its build-time quotient
//! followed by the top `k` bits of its `r + k` remainder bits.
//!
//! ```
//! use filter_quotient::QuotientFilter;
//! use filter_core::{Deletable, Filter};
//!
//! let mut seen = QuotientFilter::builder().capacity(1_000).fpr(0.01).build()?;
//! seen.insert(b"a@example.com")?;
//! seen.insert(b"a@example.com")?;
//! assert_eq!(seen.count(b"a@example.com"), 2);
//! seen.remove(b"a@example.com")?;
//! assert!(seen.contains(b"a@example.com"));
//! seen.resize()?; // twice the slots, one remainder bit fewer
//! assert!(seen.contains(b"a@example.com"));
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

/// The formulas, kept in `filter_core::math` beside every other variant's.
pub use filter_core::math::quotient as math;
mod batch;
mod codec;
mod explain;
mod kernel;
mod rsqf;

/// The rank-and-select table itself and its saved form, for filters that store other
/// fingerprints in it (`filter-aleph` keeps variable-length fingerprints in its remainders).
pub mod table {
    pub use crate::codec::{
        decode_slots, encode_slots, payload_len, table_layout, BLOCKED_VERSION,
    };
    pub use crate::rsqf::bulk::sort_by_quotient;
    pub use crate::rsqf::{layout, mask, table_bytes, Slots};
}

pub use rsqf::{extra_slots, MAX_QUOTIENTS, MIN_QUOTIENTS};

use filter_core::format::invalid;
use filter_core::{
    reduce, Deletable, Error, FileKind, Filter, Hash128, KeyHasher, MemoryCap, Result, Sizing,
};
use rsqf::{mask, Slots};

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(12, "quotient");

/// A quotient filter in the rank-and-select layout.
///
/// # False-positive rate
///
/// A query is a false positive exactly when a stored (quotient, remainder) pair equals its
/// own, so with `n` stored items in `Q` quotients ([`math`], Bender et al. 2012 §2)
///
/// ```text
/// FP = 1 - (1 - 1/(Q·2^r))^n  ≈  1 - e^(-α/2^r)  ≤  α·2^-r,    α = n / Q
/// ```
///
/// [`Filter::expected_fpr`] is the exact form ([`math::quotient_fpr_exact`]). The builder picks
/// the fewest `r` with `1 - e^(-0.95/2^r) <= p` ([`math::quotient_remainder_bits`]: 7 bits at
/// 1%) and the fewest quotients `Q` with `0.95·Q >= capacity`.
///
/// # Resizing
///
/// [`QuotientFilter::resize`] doubles the quotients and moves one remainder bit into the
/// quotient: `Q·2^r` stays, so the rate at a given number of items does not change, and no
/// key is lost. But the filter now takes twice the items, and at twice the items the rate is twice
/// as high: like the `qfilter` crate, each doubling doubles the rate at full load. Bits cannot
/// be made up later; [`QuotientBuilder::growth_reserve`] buys them up front (`g` bits per slot
/// keep the target through `g` doublings).
///
/// ```
/// use filter_quotient::QuotientFilter;
/// use filter_core::{testkit, Filter, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 5)?;
/// let mut f = QuotientFilter::builder().capacity(15_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 15_000)?;
/// testkit::assert_others_fpr("quotient", &f, 200_000, f.expected_fpr());
/// assert!(f.expected_fpr() <= 0.01);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct QuotientFilter {
    slots: Slots,
    /// `Q0`, the quotients at build time: a key's base quotient is `⌊hash.lo·Q0/2^64⌋`.
    base_quotients: u64,
    /// `k`, the resizes since the build: `Q = Q0·2^k`, and the key's quotient is its base
    /// quotient followed by the top `k` of its `r + k` remainder bits (from `hash.hi`).
    doublings: u32,
    len: u64,
    sizing: Sizing,
    cap: MemoryCap,
    /// Page advice for the tables of a resize (not saved).
    pages: filter_core::Pages,
}

/// Builds a [`QuotientFilter`].
#[derive(Clone, Debug, Default)]
pub struct QuotientBuilder {
    sizing: Sizing,
    remainder_bits: Option<u32>,
    growth_reserve: u32,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl QuotientBuilder {
    filter_core::sizing_setters!();
    filter_core::memory_cap_setter!();
    filter_core::pages_setter!();

    filter_core::setters! {
        /// Uses `r`-bit remainders instead of the width derived from the rate.
        remainder_bits(r: u32) => remainder_bits as Some;
        /// Adds `g` remainder bits (`g` bits per slot), so that after `g` calls to
        /// [`QuotientFilter::resize`] the filter still meets its target rate at its (doubled)
        /// capacity. Default 0.
        growth_reserve(g: u32) => growth_reserve;
    }

    /// Builds the filter.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1), quotient and remainder bits over 64 together
    /// (a rate or capacity too extreme), more than 2^31 quotients, a table above the memory
    /// cap, or one that cannot be allocated.
    pub fn build(self) -> Result<QuotientFilter> {
        let sizing = self.sizing.validate()?;
        let q = math::quotients_for(
            sizing.capacity,
            math::MAX_LOAD,
            MIN_QUOTIENTS,
            MAX_QUOTIENTS,
        )?;
        let r = match self.remainder_bits {
            Some(r) => r,
            None => math::quotient_remainder_bits(sizing.fpr, math::MAX_LOAD)?,
        };
        let r = r.saturating_add(self.growth_reserve);
        Ok(QuotientFilter {
            slots: Slots::new(q, r, self.table_options())?,
            base_quotients: q,
            doublings: 0,
            len: 0,
            sizing,
            cap: self.cap,
            pages: self.pages,
        })
    }
}

impl QuotientFilter {
    /// A builder; defaults to one million items at 1%.
    pub fn builder() -> QuotientBuilder {
        QuotientBuilder::default()
    }

    /// Quotients `Q`: home slots, the items the table is sized for over 0.95.
    pub fn quotients(&self) -> u64 {
        self.slots.quotients()
    }

    /// How many times the filter was resized.
    pub fn resizes(&self) -> u32 {
        self.doublings
    }

    /// Remainder bits `r` stored per item.
    pub fn remainder_bits(&self) -> u32 {
        self.slots.rbits()
    }

    /// Slots in the table: `Q` plus [`extra_slots`] for the runs past the last quotient, in
    /// whole blocks of 64.
    pub fn slots(&self) -> u64 {
        self.slots.slots()
    }

    /// Stored items over `Q`.
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / self.quotients() as f64
    }

    /// The most items the table takes: `floor(0.95 · Q)`; the next insert is refused.
    pub fn max_items(&self) -> u64 {
        math::quotient_max_items(self.quotients(), math::MAX_LOAD)
    }

    /// The quotient and remainder of a hash (see the fields `base_quotients`, `doublings`).
    #[inline]
    fn split(&self, hash: Hash128) -> (u64, u64) {
        let (k, r) = (self.doublings, self.slots.rbits());
        let base = reduce(hash.lo, self.base_quotients);
        let bits = hash.hi >> (64 - (r + k));
        if k == 0 {
            (base, bits)
        } else {
            ((base << k) | (bits >> r), bits & mask(r))
        }
    }

    /// Checks a table opened in place as a load checks it (its words, its saved offsets and
    /// the item count), unless it was (or was loaded): what a change needs first.
    fn check_tables(&self) -> Result<()> {
        if self.slots.is_checked() {
            return Ok(());
        }
        let damaged = |why: String| {
            Error::Format(invalid(format!(
                "the table opened in place is damaged ({why}): a change needs a valid table"
            )))
        };
        let used = self.slots.check().map_err(damaged)?;
        if used != self.len {
            let why = format!("{used} stored remainders but {} items", self.len);
            return Err(damaged(why));
        }
        Ok(())
    }

    /// [`QuotientFilter::check_tables`], remembered.
    fn check_opened(&mut self) -> Result<()> {
        self.check_tables()?;
        self.slots.set_checked();
        Ok(())
    }

    /// Before a change in place: the tables checked, and copies of their own rather than the
    /// file's pages (allocated fallibly, as a load allocates them).
    #[inline]
    fn own_tables(&mut self) -> Result<()> {
        if self.slots.is_owned() {
            // Built or loaded (and so checked), or done before.
            return Ok(());
        }
        self.own_opened_tables()
    }

    #[cold]
    #[inline(never)]
    fn own_opened_tables(&mut self) -> Result<()> {
        self.check_opened()?;
        self.slots.own_tables(filter_core::TableOptions {
            cap: MemoryCap::NONE,
            pages: self.pages,
        })
    }

    fn full_error(&self) -> Error {
        Error::Full {
            len: self.len,
            load_factor: self.load_factor(),
        }
    }

    /// Doubles the quotients (`q + 1`) and moves the top remainder bit into the quotient
    /// (`r - 1`), re-inserting every stored fingerprint: no false negative, the rate at a given
    /// number of items unchanged, the capacity and [`QuotientFilter::max_items`] doubled (see
    /// "Resizing" on the type).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] at one remainder bit or past 2^31 quotients; the memory cap or
    /// an allocation failure. The filter is then unchanged.
    pub fn resize(&mut self) -> Result<()> {
        let (q, r) = (self.quotients(), self.slots.rbits());
        if r < 2 {
            return Err(Error::InvalidParameter {
                name: "remainder_bits",
                value: r.to_string(),
                expected: "at least 2 remainder bits to resize (one moves into the quotient); \
                           build with a lower fpr or a growth_reserve",
            });
        }
        self.check_opened()?;
        let tables = filter_core::TableOptions {
            cap: self.cap,
            pages: self.pages,
        };
        let mut grown = Slots::new(q * 2, r - 1, tables)?;
        let mut placed = true;
        self.slots.for_each(|quot, rem| {
            let q2 = (quot << 1) | (rem >> (r - 1));
            placed &= grown.insert(q2, rem & mask(r - 1));
        });
        if !placed {
            // Twice the slots at half the load: a cluster past the extra slots is not expected.
            return Err(self.full_error());
        }
        self.slots = grown;
        self.doublings += 1;
        self.sizing.capacity = self.sizing.capacity.saturating_mul(2);
        Ok(())
    }

    /// Adds every item of `other` (copies included) to this filter.
    ///
    /// # Errors
    /// [`Error::Incompatible`] unless both have the same quotients (at build time and now),
    /// remainder bits and hasher; [`Error::Full`] when the sum is above
    /// [`QuotientFilter::max_items`] (or a run would pass the table's end); an allocation
    /// failure; [`Error::Format`] for a damaged table opened in place (either). The filter is
    /// then unchanged.
    pub fn merge(&mut self, other: &QuotientFilter) -> Result<()> {
        let shape = |f: &QuotientFilter| {
            (
                f.base_quotients,
                f.doublings,
                f.remainder_bits(),
                f.hasher(),
            )
        };
        let same = shape(self) == shape(other);
        if !same {
            return Err(Error::Incompatible(format!(
                "merging needs the same quotients, resizes, remainder bits and hasher: \
                 (Q {}·2^{}, r {}, {:?}) and (Q {}·2^{}, r {}, {:?})",
                self.base_quotients,
                self.doublings,
                self.remainder_bits(),
                self.hasher(),
                other.base_quotients,
                other.doublings,
                other.remainder_bits(),
                other.hasher()
            )));
        }
        if self.len.saturating_add(other.len) > self.max_items() {
            return Err(self.full_error());
        }
        self.check_opened()?;
        other.check_tables()?;
        let mut merged = self.slots.clone();
        let mut placed = true;
        other.slots.for_each(|q, r| placed &= merged.insert(q, r));
        if !placed {
            return Err(self.full_error());
        }
        self.slots = merged;
        self.len += other.len;
        Ok(())
    }
}

impl Filter for QuotientFilter {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.own_tables()?;
        if self.len >= self.max_items() {
            return Err(self.full_error());
        }
        let (q, r) = self.split(hash);
        if !self.slots.insert(q, r) {
            return Err(self.full_error());
        }
        self.len += 1;
        Ok(())
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let (q, r) = self.split(hash);
        kernel::contains(&self.slots, q, r)
    }

    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        self.insert_hashes(hashes)
    }

    /// Into an empty filter, every key hashed first and given to
    /// [`Filter::insert_hash_batch`] at once, so that the one-pass build takes them all
    /// ([`filter_core::insert_batch_at_once`]).
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        filter_core::insert_batch_at_once(self, keys)
    }

    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        filter_core::contains_hash_batch_prefetched(self, hashes, out);
    }

    fn hasher(&self) -> KeyHasher {
        self.sizing.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn capacity(&self) -> u64 {
        self.sizing.capacity
    }

    fn size_in_bytes(&self) -> usize {
        self.slots.bytes()
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.slots.huge_page_bytes()
    }

    fn expected_fpr(&self) -> f64 {
        math::quotient_fpr_exact(self.quotients(), self.remainder_bits(), self.len)
    }

    fn name(&self) -> &'static str {
        "quotient"
    }
}

impl Deletable for QuotientFilter {
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        self.own_tables()?;
        let (q, r) = self.split(hash);
        if self.slots.remove(q, r) {
            self.len -= 1;
            Ok(())
        } else {
            Err(Error::NotPresent)
        }
    }

    fn count_hash(&self, hash: Hash128) -> u32 {
        let (q, r) = self.split(hash);
        u32::try_from(self.slots.count(q, r)).unwrap_or(u32::MAX)
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(QuotientFilter);

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
