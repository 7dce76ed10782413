//! The classic Bloom filter (Burton H. Bloom, "Space/time trade-offs in hash coding with allowable
//! errors", CACM 1970).
//!
//! An array of `m` bits, all zero at first. To insert a key, set the `k` bits at positions derived
//! from its hash; to query, check those `k` bits: if any is zero the key was certainly never
//! inserted, if all are set it probably was. Bits are never cleared, so there are no false
//! negatives and no deletion.
//!
//! Sizing for `n` items at rate `p` uses [`filter_core::math::classic_shape`]: the textbook
//! [`filter_core::math::optimal_bits`] and [`filter_core::math::optimal_hashes`] (9.59 bits and 7
//! hashes per item at 1%, which is 1.44× the information-theoretic lower bound `log2(1/p)`),
//! grown until the *exact* rate meets the target (by a few hundredths of a percent at large `n`,
//! where only rounding `k` to an integer misses it; by more for small `n`), and refused below
//! about 4e-20, which would need more than 64 hash functions.
//!
//! ```
//! use filter_classic::ClassicBloom;
//! use filter_core::Filter;
//!
//! let mut seen = ClassicBloom::builder().capacity(10_000_000).fpr(0.01).build()?;
//! seen.insert(b"alice@example.com")?;
//! assert!(seen.contains(b"alice@example.com"));          // never a false negative
//! assert_eq!(seen.bits(), 95_929_549);                  // 11.99 MB for 10M e-mails at 1%
//! assert_eq!(seen.hashes(), 7);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

use filter_core::{
    math, BloomBits, Error, FileKind, Filter, Hash128, MemoryCap, Prefetch, Result, Sizing,
};

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(1, "classic");

/// A classic Bloom filter.
///
/// # False-positive rate
///
/// After `n` inserts into `m` bits with `k` hashes, a key never inserted is reported present with
/// probability
///
/// ```text
/// p ≈ (1 - e^(-kn/m))^k
/// ```
///
/// ([`math::classic_fpr`]); the exact value (Christensen, Roginsky & Jimeno 2010,
/// [`math::classic_fpr_exact`]) is slightly higher, noticeably so for small `m`.
/// [`Filter::expected_fpr`] returns the exact value, evaluated without cancellation for every
/// `k <= 64` (a filter sized for 1M keys at 1e-6 holding 100k keys: 3.5e-24).
///
/// Measured on a seeded sample (4-sigma binomial tolerance):
///
/// ```
/// use filter_classic::ClassicBloom;
/// use filter_core::{math, testkit, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 7)?;
/// let mut f = ClassicBloom::builder().capacity(20_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 20_000)?;
/// let theory = math::classic_fpr(f.bits(), 20_000, f.hashes());
/// testkit::assert_others_fpr("classic", &f, 200_000, theory);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct ClassicBloom {
    bits: BloomBits,
    len: u64,
    sizing: Sizing,
}

/// Builds a [`ClassicBloom`]: from capacity and rate (the default), or with explicit `bits` and
/// `hashes` to reproduce another implementation's sizing.
#[derive(Clone, Debug, Default)]
pub struct ClassicBuilder {
    sizing: Sizing,
    bits: Option<u64>,
    hashes: Option<u32>,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl ClassicBuilder {
    filter_core::table_builder_setters!();

    filter_core::setters! {
        /// Uses exactly `m` bits instead of the optimum for capacity and rate.
        bits(m: u64) => bits as Some;
        /// Uses exactly `k` hash functions instead of the optimum.
        hashes(k: u32) => hashes as Some;
    }

    /// Builds the filter.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1) or below about 4e-20 (more than 64 hashes; see
    /// [`math::classic_shape`]), `bits` or `hashes` out of range, a size above the memory cap,
    /// or a size that cannot be allocated.
    pub fn build(self) -> Result<ClassicBloom> {
        let (sizing, m, k) = self.shape()?;
        Ok(ClassicBloom {
            bits: BloomBits::with_cap(m, k, self.table_options())?,
            len: 0,
            sizing,
        })
    }
}

impl ClassicBuilder {
    /// The validated sizing, `m` and `k` (shared by both forms of the filter).
    fn shape(&self) -> Result<(Sizing, u64, u32)> {
        let sizing = self.sizing.validate()?;
        let (m, k) = match (self.bits, self.hashes) {
            (Some(m), Some(k)) => (m, k),
            (Some(m), None) => (m, math::optimal_hashes(m, sizing.capacity)),
            (None, hashes) => {
                let (m, k) = math::classic_shape(sizing.capacity, sizing.fpr)?;
                (m, hashes.unwrap_or(k))
            }
        };
        Ok((sizing, m, k))
    }
}

impl ClassicBloom {
    /// A builder; defaults to one million items at 1%.
    pub fn builder() -> ClassicBuilder {
        ClassicBuilder::default()
    }

    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.bits.bits()
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.bits.hashes()
    }

