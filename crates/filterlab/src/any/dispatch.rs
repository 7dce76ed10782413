//! What [`AnyFilter`] does by dispatch to its inner filter: every [`Filter`] method, the
//! positions a key touches, saving and loading, and the optional capabilities, refused with
//! [`Error::Unsupported`] where the variant lacks them.

use super::{AnyFilter, Capable, Member, Plan, Variant};
use crate::{
    Error, Explain, Filter, Hash128, KeyHasher, Persist, Positions, TimeWindow, Timestamp,
};
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

    /// Adds every key of `other` into this filter (a filter of the same variant and parameters).
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] for a variant without the `merges` capability or filters
    /// of two variants; the variant's own errors (other parameters, a full table).
    pub fn merge(&mut self, other: &AnyFilter) -> crate::Result<()> {
        let incompatible = |a: Variant, b: Variant| {
            Err(crate::Error::Incompatible(format!(
                "a {a} filter merges only with another {a} filter, not a {b}"
            )))
        };
        let (mine, theirs) = (self.variant(), other.variant());
        // Every variant named, no `_` arm: a new one must say here whether it merges (and its
        // registry row's `merges` must agree: `merging_variants_have_an_arm`).
        match self {
            AnyFilter::Quotient(a) => match other {
                AnyFilter::Quotient(b) => a.merge(b),
                _ => incompatible(mine, theirs),
            },
            AnyFilter::Expandable(a) => match other {
                AnyFilter::Expandable(b) => a.merge(b),
                _ => incompatible(mine, theirs),
            },
            AnyFilter::Classic(_)
            | AnyFilter::Counting(_)
            | AnyFilter::Scalable(_)
            | AnyFilter::Cuckoo(_)
            | AnyFilter::Vqf(_)
            | AnyFilter::Blocked(_)
            | AnyFilter::BinaryFuse8(_)
            | AnyFilter::BinaryFuse16(_)
            | AnyFilter::Ribbon(_)
            | AnyFilter::Aleph(_)
            | AnyFilter::ItemWindow(_)
            | AnyFilter::TimeWindow(_)
            | AnyFilter::Apbf(_) => Err(mine.unsupported("merge", |c| c.merges)),
        }
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

    /// The window counted in time, or the refusal of `operation` for a variant that has none.
    fn timed(&self, operation: &'static str) -> crate::Result<&super::Timed> {
        each!(self, f => f.as_timed())
            .ok_or_else(|| self.variant().unsupported(operation, |c| c.timed))
    }

    /// The window counted in time, for its clock (its length, its latest slice); `None` for
    /// every other variant.
    #[must_use]
    pub fn as_time_window(&self) -> Option<&TimeWindow> {
        each!(self, f => f.as_timed()).map(super::Timed::get)
    }

    /// Adds the key whose hash is `hash` at time `t` (a window counted in time files it into
    /// the slice of `t`; a time older than the latest seen is filed into the latest slice).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant whose window is not counted in time (nothing is
    /// changed): insert into it with [`Filter::insert_hash`].
    pub fn insert_hash_at(&mut self, hash: Hash128, t: Timestamp) -> crate::Result<()> {
        let refusal = self.variant().unsupported("insert at a time", |c| c.timed);
        match each!(self, f => f.as_timed_mut()) {
            Some(f) => f.get_mut().insert_hash_at(hash, t),
            None => Err(refusal),
        }
    }

    /// [`AnyFilter::insert_hash_at`] for key bytes.
    ///
    /// # Errors
    /// As [`AnyFilter::insert_hash_at`].
    pub fn insert_at(&mut self, key: &[u8], t: Timestamp) -> crate::Result<()> {
        let hash = self.hasher().hash(key);
        self.insert_hash_at(hash, t)
    }

    /// Adds many hashed keys, all at time `t`.
    ///
    /// # Errors
    /// As [`AnyFilter::insert_hash_at`].
    pub fn insert_hash_batch_at(&mut self, hashes: &[Hash128], t: Timestamp) -> crate::Result<()> {
        let refusal = self.variant().unsupported("insert at a time", |c| c.timed);
        match each!(self, f => f.as_timed_mut()) {
            Some(f) => f.get_mut().insert_hash_batch_at(hashes, t),
            None => Err(refusal),
        }
    }

    /// Whether the key whose hash is `hash` may have been inserted within the window before `t`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a variant whose window is not counted in time (ask it with
    /// [`Filter::contains_hash`]).
    pub fn contains_hash_at(&self, hash: Hash128, t: Timestamp) -> crate::Result<bool> {
        Ok(self
            .timed("answer at a time")?
            .get()
            .contains_hash_at(hash, t))
    }

    /// Answers many hashed queries at time `t`: `out[i] = contains_hash_at(hashes[i], t)`.
    /// `out` is cleared first.
    ///
    /// # Errors
    /// As [`AnyFilter::contains_hash_at`] (`out` is then left as it was).
    pub fn contains_hash_batch_at(
        &self,
        hashes: &[Hash128],
        t: Timestamp,
        out: &mut Vec<bool>,
    ) -> crate::Result<()> {
        self.timed("answer at a time")?
            .get()
            .contains_hash_batch_at(hashes, t, out);
        Ok(())
    }

    /// [`AnyFilter::contains_hash_at`] for key bytes.
    ///
    /// # Errors
    /// As [`AnyFilter::contains_hash_at`].
    pub fn contains_at(&self, key: &[u8], t: Timestamp) -> crate::Result<bool> {
        self.contains_hash_at(self.hasher().hash(key), t)
    }

    /// Items in the slices still in the window at `t`.
    ///
    /// # Errors
    /// As [`AnyFilter::contains_hash_at`].
    pub fn len_at(&self, t: Timestamp) -> crate::Result<u64> {
        Ok(self.timed("answer at a time")?.get().len_at(t))
    }

    /// The rate the formulas give at `t`, from the real counts of the slices in the window.
    ///
    /// # Errors
    /// As [`AnyFilter::contains_hash_at`].
    pub fn expected_fpr_at(&self, t: Timestamp) -> crate::Result<f64> {
        Ok(self.timed("answer at a time")?.get().expected_fpr_at(t))
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

    /// The filter's own parameters, by name, in display order (`filterlab info`), each marked
    /// as fixed by the design or a running figure.
    #[must_use]
    pub fn parameters(&self) -> Vec<super::Parameter> {
        each!(self, f => f.parameters())
    }

    /// The filter's file, as [`Persist::to_bytes`].
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        each!(self, f => f.to_bytes())
    }

    /// The filter's file in format version 1, for builds before version 2, as
    /// [`Persist::to_bytes_version_1`].
    ///
    /// # Errors
    /// None for the registry's variants (each writes version 1 itself).
    pub fn to_bytes_version_1(&self) -> Result<Vec<u8>, crate::FormatError> {
        each!(self, f => f.to_bytes_version_1())
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
    /// as [`Persist::load`]: a version 2 file with one copy of its tables, each read from the
    /// file straight into the filter's memory (the peak is the filter, not the file plus the
    /// filter); a version 1 file read whole into memory reserved fallibly, then decoded.
    ///
    /// # Errors
    /// I/O errors, or the format errors of [`AnyFilter::from_bytes`] as `InvalidData`.
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref();
        let read = Self::read_or_map(&std::fs::File::open(path)?).map_err(|e| {
            // Format errors as they are (as `from_bytes`'s below), I/O errors with the path.
            match e.get_ref().is_some_and(|i| i.is::<crate::FormatError>()) {
                true => e,
                false => std::io::Error::new(e.kind(), format!("{}: {e}", path.display())),
            }
        })?;
        Self::from_file_bytes(&read)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// The bytes of an open filter file of any variant, read as [`crate::read_fallibly_from`]
    /// reads them with the check of the variant its header names ([`AnyFilter::check_head`]):
    /// a header that declares more payload than its parameters describe is refused having cost
    /// the header, whatever the file's size.
    ///
    /// # Errors
    /// As [`crate::read_fallibly_from`].
    pub fn read_file(file: &std::fs::File) -> std::io::Result<Vec<u8>> {
        crate::read_fallibly_from(file, &Self::check_head)
    }

    /// An open filter file of any variant read for a load, with the checks of
    /// [`AnyFilter::read_file`]: a version 2 regular file mapped (its head read and checked,
    /// its payload not yet read), anything else read whole
    /// ([`crate::format::mapped::read_or_map`]); then [`AnyFilter::from_file_bytes`].
    ///
    /// # Errors
    /// As [`AnyFilter::read_file`], and the mapping's refusal.
    pub fn read_or_map(file: &std::fs::File) -> std::io::Result<crate::format::mapped::FileBytes> {
        crate::format::mapped::read_or_map(file, &Self::check_head)
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
    /// One dispatch, then the inner filter's own `contains` (hashing and probing inlined in
    /// its arm). The default would dispatch twice, once for `hasher()` and once for
    /// `contains_hash`, through an out-of-line match whose register saves alone cost 15
    /// instructions a key (callgrind, `lookup_counts --contender fuse8`). Same answer: every
    /// variant's `contains` is `contains_hash(hasher().hash(key))`.
    #[inline]
    fn contains(&self, key: &[u8]) -> bool {
        each!(self, f => f.contains(key))
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
