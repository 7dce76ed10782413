//! The Aleph filter (Dayan, Bercea & Pagh, "Aleph Filter: To Infinity in Constant Time",
//! PVLDB 17(11), 2024): one quotient-filter table that doubles in place when it is full,
//! deletes, and keeps its false-positive rate under a target however far it grows, with one
//! run read per lookup at every size.
//!
//! **Growing in place.** The table is this workspace's rank-and-select quotient filter
//! (`filter_quotient::table`). A key's address is its base quotient among `Q0` followed by the
//! first `k` bits of its fingerprint after `k` doublings; a doubling moves every entry's next
//! fingerprint bit into its address, so entries keep their place relative to one another and
//! no key is needed (as the quotient filter's `resize`). Each entry keeps the bits it has left,
//! so fingerprints have many lengths: a slot stores the bits, a 1 (the marker) and zeros
//! (module `entry`, InfiniFilter's encoding, Dayan, Bercea, Reviriego & Pagh, SIGMOD 2023).
//!
//! **Void entries.** An entry whose bits run out matches every key of its address. Aleph's
//! step is to copy it into both halves at each later doubling, so that a lookup still reads
//! only its own run: constant time however often the table doubled, where InfiniFilter chains
//! older tables. The widening policy keeps void entries rare.
//!
//! **Widening.** New keys get longer fingerprints as the table doubles, so the rate summed
//! over generations stays under the target ([`filter_core::math::aleph`]): without an
//! estimate generation `x` gets `⌈log2(λ_x·(x+1)(x+2)/ε)⌉` bits; with an estimate of the final
//! size ([`AlephBuilder::max_n`]) the first table is sized so that the table reaches exactly
//! the estimate at 95% after `K` doublings, and generation `x` gets `F + K - x` bits, so that
//! every entry has `F` bits there: a static quotient filter's table plus one marker bit.
//!
//! **Deletes.** A delete removes the matching entry with the longest fingerprint. Any other
//! key that entry might belong to matches the shorter entries as well (their bits are a prefix
//! of its), so no key still held is lost. A void match removes every copy of its group (module
//! `voids`). Deleting a key that was never inserted can remove another key's entry: as in every
//! deleting filter, delete only keys you inserted.
//!
//! **Where this differs from the reference code** (nivdayan/AlephFilter, Java). It marks a
//! deleted void entry with a tombstone, finds its group's age through a secondary filter of the
//! addresses at which entries went void, and removes the other copies at the next doubling,
//! so a delete is constant time. Here an exact list of void groups stands for that filter, and
//! the copies go at once: the same table afterwards, but a delete whose match is void costs
//! its group's `2^(k - level)` copies. Its widening without an estimate is also its own (a
//! budget of `ε/((x+1)(x+2))` per generation, where the reference adds `2·log2(x+1)` bits).
//! Both are rare costs: no entry is void before an estimate is reached.
//!
//! ```
//! use filter_aleph::AlephFilter;
//! use filter_core::{Deletable, Filter};
//!
//! let mut seen = AlephFilter::builder().capacity(1_000).fpr(0.01).build()?;
//! for i in 0..100_000u32 {
//!     seen.insert(&i.to_le_bytes())?; // doubles seven times on the way
//! }
//! assert!(seen.expansions() >= 6);
//! assert!((0..100_000u32).all(|i| seen.contains(&i.to_le_bytes())));
//! seen.remove(&7u32.to_le_bytes())?;
//! assert!(seen.expected_fpr() <= 0.01);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The formulas, kept in `filter_core::math` beside every other variant's.
pub use filter_core::math::aleph as math;
mod batch;
mod codec;
mod delete;
mod entry;
mod explain;
mod grow;
mod voids;

use filter_core::{
    reduce, Deletable, Error, FileKind, Filter, Growable, Hash128, KeyHasher, MemoryCap, Result,
    Sizing,
};
use filter_quotient::table::Slots;
use filter_quotient::{MAX_QUOTIENTS, MIN_QUOTIENTS};
use math::Widening;
use voids::Voids;

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(14, "aleph");

