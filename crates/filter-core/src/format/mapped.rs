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

use super::{check_head, split, version, Codec, Decoded, FileKind, Reader, HEADER_LEN, MIN_LEN};
use super::{layout, FormatError};
use crate::FileMap;
use std::io;
use std::path::Path;

/// Maps the file at `path` (a regular file, at least as long as the shortest valid file), with
/// read-ahead off (lookups are random).
///
/// # Errors
/// The open's or the mapping's I/O error, with the path; `InvalidData` (holding
/// [`FormatError::Truncated`]) for a file too short to be a filter.
pub fn map_file(path: &Path) -> io::Result<FileMap> {
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let file = crate::file::open_regular(path).map_err(with_path)?;
    let len = file.metadata().map_err(with_path)?.len();
    if len < MIN_LEN as u64 {
        return Err(invalid_data(FormatError::Truncated {
            needed: MIN_LEN as u64,
            available: len,
        }));
    }
    let map = FileMap::new(file).map_err(with_path)?;
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
    d.payload = Reader::in_map(payload, map, version(bytes));
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
