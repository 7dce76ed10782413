//! The cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher, "Cuckoo Filter: Practically Better
//! Than Bloom", CoNEXT 2014).
//!
//! A table of buckets with 4 slots each; a slot holds an `f`-bit *fingerprint* of a key (never 0,
//! which marks an empty slot). Each key has two candidate buckets, `i1` from its hash and
//! `i2 = alt(i1, fp)` computed from `i1` and the fingerprint alone (*partial-key cuckoo hashing*),
//! so a stored fingerprint can be moved to its other bucket without knowing the key. An insert
//! that finds both buckets full evicts a resident fingerprint to *its* other bucket, and so on, for
//! at most `max_kicks` steps. A lookup reads two buckets; a removal clears one matching slot.
//!
//! What this crate does differently from the popular ones:
//! * **Any table size.** The original `alt(i, fp) = i XOR hash(fp)` needs a power-of-two table,
//!   which can waste almost half the memory (10M keys land in a 16 MiB, 60%-full table). Here
//!   `alt(i, fp) = (hash(fp) - i) mod B` is an involution for any bucket count `B`, so the table is
//!   sized for a 95% load.
//! * **Packed fingerprints.** Slots are `f` bits wide, not rounded up to 8 or 16.
//! * **A failed insert changes nothing.** The eviction path is recorded and undone, so the item
//!   carried at the end goes back where it came from; no other key is dropped
//!   ([`Error::Full`] is returned and the table is bit-for-bit as before).
//! * **Copies of one key are counted, up to 8.** Every copy goes to the key's two buckets, so a
//!   ninth is refused with [`Error::TooManyCopies`] (not [`Error::Full`]: no larger table would
//!   take it), the table unchanged.
//! * **Fewer evictions.** An insert reads both buckets and fills the emptier one (two choices);
//!   when both are full it first looks, in parallel, for a resident whose other bucket has
//!   room, and only then starts the random walk. Filling a table to 95% this way moves 0.14
//!   fingerprints per insert instead of 0.9, and the first failure comes at about 97% load.
//! * **Deterministic.** Eviction choices come from the key's hash, not a thread-local RNG, so the
//!   same inserts build the same table on every run.
//! * **Two layouts** ([`Layout`], stored in the file). The default, [`Layout::Spread`], puts a
//!   key's second bucket anywhere in the table, as above. The opt-in [`Layout::Near`]
//!   (`builder().layout(Layout::near())`) keeps it within a window of 1,024 buckets around the
//!   first, `alt(i, fp) = i ± off(fp)` with an odd offset below the window (the Morton filter's
//!   parity trick keeps it an involution), so that a lookup's two reads share one 2 MiB page
//!   for 99.9% of keys and one 4 KiB page for 40% of them (at `f = 10`): on a table not on
//!   huge pages, one address translation instead of two for those. What it costs and gains,
//!   measured
//!   ([`layout`] has the details): the false-positive rate is the same formula
//!   (without the spread layout's self-paired share); the load at the first refused insert
//!   drops as the table grows, because evictions stay local (Fan et al. 2014, §4), even with
//!   the 2,000 kicks the near layout allows by default (500 for the spread one): none at
//!   50,000 keys (97.6% against 97.5%, 8 tables each), 0.9 points at a million (96.5% against
//!   97.35%, 3 tables, lowest 96.1%), 1.3 at ten million (96.0% against 97.3%, one table
//!   each), still above the 95% the table is sized for, but with less room to spare; hence an
//!   option, not the default. The two reads still touch two cache lines, so cache misses are
//!   unchanged. Files written before layouts existed are layout 1 and load byte for byte.
//!
//! ```
//! use filter_cuckoo::CuckooFilter;
//! use filter_core::{Deletable, Filter};
//!
//! let mut sessions = CuckooFilter::builder().capacity(1_000_000).fpr(0.01).build()?;
//! sessions.insert(b"token-1")?;
//! sessions.insert(b"token-1")?;
//! assert_eq!(sessions.count(b"token-1"), 2);
//! sessions.remove(b"token-1")?;
//! assert!(sessions.contains(b"token-1"));
//! assert_eq!(sessions.fingerprint_bits(), 10);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(4, "cuckoo");

