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
mod tests;
