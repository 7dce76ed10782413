//! A key's three slots and the fingerprint their XOR must equal.

use crate::{derive, fingerprint_of, key_of, positions, BinaryFuse, Fingerprint};
use filter_core::{Explain, Hash128, Positions};

impl<F: Fingerprint + Into<u64>> Explain for BinaryFuse<F> {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let d = derive(key_of(hash), self.seed);
        let mut slots: Vec<u64> = positions(d, self.layout).map(u64::from).to_vec();
        slots.sort_unstable();
        Positions::Xor {
            slots,
            fingerprint: fingerprint_of::<F>(d).into(),
        }
    }
}
