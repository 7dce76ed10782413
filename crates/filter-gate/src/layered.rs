//! [`Layered`]: a read-only base filter with a small owned filter on top that takes every key
//! learnt since: what a replica gate runs on ([`crate::Gate::replica`]). The base is typically
//! a saved snapshot opened in place (mapped, shared with every process that maps the same
//! file); nothing is ever written to it.

use std::ops::Deref;

use filter_core::{Error, Filter, Hash128, KeyHasher, Result};

/// A base filter that is only read, held through `B` (a `Box`, or a mapped file's handle that
/// lends its filter read-only, `filterlab::any::Mapped`), and a top filter that takes the
/// inserts. A key is present when either says so; so no key inserted into either is ever
/// reported absent.
#[derive(Debug)]
pub struct Layered<B, D> {
    base: B,
    top: D,
}

impl<B: Deref<Target: Filter>, D: Filter> Layered<B, D> {
    /// Joins `base` (read only from now on) and `top` (which takes every insert).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the two hash keys differently (another hash function or
    /// seed): a key's hash is computed once, by the base's hasher, and asked of both.
    pub fn new(base: B, top: D) -> Result<Self> {
        if base.hasher() != top.hasher() {
            return Err(Error::InvalidParameter {
                name: "top",
                value: format!("{:?}", top.hasher()),
                expected: "the base filter's hash function and seed (build the top filter with \
                           the base's hasher)",
            });
        }
        Ok(Self { base, top })
    }

    /// The read-only base.
    pub fn base(&self) -> &B::Target {
        &self.base
    }

    /// The filter that takes the inserts.
    pub fn top(&self) -> &D {
        &self.top
    }
}

impl<B: Deref<Target: Filter>, D: Filter> Filter for Layered<B, D> {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.top.insert_hash(hash)
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        self.base.contains_hash(hash) || self.top.contains_hash(hash)
    }

    fn hasher(&self) -> KeyHasher {
        self.base.hasher()
    }

    fn len(&self) -> u64 {
        self.base.len() + self.top.len()
    }

    fn capacity(&self) -> u64 {
        self.base.capacity() + self.top.capacity()
    }

    fn size_in_bytes(&self) -> usize {
        self.base.size_in_bytes() + self.top.size_in_bytes()
    }

    /// A stranger is a false positive of the pair when either filter takes it for a member:
    /// `1 - (1 - p_base)(1 - p_top)`, the two being independent draws of different tables.
    fn expected_fpr(&self) -> f64 {
        1.0 - (1.0 - self.base.expected_fpr()) * (1.0 - self.top.expected_fpr())
    }

    fn name(&self) -> &'static str {
        "layered"
    }

    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        self.base.contains_hash_batch(hashes, out);
        if self.top.is_empty() {
            return;
        }
        let mut top = Vec::with_capacity(hashes.len());
        self.top.contains_hash_batch(hashes, &mut top);
        for (o, t) in out.iter_mut().zip(top) {
            *o |= t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_classic::ClassicBloom;
    use filter_core::Persist;

    fn classic(n: u64) -> ClassicBloom {
        ClassicBloom::builder()
            .capacity(n)
            .fpr(0.01)
            .build()
            .unwrap()
    }

    #[test]
    fn inserts_go_on_top_and_either_layer_answers_one_at_a_time_and_batched() {
        let mut base = classic(1000);
        for i in 0..500u32 {
            base.insert(&i.to_le_bytes()).unwrap();
        }
        let base_bytes = base.to_bytes();
        let mut l = Layered::new(Box::new(base), classic(1000)).unwrap();
        for i in 500..1000u32 {
            l.insert(&i.to_le_bytes()).unwrap();
        }
        assert_eq!(l.base().to_bytes(), base_bytes, "the base is never written");
        assert_eq!((l.len(), l.top().len()), (1000, 500));
        let keys: Vec<[u8; 4]> = (0..1000u32).map(u32::to_le_bytes).collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let mut out = Vec::new();
        l.contains_batch(&refs, &mut out);
        assert!(out.iter().all(|&b| b), "no member missing in a batch");
        assert!(refs.iter().all(|k| l.contains(k)), "nor one at a time");
        let (pb, pt) = (l.base().expected_fpr(), l.top().expected_fpr());
        assert!((l.expected_fpr() - (pb + pt - pb * pt)).abs() < 1e-15);
    }
}
