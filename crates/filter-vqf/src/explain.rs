//! The fingerprint of a key and its two candidate blocks, as buckets of the whole table.

use crate::block::BUCKETS;
use crate::VectorQuotient;
use filter_core::{Explain, Hash128, Positions};

impl Explain for VectorQuotient {
    /// Bucket `q` of block `b` is bucket `b · 72 + q` of the table.
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let p = self.place(hash);
        let second = self.other(p.block, p.bucket, p.fp);
        let q = u64::from(p.bucket);
        Positions::Buckets {
            fingerprint: u64::from(p.fp),
            primary: p.block * u64::from(BUCKETS) + q,
            alternate: second * u64::from(BUCKETS) + q,
        }
    }
}
