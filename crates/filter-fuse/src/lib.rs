//! Binary fuse filters (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor
//! Filters", ACM JEA 27, 2022): static filters built once from a key set, at about 9 bits per
//! key for a rate of 2^-8 (1.125 × the bound `log2(1/ε)` = 8), against 11.5 for a Bloom
//! filter at the same rate.
//!
//! # Structure
//!
//! An array of `f`-bit fingerprints is cut into segments of `L` slots (a power of two). A key's
//! 64-bit hash picks a first slot `h0` in one of the first `c` segments, and a slot in each of
//! the next two segments (`h1`, `h2`, the low bits of the hash XORed into `h0 + L`, `h0 + 2L`).
//! The table is filled so that, for every key,
//!
//! ```text
//! T[h0] ^ T[h1] ^ T[h2] == fingerprint(key)
//! ```
//!
//! by *peeling* the 3-uniform hypergraph of the keys (repeatedly taking a slot that only one
//! remaining key touches) and assigning the slots in the reverse order. The segmented layout
//! (Dietzfelbinger & Walzer's spatial coupling) peels at 1/1.125 = 89% load for large sets,
//! where the xor filter of Graf & Lemire 2020 needed 1.23 slots per key.
//!
//! A query is three loads and two XORs. There is no insert: see
//! [`StaticFilter`].
//!
//! # Construction never fails
//!
//! * Repeated keys would make the hypergraph unpeelable forever (two equal keys are two edges
//!   on the same three slots), so when the first seed fails the key hashes are deduplicated
//!   (a peeling that succeeds proves them distinct, so distinct input skips the sort): they are
//!   stored once and [`StaticFilter::len`] counts distinct keys. The per-seed hash is a bijection, so
//!   distinct keys stay distinct under every seed.
//! * Retry, then grow ([`build`]): the first [`build::ATTEMPTS_PER_BUMP`] (8) attempts use the
//!   paper's layout with new seeds; every further 8 failures add one segment. The sizing
//!   formulas' weak spots (the C library failed at every attempt at 11,480–11,521 keys, with
//!   no growth) thus cost a few more attempts, never a failure.
//! * Termination: at most [`build::MAX_ATTEMPTS`] (1,000) peelings, each `O(n + slots)`.
//! * Why the bound is never reached: a peeling fails only when the random 3-uniform hypergraph
//!   of the keys under that seed has a non-empty 2-core. Each seed gives a fresh hypergraph
//!   (independent, in the model of uniform hashes), and the room only grows, so once each
//!   attempt peels with probability at least `q`, the remaining attempts all fail with
//!   probability at most `(1 - q)^(1000 - 8j)` after `j` bumps. Measured with the construction's
//!   seeds (`just fuse-2m` with every count to 60,000, release): 56,597 of the 60,000 counts
//!   (94.3 %) peeled at the first seed and 3,191 within eight; 212, namely 3,550–3,551 and
//!   counts between 11,406 and 13,224 (where the C library failed), failed all eight seeds at
//!   the paper's layout, and every one of them peeled at its first seed with one segment more.
//!   Of 1,579 counts from 60,001 to 2M at the tight spots, 1,448 peeled at the first seed, 130
//!   at the second, 1 at the third. With `q >= 1/2` the bound is below 2^-900.
//!   This is a probability bound, not a certainty: no hashing construction can exclude a key
//!   set built adversarially against its public seeds, and for that case the construction
//!   returns [`Error::Full`](filter_core::Error::Full) rather than loop or panic.
//! * Evidence (`src/tests.rs`): every count from 1 to 2,000 and from 11,400 to 11,600, at both
//!   widths and with duplicates, in the default run; `just fuse-2m` (release, ignored) builds
//!   every count to 200,000 and then, up to 2M, every count around each change of segment
//!   length and of the size factor's floor, the tightest layouts, and a stride.
//!
//! # False-positive rate
//!
//! A non-member's fingerprint and the XOR of three table slots it did not shape are independent
//! and uniform over `2^f` values, so (Graf & Lemire 2022, §2)
//!
//! ```text
//! ε = 2^-f      (f = 8: 0.39 %, f = 16: 0.0015 %)
//! ```
//!
//! whatever the number of keys. The space is `(c + 2) L f` bits, about `1.125 f` bits per key
//! for large sets ([`build::Layout::for_keys`] gives the exact figure).
//!
//! ```
//! use filter_core::{math, StaticFilter};
//! use filter_fuse::BinaryFuse8;
//!
//! let keys: Vec<String> = (0..20_000).map(|i| format!("member-{i}")).collect();
//! let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
//! let filter = BinaryFuse8::from_keys(&refs)?;
//! assert!(refs.iter().all(|k| filter.contains(k)));
//!
//! let trials = 200_000u64;
//! let fp = (0..trials)
//!     .filter(|i| filter.contains(format!("outsider-{i}").as_bytes()))
//!     .count() as f64;
//! let expected = filter.expected_fpr();
//! assert_eq!(expected, 1.0 / 256.0);
//! let tolerance = 4.0 * math::binomial_sigma(expected, trials);
//! assert!((fp / trials as f64 - expected).abs() <= tolerance, "measured {}", fp / trials as f64);
//! // Small sets get more slack than 1.125 slots per key (here 1.22): the table is the layout's.
//! assert_eq!(filter.size_in_bytes(), filter.layout().array_length as usize);
//! assert!(filter.bits_per_key() < 10.0);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod build;
mod codec;
mod explain;

