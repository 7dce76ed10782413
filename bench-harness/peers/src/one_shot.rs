//! XXH3-64 as a `BuildHasher`, one call a key, so that fastbloom can hash as filterlab's
//! `HashKind::Xxh3_64` does and the split-block goal compares the filters, not the hashes.

use std::hash::{BuildHasher, Hasher};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Builds [`Xxh3Once`] hashers keyed with a fixed seed.
#[derive(Clone, Copy, Debug)]
pub struct Xxh3OnceState {
    seed: u64,
}

impl Xxh3OnceState {
    /// Hashers keyed with `seed`.
    pub const fn with_seed(seed: u64) -> Self {
        Xxh3OnceState { seed }
    }
}

impl BuildHasher for Xxh3OnceState {
    type Hasher = Xxh3Once;

    fn build_hasher(&self) -> Xxh3Once {
        Xxh3Once {
            seed: self.seed,
            hash: 0,
        }
    }
}

/// `xxh3_64_with_seed(bytes, seed)` of the one byte slice it is given: what `Hash for [u8]`
/// writes (`write_usize` of the length, then `write` of the bytes) hashes to filterlab's
/// xxh3-64 of the key. The length prefix is dropped: the one-shot hash already covers the
/// length. A second `write` chains (its seed mixes the hash so far), so a key of several parts
/// still hashes every part.
#[derive(Clone, Copy, Debug)]
pub struct Xxh3Once {
    seed: u64,
    hash: u64,
}

impl Hasher for Xxh3Once {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        self.hash = xxh3_64_with_seed(bytes, self.seed ^ self.hash);
    }

    #[inline]
    fn write_usize(&mut self, _len: usize) {}

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_key_hashes_to_its_one_shot_xxh3_64() {
        let s = Xxh3OnceState::with_seed(7);
        let key: &[u8] = b"alice@example.com";
        assert_eq!(s.hash_one(key), xxh3_64_with_seed(key, 7));
        // A different seed gives a different hash: the seed is used.
        assert_ne!(Xxh3OnceState::with_seed(8).hash_one(key), s.hash_one(key));
    }
}