mod builder;
mod codec;
mod insert;
pub mod layout;
mod slots;

pub use builder::CuckooBuilder;
use builder::{check_fp_bits, table_bytes};
pub use layout::Layout;
use slots::Lanes;

use filter_core::{
    math, prefetch, reduce, Deletable, Error, FileKind, Filter, Hash128, Prefetch, Result, Sizing,
};

/// Slots per bucket, `b`.
pub const SLOTS: u32 = 4;
/// Load factor the table is sized for: `capacity` items fill it to at most 95% (less in tables
/// under about 2,700 items, which get slack for their wider spread: [`buckets_for`]).
/// Partial-key cuckoo hashing with 4-slot buckets first fails at about 95-98% load in large
/// tables (measured in the tests).
pub const DESIGN_LOAD: f64 = 0.95;
/// Slots left free at every table size for the spread of the first failure's load, which is
/// wide in small tables: `SPREAD_SLOTS · sqrt(slots) + SMALL_TABLE_SLOTS` below the load at
/// which a typical table first fails ([`TYPICAL_FAILURE_LOAD`]). See [`buckets_for`].
const SPREAD_SLOTS: f64 = 1.5;
const SMALL_TABLE_SLOTS: f64 = 2.0;
/// The median load of a table's first failed insert, measured at every size from 40 to 600
/// buckets (300 key sets each): 0.978 to 0.985.
const TYPICAL_FAILURE_LOAD: f64 = 0.978;

/// The buckets a filter built for `capacity` items gets: enough for a load of at most
/// [`DESIGN_LOAD`], and, in small tables, enough slack for the wide spread of the load at which
/// the first insert fails (a table of 8 buckets has failed at 22 keys, 69%). Measured with 300
/// key sets at each table size up to 600 buckets, the fewest keys a table held before its first
/// failure is at least `0.978·s - 1.5·√s - 2` for `s` slots (the normal spread is about
/// `0.3·√s`, so this leaves about 5 standard deviations); a single bucket holds any 4 keys.
/// Built for every capacity from 1 to 2,000 with 50 key sets each (100,000 filters), no filter
/// refused an insert below its capacity, so the probability that one does is below 3e-5
/// (95% confidence); above about 2,700 items the 95% design load leaves more room than this.
///
/// # Errors
/// [`Error::InvalidParameter`] for a capacity of 0, [`Error::SizeOverflow`] for one whose
/// table cannot be addressed.
pub fn buckets_for(capacity: u64) -> Result<u64> {
    math::check_capacity(capacity)?;
    if capacity <= u64::from(SLOTS) {
        return Ok(1);
    }
    let n = capacity as f64;
    let mut buckets = (n / (f64::from(SLOTS) * DESIGN_LOAD)).ceil();
    let holds = |b: f64| {
        let slots = b * f64::from(SLOTS);
        TYPICAL_FAILURE_LOAD * slots - SPREAD_SLOTS * slots.sqrt() - SMALL_TABLE_SLOTS >= n
    };
    // At most a few hundred steps, below 2,700 items only; above, the first guess holds.
    while !holds(buckets) {
        buckets += 1.0;
    }
    if buckets >= (1u64 << 62) as f64 {
        return Err(Error::SizeOverflow {
            what: "cuckoo table",
            hint: format!("{capacity} items need {buckets:.3e} buckets; lower the capacity"),
        });
    }
    Ok(buckets as u64)
}

/// Bytes of the table of a filter built for `capacity` items with `fp_bits`-bit fingerprints
/// (what [`Filter::size_in_bytes`] will report), computed without allocating anything.
///
/// # Errors
/// Those of [`buckets_for`], fingerprint bits outside 1..=32, or a table too large to address
/// (never a saturated number).
pub fn table_bytes_for(capacity: u64, fp_bits: u32) -> Result<u64> {
    check_fp_bits(fp_bits)?;
    Ok(table_bytes(buckets_for(capacity)?, fp_bits)? as u64)
}

