//! A key's fingerprint and bucket pair in every stage, oldest first.

use crate::ExpandableCuckoo;
use filter_core::{Explain, Hash128, Positions};

impl Explain for ExpandableCuckoo {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        let stages = self
            .stage_places(hash)
            .map(|(_, p)| Positions::Buckets {
                fingerprint: p.fp,
                primary: p.c,
                alternate: p.alt,
            })
            .collect();
        Positions::Stages { stages }
    }
}
