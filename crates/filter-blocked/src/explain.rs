//! The block of a key and the bit it sets in each lane.

use crate::{lane_bits, BlockedBloom};
use filter_core::{Explain, Hash128, Positions};

impl Explain for BlockedBloom {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Lanes {
            block: self.block_of(hash) as u64,
            lane_bits: lane_bits(hash.lo as u32),
        }
    }
}
