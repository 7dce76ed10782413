//! Where a key lands in each window ([`Explain`]): the bits the next insert of the key sets, as
//! indexes into the filter's table read as one bit array (`filterlab explain` prints them; the
//! facade's tests compare them with the bits an insert really changes).

use crate::{Apbf, ItemWindow, TimeWindow};
use filter_core::{Explain, Hash128, Positions};

impl Explain for ItemWindow {
    /// The `k` lanes of the key, at the bit of the generation being filled.
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Bits {
            m: self.lanes.table_bits(),
            bits: self.lanes.bits(hash, self.next_slot()),
        }
    }
}

impl Explain for TimeWindow {
    /// The `k` lanes of the key, at the bit of the latest slice (the first slice's before any
    /// insert); an insert at a later time fills a later slice's bit of the same lanes.
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Bits {
            m: self.lanes.table_bits(),
            bits: self.lanes.bits(hash, self.latest_slot()),
        }
    }
}

impl Explain for Apbf {
    /// One bit in each of the `k` youngest slices (slice `r` of the ring holds bits
    /// `r·m .. (r + 1)·m`).
    fn positions_hash(&self, hash: Hash128) -> Positions {
        Positions::Bits {
            m: self.words.len() as u64 * 64,
            bits: self.insert_bits(hash),
        }
    }
}
