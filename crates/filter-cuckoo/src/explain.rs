//! The fingerprint of a key and its two candidate buckets.

use crate::CuckooFilter;
use filter_core::{Explain, Hash128, Positions};

impl Explain for CuckooFilter {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let (primary, alternate, fingerprint) = self.buckets_of(hash);
        Positions::Buckets {
            fingerprint,
            primary,
            alternate,
        }
    }
}