pub use filter_core::{DEFAULT_MAX_KICKS, MAX_KICKS};
/// Extra bytes after the table so every slot can be read as one unaligned 8-byte window.
const PAD: usize = 8;

/// A cuckoo filter with 4-slot buckets and packed `f`-bit fingerprints.
///
/// # False-positive rate
///
/// A negative lookup compares its fingerprint with the occupied slots of its two buckets. A
/// stored fingerprint can match only if it has the query's value (one of `V = 2^f - 1`,
/// uniform on `1..2^f`) *and* its key has the query's bucket pair (the alternate bucket is a
/// function of the bucket and the fingerprint): with `n` keys in `B` buckets
///
/// ```text
/// p = (1 - 1/B)(1 - (1 - 2/(B·V))^n) + (1/B)(1 - (1 - 1/(B·V))^n)  ≈  1 - e^(-2b·α/V)
/// ```
///
/// ([`math::cuckoo_fpr_exact`], derived there; [`math::cuckoo_fpr`] is the large-table form,
/// what [`Filter::expected_fpr`] returns is the exact one). The textbook
/// `1 - (1 - 1/V)^(2b·α)` ([`math::cuckoo_fpr_upper_bound`]) counts every occupied slot as a
/// chance and overestimates: at `f = 4` and 95% load it says 40.8%, the filter measures 39.75%.
/// In the near layout ([`Layout::Near`]) no bucket is its own partner, so the second term
/// goes and `p = 1 - (1 - 2/(B·V))^n` ([`layout::fpr_exact`]); the large-table form is the same.
/// The builder picks `f = ceil(log2(2b/p))` ([`math::cuckoo_fingerprint_bits`])
/// so the target holds even at a full table; at 1% that is 10 bits, 10.5 bits per item at 95% load.
///
/// ```
/// use filter_cuckoo::CuckooFilter;
/// use filter_core::{math, testkit, Filter, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 5)?;
/// let mut f = CuckooFilter::builder().capacity(20_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 20_000)?;
/// let theory = math::cuckoo_fpr(f.fingerprint_bits(), 4, f.load_factor());
/// testkit::assert_others_fpr("cuckoo", &f, 200_000, theory);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct CuckooFilter {
    /// Slot `s` occupies bits `s·f .. (s+1)·f` (little-endian), followed by `PAD` zero bytes.
    table: filter_core::Table<u8>,
    buckets: u64,
    fp_bits: u32,
    /// Constants of the SWAR bucket tests, derived from `fp_bits` (never stored in files).
    lanes: Lanes,
    max_kicks: u32,
    len: u64,
    sizing: Sizing,
    /// Where a key's second bucket lies; its window fits the table ([`Layout::fit`]).
    layout: Layout,
}

/// Mixes a fingerprint into a bucket offset (Murmur3's finaliser): `alt` must depend on the
/// fingerprint alone, and similar fingerprints must land far apart.
#[inline]
fn fp_mix(fp: u64) -> u64 {
    let mut k = fp.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^ (k >> 33)
}

impl CuckooFilter {
    /// A builder; defaults to one million items at 1%.
    pub fn builder() -> CuckooBuilder {
        CuckooBuilder::default()
    }

    /// Fingerprint width `f` in bits.
    pub fn fingerprint_bits(&self) -> u32 {
        self.fp_bits
    }

    /// Number of buckets.
    pub fn buckets(&self) -> u64 {
        self.buckets
    }

