//! The home slot of a key and the remainder its run holds.

use crate::QuotientFilter;
use filter_core::{Explain, Hash128, Positions};

impl Explain for QuotientFilter {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let (quotient, remainder) = self.split(hash);
        Positions::Run {
            quotient,
            remainder,
            remainder_bits: self.remainder_bits(),
        }
    }
}
