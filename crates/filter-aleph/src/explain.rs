//! The home slot of a key and its fingerprint bits in the current slot width.

use crate::AlephFilter;
use filter_core::{Explain, Hash128, Positions};

impl Explain for AlephFilter {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let (quotient, code) = self.locate(hash);
        let bits = self.slot_width() - 1;
        Positions::Run {
            quotient,
            remainder: code >> 1,
            remainder_bits: bits,
        }
    }
}
