//! Opening a saved filter in place: the file is mapped read-only and the filter's tables are
//! its bytes, with no copy (version 2 files, [`layout`]).
//!
//! [`decode_in_place`] checks in O(1) what the [module documentation](super) lists; the payload
//! is not read, so a 12 GB filter opens as fast as a small one and its pages are read from the
//! disk (or shared from the page cache with every other process that maps the file) only as
//! lookups touch them. [`verify`] reads it all: the file's checksum, on request.
//!
//! # What an unverified open trusts
//! That the payload is the one that was saved: a flipped bit in the tables is not detected
//! until [`verify`], and changes answers (a Bloom filter may then give a false negative). Every
//! lookup stays in bounds whatever the tables hold. And that nobody truncates or rewrites the
//! file while it is mapped: a truncation makes a lookup on a lost page raise `SIGBUS`.
//! filterlab's saves write a new file and rename it over the old one, so a reader that has the
//! file mapped keeps the old file, and its answers, until it opens the path again.
//!
//! # Loading with one copy
//! A load of a version 2 file ([`read_or_map`], then [`decode_streamed`]) uses the mapping
//! only to find its way: the checksum is computed by positional reads through a 1 MiB buffer,
//! and every table is read from the open file straight into the filter's own memory, so the
//! load's peak is the filter plus a few pages, not the file plus the filter. A version 1 file
//! (and anything but a regular file) is still read whole into memory and decoded from there.
//! The load makes every check of a load from memory ([`decode_with`](super::decode_with)),
//! in the same order. What it reads through the mapping (the head, the padding after it, and
//! the few fields a payload holds besides its tables) has the mapping's hazard: a file
//! truncated by another process during the load raises `SIGBUS` there (filterlab's saves
//! rename, and never truncate a file in place).

use super::{check_head, split, version, Codec, Decoded, FileKind, Reader, HEADER_LEN, MIN_LEN};
use super::{layout, FormatError};
use crate::file::{read_declared_until, HeadCheck, Limit};
use crate::FileMap;
use std::fs::File;
use std::io::{self, Seek};
use std::path::Path;

/// Maps the file at `path` (a regular file, at least as long as the shortest valid file), with
/// read-ahead off (lookups are random).
///
/// # Errors
/// The open's or the mapping's I/O error, with the path; `InvalidData` (holding
/// [`FormatError::Truncated`]) for a file too short to be a filter.
pub fn map_file(path: &Path) -> io::Result<FileMap> {
    map_file_at(path, 0)
}

/// [`map_file`] for a filter saved at `offset` of the file at `path` (a multiple of 4096, as
/// a gate snapshot puts it): the mapping shows the filter's bytes only.
///
/// # Errors
/// As [`map_file`], and `InvalidInput` for an offset off a page.
pub fn map_file_at(path: &Path, offset: u64) -> io::Result<FileMap> {
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let file = crate::file::open_regular(path).map_err(with_path)?;
    let len = file.metadata().map_err(with_path)?.len();
    let available = len.saturating_sub(offset);
    if available < MIN_LEN as u64 {
        return Err(invalid_data(FormatError::Truncated {
            needed: MIN_LEN as u64,
            available,
        }));
    }
    let map = match offset {
        0 => FileMap::new(file),
        _ => FileMap::new_at(file, offset),
    }
    .map_err(with_path)?;
    map.advise_random();
    Ok(map)
}

/// The sections of the mapped file `map`, checked in O(1) as the [module documentation](self)
/// says, its payload read in place.
///
/// # Errors
/// [`FormatError::NotInPlace`] for a version 1 file (or on a big-endian machine), and the
/// errors of the checks.
pub fn sections(map: &FileMap, expected: FileKind) -> Result<Decoded<'_>, FormatError> {
    sections_as(map, expected, Reader::in_map)
}

/// [`sections`] with the payload read by the reader `payload` makes.
fn sections_as<'a>(
    map: &'a FileMap,
    expected: FileKind,
    payload_reader: fn(&'a [u8], &'a FileMap, u16) -> Reader<'a>,
) -> Result<Decoded<'a>, FormatError> {
    let bytes = map.bytes();
    let head = check_head(bytes)?;
    if version(bytes) < layout::IN_PLACE_VERSION {
        return Err(FormatError::NotInPlace(format!(
            "a version {} file lays its table out to be copied, not used in place",
            version(bytes)
        )));
    }
    if cfg!(target_endian = "big") {
        return Err(FormatError::NotInPlace(
            "this machine is big-endian, and the file's words are little-endian".into(),
        ));
    }
    let l = layout::parse(bytes, bytes.len() as u64)?;
    let payload = &bytes[l.payload_offset as usize..][..l.payload_len as usize];
    let params = &bytes[HEADER_LEN..][..l.params_len];
    let mut d = split(head, params, payload, expected, version(bytes))?;
    d.payload = payload_reader(payload, map, version(bytes));
    Ok(d)
}