pub use build::BinaryFuseBuilder;
pub use codec::{FILE_KIND_16, FILE_KIND_8};

/// The formulas (sizing, rate, bits per key), kept in `filter_core::math` beside every other
/// variant's.
pub use filter_core::math::fuse as math;

use build::Layout;
use filter_core::{
    reduce, widen64, Hash128, HashKind, KeyHasher, Result, StaticFilter, Table, Zeroable,
};
use std::ops::BitXor;
use xxhash_rust::xxh3;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
}

/// A fingerprint width: `u8` (ε = 2^-8) or `u16` (ε = 2^-16).
pub trait Fingerprint:
    sealed::Sealed + Copy + Default + Eq + BitXor<Output = Self> + std::fmt::Debug + Zeroable
{
    /// Bits per fingerprint.
    const BITS: u32;
    /// The variant's short name, for reports.
    const NAME: &'static str;
    /// The low `BITS` bits of `x`.
    fn truncate(x: u64) -> Self;
}

impl Fingerprint for u8 {
    const BITS: u32 = 8;
    const NAME: &'static str = "fuse8";
    fn truncate(x: u64) -> Self {
        x as u8
    }
}

impl Fingerprint for u16 {
    const BITS: u32 = 16;
    const NAME: &'static str = "fuse16";
    fn truncate(x: u64) -> Self {
        x as u16
    }
}

/// A binary fuse filter with `F`-bit fingerprints; see the crate docs.
#[doc = filter_core::files_doc!()]
#[derive(Debug, PartialEq, Eq)]
pub struct BinaryFuse<F> {
    hasher: KeyHasher,
    seed: u64,
    layout: Layout,
    fingerprints: Table<F>,
    len: u64,
}

impl<F: Fingerprint> Clone for BinaryFuse<F> {
    /// A copy whose table is allocated with the default page advice.
    fn clone(&self) -> Self {
        BinaryFuse {
            hasher: self.hasher,
            seed: self.seed,
            layout: self.layout,
            fingerprints: self.fingerprints.clone(),
            len: self.len,
        }
    }
}

/// 8-bit fingerprints: ε = 2^-8, about 9.0 bits per key.
pub type BinaryFuse8 = BinaryFuse<u8>;

/// 16-bit fingerprints: ε = 2^-16, about 18.1 bits per key.
pub type BinaryFuse16 = BinaryFuse<u16>;