/// An Aleph filter: see the crate's docs.
///
/// # False-positive rate
/// `FP(k) = 1 - exp(-Σ_{x≤k} λ_x·2^-F_x)` after `k` doublings ([`math`]):
/// [`Filter::expected_fpr`] takes every past generation at its largest load and the current
/// one at its fill, and [`Growable::fpr_bound`] is the same sum over every doubling the table
/// can make, at most the target.
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct AlephFilter {
    slots: Slots,
    /// `Q0`: a key's base quotient is `⌊hash.lo·Q0/2^64⌋`.
    base_quotients: u64,
    /// `k`, the doublings so far: `Q = Q0·2^k`.
    expansions: u32,
    /// Keys held (inserts less deletes).
    len: u64,
    /// Slots used: one per key, and the extra copies of void entries.
    used: u64,
    /// Slots used right after the last doubling: what the current generation adds to.
    carried: u64,
    voids: Voids,
    widening: Widening,
    /// The growth estimate given to the builder, if any.
    estimate: Option<u64>,
    sizing: Sizing,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

/// Builds an [`AlephFilter`].
#[derive(Clone, Debug, Default)]
pub struct AlephBuilder {
    sizing: Sizing,
    max_n: Option<u64>,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl AlephBuilder {
    filter_core::table_builder_setters!();

    filter_core::setters! {
        /// An estimate of the most keys the filter will hold: the first table is sized so that
        /// the table reaches it at 95% after whole doublings, and fingerprints are as long as a
        /// static filter's there (see the crate's docs). Past it the filter still grows.
        max_n(n: u64) => max_n as Some;
    }

    /// Builds the filter.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1), an estimate over 2^62 times the capacity, a
    /// first table above 2^31 quotients, the memory cap, or an allocation failure.
    pub fn build(self) -> Result<AlephFilter> {
        let sizing = self.sizing.validate()?;
        let (planned, first) = match self.max_n {
            Some(n) => {
                let (k, first) = math::planned_doublings(sizing.capacity, n)?;
                (Some(k), first)
            }
            None => (None, sizing.capacity),
        };
        let q0 = filter_core::math::quotient::quotients_for(
            first,
            math::MAX_LOAD,
            MIN_QUOTIENTS,
            MAX_QUOTIENTS,
        )?;
        let widening = Widening::new(sizing.fpr, planned)?;
        let slots = Slots::new(q0, widening.slot_width(0), self.table_options())?;
        Ok(AlephFilter {
            slots,
            base_quotients: q0,
            expansions: 0,
            len: 0,
            used: 0,
            carried: 0,
            voids: Voids::default(),
            widening,
            estimate: self.max_n,
            sizing,
            cap: self.cap,
            pages: self.pages,
        })
    }
}

impl AlephFilter {
    /// A builder; defaults to one million keys at 1%, no estimate.
    pub fn builder() -> AlephBuilder {
        AlephBuilder::default()
    }

    /// Quotients `Q = Q0·2^k`.
    pub fn quotients(&self) -> u64 {
        self.slots.quotients()
    }

    /// Slots in the table: `Q` and the extra slots past the last quotient, in whole blocks.
    pub fn slots(&self) -> u64 {
        self.slots.slots()
    }

    /// How many times the table doubled.
    pub fn expansions(&self) -> u32 {
        self.expansions
    }

    /// Bits per slot: the longest fingerprint any generation still has, and its marker.
    pub fn slot_width(&self) -> u32 {
        self.slots.rbits()
    }

    /// The fingerprint bits the keys inserted now get.
    pub fn fingerprint_bits(&self) -> u32 {
        self.widening.fingerprint_bits(self.expansions)
    }

    /// The growth estimate given to the builder.
    pub fn estimate(&self) -> Option<u64> {
        self.estimate
    }

    /// The target rate the widening policy keeps to.
    pub fn target_fpr(&self) -> f64 {
        self.widening.fpr
    }

    /// `K`, the doublings to the growth estimate, if one was given.
    pub fn planned_doublings(&self) -> Option<u32> {
        self.widening.planned
    }

    /// The rate once the current table is full (its generation at its largest load).
    pub fn fpr_at_capacity(&self) -> f64 {
        let k = self.expansions;
        self.widening.fpr_after(k, math::generation_load(k))
    }

    /// Slots used, void copies included.
    pub fn entries(&self) -> u64 {
        self.used
    }

    /// Void entries in the table (every copy).
    pub fn void_entries(&self) -> u64 {
        self.voids.copies(self.expansions)
    }

    /// The most slots the table fills before it doubles: `floor(0.95·Q)`.
    pub fn max_entries(&self) -> u64 {
        filter_core::math::quotient::quotient_max_items(self.quotients(), math::MAX_LOAD)
    }

    /// The address of a key's hash and its code in the current slot width (module `entry`).
    #[inline]
    fn locate(&self, hash: Hash128) -> (u64, u64) {
        let k = self.expansions;
        let base = reduce(hash.lo, self.base_quotients);
        let (address, rest) = if k == 0 {
            (base, hash.hi)
        } else {
            ((base << k) | (hash.hi >> (64 - k)), hash.hi << k)
        };
        (address, entry::key_code(rest, self.slots.rbits()))
    }

    fn insert_located(&mut self, hash: Hash128) -> bool {
        let (a, key) = self.locate(hash);
        let w = self.slots.rbits();
        self.slots
            .insert(a, entry::entry(key, w, self.fingerprint_bits()))
    }
}

impl filter_core::Prefetch for AlephFilter {
    /// The quotient table's block and its home slot's entry, as the quotient filter's.
    fn lines_per_key(&self) -> u32 {
        2
    }

    fn prefetch_hash(&self, hash: Hash128) {
        self.slots.prefetch(self.locate(hash).0);
    }
}

impl Filter for AlephFilter {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        if self.used >= self.max_entries() {
            self.expand()?;
        }
        if !self.insert_located(hash) {
            // A cluster ran past the table's end: rare below 95%; a doubling halves the load.
            self.expand()?;
            if !self.insert_located(hash) {
                return Err(Error::Full {
                    len: self.len,
                    load_factor: self.used as f64 / self.quotients() as f64,
                });
            }
        }
        self.len += 1;
        self.used += 1;
        Ok(())
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let (a, key) = self.locate(hash);
        self.slots.run_any(a, |v| entry::matches(v, key))
    }

    /// Into an empty table, in one pass (module `batch`).
    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        self.insert_hashes(hashes)
    }

    /// Every key hashed first and given to [`Filter::insert_hash_batch`] at once when the
    /// filter is empty ([`filter_core::insert_batch_at_once`]).
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        filter_core::insert_batch_at_once(self, keys)
    }

    /// Each lookup prefetches the block of the key [`filter_core::PREFETCH_AHEAD`] places on.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        filter_core::contains_hash_batch_prefetched(self, hashes, out);
    }

    fn hasher(&self) -> KeyHasher {
        self.sizing.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    /// The keys the table takes before its next doubling (it grows past them).
    fn capacity(&self) -> u64 {
        self.max_entries()
    }

    fn size_in_bytes(&self) -> usize {
        self.slots.bytes() + self.voids.bytes()
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.slots.huge_page_bytes()
    }

    /// The past generations at their largest load, the current one at its fill (an upper
    /// bound after deletes); 0 for an empty table.
    fn expected_fpr(&self) -> f64 {
        if self.used == 0 {
            return 0.0;
        }
        let fill = self.used.saturating_sub(self.carried) as f64 / self.quotients() as f64;
        self.widening.fpr_after(self.expansions, fill)
    }

    fn name(&self) -> &'static str {
        "aleph"
    }
}

impl Deletable for AlephFilter {
    /// Removes the matching entry with the longest fingerprint, or every copy of the most
    /// specific void group that covers the key's address (see the crate's docs).
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        self.remove_by(hash, delete::Rule::Longest)
    }

    /// Matching entries: the key's copies, and other keys' entries that its bits match.
    fn count_hash(&self, hash: Hash128) -> u32 {
        let (a, key) = self.locate(hash);
        let n = self
            .slots
            .run(a)
            .filter(|&v| entry::matches(v, key))
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

impl Growable for AlephFilter {
    fn stages(&self) -> usize {
        self.expansions as usize + 1
    }

    /// `FP(k)` at the most doublings the table can make (to 2^31 quotients), every generation
    /// full: at most the target.
    fn fpr_bound(&self) -> f64 {
        let most = (MAX_QUOTIENTS / self.base_quotients).ilog2();
        self.widening.fpr_bound(most)
    }

    fn set_max_bytes(&mut self, cap: Option<u64>) {
        self.cap = MemoryCap(cap);
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(AlephFilter);

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
