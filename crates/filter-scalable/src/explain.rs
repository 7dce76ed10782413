//! The bits a key touches in each stage.

use crate::ScalableBloom;
use filter_core::{explain::bloom_indices, Explain, Hash128, Positions};

impl Explain for ScalableBloom {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let stages = self
            .stages
            .iter()
            .map(|s| {
                let m = s.bits.bits();
                Positions::Bits {
                    m,
                    bits: bloom_indices(hash, m, s.bits.hashes()),
                }
            })
            .collect();
        Positions::Stages { stages }
    }
}
