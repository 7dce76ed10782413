//! The column-chunk filters of a whole Parquet file (feature `parquet-file`).
//!
//! The file's structure (the `PAR1` magic at both ends, the Thrift `FileMetaData` footer, its
//! row groups and column chunks) is read by the `parquet` crate without arrow or codecs; the
//! filters themselves are read here from each column chunk's `bloom_filter_offset`, and parsed
//! by [`ParquetBloom::from_bytes`]. Nothing a footer declares is trusted:
//!
//! - an offset before the first byte after the leading magic, or past the end of the file, is
//!   refused;
//! - a declared `bloom_filter_length` must fit in the file and be at most a header plus
//!   [`MAX_BYTES`]; the filter must fill it exactly;
//! - without a declared length (parquet-mr before 1.13 writes none), the header is read from at
//!   most [`MAX_HEADER_BYTES`] and the bitset it announces must fit in the file.
//!
//! - no two chunks' filters may share a byte, so that all of them together are never larger
//!   than the file.
//!
//! So no allocation is larger than the file, and a footer that lies gets an error naming the
//! row group and the column.
//!
//! # Distinct counts
//!
//! A column chunk's `distinct_count` statistic is taken when the writer stored one (few do).
//! Otherwise the count is estimated from the filter's set bits: a split-block filter of `B`
//! blocks is, lane by lane, a partitioned Bloom filter of `k = 8` partitions of `32·B` bits, so
//! the Swamidass & Baldi estimate `-(256·B / 8) · ln(1 - ones / (256·B))`
//! ([`filter_core::math::bloom_count_estimate`]) applies. [`Ndv`] says which one a count is.

use super::{thrift, ParquetBloom, MAX_BYTES};
use parquet::basic::Type as Physical;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaDataReader};
use parquet::file::reader::ChunkReader;
use std::path::Path;

/// The most bytes a `BloomFilterHeader` may take when the footer gives no filter length.
pub const MAX_HEADER_BYTES: u64 = 256;

/// Parquet's magic, at the start and at the end of every file.
pub const MAGIC: &[u8; 4] = b"PAR1";

/// Why a Parquet file's filters cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError(pub String);

impl FileError {
    fn new(why: impl Into<String>) -> Self {
        FileError(why.into())
    }

    fn filter(e: filter_core::FormatError) -> Self {
        FileError(format!("not a Parquet bloom filter: {e}"))
    }
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for FileError {}

/// A column's physical type, as far as its values can be written as probe keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// Bytes of any length; hashed as they are.
    ByteArray,
    /// Bytes of exactly this length; hashed as they are.
    FixedLenByteArray(usize),
    /// Hashed as 4 little-endian bytes.
    Int32,
    /// Hashed as 8 little-endian bytes.
    Int64,
    /// Hashed as the 4 little-endian bytes of its IEEE-754 bits.
    Float,
    /// Hashed as the 8 little-endian bytes of its IEEE-754 bits.
    Double,
    /// `BOOLEAN` or `INT96`: no probe keys (writers put no filters on them).
    Other(&'static str),
}

impl ValueType {
    /// Parquet's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::ByteArray => "BYTE_ARRAY",
            ValueType::FixedLenByteArray(_) => "FIXED_LEN_BYTE_ARRAY",
            ValueType::Int32 => "INT32",
            ValueType::Int64 => "INT64",
            ValueType::Float => "FLOAT",
            ValueType::Double => "DOUBLE",
            ValueType::Other(name) => name,
        }
    }

    /// The plain encoding Parquet hashes for a key given as text: `BYTE_ARRAY` takes the bytes
    /// as they are; `FIXED_LEN_BYTE_ARRAY(L)` takes `L` bytes as they are or `2·L` hex digits;
    /// `INT32`/`INT64` a decimal integer and `FLOAT`/`DOUBLE` a decimal number, written
    /// little-endian.
    ///
    /// # Errors
    /// A key that is no value of the type (with the reason), or a `BOOLEAN`/`INT96` column.
    pub fn plain(self, key: &[u8]) -> Result<Vec<u8>, String> {
        let text = || {
            std::str::from_utf8(key)
                .map(str::trim)
                .map_err(|_| format!("a {} key must be text", self.name()))
        };
        let number = |what: &str| format!("{:?} is not {what}", String::from_utf8_lossy(key));
        match self {
            ValueType::ByteArray => Ok(key.to_vec()),
            ValueType::FixedLenByteArray(len) if key.len() == len => Ok(key.to_vec()),
            ValueType::FixedLenByteArray(len) => {
                unhex(key).filter(|b| b.len() == len).ok_or_else(|| {
                    format!(
                        "{} bytes, not {len} (nor {} hex digits)",
                        key.len(),
                        2 * len
                    )
                })
            }
            ValueType::Int32 => text()?
                .parse::<i32>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|_| number("an INT32")),
            ValueType::Int64 => text()?
                .parse::<i64>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|_| number("an INT64")),
            ValueType::Float => text()?
                .parse::<f32>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|_| number("a FLOAT")),
            ValueType::Double => text()?
                .parse::<f64>()
                .map(|v| v.to_le_bytes().to_vec())
                .map_err(|_| number("a DOUBLE")),
            ValueType::Other(name) => Err(format!("{name} columns take no probe keys here")),
        }
    }
}

fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    if text.len() % 2 != 0 {
        return None;
    }
    text.chunks_exact(2)
        .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
        .collect()
}

/// A leaf column of the file's schema.
#[derive(Clone, Debug)]
pub struct Column {
    /// Its dotted path (`a.b.c` for nested columns).
    pub path: String,
    /// Its physical type.
    pub value_type: ValueType,
}

/// Where a column chunk's distinct count comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ndv {
    /// The chunk's `distinct_count` statistic, as the writer stored it.
    Statistics(u64),
    /// Estimated from the filter's set bits (infinite for a filter with every bit set).
    Estimated(f64),
    /// Neither a statistic nor a filter.
    Unknown,
}

impl Ndv {
    /// The count, when there is one.
    pub fn value(self) -> Option<f64> {
        match self {
            Ndv::Statistics(n) => Some(n as f64),
            Ndv::Estimated(n) => Some(n),
            Ndv::Unknown => None,
        }
    }
}

/// A column chunk's filter and where it lies in the file.
#[derive(Clone, Debug)]
pub struct ChunkFilter {
    /// `bloom_filter_offset`.
    pub offset: u64,
    /// Bytes of header and bitset.
    pub length: u64,
    /// Whether the footer declared the length (`bloom_filter_length`).
    pub length_declared: bool,
    /// The filter.
    pub bloom: ParquetBloom,
}

/// One column of one row group.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Rows of the row group.
    pub rows: i64,
    /// The `distinct_count` statistic, when stored.
    pub distinct_count: Option<u64>,
    /// The chunk's filter, when it has one.
    pub filter: Option<ChunkFilter>,
}

impl Chunk {
    /// The distinct count: the statistic, else the filter's estimate.
    pub fn ndv(&self) -> Ndv {
        match (self.distinct_count, &self.filter) {
            (Some(n), _) => Ndv::Statistics(n),
            (None, Some(f)) => Ndv::Estimated(f.bloom.estimated_count()),
            (None, None) => Ndv::Unknown,
        }
    }

    /// The split-block formula's rate ([`filter_core::math::split_block_fpr`]) for the filter's
    /// blocks at [`Self::ndv`]; `None` without a filter or a count.
    pub fn fpr_at_ndv(&self) -> Option<f64> {
        let f = self.filter.as_ref()?;
        let n = self.ndv().value()?;
        Some(if n.is_finite() {
            filter_core::math::split_block_fpr(f.bloom.blocks() as u64, n.round() as u64)
        } else {
            1.0
        })
    }

