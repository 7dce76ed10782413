//! Standard ribbon filters (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom
//! and Xor", 2021; the `Standard128Ribbon` of RocksDB): static filters that store, for `n`
//! keys, an `m × r` bit matrix `S` with `m` a few percent above `n`, and answer a query with one
//! 128-bit AND-and-parity per result bit.
//!
//! # Structure
//!
//! Each key gets a start slot `s` in `[0, m - 128]`, a 128-bit coefficient band `c` (bit 0 set)
//! and an `r`-bit fingerprint `b`, all from one 64-bit hash. The filter solves, over GF(2),
//!
//! ```text
//! for every key:   XOR over k with bit k of c set of  S[s + k]  ==  b
//! ```
//!
//! The equations are banded (every coefficient lies within 128 columns of the diagonal), so
//! *on-the-fly* Gaussian elimination inserts them one by one in time `O(w)` each, and back
//! substitution fills `S` from the last row up. `S` is stored column-interleaved: for each block
//! of 64 slots, `r` words of 64 bits, so a query reads at most three words per column.
//!
//! # Construction never fails
//!
//! Key hashes are deduplicated first (a repeated equation would be harmless, and is); an
//! attempt whose equations contradict each other is retried with a new seed, and every
//! [`build::ATTEMPTS_PER_BUMP`] failures with 1 % more slots ([`build::slots_for`]).
//!
//! # False-positive rate
//!
//! A non-member's fingerprint `b` is uniform on `r` bits and independent of `S` and of the
//! parities its band selects, so (Dillinger & Walzer 2021, §2)
//!
//! ```text
//! ε = 2^-r,    r = ceil(log2(1/p)) for a target p     (p = 1 %: r = 7, ε = 0.78 %)
//! ```
//!
//! and the space is `m r` bits, `r m / n` per key ([`build::slots_for`]): at a 1 % target,
//! r = 7 and about 7.24 bits per key at 10^6 keys (7.22 at 10^7) for a rate of 0.78 %.
//! RocksDB reaches about 7.05 at 1 % with a fractional `r` (blocks of 6 and 7 columns mixed so
//! that ε is 1 % rather than 0.78 %), not done here.
//!
//! ```
//! use filter_core::{math, StaticFilter};
//! use filter_ribbon::Ribbon;
//!
//! let keys: Vec<String> = (0..20_000).map(|i| format!("member-{i}")).collect();
//! let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
//! let filter = Ribbon::builder().fpr(0.01).build_from_keys(&refs)?;
//! assert!(refs.iter().all(|k| filter.contains(k)));
//! assert_eq!(filter.expected_fpr(), 1.0 / 128.0);
//!
//! let trials = 200_000u64;
//! let fp = (0..trials)
//!     .filter(|i| filter.contains(format!("outsider-{i}").as_bytes()))
//!     .count() as f64;
//! let tolerance = 4.0 * math::binomial_sigma(filter.expected_fpr(), trials);
//! assert!((fp / trials as f64 - filter.expected_fpr()).abs() <= tolerance);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod build;

use filter_core::{math, reduce, Error, Hash128, KeyHasher, Result, StaticFilter};

/// The band width `w`: coefficients span 128 slots.
pub const W: usize = 128;

/// Slots per interleaved block (one `u64` per result column).
pub const BLOCK: usize = 64;

/// The most result bits (ε = 2^-16).
pub const MAX_RESULT_BITS: u32 = 16;

/// One key's equation: start slot, coefficient band (bit 0 set), fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Row {
    pub(crate) start: u64,
    pub(crate) coeff: u128,
    pub(crate) result: u16,
}

/// MurmurHash3's 64-bit finaliser (a bijection).
#[inline]
fn fmix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// The 64 bits of a key hash the filter uses; keys equal here are one key to the filter.
#[inline]
fn key_of(h: Hash128) -> u64 {
    h.lo ^ h.hi.rotate_left(32)
}

/// The per-seed hash of a key (a bijection of the key for every seed).
#[inline]
fn derive(key: u64, seed: u64) -> u64 {
    fmix(key.wrapping_add(seed))
}

/// A key's equation: the start from the high bits of `d` (multiply-shift over `starts`), the
/// band and the fingerprint from further finaliser rounds, so the three are independent.
#[inline]
fn row_of(d: u64, starts: u64, r: u32) -> Row {
    let lo = fmix(d ^ 0x243f_6a88_85a3_08d3);
    let hi = fmix(d ^ 0x1319_8a2e_0370_7344);
    let fp = fmix(d ^ 0xa409_3822_299f_31d0);
    Row {
        start: reduce(d, starts),
        coeff: (u128::from(hi) << 64 | u128::from(lo)) | 1,
        result: (fp & ((1u64 << r) - 1)) as u16,
    }
}

