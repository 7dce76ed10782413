//! Merging counting filters built apart (partitions of one key set).

use crate::{CountingBloom, MAX};
use filter_core::{Error, Result};

/// Adds two 4-bit counters, stopping at the maximum as an insert does.
fn saturating_nibble_add(a: u8, b: u8) -> u8 {
    (a + b).min(MAX)
}

impl CountingBloom {
    /// Makes `self` count the keys of both filters: each counter becomes the sum of the two,
    /// saturating at 15 as inserts do. Saturation makes this exact: a counter below 15 in both
    /// holds the true count of both key sets, and a sum that reaches 15 is where inserting both
    /// sets would have stopped too. So the result is bit for bit the filter built from both key
    /// sets, and removing a key of either set afterwards works as on that filter.
    ///
    /// # Errors
    /// [`Error::Incompatible`] unless both have the same counters, hashes and hasher (built with
    /// the same capacity, rate and seed), or when the two together count more than
    /// [`MAX_ITEMS`](crate::MAX_ITEMS); `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        if (self.m, self.k, self.sizing.hasher) != (other.m, other.k, other.sizing.hasher) {
            return Err(Error::Incompatible(format!(
                "{} counters / {} hashes / {:?} vs {} counters / {} hashes / {:?}; build every \
                 part with the same capacity, rate and hasher",
                self.m, self.k, self.sizing.hasher, other.m, other.k, other.sizing.hasher
            )));
        }
        let len = self
            .len
            .checked_add(other.len)
            .filter(|&n| n <= crate::MAX_ITEMS)
            .ok_or_else(|| {
                Error::Incompatible(format!(
                    "{} + {} items is more than a counting filter counts ({})",
                    self.len,
                    other.len,
                    crate::MAX_ITEMS
                ))
            })?;
        for (a, &b) in self.counters.iter_mut().zip(&other.counters) {
            let lo = saturating_nibble_add(*a & MAX, b & MAX);
            let hi = saturating_nibble_add(*a >> 4, b >> 4);
            *a = lo | (hi << 4);
        }
        // A sum below 15 is exact and a saturated one leaves the sum: `sum <= k * len` holds.
        self.len = len;
        self.sum = self.counter_sum();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use filter_core::{testkit, Deletable, Filter, HashKind, KeyHasher, Persist};

    fn small() -> CountingBloom {
        CountingBloom::builder().capacity(500).build().unwrap()
    }

    #[test]
    fn union_equals_counting_both_sets_even_past_saturation() {
        let (mut a, mut b, mut both) = (small(), small(), small());
        // A hot key 10 times in each part: its counters saturate only in the union.
        for (f, tag) in [(&mut a, "a"), (&mut b, "b")] {
            for k in testkit::keys(tag, 200) {
                f.insert(&k).unwrap();
            }
            (0..10).for_each(|_| f.insert(b"hot").unwrap());
        }
        for k in testkit::keys("a", 200)
            .iter()
            .chain(&testkit::keys("b", 200))
        {
            both.insert(k).unwrap();
        }
        (0..20).for_each(|_| both.insert(b"hot").unwrap());
        a.union(&b).unwrap();
        assert_eq!(a, both);
        assert_eq!(a.count(b"hot"), u32::MAX, "saturated in the union");
        assert!(a.saturated() > 0);
        // The union loads and removes like the filter built at once.
        let mut loaded = CountingBloom::from_bytes(&a.to_bytes()).unwrap();
        loaded.remove(&testkit::keys("a", 1)[0]).unwrap();
        both.remove(&testkit::keys("a", 1)[0]).unwrap();
        assert_eq!(loaded, both);
    }

    #[test]
    fn incompatible_filters_are_refused_and_untouched() {
        let mut a = small();
        a.insert(b"x").unwrap();
        let before = a.clone();
        let bigger = CountingBloom::builder().capacity(5000).build().unwrap();
        let seeded = CountingBloom::builder()
            .capacity(500)
            .hasher(KeyHasher::new(HashKind::Xxh3_128, 9).unwrap())
            .build()
            .unwrap();
        for other in [&bigger, &seeded] {
            assert!(matches!(a.union(other), Err(Error::Incompatible(_))));
            assert_eq!(a, before);
        }
    }
}
