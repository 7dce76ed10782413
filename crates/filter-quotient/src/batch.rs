//! Batched inserts and lookups: the block of the key [`filter_core::PREFETCH_AHEAD`] places
//! later is prefetched while the current one is answered (tables of at least
//! [`filter_core::PREFETCH_MIN_BYTES`]), and a batch into an empty filter is built in one
//! pass: the keys' (quotient, remainder) pairs sorted by quotient, stably, then written run
//! after run (`Slots::fill_sorted`), the very table the inserts one by
//! one would give, without their shifts.

use crate::rsqf::bulk::sort_by_quotient;
use crate::QuotientFilter;
use filter_core::{Hash128, Prefetch, Result};

impl Prefetch for QuotientFilter {
    /// The block's head and its home slot's remainder: two lines for most widths.
    fn lines_per_key(&self) -> u32 {
        2
    }

    fn prefetch_hash(&self, hash: Hash128) {
        let (q, _) = self.split(hash);
        self.slots.prefetch(q);
    }
}

impl QuotientFilter {
    /// [`filter_core::Filter::insert_hash_batch`]: into an empty filter, built in one pass
    /// when the keys fit (no more than [`QuotientFilter::max_items`], no run past the table's
    /// end); otherwise, or into a filter that holds keys, inserted one by one with the
    /// prefetch of later keys' blocks, so that a key that does not fit fails as it would alone
    /// (the keys before it in, it and the later ones not).
    pub(crate) fn insert_hashes(&mut self, hashes: &[Hash128]) -> Result<()> {
        if self.len == 0 && hashes.len() > 1 && hashes.len() as u64 <= self.max_items() {
            self.own_tables()?;
            if self.build_sorted(hashes) {
                return Ok(());
            }
        }
        filter_core::insert_hash_batch_prefetched(self, hashes)
    }

    /// Writes `hashes` into this empty filter in one pass; `false`, and nothing changed, when
    /// they do not fit or the memory for the sort (twice 16 bytes a key) cannot be had.
    fn build_sorted(&mut self, hashes: &[Hash128]) -> bool {
        let (mut pairs, mut scratch) = (Vec::new(), Vec::new());
        let n = hashes.len();
        if pairs.try_reserve_exact(n).is_err() || scratch.try_reserve_exact(n).is_err() {
            return false;
        }
        pairs.extend(hashes.iter().map(|&h| self.split(h)));
        scratch.resize(n, (0, 0));
        let bits = u64::BITS - (self.quotients() - 1).leading_zeros();
        sort_by_quotient(&mut pairs, &mut scratch, bits);
        drop(scratch);
        if !self.slots.fill_sorted(&pairs) {
            return false;
        }
        self.len = n as u64;
        true
    }
}

#[cfg(test)]
mod tests;
