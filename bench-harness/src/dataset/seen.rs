//! Hash tables for exact duplicate detection while generating and verifying.

use super::*;

/// An open-addressing table of non-zero `u64` words with linear probing, the storage of
/// [`SeenHashes`] and [`KeyIndex`].
///
/// A word's home slot is given by the top bits of a 64-bit hash; the load stays at most 2/3, so
/// probe sequences are short. At 20M keys the table is 256 MiB, so nearly every lookup misses
/// the cache: callers hash a batch of keys first and [`prefetch`](Slots::prefetch) their slots.
pub(super) struct Slots {
    pub(super) words: Vec<u64>,
    /// `64 - log2(words.len())`.
    pub(super) shift: u32,
    pub(super) len: usize,
}

impl Slots {
    /// Creates a table for up to `capacity` words.
    pub(super) fn with_capacity(capacity: usize) -> Self {
        // At least 1.5 times `capacity`, and a power of two, so the home slot is a shift.
        let size = capacity
            .saturating_add(capacity / 2)
            .max(16)
            .next_power_of_two();
        Slots {
            words: vec![0; size],
            shift: 64 - size.trailing_zeros(),
            len: 0,
        }
    }

    #[inline]
    pub(super) fn home(&self, hash: u64) -> usize {
        (hash >> self.shift) as usize
    }

    #[inline]
    pub(super) fn next(&self, pos: usize) -> usize {
        (pos + 1) & (self.words.len() - 1)
    }

    /// Stores `word` in the empty slot `pos`.
    #[inline]
    pub(super) fn fill(&mut self, pos: usize, word: u64) {
        debug_assert!(self.words[pos] == 0 && word != 0);
        assert!(
            self.len < self.words.len() / 3 * 2,
            "hash table filled beyond its capacity"
        );
        self.words[pos] = word;
        self.len += 1;
    }

    /// Loads the home slot of every hash, so that the following lookups hit the cache. These
    /// loads are independent, so the CPU overlaps their misses, where lookups interleaved with
    /// other work would each wait for their own. Plain loads, not prefetch intrinsics, keep
    /// the crate free of `unsafe`.
    pub(super) fn prefetch(&self, hashes: &[u64]) {
        let folded = hashes
            .iter()
            .fold(0, |acc, &h| acc ^ self.words[self.home(h)]);
        std::hint::black_box(folded);
    }
}

/// The set of hashes of the keys generated so far.
///
/// Storing hashes instead of keys is exact for what generation needs: two equal keys have equal
/// hashes, so a duplicate is always rejected. A collision between two *different* keys only
/// makes the generator skip a fresh candidate and draw another, which is as deterministic as
/// the rest, since XXH3 is specified bit for bit on every platform; with 64-bit hashes it is
/// expected about once per 10^5 runs of 20M keys. Hash 0, which marks empty slots, is stored as
/// 1: merging two hash values can, again, only skip a key.
pub(super) struct SeenHashes(Slots);

impl SeenHashes {
    pub(super) fn with_capacity(capacity: usize) -> Self {
        SeenHashes(Slots::with_capacity(capacity))
    }

    pub(super) fn prefetch(&self, hashes: &[u64]) {
        self.0.prefetch(hashes);
    }

    /// Adds `hash`; returns `false` if it was already present.
    #[inline]
    pub(super) fn insert(&mut self, hash: u64) -> bool {
        let word = hash.max(1);
        let mut pos = self.0.home(hash);
        loop {
            match self.0.words[pos] {
                0 => {
                    self.0.fill(pos, word);
                    return true;
                }
                w if w == word => return false,
                _ => pos = self.0.next(pos),
            }
        }
    }
}

/// Bits of a [`KeyIndex`] word that hold `key index + 1` (so that 0 still marks an empty slot);
/// 2^40 keys is far beyond what fits in memory, since each key costs at least 9 bytes in a
/// [`KeySet`]. The other 24 bits hold a tag: the hash's low bits.
pub(super) const INDEX_BITS: u32 = 40;
pub(super) const INDEX_MASK: u64 = (1 << INDEX_BITS) - 1;

/// A set of keys that stores only their indices, answering membership by comparing key bytes.
///
/// Used by [`verify`], which must name both positions of a duplicate and must never take a hash
/// collision for one. A `HashSet<&[u8]>` would do, at 16 bytes per key and `SipHash` speed; this
/// table stores one word per key, the index plus a 24-bit tag, so the key bytes, a cache miss
/// away, are read only when the tags agree. Hash collisions therefore cost time, never
/// correctness.
pub(super) struct KeyIndex(Slots);

impl KeyIndex {
    /// Creates a table that will hold up to `capacity` keys.
    pub(super) fn with_capacity(capacity: usize) -> Self {
        assert!(
            (capacity as u64) < INDEX_MASK,
            "cannot index {capacity} keys: at most 2^40 - 1 are supported"
        );
        KeyIndex(Slots::with_capacity(capacity))
    }

    pub(super) fn prefetch(&self, hashes: &[u64]) {
        self.0.prefetch(hashes);
    }

    /// Looks `key`, whose hash is `hash`, up; if an equal key is present returns its index,
    /// otherwise records `key` as key number `index` and returns `None`. `key_at` resolves
    /// recorded indices to key bytes.
    #[inline]
    pub(super) fn find_or_insert<'k>(
        &mut self,
        key: &[u8],
        hash: u64,
        index: usize,
        key_at: impl Fn(usize) -> &'k [u8],
    ) -> Option<usize> {
        let tag = hash << INDEX_BITS;
        let mut pos = self.0.home(hash);
        loop {
            let word = self.0.words[pos];
            if word == 0 {
                self.0.fill(pos, tag | (index as u64 + 1));
                return None;
            }
            if word & !INDEX_MASK == tag {
                let other = (word & INDEX_MASK) as usize - 1;
                if key_at(other) == key {
                    return Some(other);
                }
            }
            pos = self.0.next(pos);
        }
    }
}

/// Resolves an index over the concatenation `members ++ non_members`.
#[inline]
pub(super) fn key_in_pair<'k>(
    members: &'k KeySet,
    non_members: &'k KeySet,
    index: usize,
) -> &'k [u8] {
    match index.checked_sub(members.len()) {
        None => members.get(index),
        Some(j) => non_members.get(j),
    }
}
