//! A key's band: the rows whose parity, in every result column, gives its fingerprint.

use crate::{derive, key_of, row_of, Ribbon, W};
use filter_core::{Explain, Hash128, Positions};

impl Explain for Ribbon {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let d = derive(key_of(hash), self.seed);
        let row = row_of(d, self.starts(), self.r + 1);
        let slots = (0..W as u64)
            .filter(|&i| row.coeff >> i & 1 == 1)
            .map(|i| row.start + i)
            .collect();
        // Keys starting below the boundary have one more result bit, in the extra column.
        let bits = if row.start < self.boundary {
            self.r + 1
        } else {
            self.r
        };
        Positions::Xor {
            slots,
            fingerprint: u64::from(row.result) & ((1u64 << bits) - 1),
        }
    }
}
