//! Batches. A batch into an empty table that takes it without a doubling is written in one
//! pass, as the quotient filter's (`filter_quotient::table::sort_by_quotient`, then
//! `Slots::fill_sorted`): every key's (address, entry) pair, sorted by address, stably, then
//! written run after run: the very table the inserts one by one give, without their shifts.
//! Otherwise, or into a table that holds entries, the keys go in one by one with the prefetch
//! of later keys' blocks, so that a doubling happens where it would for single inserts.

use crate::{entry, AlephFilter};
use filter_core::{Hash128, Result};
use filter_quotient::table::sort_by_quotient;

impl AlephFilter {
    /// [`filter_core::Filter::insert_hash_batch`]: in one pass into an empty table when the
    /// keys fit it at its current size (no more than [`AlephFilter::max_entries`], no run past
    /// the table's end); else one by one, prefetched.
    pub(crate) fn insert_hashes(&mut self, hashes: &[Hash128]) -> Result<()> {
        let n = hashes.len() as u64;
        if self.used == 0 && n > 1 && n <= self.max_entries() && self.build_sorted(hashes) {
            self.len = n;
            self.used = n;
            return Ok(());
        }
        filter_core::insert_hash_batch_prefetched(self, hashes)
    }

    /// Writes `hashes` into this empty table in one pass; `false`, and nothing changed, when
    /// they do not fit or the memory for the sort (twice 16 bytes a key) cannot be had.
    fn build_sorted(&mut self, hashes: &[Hash128]) -> bool {
        let (mut pairs, mut scratch) = (Vec::new(), Vec::new());
        let n = hashes.len();
        if pairs.try_reserve_exact(n).is_err() || scratch.try_reserve_exact(n).is_err() {
            return false;
        }
        let (w, bits) = (self.slots.rbits(), self.fingerprint_bits());
        pairs.extend(hashes.iter().map(|&h| {
            let (a, key) = self.locate(h);
            (a, entry::entry(key, w, bits))
        }));
        scratch.resize(n, (0, 0));
        let address_bits = u64::BITS - (self.quotients() - 1).leading_zeros();
        sort_by_quotient(&mut pairs, &mut scratch, address_bits);
        drop(scratch);
        self.slots.fill_sorted(&pairs)
    }
}

#[cfg(test)]
mod tests {
    use crate::AlephFilter;
    use filter_core::{Deletable, Filter, Growable, Hash128};

    fn hashes(n: usize, seed: u64) -> Vec<Hash128> {
        let mut s = seed;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut out: Vec<Hash128> = Vec::with_capacity(n);
        while out.len() < n {
            let h = match next() % 7 {
                // About one key in seven a copy of an earlier one: runs of equal entries.
                0 if !out.is_empty() => out[(next() % out.len() as u64) as usize],
                _ => Hash128 {
                    lo: next(),
                    hi: next(),
                },
            };
            out.push(h);
        }
        out
    }

    fn empty(capacity: u64) -> AlephFilter {
        AlephFilter::builder()
            .capacity(capacity)
            .fpr(0.01)
            .build()
            .unwrap()
    }

    /// A batch into an empty table, up to its limit, into one that grew and lost its keys, and
    /// past the limit (one by one, with doublings), gives the table of inserts one by one, bit
    /// for bit (files equal); the one-pass path is taken where it applies.
    #[test]
    fn a_batch_into_an_empty_table_is_the_table_of_inserts_one_by_one() {
        for (capacity, fill, seed) in [(1_000, 0.5, 1), (1_000, 1.0, 2), (5_000, 2.5, 3)] {
            let f = empty(capacity);
            let n = (fill * f.max_entries() as f64) as usize;
            let keys = hashes(n, seed);
            let mut single = f.clone();
            keys.iter().for_each(|&h| single.insert_hash(h).unwrap());
            let mut batch = f.clone();
            batch.insert_hash_batch(&keys).unwrap();
            assert_eq!(batch.len(), single.len());
            assert_eq!(batch.stages(), single.stages(), "{capacity} {fill}");
            assert!(batch == single, "{capacity} {fill}: tables differ");
            assert!(keys.iter().all(|&h| batch.contains_hash(h)));
            let mut direct = f.clone();
            assert!(n < 2 || n as u64 > f.max_entries() || direct.build_sorted(&keys));
        }
        // Grown, then emptied: the batch goes in at the grown size with its widths.
        let mut grown = empty(500);
        let keys = hashes(3 * grown.max_entries() as usize, 9);
        grown.insert_hash_batch(&keys).unwrap();
        keys.iter().for_each(|&h| grown.remove_hash(h).unwrap());
        assert_eq!((grown.len(), grown.used), (0, 0));
        assert!(grown.stages() > 1);
        let again = hashes(grown.max_entries() as usize / 2, 10);
        let mut single = grown.clone();
        again.iter().for_each(|&h| single.insert_hash(h).unwrap());
        assert!(
            grown.clone().build_sorted(&again),
            "the one-pass path applies"
        );
        grown.insert_hash_batch(&again).unwrap();
        assert!(grown == single, "tables differ after a regrowth");
    }
}
