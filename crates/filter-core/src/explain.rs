//! Where a key lands: the memory an insert of the key writes and a lookup reads, as each
//! variant computes it. `filterlab explain` prints these, and tests check them against the bits
//! an insert really changes, so an explanation is the variant's own index function, never a copy.

use crate::{Filter, Hash128, IndexGen};

/// The positions one key touches in a filter.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Positions {
    /// Bit indices in `[0, m)`, in probe order (a Bloom filter's `k` bits; indices may repeat).
    Bits {
        /// Bits of the array.
        m: u64,
        /// The key's bit indices.
        bits: Vec<u64>,
    },
    /// Counter indices in `[0, m)`, in probe order (a counting filter's `k` counters).
    Counters {
        /// Counters of the array.
        m: u64,
        /// Bits per counter.
        counter_bits: u32,
        /// The key's counter indices.
        counters: Vec<u64>,
    },
    /// A fingerprint and the two buckets that may hold it (a cuckoo filter).
    Buckets {
        /// The fingerprint, never 0 (0 marks an empty slot).
        fingerprint: u64,
        /// The bucket the key's hash names.
        primary: u64,
        /// The other bucket, computed from the primary and the fingerprint alone.
        alternate: u64,
    },
    /// One block, and the bit set in each of its 32-bit lanes (a split-block filter).
    Lanes {
        /// Block index.
        block: u64,
        /// Bit (0..32) of each lane.
        lane_bits: [u32; 8],
    },
    /// A filter of stages, each with its own positions, oldest first (a scalable filter: an
    /// insert writes the last stage, a lookup reads them all).
    Stages {
        /// Each stage's positions.
        stages: Vec<Positions>,
    },
    /// A home slot and the remainder stored in its run (a quotient filter: the run may have
    /// been shifted right of its home slot by the runs before it).
    Run {
        /// The home slot (the quotient).
        quotient: u64,
        /// The remainder stored in the run.
        remainder: u64,
        /// Bits of a remainder.
        remainder_bits: u32,
    },
    /// Slots whose XOR must equal the key's fingerprint (a static filter: a binary fuse
    /// filter's three slots; a ribbon filter's rows in the key's band, whose parity in every
    /// result column gives one fingerprint bit).
    Xor {
        /// The slots (rows), in increasing order.
        slots: Vec<u64>,
        /// The fingerprint they must give.
        fingerprint: u64,
    },
}

/// A filter that tells which positions a key touches.
pub trait Explain {
    /// The positions of the key whose hash is `hash`.
    fn positions_hash(&self, hash: Hash128) -> Positions;

    /// The positions of a key, hashed with the filter's hasher.
    fn positions(&self, key: &[u8]) -> Positions
    where
        Self: Filter,
    {
        self.positions_hash(self.hasher().hash(key))
    }
}

/// The `k` indices in `[0, m)` that [`IndexGen`] draws for `hash`: the bits of
/// [`BloomBits`](crate::BloomBits) and the counters of a counting filter.
pub fn bloom_indices(hash: Hash128, m: u64, k: u32) -> Vec<u64> {
    let mut g = IndexGen::new(hash, m);
    (0..k).map(|_| g.next()).collect()
}

#[cfg(test)]
mod tests;
