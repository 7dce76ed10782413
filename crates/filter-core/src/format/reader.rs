//! [`Reader`]: the fields of a section, read in order, and its tables, copied or (from a
//! mapped file) in place.

use super::{try_table, try_vec, FormatError, FORMAT_VERSION};
use crate::{FileMap, Plain, Table};

/// Reads fixed-width little-endian fields from a section, refusing to read past its end.
///
/// A reader of a mapped file ([`mapped`](super::mapped)) hands out its tables in place: [`Reader::u64s`],
/// [`Reader::take_table`] and [`Reader::table`] then return tables that borrow the mapping.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    /// The mapping `bytes` lie in, when tables are read in place.
    map: Option<&'a FileMap>,
    /// The format version of the file the section is part of.
    version: u16,
}

impl<'a> Reader<'a> {
    /// Reads from `bytes`, a section of a file of the current version ([`FORMAT_VERSION`]).
    pub fn new(bytes: &'a [u8]) -> Self {
        Self::of_version(bytes, FORMAT_VERSION)
    }

    /// Reads from `bytes`, a section of a file of format version `version`.
    pub(crate) fn of_version(bytes: &'a [u8], version: u16) -> Self {
        Reader {
            bytes,
            map: None,
            version,
        }
    }

    /// Reads from `bytes`, a part of `map` (a file of format version `version`), handing out
    /// tables in place.
    pub(crate) fn in_map(bytes: &'a [u8], map: &'a FileMap, version: u16) -> Self {
        Reader {
            bytes,
            map: Some(map),
            version,
        }
    }

    /// The format version of the file this section is read from (the current one,
    /// [`FORMAT_VERSION`], for a reader made with [`Reader::new`]). A variant whose payload
    /// differs between versions reads it by this: the quotient filter's version 2 payload adds
    /// the offsets that version 1 files leave to the load to derive.
    pub fn format_version(&self) -> u16 {
        self.version
    }

    /// Whether tables are read in place from a file mapping (an open, not a load): a decoder
    /// skips then the checks that read a whole table, which [`verify`](super::mapped::verify) makes.
    pub fn in_place(&self) -> bool {
        self.map.is_some()
    }

    /// The next `n` bytes in place with the `pad` bytes that follow them in the file, as one
    /// table of `n + pad` bytes, if this reader reads a mapping (`None` otherwise). For a table
    /// whose reads overrun its end by up to `pad` bytes and mask off what they read there: in
    /// the file those bytes are whatever follows (for the payload's last table, the file's
    /// checksum), never zeros to rely on.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] when fewer than `n` bytes remain, or the file ends within
    /// `pad` bytes of them.
    pub fn table_padded(&mut self, n: usize, pad: usize) -> Result<Option<Table<u8>>, FormatError> {
        let Some(map) = self.map else {
            return Ok(None);
        };
        let raw = self.take(n)?;
        let at = raw.as_ptr() as usize - map.bytes().as_ptr() as usize;
        let padded = map
            .bytes()
            .get(at..at + n + pad)
            .ok_or(FormatError::Truncated {
                needed: (at + n + pad) as u64,
                available: map.bytes().len() as u64,
            })?;
        Ok(Table::in_file(map, padded))
    }

    /// The next `n` elements of type `T` in place, from the mapping, if this reader reads one
    /// (`None` otherwise: the caller decodes them by copy, as a load does).
    ///
    /// # Errors
    /// [`FormatError::Truncated`], or [`FormatError::Invalid`] when the elements are not
    /// aligned for `T` in the file.
    pub fn table<T: Plain>(&mut self, n: usize) -> Result<Option<Table<T>>, FormatError> {
        let Some(map) = self.map else {
            return Ok(None);
        };
        let len = n
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| FormatError::Invalid(format!("{n} elements")))?;
        let raw = self.take(len)?;
        let at = raw.as_ptr() as usize - map.bytes().as_ptr() as usize;
        Table::in_file(map, raw).map(Some).ok_or_else(|| {
            FormatError::Invalid(format!(
                "a table at file offset {at} is not aligned to {} bytes, so it cannot be used in \
                 place: load the file instead, or save it again",
                std::mem::align_of::<T>()
            ))
        })
    }

    /// The bytes not yet read, as they are.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] if fewer remain.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], FormatError> {
        if n > self.bytes.len() {
            return Err(FormatError::Truncated {
                needed: n as u64,
                available: self.bytes.len() as u64,
            });
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FormatError> {
        Ok(self.take(N)?.try_into().expect("N bytes"))
    }

    /// Reads a byte.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn u8(&mut self) -> Result<u8, FormatError> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a `u16`.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn u16(&mut self) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// Reads a `u32`.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// Reads a `u64`.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// Reads an `f64`.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn f64(&mut self) -> Result<f64, FormatError> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// Reads `n` `u64` words into a table allocated as a built filter's is (a large one on huge
    /// pages).
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn u64s(&mut self, n: usize) -> Result<Table<u64>, FormatError> {
        if let Some(t) = self.table(n)? {
            return Ok(t);
        }
        let len = n
            .checked_mul(8)
            .ok_or_else(|| FormatError::Invalid(format!("{n} words")))?;
        let raw = self.take(len)?;
        let mut words = try_table(n)?;
        for (w, c) in words.iter_mut().zip(raw.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        }
        Ok(words)
    }

    /// The next `n` bytes, copied into a table allocated as a built filter's is (a large one on
    /// huge pages).
    ///
    /// # Errors
    /// [`FormatError::Truncated`] or [`FormatError::OutOfMemory`].
    pub fn take_table(&mut self, n: usize) -> Result<Table<u8>, FormatError> {
        if let Some(t) = self.table(n)? {
            return Ok(t);
        }
        let raw = self.take(n)?;
        let mut t = try_table(n)?;
        t.copy_from_slice(raw);
        Ok(t)
    }

    /// The next `n` bytes, copied into memory reserved fallibly.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] when fewer remain, [`FormatError::OutOfMemory`] when the copy
    /// cannot be allocated.
    pub fn take_vec(&mut self, n: usize) -> Result<Vec<u8>, FormatError> {
        let raw = self.take(n)?;
        let mut v = try_vec(n)?;
        v.extend_from_slice(raw);
        Ok(v)
    }

    /// Checks that the whole section was read.
    ///
    /// # Errors
    /// [`FormatError::TrailingBytes`] otherwise.
    pub fn finish(self) -> Result<(), FormatError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(FormatError::TrailingBytes(self.bytes.len() as u64))
        }
    }
}
