//! Static filters: built once from the whole key set, then only queried.
//!
//! Binary fuse (Graf & Lemire 2022) and ribbon (Dillinger & Walzer 2021) filters solve a system
//! over all keys at once, so they have no `insert`: [`StaticFilter`] replaces [`Filter`]'s insert
//! with a constructor that takes every key, and keeps its queries, size and rate methods, on the
//! same hashing path ([`KeyHasher`] into a [`Hash128`]).
//!
//! [`Filter`]: crate::Filter

use crate::{Hash128, KeyHasher, Result};

/// The seed of a static filter's `attempt`-th construction (from 0): a splitmix64 step of
/// `attempt + 1`, so that builds are deterministic and each retry draws a fresh hypergraph or
/// system. Binary fuse and ribbon filters both retry with these seeds; a filter saves the seed it
/// settled on, and their saved-file tests pin the files a build writes, so they pin this too.
#[must_use]
pub fn construction_seed(attempt: u32) -> u64 {
    let mut z = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(u64::from(attempt) + 1);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// An approximate-membership filter built once from all its keys (no insert, no delete).
///
/// Like [`Filter`](crate::Filter), it never gives a false negative: every key it was built
/// from is reported present.
pub trait StaticFilter: Sized {
    /// Builds the filter from the hashes of all keys (computed with `hasher`). Repeated hashes
    /// (repeated keys) are allowed and stored once.
    ///
    /// # Errors
    /// Memory that cannot be allocated, or a construction that did not succeed (see the
    /// variant's documentation).
    fn from_hashes(hashes: &[Hash128], hasher: KeyHasher) -> Result<Self>;

    /// Builds the filter from key bytes hashed with `hasher`.
    ///
    /// # Errors
    /// As [`StaticFilter::from_hashes`].
    fn from_keys_with(keys: &[&[u8]], hasher: KeyHasher) -> Result<Self> {
        let hashes: Vec<Hash128> = keys.iter().map(|k| hasher.hash(k)).collect();
        Self::from_hashes(&hashes, hasher)
    }

    /// Builds the filter from key bytes with the default hasher (xxh3-128, seed 0).
    ///
    /// # Errors
    /// As [`StaticFilter::from_hashes`].
    fn from_keys(keys: &[&[u8]]) -> Result<Self> {
        Self::from_keys_with(keys, KeyHasher::default())
    }

    /// Whether the key whose hash is `hash` may be in the set (`false`: certainly not).
    fn contains_hash(&self, hash: Hash128) -> bool;

    /// The hash function and seed this filter was built with.
    fn hasher(&self) -> KeyHasher;

    /// Whether a key may be in the set (`false`: certainly not).
    fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hasher().hash(key))
    }

    /// Answers many hashed queries: `out[i] = contains_hash(hashes[i])`. `out` is cleared first.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        out.clear();
        out.extend(hashes.iter().map(|&h| self.contains_hash(h)));
    }

    /// Answers many queries: `out[i] = contains(keys[i])`. `out` is cleared first.
    fn contains_batch(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        crate::batch::contains_keys_hashed(&self.hasher(), keys, out, |h, part| {
            self.contains_hash_batch(h, part);
        });
    }

    /// Distinct keys the filter holds (repeated keys counted once).
    fn len(&self) -> u64;

    /// Whether the filter was built from no keys.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Heap memory used by the filter's table(s), in bytes.
    fn size_in_bytes(&self) -> usize;

    /// Bits of table per distinct key (`size_in_bytes * 8 / len`; `0` for an empty filter).
    fn bits_per_key(&self) -> f64 {
        if self.is_empty() {
            0.0
        } else {
            self.size_in_bytes() as f64 * 8.0 / self.len() as f64
        }
    }

    /// Bytes of the filter's table(s) on transparent huge pages now, measured for these very
    /// tables ([`Table::huge_page_bytes`](crate::Table::huge_page_bytes)); `None` where that
    /// cannot be measured (the default).
    fn huge_page_bytes(&self) -> Option<u64> {
        None
    }

    /// The false-positive rate predicted for this filter's realised parameters.
    fn expected_fpr(&self) -> f64;

    /// The variant's short name (`"fuse8"`, `"ribbon"`, …), for reports.
    fn name(&self) -> &'static str;
}

#[cfg(test)]
mod tests;