    /// Whether the chunk may hold a value given by its plain encoding: the filter's answer, and
    /// `true` for a chunk without a filter.
    pub fn may_hold(&self, plain: &[u8]) -> bool {
        self.filter.as_ref().is_none_or(|f| f.bloom.contains(plain))
    }
}

/// A Parquet file's columns and their column chunks' filters.
#[derive(Clone, Debug)]
pub struct ParquetFile {
    /// The footer's `created_by`.
    pub created_by: Option<String>,
    /// Rows of the file.
    pub rows: i64,
    /// Leaf columns, in schema order.
    pub columns: Vec<Column>,
    /// `chunks[c][r]`: column `c` in row group `r`.
    pub chunks: Vec<Vec<Chunk>>,
}

impl ParquetFile {
    /// Reads the file at `path` (its footer and its filters, nothing else).
    ///
    /// # Errors
    /// As [`Self::read`], and I/O errors.
    pub fn open(path: &Path) -> Result<Self, FileError> {
        let file = std::fs::File::open(path)
            .map_err(|e| FileError::new(format!("cannot open {}: {e}", path.display())))?;
        Self::read(&file)
    }

    /// [`Self::read`] of bytes in memory.
    ///
    /// # Errors
    /// As [`Self::read`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FileError> {
        Self::read(&bytes::Bytes::copy_from_slice(bytes))
    }

    /// Reads the footer and every column chunk's filter.
    ///
    /// # Errors
    /// No `PAR1` at either end, a footer the `parquet` crate refuses, or a filter whose offset
    /// or length the file cannot hold or whose bytes are no Parquet filter (see the module
    /// docs); the message names the row group and column.
    pub fn read<R: ChunkReader>(reader: &R) -> Result<Self, FileError> {
        let len = reader.len();
        if len < 12 || &read(reader, 0, 4)?[..] != MAGIC {
            return Err(FileError::new("not a Parquet file: no PAR1 at its start"));
        }
        let meta = ParquetMetaDataReader::new()
            .parse_and_finish(reader)
            .map_err(|e| FileError::new(format!("Parquet footer: {e}")))?;
        let schema = meta.file_metadata().schema_descr();
        let columns: Vec<Column> = schema
            .columns()
            .iter()
            .map(|c| Column {
                path: c.path().string(),
                value_type: value_type(c.physical_type(), c.type_length()),
            })
            .collect();
        let mut chunks = vec![Vec::with_capacity(meta.num_row_groups()); columns.len()];
        let mut taken = Taken::default();
        for (r, group) in meta.row_groups().iter().enumerate() {
            if group.num_columns() != columns.len() {
                return Err(FileError::new(format!(
                    "row group {r} has {} column chunks, the schema {} columns",
                    group.num_columns(),
                    columns.len()
                )));
            }
            for (c, chunk) in group.columns().iter().enumerate() {
                let filter = read_filter(reader, chunk, &mut taken).map_err(|e| {
                    FileError::new(format!("row group {r}, column {}: {e}", columns[c].path))
                })?;
                chunks[c].push(Chunk {
                    rows: group.num_rows(),
                    distinct_count: chunk.statistics().and_then(|s| s.distinct_count_opt()),
                    filter,
                });
            }
        }
        Ok(ParquetFile {
            created_by: meta.file_metadata().created_by().map(str::to_string),
            rows: meta.file_metadata().num_rows(),
            columns,
            chunks,
        })
    }

    /// The index of the column whose path is `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.path == name)
    }

    /// Row groups in the file.
    pub fn row_groups(&self) -> usize {
        self.chunks.first().map_or(0, Vec::len)
    }
}

fn value_type(physical: Physical, type_length: i32) -> ValueType {
    match physical {
        Physical::BYTE_ARRAY => ValueType::ByteArray,
        Physical::FIXED_LEN_BYTE_ARRAY => {
            ValueType::FixedLenByteArray(usize::try_from(type_length).unwrap_or(0))
        }
        Physical::INT32 => ValueType::Int32,
        Physical::INT64 => ValueType::Int64,
        Physical::FLOAT => ValueType::Float,
        Physical::DOUBLE => ValueType::Double,
        Physical::BOOLEAN => ValueType::Other("BOOLEAN"),
        Physical::INT96 => ValueType::Other("INT96"),
    }
}

