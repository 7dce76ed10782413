//! [`Mapped`]: a saved filter opened in place, read-only, its tables the file's bytes.

use super::{AnyFilter, Variant};
use crate::format::mapped;
use crate::{FileMap, FormatError};
use std::path::Path;

/// A filter opened in place ([`AnyFilter::open`]): the file is mapped read-only, and the
/// filter's tables are its bytes, so opening costs the same at any size, and processes that
/// open one file share its pages in the page cache.
///
/// It answers every read-only question of the filter it holds: it dereferences to an
/// [`AnyFilter`] (so `contains`, `contains_batch`, `len`, `expected_fpr`, `explain` …), but
/// only as `&AnyFilter`, so no insert or removal compiles:
///
/// ```compile_fail
/// # fn f(m: filterlab::any::Mapped) {
/// use filterlab::Filter;
/// let mut m = m;
/// m.insert(b"key");
/// # }
/// ```
///
/// # What an open trusts
/// An open checks the head in O(1) (see [`crate::format::mapped`]) but reads none of the
/// payload: [`Mapped::verify`] checks the whole file's checksum, at the disk's speed. And a
/// file truncated while it is mapped raises `SIGBUS` at the next lookup on a lost page:
/// replace a filter file by renaming a new one over it, as [`AnyFilter::save`] does, never by
/// rewriting it in place; a mapped reader keeps the old file until it opens the path again.
#[derive(Debug)]
pub struct Mapped {
    filter: AnyFilter,
    map: FileMap,
}

impl Mapped {
    /// The whole-file checksum that the open left out: every byte of the file is read.
    ///
    /// # Errors
    /// [`FormatError::ChecksumMismatch`] for a file whose bytes changed since it was saved.
    pub fn verify(&self) -> Result<(), FormatError> {
        mapped::verify(&self.map)
    }

    /// The file's bytes, read-only (its pages are read from the disk as they are touched).
    #[must_use]
    pub fn file_bytes(&self) -> &[u8] {
        self.map.bytes()
    }

    /// The filter, read-only.
    #[must_use]
    pub fn filter(&self) -> &AnyFilter {
        &self.filter
    }
}

impl std::ops::Deref for Mapped {
    type Target = AnyFilter;

    fn deref(&self) -> &AnyFilter {
        &self.filter
    }
}

impl AnyFilter {
    /// Opens a saved filter in place: maps the file read-only and reads the filter's tables
    /// from it with no copy. The checks are O(1) (see [`Mapped`] for what they trust);
    /// [`Mapped::verify`] reads the whole file.
    ///
    /// Opens version 2 files of the variants whose tables are flat arrays
    /// ([`Capabilities::in_place`](super::Capabilities::in_place)).
    ///
    /// # Errors
    /// I/O errors with the path; as `InvalidData`, a [`FormatError`]:
    /// [`FormatError::NotInPlace`] for a version 1 file or a variant that does not open in
    /// place (both load with [`AnyFilter::load`]), and every refusal of a damaged file.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<Mapped> {
        Self::open_at(path, 0)
    }

    /// [`AnyFilter::open`] for a filter saved at `offset` of a larger file, a multiple of 4096
    /// (the filter of a gate snapshot, at `filter_gate::snapshot::Head::filter_offset`): the
    /// file's bytes before it are not read. [`Mapped::verify`] and [`Mapped::file_bytes`] then
    /// cover the filter's bytes only.
    ///
    /// # Errors
    /// As [`AnyFilter::open`]; `InvalidInput` for an offset off a 4096-byte boundary or past the
    /// end.
    pub fn open_at(path: impl AsRef<Path>, offset: u64) -> std::io::Result<Mapped> {
        let map = mapped::map_file_at(path.as_ref(), offset)?;
        let filter = Self::from_map(&map)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        Ok(Mapped { filter, map })
    }

    fn from_map(map: &FileMap) -> Result<AnyFilter, FormatError> {
        let variant = Variant::peek(map.bytes())?;
        if !variant.capabilities().in_place {
            return Err(FormatError::NotInPlace(format!(
                "a {variant} filter's tables are not one flat array each (those of {} are)",
                Variant::names_with(|c| c.in_place)
            )));
        }
        AnyFilter::decode_in_place(variant, map)
    }
}
