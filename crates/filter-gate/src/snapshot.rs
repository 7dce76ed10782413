//! The saved filter file: the filter's own bytes ([`Persist`]) after a small header that holds
//! the store's [`Mark`] (how far the filter has read the table).
//!
//! Layout (version 3): `b"FLGATE03"`, the mark as four u64 LE words (kind: 0 start, 1 row id,
//! 2 PostgreSQL snapshot; then up to three values), the length of the filter bytes (u64 LE), an
//! FNV-1a checksum of those 48 bytes (u64 LE), zeros to byte 4096, then the filter bytes
//! (checksummed by `filter_core::format`). The filter starts on a page, so that a replica can
//! map it and use its tables in place ([`read_head`], [`crate::Gate::replica`]). Version 2
//! (`b"FLGATE02"`, the filter right after the 56 bytes) still loads. Saving is atomic: the bytes go to a temporary file in the same
//! directory, which is synced and then renamed over the target, so a crash leaves either the old
//! file or the new one, never a torn one.
//!
//! The temporary-file protocol is filter-core's (`write_atomically_with`).

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use filter_core::{FormatError, Persist};

use crate::store::Mark;

const MAGIC: &[u8; 8] = b"FLGATE03";
/// The magic of version 2, whose filter bytes follow its 56-byte header.
const MAGIC_V2: &[u8; 8] = b"FLGATE02";
/// The bytes before the filter's in a version 3 file: one page.
pub const HEADER: usize = 4096;
/// The header of version 2.
const HEADER_V2: usize = 56;
/// The header's bytes under its checksum.
const SUMMED: usize = 48;
/// The header's bytes that are not padding: the summed ones and the checksum.
const HEAD: usize = 56;

fn mark_words(mark: Mark) -> [u64; 4] {
    match mark {
        Mark::Start => [0, 0, 0, 0],
        Mark::RowId(id) => [1, id as u64, 0, 0],
        Mark::PgSnapshot { xmin, xmax, stamp } => [2, xmin, xmax, stamp],
    }
}

fn words_mark(w: [u64; 4]) -> Result<Mark, SnapshotError> {
    match w[0] {
        0 => Ok(Mark::Start),
        1 => Ok(Mark::RowId(w[1] as i64)),
        2 => Ok(Mark::PgSnapshot {
            xmin: w[1],
            xmax: w[2],
            stamp: w[3],
        }),
        _ => Err(SnapshotError::BadHeader("unknown kind of mark")),
    }
}

/// Why a saved filter could not be used.
#[derive(Debug)]
pub enum SnapshotError {
    /// Reading or writing the file failed.
    Io(std::io::Error),
    /// The file is not a gate snapshot, or its header is damaged.
    BadHeader(&'static str),
    /// The filter bytes were refused by the filter's loader.
    Filter(FormatError),
    /// The saved mark does not describe the database (a replica cannot rebuild its saved
    /// filter): the store's reason.
    Stale(String),
}

impl std::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Io(e) => write!(f, "saved filter: {e}"),
            Self::BadHeader(why) => write!(f, "saved filter: {why}; delete it to rebuild"),
            Self::Filter(e) => write!(f, "saved filter bytes: {e}; delete it to rebuild"),
            Self::Stale(why) => write!(
                f,
                "saved filter: its mark does not describe this database ({why}); save a new \
                 snapshot from a gate on this database"
            ),
        }
    }
}

impl std::error::Error for SnapshotError {}