/// The filter `C` of the mapped file `map`, its tables in place: the checks of [`sections`],
/// then the variant's own, as a load makes them, less those that read a whole table.
///
/// # Errors
/// Those of [`sections`], a payload longer than the parameters allow
/// ([`FormatError::PayloadTooLarge`]), and the variant's refusals.
pub fn decode_in_place<C: Codec>(map: &FileMap) -> Result<C, FormatError> {
    let mut d = sections(map, C::KIND)?;
    let allowed = C::max_payload_len(d.hasher, &mut d.params.clone())?;
    let declared = d.payload.remaining() as u64;
    if declared > allowed {
        return Err(FormatError::PayloadTooLarge { declared, allowed });
    }
    let filter = C::decode(super::Parts(d.hasher, &mut d.params, &mut d.payload))?;
    d.params.finish()?;
    d.payload.finish()?;
    Ok(filter)
}

/// A filter file as a load reads it ([`read_or_map`]).
#[derive(Debug)]
pub enum FileBytes {
    /// Read whole into memory: a version 1 file, something other than a regular file, or
    /// a file too short for its head (its loader names what is wrong).
    Read(Vec<u8>),
    /// A version 2 file whose head passed the reader's checks, mapped read-only, for
    /// [`decode_streamed`] to copy its tables out of it.
    Mapped(FileMap),
}

impl FileBytes {
    /// The bytes: read, or the mapping's (touching them makes their pages resident).
    pub fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Read(b) => b,
            FileBytes::Mapped(m) => m.bytes(),
        }
    }
}

/// Reads a filter file for a load: its head first, with every check of
/// [`read_fallibly_from`](crate::read_fallibly_from) (magic and version, `check`, a declared
/// length equal to the file's size); then a version 2 regular file, read from its start, on a
/// little-endian target, is mapped rather than read ([`FileBytes::Mapped`]: a load then holds
/// one copy of its tables, [`decode_streamed`]); anything else is read whole, as
/// `read_fallibly_from` reads it.
///
/// # Errors
/// As [`read_fallibly_from`](crate::read_fallibly_from), and the mapping's refusal.
pub fn read_or_map(mut file: &File, check: HeadCheck<'_>) -> io::Result<FileBytes> {
    let meta = file.metadata()?;
    let from_start = file.stream_position().is_ok_and(|at| at == 0);
    if !meta.is_file() || !from_start || cfg!(target_endian = "big") {
        return crate::read_fallibly_from(file, check).map(FileBytes::Read);
    }
    let in_place = |head: &[u8]| version(head) >= layout::IN_PLACE_VERSION;
    match read_declared_until(file, Limit::FileSize(meta.len()), check, &in_place)? {
        (_, true) => Ok(FileBytes::Mapped(FileMap::new(file.try_clone()?)?)),
        (bytes, false) => Ok(FileBytes::Read(bytes)),
    }
}

/// The filter `C` of a mapped file, loaded into memory of its own with every check of a load
/// from memory ([`decode_with`](super::decode_with)), in the same order: the file's checksum
/// (streamed, [`verify`]), the head, then the variant's own checks, those that read a whole
/// table included. Each table is read from the open file straight into the filter's memory
/// (see the [module documentation](self)).
///
/// # Errors
/// Those of [`decode_with`](super::decode_with); [`FormatError::NotInPlace`] for a version 1
/// file (load its bytes instead) or a big-endian target.
pub fn decode_streamed<C: Codec>(map: &FileMap) -> Result<C, FormatError> {
    verify(map)?;
    let mut d = sections_as(map, C::KIND, Reader::streamed)?;
    let filter = C::decode(super::Parts(d.hasher, &mut d.params, &mut d.payload))?;
    d.params.finish()?;
    d.payload.finish()?;
    Ok(filter)
}

/// The full check an open in place leaves out: the whole file's checksum (every byte, read at
/// the disk's speed from the open file, not through the mapping, so that the pass does not
/// make the whole file resident in this process) and the zeros between the head and the
/// payload.
///
/// # Errors
/// [`FormatError::ChecksumMismatch`] for a damaged file (or one that cannot be read whole), and
/// the O(1) checks' errors.
pub fn verify(map: &FileMap) -> Result<(), FormatError> {
    let bytes = map.bytes();
    check_head(bytes)?;
    let body_len = bytes.len() - 8;
    let stored = u64::from_le_bytes(bytes[body_len..].try_into().expect("8 bytes"));
    let (mut hasher, mut at) = (xxhash_rust::xxh3::Xxh3Default::new(), 0usize);
    map.read_chunks(|chunk| {
        let take = chunk.len().min(body_len.saturating_sub(at));
        hasher.update(&chunk[..take]);
        at += chunk.len();
    })
    .map_err(|e| super::invalid(format!("the file cannot be read whole ({e})")))?;
    let computed = hasher.digest();
    if stored != computed {
        return Err(FormatError::ChecksumMismatch { stored, computed });
    }
    if version(bytes) >= layout::IN_PLACE_VERSION {
        let l = layout::parse(bytes, bytes.len() as u64)?;
        if bytes[l.head_len as usize..l.payload_offset as usize]
            .iter()
            .any(|&b| b != 0)
        {
            return Err(super::invalid(
                "bytes other than zero between the head and the payload",
            ));
        }
    }
    Ok(())
}

fn invalid_data(e: FormatError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}