/// The 64 bits of a key hash the filter uses. Keys with equal values are one key to the filter
/// (they answer alike), so the construction deduplicates on this value.
#[inline]
fn key_of(h: Hash128) -> u64 {
    h.lo ^ h.hi.rotate_left(32)
}

/// The per-seed hash of a key: MurmurHash3's 64-bit finaliser of `key + seed`. It is a
/// bijection, so distinct keys stay distinct under every seed.
#[inline]
fn derive(key: u64, seed: u64) -> u64 {
    let mut z = key.wrapping_add(seed);
    z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    z ^ (z >> 33)
}

/// The fingerprint of a derived hash: its two halves folded.
#[inline]
fn fingerprint_of<F: Fingerprint>(d: u64) -> F {
    F::truncate(d ^ (d >> 32))
}

/// A key's three slots: `h0` from the high bits (multiply-shift over the first `c` segments),
/// `h1`, `h2` in the next two segments at offsets taken from the low bits.
#[inline]
fn positions(d: u64, layout: Layout) -> [u32; 3] {
    let first_slots = u64::from(layout.segment_count) * u64::from(layout.segment_length);
    let mask = layout.segment_length - 1;
    let h0 = reduce(d, first_slots) as u32;
    let h1 = (h0 + layout.segment_length) ^ ((d >> 18) as u32 & mask);
    let h2 = (h0 + 2 * layout.segment_length) ^ (d as u32 & mask);
    [h0, h1, h2]
}

/// `hasher.hash(key)`, with the xxh3 hashes called here so that they inline into the lookup:
/// `KeyHasher::hash` holds all three hash functions and stays out of line, and its call, its
/// register saves and its match on the kind were a tenth of a lookup's instructions with
/// xxh3-64 (callgrind). Same values as `KeyHasher::hash` (`tests::inline_hash_is_the_hashers`).
#[inline(always)]
fn hash_inline(hasher: KeyHasher, key: &[u8]) -> Hash128 {
    match hasher.kind() {
        HashKind::Xxh3_64 => widen64(xxh3::xxh3_64_with_seed(key, hasher.seed())),
        HashKind::Xxh3_128 => Hash128::from_u128(xxh3::xxh3_128_with_seed(key, hasher.seed())),
        // MurmurHash3 (and any kind added later): the hasher's own call.
        _ => hasher.hash(key),
    }
}

impl<F: Fingerprint> BinaryFuse<F> {
    /// A builder (default: xxh3-128 with seed 0, huge pages advised).
    pub fn builder() -> BinaryFuseBuilder<F> {
        BinaryFuseBuilder::default()
    }

    /// The realised layout (segment length and count, slots).
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// The seed the construction settled on.
    pub fn seed(&self) -> u64 {
        self.seed
    }
}

impl<F: Fingerprint> StaticFilter for BinaryFuse<F> {
    /// Builds with the default page advice; use [`BinaryFuse::builder`] for another.
    fn from_hashes(hashes: &[Hash128], hasher: KeyHasher) -> Result<Self> {
        Self::builder().hasher(hasher).build_from_hashes(hashes)
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let d = derive(key_of(hash), self.seed);
        let [a, b, c] = positions(d, self.layout);
        let t = &self.fingerprints;
        fingerprint_of::<F>(d) == t[a as usize] ^ t[b as usize] ^ t[c as usize]
    }

    /// The trait's `contains_hash(hasher().hash(key))`, with the two xxh3 hashes inlined
    /// (`hash_inline`) and marked for inlining, so that the registry's dispatch holds the
    /// whole lookup, hash included, in its arm.
    #[inline]
    fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(hash_inline(self.hasher, key))
    }

    fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn size_in_bytes(&self) -> usize {
        self.fingerprints.len() * std::mem::size_of::<F>()
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.fingerprints.huge_page_bytes()
    }

    fn expected_fpr(&self) -> f64 {
        math::fuse_fpr(F::BITS)
    }

    fn name(&self) -> &'static str {
        F::NAME
    }
}

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
