//! Merging two filters built with the same parameters.

use crate::stage::Stage;
use crate::{ExpandableCuckoo, MAX_STAGE_LIST};
use filter_core::{Error, Filter, Result};

impl ExpandableCuckoo {
    /// Adds every key of `other` to this filter: afterwards it holds the keys of both (with
    /// their counts), its length is the sum, and removing keys inserted into either never
    /// creates a false negative.
    ///
    /// No entry moves: the two stage lists are merged into one ordered by level (each filter's
    /// stage `i` side by side), so the merge never fails for lack of room. The crate docs'
    /// proof holds for any list whose levels never decrease: the newest stage that matches a
    /// key is at a level at least that of the stage holding the key's copy, and two stages at
    /// one level share identities. The price is the rate: a second stage at a level adds its
    /// rate, so the result's compound rate and [`fpr_bound`](filter_core::Growable::fpr_bound)
    /// are up to the sum of both filters' (as for any union of two sets each at rate `p`).
    /// Later inserts go to the newest stage, and growth continues from the highest level.
    ///
    /// # Errors
    /// [`Error::Incompatible`] for filters built with other parameters (capacity, rate,
    /// growth, period or hasher); [`Error::SizeOverflow`] for more than [`MAX_STAGE_LIST`]
    /// stages; [`Error::TooManyItems`]; [`Error::MemoryCap`] or [`Error::OutOfMemory`] for the
    /// copy of `other`'s stages. `self` is then unchanged.
    pub fn merge(&mut self, other: &Self) -> Result<()> {
        if self.layout != other.layout || self.sizing != other.sizing {
            return Err(Error::Incompatible(format!(
                "an expandable filter for {} items at {} merges only with one built with the \
                 same capacity, rate, growth, tightening period and hasher",
                self.sizing.capacity, self.sizing.fpr
            )));
        }
        let n = self.stages.len() + other.stages.len();
        if n > MAX_STAGE_LIST {
            return Err(Error::SizeOverflow {
                what: "merged expandable filter",
                hint: format!("{n} stages, above {MAX_STAGE_LIST}; rebuild it from its keys"),
            });
        }
        let len = self
            .len
            .checked_add(other.len)
            .ok_or(Error::TooManyItems { limit: u64::MAX })?;
        let oom = || Error::OutOfMemory {
            what: "stage list",
            bytes: (n * std::mem::size_of::<Stage>()) as u64,
        };
        let mut used = self.size_in_bytes() as u64;
        let mut copies = Vec::new();
        copies
            .try_reserve_exact(other.stages.len())
            .map_err(|_| oom())?;
        for s in &other.stages {
            let copy = s.try_copy(&self.layout, self.options, used)?;
            used += copy.table.len() as u64;
            copies.push(copy);
        }
        let mut merged = Vec::new();
        merged.try_reserve_exact(n).map_err(|_| oom())?;
        // Nothing fails from here on.
        let mut mine = std::mem::take(&mut self.stages).into_iter().peekable();
        let mut theirs = copies.into_iter().peekable();
        while let Some(next) = match (mine.peek(), theirs.peek()) {
            (Some(a), Some(b)) if b.index < a.index => theirs.next(),
            (Some(_), _) => mine.next(),
            (None, _) => theirs.next(),
        } {
            merged.push(next);
        }
        self.stages = merged;
        self.len = len;
        Ok(())
    }
}
