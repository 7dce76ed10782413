//! Doubling the table.

use crate::{entry, AlephFilter};
use filter_core::{Error, Result, TableOptions};
use filter_quotient::table::Slots;
use filter_quotient::MAX_QUOTIENTS;

impl AlephFilter {
    /// Doubles the table: every entry's next fingerprint bit joins its address, void entries
    /// are copied to both halves, and the slots are as wide as the next generation needs
    /// (see the crate's docs). The filter grows by itself when full; this grows it early.
    ///
    /// # Errors
    /// [`Error::Full`] past 2^31 quotients, or when the next generation's fingerprint and
    /// address would need more than the 64 bits of a hash; the memory cap or an allocation
    /// failure. The filter is then unchanged.
    pub fn expand(&mut self) -> Result<()> {
        let (k, q) = (self.expansions, self.quotients());
        let next = k + 1;
        let bits = self.widening.fingerprint_bits(next);
        if q * 2 > MAX_QUOTIENTS || next + bits > 64 {
            return Err(self.cannot_grow(bits));
        }
        let (w, w2) = (self.slots.rbits(), self.widening.slot_width(next));
        let tables = TableOptions {
            cap: self.cap,
            pages: self.pages,
        };
        let mut grown = Slots::new(q * 2, w2, tables)?;
        let mut voids = self.voids.clone();
        let (mut placed, mut used) = (true, 0u64);
        self.slots.for_each(|a, v| match entry::split(v, w, w2) {
            Some((bit, moved)) => {
                let a2 = (a << 1) | bit;
                if entry::len(moved, w2) == 0 {
                    voids.add(next, a2);
                }
                placed &= grown.insert(a2, moved);
                used += 1;
            }
            None => {
                placed &= grown.insert(a << 1, entry::void(w2));
                placed &= grown.insert((a << 1) | 1, entry::void(w2));
                used += 2;
            }
        });
        if !placed {
            return Err(Error::Full {
                len: self.len,
                load_factor: used as f64 / (q * 2) as f64,
            });
        }
        self.slots = grown;
        self.voids = voids;
        self.expansions = next;
        self.used = used;
        self.carried = used;
        Ok(())
    }

    fn cannot_grow(&self, bits: u32) -> Error {
        Error::InvalidParameter {
            name: "capacity",
            value: format!(
                "{} quotients after {} doublings, next fingerprints of {bits} bits",
                self.quotients(),
                self.expansions
            ),
            expected: "at most 2^31 quotients, and address and fingerprint bits within a \
                       64-bit hash: the filter cannot grow further (raise the fpr or start larger)",
        }
    }
}
