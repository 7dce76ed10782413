//! Deletes: the longest match, and void groups.

use crate::{entry, AlephFilter};
use filter_core::{Error, Hash128, Result};

/// Which matching entry a delete removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// The longest fingerprint (the most specific void group for a void match): the rule that
    /// loses no key still held.
    Longest,
    /// The shortest: a wrong rule, for the test that must catch it.
    #[cfg(test)]
    Shortest,
}

impl AlephFilter {
    /// Removes one matching entry of the key, chosen by `rule`.
    pub(crate) fn remove_by(&mut self, hash: Hash128, rule: Rule) -> Result<()> {
        let (a, key) = self.locate(hash);
        let w = self.slots.rbits();
        let matching = self.slots.run(a).filter(|&v| entry::matches(v, key));
        let chosen = match rule {
            Rule::Longest => matching.min_by_key(|v| v.trailing_zeros()),
            #[cfg(test)]
            Rule::Shortest => matching.max_by_key(|v| v.trailing_zeros()),
        };
        match chosen {
            None => return Err(Error::NotPresent),
            Some(v) if entry::len(v, w) > 0 => {
                self.slots.remove(a, v);
                self.used = self.used.saturating_sub(1);
            }
            Some(_) => self.remove_void(a),
        }
        self.len = self.len.saturating_sub(1);
        // Which generation lost the entry is not known; the past ones cannot hold more.
        self.carried = self.carried.min(self.used);
        Ok(())
    }

    /// Deletes the most specific void group covering address `a`: one void entry from every
    /// address of the group. Without a recorded group (a damaged file, which a load refuses)
    /// only the entry at `a` goes.
    fn remove_void(&mut self, a: u64) {
        let (k, w) = (self.expansions, self.slots.rbits());
        let void = entry::void(w);
        let Some((level, origin)) = self.voids.covering(a, k) else {
            if self.slots.remove(a, void) {
                self.used = self.used.saturating_sub(1);
            }
            return;
        };
        let span = k - level;
        for b in origin << span..(origin + 1) << span {
            if self.slots.remove(b, void) {
                self.used = self.used.saturating_sub(1);
            }
        }
        self.voids.take(level, origin);
    }
}
