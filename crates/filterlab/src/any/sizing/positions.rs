//! Where a key lands in a planned filter, from the plan alone: `filterlab explain --variant V
//! --n N --fpr P KEY` places a key without allocating the filter (at n = 2^32 a classic table is
//! 5 GiB). Only where a key's positions are a function of the table's shape and the key's hash:
//! the Bloom variants, whose index functions are the ones their filters use
//! ([`bloom_indices`], [`block_index`], [`lane_bits`]), so a plan cannot place a key elsewhere
//! than its filter would (`tests/explain.rs` compares the two).

use super::{Detail, Plan};
use crate::{Hash128, Positions};
use filter_blocked::{block_index, lane_bits};
use filter_core::explain::bloom_indices;

impl Plan {
    /// The positions a key with `hash` touches in the filter this plan sizes, as that filter's
    /// [`Explain`](crate::Explain) reports them, computed without building it: `None` for a
    /// variant whose positions depend on more than the plan holds (its table's later stages,
    /// a layout chosen when built, the slots a static filter solved for).
    #[must_use]
    pub fn positions_hash(&self, hash: Hash128) -> Option<Positions> {
        match self.detail {
            Detail::Classic { m, k } => Some(Positions::Bits {
                m,
                bits: bloom_indices(hash, m, k),
            }),
            Detail::Counting {
                m, k, counter_bits, ..
            } => Some(Positions::Counters {
                m,
                counter_bits,
                counters: bloom_indices(hash, m, k),
            }),
            Detail::Blocked { blocks, .. } => Some(Positions::Lanes {
                block: block_index(hash, blocks),
                lane_bits: lane_bits(hash.lo as u32),
            }),
            _ => None,
        }
    }
}
