//! What [`AnyFilter`] does by dispatch to its inner filter: every [`Filter`] method, the
//! positions a key touches, saving and loading, and the optional capabilities, refused with
//! [`Error::Unsupported`] where the variant lacks them.

use super::{AnyFilter, Capable, Member, Plan, Variant};
use crate::{Error, Explain, Filter, Hash128, KeyHasher, Persist, Positions};
use std::path::Path;

impl AnyFilter {
    /// The variant's capabilities.
    #[must_use]
    pub fn capabilities(&self) -> super::Capabilities {
        self.variant().capabilities()
    }

    /// Removes one copy of the key whose hash is `hash`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant that cannot remove; [`Error::NotPresent`] when the
    /// filter proves the key absent. Nothing is changed either way.
    pub fn remove_hash(&mut self, hash: Hash128) -> crate::Result<()> {
        if let Some(f) = each!(self, f => f.as_deletable_mut()) {
            return f.remove_hash(hash);
        }
        Err(self.variant().unsupported("remove keys", |c| c.deletes))
    }

    /// [`AnyFilter::remove_hash`] for key bytes.
    ///
    /// # Errors
    /// As [`AnyFilter::remove_hash`].
    pub fn remove(&mut self, key: &[u8]) -> crate::Result<()> {
        let hash = self.hasher().hash(key);
        self.remove_hash(hash)
    }

    /// An upper bound on how many times the key whose hash is `hash` was inserted.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant that does not count copies.
    pub fn count_hash(&self, hash: Hash128) -> crate::Result<u32> {
        match each!(self, f => f.as_deletable()) {
            Some(f) => Ok(f.count_hash(hash)),
            None => Err(self
                .variant()
                .unsupported("count copies of a key", |c| c.counts_copies)),
        }
    }

    /// How many times the filter has grown, plus one.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant that does not grow.
    pub fn stages(&self) -> crate::Result<usize> {
        match each!(self, f => f.as_growable()) {
            Some(f) => Ok(f.stages()),
            None => Err(self.variant().unsupported("grow", |c| c.grows)),
        }
    }

    /// The bound a growing filter's rate never exceeds.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant that does not grow.
    pub fn fpr_bound(&self) -> crate::Result<f64> {
        match each!(self, f => f.as_growable()) {
            Some(f) => Ok(f.fpr_bound()),
            None => Err(self.variant().unsupported("grow", |c| c.grows)),
        }
    }

    /// The plan of this filter: its realised parameters (a file written by another version is
    /// described as it is), its table bytes, and the formula's rate at its capacity.
    ///
    /// # Errors
    /// Parameters the formulas cannot size (not expected of a filter that was built or loaded).
    pub fn plan(&self) -> crate::Result<Plan> {
        let (p, sized) = each!(self, f => f.shape())?;
        Ok(Plan::new(self.variant(), self.capacity(), p, sized))
    }

    /// The filter's own parameters, by name, in display order (`filterlab info`).
    #[must_use]
    pub fn parameters(&self) -> Vec<(&'static str, super::sizing::Value)> {
        each!(self, f => f.parameters())
    }

    /// The filter's file, as [`Persist::to_bytes`].
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        each!(self, f => f.to_bytes())
    }

    /// As [`Persist::try_to_bytes`].
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the bytes cannot be allocated.
    pub fn try_to_bytes(&self) -> crate::Result<Vec<u8>> {
        each!(self, f => f.try_to_bytes())
    }

    /// As [`Persist::write_to`].
    ///
    /// # Errors
    /// I/O errors of `w`.
    pub fn write_to<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        each!(self, f => f.write_to(w))
    }

    /// Saves atomically, as [`Persist::save`].
    ///
    /// # Errors
    /// I/O errors; `path` is then untouched.
    pub fn save(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        each!(self, f => f.save(path))
    }

    /// Loads a file of any variant saved by [`AnyFilter::save`] or a variant's own `save`,
    /// as [`Persist::load`] (memory reserved fallibly).
    ///
    /// # Errors
    /// I/O errors, or the format errors of [`AnyFilter::from_bytes`] as `InvalidData`.
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let bytes = crate::read_fallibly(path.as_ref())?;
        Self::from_bytes(&bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

impl Variant {
    /// The refusal of an operation this variant lacks: [`Error::Unsupported`], naming the
    /// variants whose capabilities (`has`) include it.
    #[must_use]
    pub fn unsupported(
        self,
        operation: &'static str,
        has: fn(super::Capabilities) -> bool,
    ) -> Error {
        Error::Unsupported {
            variant: self.name(),
            operation,
            supported_by: Variant::names_with(has),
        }
    }
}

impl Explain for AnyFilter {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        each!(self, f => f.positions_hash(hash))
    }
}

/// Every method dispatched to the inner filter, so an `AnyFilter` is used as any filter is.
impl Filter for AnyFilter {
    fn insert_hash(&mut self, hash: Hash128) -> crate::Result<()> {
        each!(self, f => f.insert_hash(hash))
    }
    fn contains_hash(&self, hash: Hash128) -> bool {
        each!(self, f => f.contains_hash(hash))
    }
    fn hasher(&self) -> KeyHasher {
        each!(self, f => f.hasher())
    }
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> crate::Result<bool> {
        each!(self, f => f.insert_if_absent_hash(hash))
    }
    fn len(&self) -> u64 {
        each!(self, f => f.len())
    }
    fn capacity(&self) -> u64 {
        each!(self, f => f.capacity())
    }
    fn size_in_bytes(&self) -> usize {
        each!(self, f => f.size_in_bytes())
    }
    fn huge_page_bytes(&self) -> Option<u64> {
        each!(self, f => f.huge_page_bytes())
    }
    fn expected_fpr(&self) -> f64 {
        each!(self, f => f.expected_fpr())
    }
    fn name(&self) -> &'static str {
        each!(self, f => f.name())
    }
    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> crate::Result<()> {
        each!(self, f => f.insert_hash_batch(hashes))
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        each!(self, f => f.contains_hash_batch(hashes, out))
    }
    fn insert_batch(&mut self, keys: &[&[u8]]) -> crate::Result<()> {
        each!(self, f => f.insert_batch(keys))
    }
    fn contains_batch(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        each!(self, f => f.contains_batch(keys, out))
    }
}