/// A standard ribbon filter; see the crate docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ribbon {
    hasher: KeyHasher,
    seed: u64,
    r: u32,
    slots: u64,
    table: Vec<u64>,
    len: u64,
}

/// Settings of a [`Ribbon`] build: target rate and hasher.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RibbonBuilder {
    fpr: f64,
    hasher: KeyHasher,
}

impl Default for RibbonBuilder {
    /// 1 % (r = 7), xxh3-128 with seed 0.
    fn default() -> Self {
        RibbonBuilder {
            fpr: 0.01,
            hasher: KeyHasher::default(),
        }
    }
}

impl RibbonBuilder {
    /// Target false-positive rate, strictly between 0 and 1; the realised rate is `2^-r` with
    /// `r = ceil(log2(1/p))`, at most the target, and at least 2^-16.
    pub fn fpr(mut self, rate: f64) -> Self {
        self.fpr = rate;
        self
    }

    /// Hash function and seed (default: xxh3-128, seed 0).
    pub fn hasher(mut self, hasher: KeyHasher) -> Self {
        self.hasher = hasher;
        self
    }

    /// Result bits for the target rate.
    ///
    /// # Errors
    /// A rate outside (0, 1), or below 2^-16.
    pub fn result_bits(&self) -> Result<u32> {
        let p = math::check_fpr(self.fpr)?;
        let r = (-p.log2()).ceil().max(1.0);
        if r > f64::from(MAX_RESULT_BITS) {
            return Err(Error::InvalidParameter {
                name: "fpr",
                value: p.to_string(),
                expected: "a rate of at least 2^-16 (1.53e-5) for a ribbon filter",
            });
        }
        Ok(r as u32)
    }

    /// Builds from key hashes computed with this builder's hasher.
    ///
    /// # Errors
    /// As [`RibbonBuilder::result_bits`], or memory that cannot be allocated.
    pub fn build_from_hashes(&self, hashes: &[Hash128]) -> Result<Ribbon> {
        let r = self.result_bits()?;
        let mut keys = Vec::new();
        keys.try_reserve_exact(hashes.len())
            .map_err(|_| Error::OutOfMemory {
                what: "ribbon key hashes",
                bytes: hashes.len() as u64 * 8,
            })?;
        keys.extend(hashes.iter().map(|&h| key_of(h)));
        keys.sort_unstable();
        keys.dedup();
        Ribbon::build(&keys, r, self.hasher)
    }

    /// Builds from key bytes.
    ///
    /// # Errors
    /// As [`RibbonBuilder::build_from_hashes`].
    pub fn build_from_keys(&self, keys: &[&[u8]]) -> Result<Ribbon> {
        let hashes: Vec<Hash128> = keys.iter().map(|k| self.hasher.hash(k)).collect();
        self.build_from_hashes(&hashes)
    }
}

impl Ribbon {
    /// A builder (default: 1 %, xxh3-128 with seed 0).
    pub fn builder() -> RibbonBuilder {
        RibbonBuilder::default()
    }

    /// Result bits per slot (`r`).
    pub fn result_bits(&self) -> u32 {
        self.r
    }

    /// Slots (`m`, rows of the solution).
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The seed the construction settled on.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Bit `j` of each of the 128 slots from `start`, as one window.
    #[inline]
    fn window(&self, start: u64, j: usize) -> u128 {
        let r = self.r as usize;
        let block = start as usize / BLOCK;
        let off = (start % BLOCK as u64) as u32;
        let word = |b: usize| u128::from(self.table[b * r + j]);
        let low = word(block) | word(block + 1) << 64;
        if off == 0 {
            low
        } else {
            low >> off | word(block + 2) << (128 - off)
        }
    }
}

impl StaticFilter for Ribbon {
    /// Builds at the default 1 % (r = 7); use [`Ribbon::builder`] for another rate.
    fn from_hashes(hashes: &[Hash128], hasher: KeyHasher) -> Result<Self> {
        Ribbon::builder().hasher(hasher).build_from_hashes(hashes)
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let d = derive(key_of(hash), self.seed);
        let row = row_of(d, self.slots - W as u64 + 1, self.r);
        (0..self.r as usize).all(|j| {
            let parity = (self.window(row.start, j) & row.coeff).count_ones() as u16 & 1;
            parity == (row.result >> j) & 1
        })
    }

    fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn size_in_bytes(&self) -> usize {
        self.table.len() * 8
    }

    fn expected_fpr(&self) -> f64 {
        (-f64::from(self.r)).exp2()
    }

    fn name(&self) -> &'static str {
        "ribbon"
    }
}

#[cfg(test)]
mod tests;