impl From<std::io::Error> for SnapshotError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Writes `filter` and `mark` to `path` atomically, through
/// [`filter_core::write_atomically_with`] (a unique temporary name created exclusively, synced,
/// renamed, the directory synced; only a regular file is replaced). The filter is streamed
/// ([`Persist::write_to`]) after a placeholder header, which is filled in once its length is
/// known: no copy of the filter is made.
///
/// # Errors
/// I/O errors; `path` is then unchanged.
pub fn save<F: Persist>(filter: &F, mark: Mark, path: &Path) -> Result<(), SnapshotError> {
    filter_core::write_atomically_with(path, |f| {
        f.write_all(&[0u8; HEADER])?;
        filter.write_to(&mut *f)?;
        let len = f.stream_position()? - HEADER as u64;
        let mut head = [0u8; HEAD];
        head[..8].copy_from_slice(MAGIC);
        for (i, w) in mark_words(mark).iter().enumerate() {
            head[8 + 8 * i..16 + 8 * i].copy_from_slice(&w.to_le_bytes());
        }
        head[40..48].copy_from_slice(&len.to_le_bytes());
        let sum = fnv1a(&head[..SUMMED]);
        head[SUMMED..HEAD].copy_from_slice(&sum.to_le_bytes());
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&head)
    })?;
    Ok(())
}

/// Reads a file written by [`save`].
///
/// # Errors
/// I/O errors, a damaged header, or filter bytes the filter's loader refuses.
pub fn load<F: Persist>(path: &Path) -> Result<(F, Mark), SnapshotError> {
    // Memory reserved fallibly, never past the file's size: a huge file is an error, not an
    // abort.
    let file = File::open(path)?;
    let size = file.metadata()?.len();
    let bytes = filter_core::read_limited(file, size, size)?;
    parse(&bytes)
}

/// A snapshot's header: its mark and where its filter's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// How far the saved filter had read the table.
    pub mark: Mark,
    /// The offset of the filter's bytes in the file (4096 for version 3; 56 for version 2,
    /// which is not on a page and cannot be mapped in place).
    pub filter_offset: u64,
    /// Their length: the rest of the file.
    pub filter_len: u64,
}

/// The header of `bytes` (a snapshot file's first bytes, at least its header's) for a file of
/// `file_len` bytes, checked: magic, checksum, mark, padding and the filter's length against
/// the file's.
///
/// # Errors
/// [`SnapshotError::BadHeader`] for anything that does not check out.
pub fn parse_head(bytes: &[u8], file_len: u64) -> Result<Head, SnapshotError> {
    let magic = bytes
        .get(..8)
        .ok_or(SnapshotError::BadHeader("shorter than its header"))?;
    let header = match magic {
        m if m == MAGIC => HEADER,
        m if m == MAGIC_V2 => HEADER_V2,
        _ => return Err(SnapshotError::BadHeader("not a filter-gate snapshot")),
    };
    let head = bytes
        .get(..header)
        .ok_or(SnapshotError::BadHeader("shorter than its header"))?;
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&head[i..i + 8]);
        u64::from_le_bytes(w)
    };
    if fnv1a(&head[..SUMMED]) != word(SUMMED) {
        return Err(SnapshotError::BadHeader("header checksum mismatch"));
    }
    if head[HEAD..].iter().any(|&b| b != 0) {
        return Err(SnapshotError::BadHeader(
            "bytes other than zero in the header's padding",
        ));
    }
    let mark = words_mark([word(8), word(16), word(24), word(32)])?;
    let len = word(40);
    if file_len.checked_sub(header as u64) != Some(len) {
        return Err(SnapshotError::BadHeader("length does not match the file"));
    }
    Ok(Head {
        mark,
        filter_offset: header as u64,
        filter_len: len,
    })
}

/// Reads and checks the header of the snapshot at `path` (its first page only): what a replica
/// needs to map the filter in place.
///
/// # Errors
/// I/O errors, or a damaged header.
pub fn read_head(path: &Path) -> Result<Head, SnapshotError> {
    use std::io::Read;
    let file = filter_core::open_regular(path)?;
    let len = file.metadata()?.len();
    let mut first = Vec::with_capacity(HEADER);
    file.take(HEADER as u64).read_to_end(&mut first)?;
    parse_head(&first, len)
}

fn parse<F: Persist>(bytes: &[u8]) -> Result<(F, Mark), SnapshotError> {
    let head = parse_head(bytes, bytes.len() as u64)?;
    let body = &bytes[head.filter_offset as usize..];
    let filter = F::from_bytes(body).map_err(SnapshotError::Filter)?;
    Ok((filter, head.mark))
}

#[cfg(test)]
mod tests;