/// The byte ranges of the filters read so far. Two chunks may not share bytes: a footer
/// pointing many chunks at one large filter would otherwise have it read (and held) once for
/// each, far more memory than the file's size; with disjoint ranges the filters together are
/// never larger than the file.
#[derive(Default)]
struct Taken(std::collections::BTreeMap<u64, u64>);

impl Taken {
    /// Records `[offset, offset + length)`, refused when it overlaps one already recorded.
    fn claim(&mut self, offset: u64, length: u64) -> Result<(), FileError> {
        let end = offset + length;
        let before = self.0.range(..end).next_back();
        if let Some((&start, &stop)) = before.filter(|&(_, &stop)| stop > offset) {
            return Err(FileError::new(format!(
                "the filter at bytes {offset}..{end} overlaps another chunk's at {start}..{stop}"
            )));
        }
        self.0.insert(offset, end);
        Ok(())
    }
}

/// `length` bytes at `start`, which the caller has checked lie in the file.
fn read<R: ChunkReader>(reader: &R, start: u64, length: u64) -> Result<Vec<u8>, FileError> {
    let bytes = reader
        .get_bytes(start, length as usize)
        .map_err(|e| FileError::new(format!("cannot read {length} bytes at {start}: {e}")))?;
    if bytes.len() as u64 != length {
        return Err(FileError::new(format!(
            "{length} bytes at {start}: only {} read",
            bytes.len()
        )));
    }
    Ok(bytes.to_vec())
}

/// The chunk's filter, when its metadata points at one (see the module docs for the checks).
fn read_filter<R: ChunkReader>(
    reader: &R,
    chunk: &ColumnChunkMetaData,
    taken: &mut Taken,
) -> Result<Option<ChunkFilter>, FileError> {
    let Some(offset) = chunk.bloom_filter_offset() else {
        return Ok(None);
    };
    let file_len = reader.len();
    let offset = u64::try_from(offset)
        .ok()
        .filter(|&o| o >= MAGIC.len() as u64 && o < file_len)
        .ok_or_else(|| {
            FileError::new(format!(
                "bloom_filter_offset {offset} is outside the file's {file_len} bytes"
            ))
        })?;
    let left = file_len - offset;
    let (length, length_declared) = match chunk.bloom_filter_length() {
        Some(declared) => {
            let length = u64::try_from(declared)
                .ok()
                .filter(|&l| l > 0 && l <= MAX_HEADER_BYTES + MAX_BYTES as u64)
                .ok_or_else(|| {
                    FileError::new(format!(
                        "bloom_filter_length {declared} is not a filter's (1 B to 128 MiB)"
                    ))
                })?;
            if length > left {
                return Err(FileError::new(format!(
                    "bloom_filter_length {length} at offset {offset} runs past the file's \
                     {file_len} bytes"
                )));
            }
            (length, true)
        }
        None => {
            let head = read(reader, offset, left.min(MAX_HEADER_BYTES))?;
            let (num_bytes, header_len) = thrift::read_header(&head).map_err(FileError::filter)?;
            let length = (header_len + num_bytes) as u64;
            if length > left {
                return Err(FileError::new(format!(
                    "the filter at offset {offset} announces {num_bytes} bytes, past the \
                     file's {file_len} bytes"
                )));
            }
            (length, false)
        }
    };
    taken.claim(offset, length)?;
    let bloom =
        ParquetBloom::from_bytes(&read(reader, offset, length)?).map_err(FileError::filter)?;
    Ok(Some(ChunkFilter {
        offset,
        length,
        length_declared,
        bloom,
    }))
}

mod write;
pub use write::{write_keys, Written};

#[cfg(test)]
mod tests;
