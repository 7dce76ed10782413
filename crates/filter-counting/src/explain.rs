//! The counters a key raises and reads.

use crate::{CountingBloom, COUNTER_BITS};
use filter_core::{explain::bloom_indices, Explain, Hash128, Positions};

impl Explain for CountingBloom {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Counters {
            m: self.counters(),
            counter_bits: COUNTER_BITS,
            counters: bloom_indices(hash, self.counters(), self.hashes()),
        }
    }
}