    /// The target false-positive rate the filter was sized for.
    pub fn target_fpr(&self) -> f64 {
        self.sizing.fpr
    }

    /// Fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.bits.count_ones() as f64 / self.bits() as f64
    }

    /// Estimates how many *distinct* keys were inserted from the number of set bits `X`:
    /// `n ≈ -(m/k) ln(1 - X/m)` (Swamidass & Baldi 2007). Useful for counting unique users, where
    /// [`Filter::len`] counts every insert.
    pub fn estimate_distinct(&self) -> f64 {
        let m = self.bits() as f64;
        let x = self.bits.count_ones() as f64;
        if x >= m {
            return f64::INFINITY;
        }
        -(m / f64::from(self.hashes())) * (-x / m).ln_1p()
    }

    /// The false-positive rate of the table as it stands, `(X/m)^k` for `X` bits set of `m`:
    /// what a key never inserted finds with these bits. Unlike [`Filter::expected_fpr`] (the
    /// formula at [`Filter::len`], which counts every insert), duplicates do not raise it.
    pub fn realised_fpr(&self) -> f64 {
        self.fill_ratio().powi(self.hashes() as i32)
    }

    /// Whether every bit set here is set in `other`: every key inserted here is then present
    /// in `other` (the filter analogue of a subset).
    ///
    /// # Errors
    /// [`Error::Incompatible`] unless both have the same bits, hashes and hasher.
    pub fn is_subset(&self, other: &Self) -> Result<bool> {
        self.check_compatible(other)?;
        self.bits.is_subset(&other.bits)
    }

    /// Removes every key: all bits clear, `len` 0; the shape and hasher stay.
    pub fn clear(&mut self) {
        self.bits.clear();
        self.len = 0;
    }

    fn check_compatible(&self, other: &Self) -> Result<()> {
        if self.sizing.hasher != other.sizing.hasher {
            return Err(Error::Incompatible(format!(
                "hashers differ: {:?} vs {:?}",
                self.sizing.hasher, other.sizing.hasher
            )));
        }
        Ok(())
    }

    /// Makes `self` the union of both filters: a key present in either is present in the result,
    /// and the result is exactly the filter one would get by inserting both key sets.
    /// `len` becomes the sum (an upper bound when the sets overlap).
    ///
    /// # Errors
    /// [`Error::Incompatible`] unless both have the same bits, hashes and hasher; `self` is then
    /// unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.union(&other.bits)?;
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }

    /// Makes `self` the intersection of both filters: every key inserted into both stays present
    /// (its bits are set in both). The false-positive rate can be higher than a filter built from
    /// the intersection alone. `len` becomes the smaller of the two (an upper bound).
    ///
    /// # Errors
    /// [`Error::Incompatible`] as for [`Self::union`].
    pub fn intersect(&mut self, other: &Self) -> Result<()> {
        self.check_compatible(other)?;
        self.bits.intersect(&other.bits)?;
        self.len = self.len.min(other.len);
        Ok(())
    }
}

impl Filter for ClassicBloom {
    #[inline]
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.bits.insert(hash);
        // Saturating: a loaded file may hold any count up to u64::MAX (it only feeds the rate
        // estimate, which is 1 long before), and an insert must not panic or wrap.
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.bits.contains(hash)
    }

    /// One pass over the k bits: sets them and notes whether any was clear.
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        let new = self.bits.insert_if_absent(hash);
        self.len = self.len.saturating_add(u64::from(new));
        Ok(new)
    }

    /// Pipelined beyond the caches, each key's positions computed once
    /// ([`BloomBits::insert_many_prefetched`]).
    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        if filter_core::worth_prefetching(self.size_in_bytes(), self.lines_per_key()) {
            self.bits.insert_many_prefetched(hashes);
        } else {
            hashes.iter().for_each(|&h| self.bits.insert(h));
        }
        self.len = self.len.saturating_add(hashes.len() as u64);
        Ok(())
    }

    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        filter_core::contains_hash_batch_prefetched(self, hashes, out);
    }

    filter_core::filter_accessors!(self,
        name: "classic",
        table: self.bits,
        len: self.len,
        expected_fpr: math::classic_fpr_best(self.bits(), self.len, self.hashes()),
    );
}

impl Prefetch for ClassicBloom {
    fn lines_per_key(&self) -> u32 {
        self.hashes()
    }

    /// All k positions: a positive query reads every one, and for a negative one the extra
    /// prefetches overlap with the misses it takes anyway (measured faster on both).
    fn prefetch_hash(&self, hash: Hash128) {
        self.bits.prefetch(hash, self.bits.hashes());
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(ClassicBloom);

mod atomic;
mod codec;
mod explain;
pub use atomic::AtomicClassicBloom;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
