//! [`Reader`]: the fields of a section, read in order, and its tables: copied from bytes in
//! memory, used in place (a mapped file opened), or read from the file into memory of their
//! own (a mapped file loaded).

use super::{try_table, try_vec, FormatError, FORMAT_VERSION};
use crate::{FileMap, Plain, Table};

/// Reads fixed-width little-endian fields from a section, refusing to read past its end.
///
/// A reader of a mapped file opened in place ([`mapped`](super::mapped)) hands out its tables
/// in place: [`Reader::u64s`], [`Reader::take_table`] and [`Reader::table`] then return tables
/// that borrow the mapping. A reader of a mapped file being loaded
/// ([`decode_streamed`](super::mapped::decode_streamed)) reads its tables ([`Reader::u64s`],
/// [`Reader::take_table`], [`Reader::take_into`], [`Reader::streamed_table`]) from the open
/// file into memory of their own, never through the mapping, so that the load holds one copy
/// of each table and no page of the file.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    source: Source<'a>,
    /// The format version of the file the section is part of.
    version: u16,
}

/// Where a [`Reader`]'s tables come from.
#[derive(Debug, Clone, Copy)]
enum Source<'a> {
    /// Copied from `bytes`, in memory.
    Memory,
    /// In place: the mapping `bytes` lie in (an open).
    InPlace(&'a FileMap),
    /// Read from the open file of the mapping `bytes` lie in (a load): `bytes` says where the
    /// tables are, and their pages are not read through it.
    Streamed(&'a FileMap),
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
            source: Source::Memory,
            version,
        }
    }

    /// Reads from `bytes`, a part of `map` (a file of format version `version`), handing out
    /// tables in place.
    pub(crate) fn in_map(bytes: &'a [u8], map: &'a FileMap, version: u16) -> Self {
        Reader {
            bytes,
            source: Source::InPlace(map),
            version,
        }
    }

    /// Reads from `bytes`, a part of `map` (a file of format version `version`), reading
    /// tables from the open file into memory of their own (a load of a mapped file). Only on
    /// little-endian targets (the caller's check): the file's bytes are then the elements'
    /// values.
    pub(crate) fn streamed(bytes: &'a [u8], map: &'a FileMap, version: u16) -> Self {
        Reader {
            bytes,
            source: Source::Streamed(map),
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
        matches!(self.source, Source::InPlace(_))
    }

    /// The file offset of `part`, a part of `map`'s bytes just taken.
    fn offset_in(map: &FileMap, part: &[u8]) -> u64 {
        (part.as_ptr() as usize - map.bytes().as_ptr() as usize) as u64
    }

    /// The error of a read from the file that failed: the file is shorter than its mapping
    /// (truncated while it was read) or cannot be read.
    fn read_failed(e: std::io::Error) -> FormatError {
        super::invalid(format!("the file cannot be read whole ({e})"))
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
        let Source::InPlace(map) = self.source else {
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
        let Source::InPlace(map) = self.source else {
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
        if let Source::Streamed(map) = self.source {
            let at = Self::offset_in(map, raw);
            words.fill_from_file(map, at).map_err(Self::read_failed)?;
            words.iter_mut().for_each(|w| *w = u64::from_le(*w));
            return Ok(words);
        }
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
        match self.source {
            Source::Streamed(map) => t
                .fill_from_file(map, Self::offset_in(map, raw))
                .map_err(Self::read_failed)?,
            _ => t.copy_from_slice(raw),
        }
        Ok(t)
    }

    /// The next `n` elements of type `T`, read from the file into a table of their own
    /// (allocated as a built filter's is), if this reader streams a mapped file on a
    /// little-endian target, where the file's bytes are the values; `None` otherwise: the
    /// caller decodes them from [`Reader::take`], as a load from memory does. Unlike
    /// [`Reader::table`], the table is the filter's own, so a decoder makes every check of a
    /// load on it.
    ///
    /// # Errors
    /// [`FormatError::Truncated`], [`FormatError::OutOfMemory`], or a read that fails.
    pub fn streamed_table<T: Plain>(&mut self, n: usize) -> Result<Option<Table<T>>, FormatError> {
        let Source::Streamed(map) = self.source else {
            return Ok(None);
        };
        if cfg!(target_endian = "big") {
            return Ok(None);
        }
        let len = n
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| FormatError::Invalid(format!("{n} elements")))?;
        let raw = self.take(len)?;
        let mut t = try_table(n)?;
        t.fill_from_file(map, Self::offset_in(map, raw))
            .map_err(Self::read_failed)?;
        Ok(Some(t))
    }

    /// Copies the next `dst.len()` bytes into `dst` (from the file, by positional reads, when
    /// this reader streams a mapped file).
    ///
    /// # Errors
    /// [`FormatError::Truncated`] when fewer remain, or a read that fails.
    pub fn take_into(&mut self, dst: &mut [u8]) -> Result<(), FormatError> {
        let raw = self.take(dst.len())?;
        match self.source {
            Source::Streamed(map) => map
                .read_exact_at(dst, Self::offset_in(map, raw))
                .map_err(Self::read_failed),
            _ => {
                dst.copy_from_slice(raw);
                Ok(())
            }
        }
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