    /// Occupied slots / all slots.
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / (self.buckets * u64::from(SLOTS)) as f64
    }

    /// The bound on evictions per insert.
    pub fn max_kicks(&self) -> u32 {
        self.max_kicks
    }

    /// Where a key's second bucket lies (a near window as clamped to the table).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    #[inline]
    fn fingerprint(&self, hash: Hash128) -> u64 {
        // Uniform on 1..2^f: 0 is reserved for an empty slot.
        1 + reduce(hash.hi, (1u64 << self.fp_bits) - 1)
    }

    #[inline]
    fn alt(&self, bucket: u64, fp: u64) -> u64 {
        match self.layout {
            Layout::Spread => layout::spread_alt(bucket, fp_mix(fp), self.buckets),
            Layout::Near { window } => layout::near_alt(bucket, fp_mix(fp), self.buckets, window),
        }
    }

    fn buckets_of(&self, hash: Hash128) -> (u64, u64, u64) {
        let fp = self.fingerprint(hash);
        let i1 = reduce(hash.lo, self.buckets);
        (i1, self.alt(i1, fp), fp)
    }

    /// Prefetches the first byte of both candidate buckets (a bucket of 4 slots of at most 32 bits
    /// spans at most two cache lines; the first is the one nearly always needed).
    #[inline]
    fn prefetch_buckets(&self, hash: Hash128) {
        let (i1, i2, _) = self.buckets_of(hash);
        self.prefetch_bucket(i1);
        self.prefetch_bucket(i2);
    }

    #[inline]
    fn prefetch_bucket(&self, bucket: u64) {
        let bit = bucket * u64::from(SLOTS) * u64::from(self.fp_bits);
        prefetch(&self.table[(bit / 8) as usize]);
    }

    fn full_error(&self) -> Error {
        Error::Full {
            len: self.len,
            load_factor: self.load_factor(),
        }
    }
}

impl Filter for CuckooFilter {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.insert_counting_moves(hash).map(|_| ())
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        let (i1, i2, fp) = self.buckets_of(hash);
        // `|`, not `||`: both buckets are read unconditionally, so their two cache misses
        // overlap instead of the second waiting for the first to be tested.
        self.bucket_has(i1, fp) | self.bucket_has(i2, fp)
    }

    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        filter_core::insert_hash_batch_prefetched(self, hashes)
    }

    /// The shared prefetch-then-probe pipeline, except that each key's buckets and fingerprint
    /// are computed once (for its prefetch) and kept for its probe: for the cuckoo filter that
    /// arithmetic (two reductions and the fingerprint mix) is most of a probe's instructions.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        if !filter_core::worth_prefetching(self.size_in_bytes(), self.lines_per_key()) {
            out.clear();
            out.extend(hashes.iter().map(|&h| self.contains_hash(h)));
            return;
        }
        let mut places = [(0u64, 0u64, 0u64); filter_core::BATCH];
        out.clear();
        out.reserve(hashes.len());
        for chunk in hashes.chunks(filter_core::BATCH) {
            let places = &mut places[..chunk.len()];
            for (p, &h) in places.iter_mut().zip(chunk) {
                *p = self.buckets_of(h);
            }
            let ahead = filter_core::PREFETCH_AHEAD.min(places.len());
            for &(i1, i2, _) in &places[..ahead] {
                self.prefetch_bucket(i1);
                self.prefetch_bucket(i2);
            }
            for (k, &(i1, i2, fp)) in places.iter().enumerate() {
                if let Some(&(n1, n2, _)) = places.get(k + ahead) {
                    self.prefetch_bucket(n1);
                    self.prefetch_bucket(n2);
                }
                out.push(self.bucket_has(i1, fp) | self.bucket_has(i2, fp));
            }
        }
    }

    filter_core::filter_accessors!(self,
        name: "cuckoo",
        table: self.table,
        len: self.len,
        expected_fpr: layout::fpr_exact(self.layout, self.fp_bits, self.buckets, self.len),
    );
}

impl Prefetch for CuckooFilter {
    fn lines_per_key(&self) -> u32 {
        2
    }

    fn prefetch_hash(&self, hash: Hash128) {
        self.prefetch_buckets(hash);
    }
}

impl Deletable for CuckooFilter {
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        let (i1, i2, fp) = self.buckets_of(hash);
        for b in [i1, i2] {
            if let Some(j) = self.find(b, fp) {
                self.set_slot(b, j, 0);
                self.len -= 1;
                return Ok(());
            }
        }
        Err(Error::NotPresent)
    }

    fn count_hash(&self, hash: Hash128) -> u32 {
        let (i1, i2, fp) = self.buckets_of(hash);
        let in_bucket = |b| (0..SLOTS).filter(|&j| self.slot(b, j) == fp).count() as u32;
        in_bucket(i1) + if i2 != i1 { in_bucket(i2) } else { 0 }
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(CuckooFilter);

mod explain;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
