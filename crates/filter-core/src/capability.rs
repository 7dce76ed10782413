//! The capabilities beyond [`Filter`]: removal ([`Deletable`]) and growth ([`Growable`]). Code that
//! deletes or grows asks for the trait, so a filter without the capability is a compile error.

#[cfg(doc)]
use crate::Error;
use crate::{Filter, Hash128, MemoryCap, Persist, Result};

/// A filter that supports removal.
///
/// Remove only keys you inserted: removing a key that was never inserted but happens to be a false
/// positive would erase another key's trace and create a false negative. Where the filter can prove
/// the key absent it refuses with [`Error::NotPresent`] and changes nothing.
pub trait Deletable: Filter {
    /// Removes one copy of the key whose hash is `hash`.
    ///
    /// # Errors
    /// [`Error::NotPresent`] when the filter proves the key absent; nothing is changed.
    fn remove_hash(&mut self, hash: Hash128) -> Result<()>;

    /// Removes one copy of a key.
    ///
    /// # Errors
    /// As [`Deletable::remove_hash`].
    fn remove(&mut self, key: &[u8]) -> Result<()> {
        let hash = self.hasher().hash(key);
        self.remove_hash(hash)
    }

    /// An upper bound on how many times the key was inserted (exact unless another key collides).
    /// A filter that has lost count returns `u32::MAX` rather than a number that could be too low
    /// (a counting filter whose counters for the key all saturated).
    fn count_hash(&self, hash: Hash128) -> u32;

    /// As [`Deletable::count_hash`], for key bytes.
    fn count(&self, key: &[u8]) -> u32 {
        self.count_hash(self.hasher().hash(key))
    }
}

/// A filter that grows: inserts never fail for lack of capacity, and the false-positive rate stays
/// under a bound at any size.
pub trait Growable: Filter {
    /// How many times the filter has grown, plus one.
    fn stages(&self) -> usize;

    /// The bound the compound false-positive rate never exceeds, however many items are inserted.
    fn fpr_bound(&self) -> f64;

    /// Sets (or with `None` lifts) the memory cap on the stages: an insert that needs a new
    /// stage beyond it fails with [`Error::MemoryCap`] and changes nothing. The cap is a policy
    /// of this process, not saved with the filter: a loaded filter has none until this is called.
    fn set_max_bytes(&mut self, cap: Option<u64>);

    /// Loads a saved filter under a memory cap, as if built with `max_bytes`: a file whose
    /// stages already exceed it is refused, and later growth stops at it. (The stages are read
    /// first: their size is bounded by `bytes`, already in memory.) One body for every growable
    /// filter, so that the check and the cap kept afterwards cannot drift apart between them.
    ///
    /// # Errors
    /// The format errors of [`Persist::from_bytes`], or [`Error::MemoryCap`] for stages above
    /// `max_bytes`.
    fn from_bytes_capped(bytes: &[u8], max_bytes: u64) -> Result<Self>
    where
        Self: Persist + Sized,
    {
        let mut f = Self::from_bytes(bytes)?;
        MemoryCap(Some(max_bytes)).check("loaded stages", 0, f.size_in_bytes() as u64)?;
        f.set_max_bytes(Some(max_bytes));
        Ok(f)
    }
}
