//! The bits a key sets and reads.

use crate::ClassicBloom;
use filter_core::{explain::bloom_indices, Explain, Hash128, Positions};

impl Explain for ClassicBloom {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Bits {
            m: self.bits(),
            bits: bloom_indices(hash, self.bits(), self.hashes()),
        }
    }
}
