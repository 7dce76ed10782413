//! The one file format every filter saves to. Stable: version 1 files will always load, by
//! copy, as they always did; saves write version 2, which can also be used in place, or, for
//! the quotient and Aleph filters, version 3 (below).
//!
//! # Version 3: the quotient tables in blocks
//!
//! Version 3 is version 2's layout byte for byte; only the payload of the variants that write
//! it differs: the quotient and Aleph filters ([`Codec::WRITE_VERSION`]) save their table as
//! one array of blocks of 64 slots (each block's offset, metadata words and remainders
//! together, so a lookup reads one block), where version 2 saved four separate arrays. Every
//! other variant writes version 2 as before (its files are the same bytes); a reader takes
//! every version up to [`FORMAT_VERSION`], and those two variants convert a version 1 or 2
//! table to the blocked one when they read it (an open in place of such a file then copies).
//!
//! # Version 2: a layout used in place
//!
//! All integers little-endian; the head (header, parameters and the payload's place) first,
//! with its own checksum, then the payload at an aligned offset, so that a mapped file's bytes
//! are the filter's tables:
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"FLTRLAB\0"
//!      8     2  format version (2)
//!     10     1  variant id   (each crate's FILE_KIND; the list is filterlab::any)
//!     11     1  hash id      (1 xxh3-128, 2 murmur3-x64-128, 3 xxh3-64)
//!     12     8  hash seed
//!     20     4  P = length of the parameter section (at most 4096)
//!     24     P  parameters   (variant-specific, fixed-width fields)
//!   24+P     8  L = length of the payload
//!   32+P     8  D = offset of the payload: the first multiple of 64 at or after 48+P, or of
//!               4096 when L >= 1 MiB (a page: the tables of a large filter start on one)
//!   40+P     8  head checksum: XXH3-64 (seed 0) of bytes [0, 40+P)
//!   48+P        zeros up to D
//!      D     L  payload      (version 1's bytes, and tables an open needs: see below)
//!    D+L     8  checksum: XXH3-64 (seed 0) of every byte before it
//! ```
//!
//! The payload's tables are the variant's arrays of little-endian words, in the order it
//! writes them; the first starts at `D`, and each later one at a multiple of its word size
//! from `D` (every table's words are 8-byte aligned in the file, which a mapping, page aligned,
//! keeps in memory).
//!
//! A variant's payload is the same bytes as in version 1, unless the variant adds a table
//! that a load derives from the others but an open in place cannot (deriving it reads the
//! whole table): the quotient filter's version 2 payload ends with its offsets, one per 64
//! slots. A decoder knows which version it reads ([`Reader::format_version`]) and an encoder
//! which it writes ([`Encoder::format_version`]); a load checks such a table against the one it
//! derives.
//!
//! A *load* (by copy) checks everything version 1's does, the whole-file checksum first, and
//! also the head checksum and that `D` is exactly where a writer puts it. An *open in place*
//! ([`mapped`]) checks in O(1), whatever the file's size: magic, version, the head checksum,
//! `D`, and a file length of exactly `D + L + 8` (a file shorter than its head declares is
//! refused at open, not at a lookup); then the variant checks its parameters against the
//! payload length, as a load does. It does not read the payload: the whole-file checksum is
//! [`mapped::verify`]'s, on request, and so are the plausibility checks a load makes of the
//! table's contents (the bits set against the item count; the quotient filter's runs and saved
//! offsets). An unverified open trusts that the payload is the one that was saved, and every
//! lookup stays in bounds whatever it holds.
//!
//! # Version 1
//!
//! All integers little-endian:
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"FLTRLAB\0"
//!      8     2  format version (1)
//!     10     1  variant id   (each crate's FILE_KIND; the list is filterlab::any)
//!     11     1  hash id      (1 xxh3-128, 2 murmur3-x64-128, 3 xxh3-64)
//!     12     8  hash seed
//!     20     4  P = length of the parameter section
//!     24     P  parameters   (variant-specific, fixed-width fields)
//!   24+P     8  L = length of the payload
//!   32+P     L  payload      (bit array, counters, fingerprint table, stages…)
//! 32+P+L     8  checksum: XXH3-64 (seed 0) of every byte before it
//! ```
//!
//! The checksum detects accidents (torn writes, flipped bits), not tampering: it is not a MAC.
//! Anyone can change `m`, `k` or the seed and recompute it, and the file then loads and gives
//! false negatives. Files that cross a trust boundary go in an authenticated envelope
//! ([`crate::auth`]: HMAC-SHA256 with a shared secret key).
//!
//! A reader checks, in order: magic, version, length (a newer version may lay the rest out
//! differently), checksum, (version 2: the head checksum and the payload offset,) variant,
//! hash id; then the variant validates its parameters against
//! the payload length, so corrupted bytes that happen to pass the checksum still cannot describe
//! an impossible filter.
//!
//! A reader of a file or stream ([`crate::Persist::load`], `filterlab::AnyFilter::load`) checks
//! more before it reads the payload, so that a header cannot make it hold memory the filter
//! does not need: the parameter section is at most [`MAX_PARAMS_LEN`] bytes, the declared
//! payload length is no more than the parameters allow ([`Codec::max_payload_len`]), and a
//! regular file's size is exactly the length declared.

use crate::{FormatError, HashKind, KeyHasher, Table, Zeroable};

mod encoder;
mod head;
pub mod layout;
pub mod mapped;
mod reader;
pub use encoder::{encoded_len, write_to, Encoder};
pub use head::{check_payload, words_len, Head, MAX_PARAMS_LEN};
pub use layout::IN_PLACE_VERSION;
pub use reader::Reader;

/// Magic bytes at the start of every saved filter.
pub const MAGIC: [u8; 8] = *b"FLTRLAB\0";
/// The highest format version this build reads: version 3 lays the head out as version 2 does
/// and differs only in the quotient and Aleph filters' payloads (their tables in blocks of 64
/// slots). Each variant writes its own [`Codec::WRITE_VERSION`], so the files of every other
/// variant stay the version 2 bytes they were.
pub const FORMAT_VERSION: u16 = 3;
/// The version a variant writes unless its [`Codec`] says otherwise.
pub const DEFAULT_WRITE_VERSION: u16 = 2;
const HEADER_LEN: usize = 24;
const MIN_LEN: usize = HEADER_LEN + 8 + 8;

/// What a saved file holds: the id stored in its header and the variant's name. Each variant's
/// crate declares its own (`filter_classic::FILE_KIND`, …); the facade's registry
/// (`filterlab::any`) is the one list of them, maps ids back to variants and checks that no two
/// share an id. filter-core knows no variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileKind {
    id: u8,
    name: &'static str,
}

impl FileKind {
    /// A kind with this header id and name. Ids are stable: a saved file keeps its id forever.
    pub const fn new(id: u8, name: &'static str) -> Self {
        FileKind { id, name }
    }

    /// The stored id.
    pub const fn id(self) -> u8 {
        self.id
    }

    /// Human-readable name.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

/// The checksum stored at the end of a file: XXH3-64 of every byte before it.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// The variant-specific half of the file format. A variant writes its parameter section and its
/// payload and reads them back; filter-core does the rest (header, section lengths, checksum,
/// and the check that both sections were read to their end), and every [`Codec`] is
/// [`Persist`](crate::Persist) through a blanket implementation. A new variant is then one crate:
/// these three methods and a [`FileKind`] listed in the facade's registry.
pub trait Codec: Hashed + Sized {
    /// The kind written in the header.
    const KIND: FileKind;

    /// The format version this variant writes (2, or 3 for the variants whose payload changed
    /// in version 3); it reads every version up to [`FORMAT_VERSION`].
    const WRITE_VERSION: u16 = DEFAULT_WRITE_VERSION;

    /// How a file of format `version` lays out this variant's table, for a variant whose
    /// versions lay it out differently (`None`: alike in every version): what `filterlab info`
    /// shows.
    fn table_layout(version: u16) -> Option<&'static str> {
        let _ = version;
        None
    }

    /// Writes the parameter section (fixed-width fields).
    fn encode_params(&self, e: &mut Encoder<'_>);

    /// Writes the payload.
    fn encode_payload(&self, e: &mut Encoder<'_>);

    /// The most payload bytes a file with this parameter section can hold, from the
    /// parameters alone: a reader compares the header's payload length with it before it reads
    /// the payload ([`check_payload`]), so a crafted header cannot make it hold more than the
    /// filter described needs. Exact where the parameters fix the tables; a bound where the
    /// payload lists stages. [`Codec::decode`] still checks the exact length.
    ///
    /// # Errors
    /// Parameters that describe no filter (as `decode` refuses them).
    fn max_payload_len(hasher: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError>;

    /// Reads what the two `encode_` methods wrote, validating every field against the others
    /// and against the bytes present before allocating anything. Bytes left unread in either
    /// section are refused by the caller ([`FormatError::TrailingBytes`]).
    ///
    /// # Errors
    /// Truncated or invalid data.
    fn decode(parts: Parts<'_, '_>) -> Result<Self, FormatError>;
}

/// What [`Codec::decode`] reads: the hasher the header names, the parameter section and the
/// payload. A decoder takes it apart in its signature
/// (`Parts(hasher, params, payload): Parts<'_, '_>`).
#[derive(Debug)]
pub struct Parts<'a, 'b>(
    /// The hash function and seed of the header.
    pub KeyHasher,
    /// The parameter section.
    pub &'a mut Reader<'b>,
    /// The payload.
    pub &'a mut Reader<'b>,
);

/// What the header needs of a [`Codec`] besides its sections: the hasher to name. Every
/// [`Filter`](crate::Filter) has it through a blanket implementation; a type that is not a
/// `Filter` (a [`StaticFilter`](crate::StaticFilter), a window on the caller's clock) implements
/// it in one line.
pub trait Hashed {
    /// The hash function and seed the filter's keys are hashed with.
    fn key_hasher(&self) -> KeyHasher;
}

impl<F: crate::Filter> Hashed for F {
    fn key_hasher(&self) -> KeyHasher {
        self.hasher()
    }
}

/// [`Persist::to_bytes`](crate::Persist::to_bytes) of a [`Codec`]: the buffer is reserved at
/// its exact size, infallibly (an allocation failure aborts, as `Vec` does); [`try_encode`] is
/// the fallible form.
pub fn encode<C: Codec>(filter: &C) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(encoded_len(filter) as usize);
    write_to(filter, &mut bytes).expect("a Vec takes every write, and the encoding is stable");
    bytes
}

/// [`Persist::try_to_bytes`](crate::Persist::try_to_bytes) of a [`Codec`]: the file in memory,
/// reserved fallibly at its exact size (one copy of the table, never a growing buffer).
///
/// # Errors
/// [`crate::Error::OutOfMemory`] when the bytes cannot be allocated.
pub fn try_encode<C: Codec>(filter: &C) -> crate::Result<Vec<u8>> {
    let len = encoded_len(filter);
    let oom = || crate::Error::OutOfMemory {
        what: "saved filter",
        bytes: len,
    };
    let mut bytes = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|n| bytes.try_reserve_exact(n).ok())
        .ok_or_else(oom)?;
    write_to(filter, &mut bytes).map_err(|_| oom())?;
    Ok(bytes)
}

/// [`Persist::from_bytes`](crate::Persist::from_bytes) of a [`Codec`].
///
/// # Errors
/// The envelope's errors ([`decode`]), the variant's, or bytes left over in a section.
pub fn decode_with<C: Codec>(bytes: &[u8]) -> Result<C, FormatError> {
    let mut d = decode(bytes, C::KIND)?;
    let filter = C::decode(Parts(d.hasher, &mut d.params, &mut d.payload))?;
    d.params.finish()?;
    d.payload.finish()?;
    Ok(filter)
}

/// Recomputes the checksums of a whole file over the bytes they cover: for a version 2 file
/// the head's (when the head is whole), then the file's (the last 8 bytes): for tests and
/// fuzzers that alter a valid file and must get past the checksums to the decoders. Files
/// shorter than the checksum are left as they are.
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() >= HEADER_LEN && check_head(bytes).is_ok() && version(bytes) >= 2 {
        let params = u32::from_le_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
        let end = layout::head_len(params as usize);
        if params <= MAX_PARAMS_LEN && end <= bytes.len() {
            let sum = checksum(&bytes[..end - 8]);
            bytes[end - 8..end].copy_from_slice(&sum.to_le_bytes());
        }
    }
    if let Some(body) = bytes.len().checked_sub(8) {
        let sum = checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
}

/// A validated file, split into its sections.
#[derive(Debug)]
pub struct Decoded<'a> {
    /// The hasher named in the header.
    pub hasher: KeyHasher,
    /// The parameter section.
    pub params: Reader<'a>,
    /// The payload section.
    pub payload: Reader<'a>,
}

/// Checks magic, version and length, in that order (a reader that stops at a bad magic or
/// version, as [`crate::Persist::load`] does, gets that error rather than "truncated");
/// returns a reader at the variant id.
fn check_head(bytes: &[u8]) -> Result<Reader<'_>, FormatError> {
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
            return Err(FormatError::Truncated {
                needed: (MIN_LEN - bytes.len()) as u64,
                available: 0,
            });
        }
        return Err(FormatError::BadMagic);
    }
    if let Some(v) = bytes.get(MAGIC.len()..MAGIC.len() + 2) {
        let version = u16::from_le_bytes([v[0], v[1]]);
        if version > FORMAT_VERSION || version == 0 {
            return Err(FormatError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
    }
    if bytes.len() < MIN_LEN {
        return Err(FormatError::Truncated {
            needed: (MIN_LEN - bytes.len()) as u64,
            available: 0,
        });
    }
    Ok(Reader::new(&bytes[MAGIC.len() + 2..HEADER_LEN]))
}

/// How many bytes the file whose first bytes are `head` says it holds, as far as `head`
/// shows: `None` when `head` already fails the magic or version check (stop reading: the
/// loader will name the error), else the length known so far (24 bytes of header, then the
/// parameter length, then the payload length once `head` reaches it).
pub(crate) fn declared_len(head: &[u8]) -> Option<u64> {
    match check_head(head) {
        Err(FormatError::Truncated { .. }) if head.len() >= MAGIC.len() + 2 => {}
        Err(FormatError::Truncated { .. }) => return Some(HEADER_LEN as u64),
        Err(_) => return None,
        Ok(_) => {}
    }
    if head.len() < HEADER_LEN {
        return Some(HEADER_LEN as u64);
    }
    if version(head) >= layout::IN_PLACE_VERSION {
        return Some(match layout::declared(head) {
            Err(needed) => needed,
            Ok((offset, len)) => offset.saturating_add(len).saturating_add(8),
        });
    }
    let params = u64::from(u32::from_le_bytes(head[20..24].try_into().ok()?));
    let through_params = HEADER_LEN as u64 + params + 8;
    if (head.len() as u64) < through_params {
        return Some(through_params);
    }
    let at = through_params as usize - 8;
    let payload = u64::from_le_bytes(head[at..at + 8].try_into().ok()?);
    Some(through_params.saturating_add(payload).saturating_add(8))
}

/// The version of a head that passed [`check_head`].
fn version(head: &[u8]) -> u16 {
    u16::from_le_bytes([head[8], head[9]])
}

/// The version a saved filter's header declares, after the magic and version checks: 1 (loads
/// by copy) or 2 (can also be opened in place, [`mapped`]).
///
/// # Errors
/// Those of the checks.
pub fn peek_version(bytes: &[u8]) -> Result<u16, FormatError> {
    check_head(bytes)?;
    Ok(version(bytes))
}

/// The variant id a saved filter claims, read from its header after the length, magic and
/// version checks (not the checksum: the variant's loader checks everything else), so a caller
/// holding bytes of unknown variant can pick the loader (`filterlab::any` maps the id).
///
/// # Errors
/// Those of the checks.
pub fn peek_kind_id(bytes: &[u8]) -> Result<u8, FormatError> {
    check_head(bytes)?.u8()
}

/// Validates the envelope of `bytes` (length, magic, version, checksum, variant, hash) and splits
/// it into parameters and payload.
///
/// # Errors
/// The first check that fails, as a [`FormatError`].
pub fn decode(bytes: &[u8], expected: FileKind) -> Result<Decoded<'_>, FormatError> {
    let head = check_head(bytes)?;
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
    let computed = checksum(body);
    if stored != computed {
        return Err(FormatError::ChecksumMismatch { stored, computed });
    }
    if version(bytes) >= layout::IN_PLACE_VERSION {
        let l = layout::parse(bytes, bytes.len() as u64)?;
        let pad = &bytes[l.head_len as usize..l.payload_offset as usize];
        if pad.iter().any(|&b| b != 0) {
            return Err(invalid(
                "bytes other than zero between the head and the payload",
            ));
        }
        let payload = &bytes[l.payload_offset as usize..][..l.payload_len as usize];
        let params = &bytes[HEADER_LEN..][..l.params_len];
        return split(head, params, payload, expected, version(bytes));
    }
    let mut rest = Reader::new(&body[HEADER_LEN - 4..]);
    let params_len = rest.u32()?;
    if params_len > MAX_PARAMS_LEN {
        // As a reader refuses it before reading it (`Head::parse`).
        return Err(FormatError::Invalid(format!(
            "a parameter section of {params_len} bytes (at most {MAX_PARAMS_LEN})"
        )));
    }
    let params = rest.take(params_len as usize)?;
    let payload_len = rest.u64()?;
    let payload = rest.take(
        usize::try_from(payload_len)
            .map_err(|_| FormatError::Invalid(format!("payload of {payload_len} bytes")))?,
    )?;
    rest.finish()?;
    split(head, params, payload, expected, version(bytes))
}

/// The parameter and payload sections of a saved filter of any variant, after every check of
/// [`decode`] but the variant's.
pub(crate) fn decode_any(bytes: &[u8]) -> Result<(&[u8], &[u8]), FormatError> {
    let kind = FileKind::new(peek_kind_id(bytes)?, "any");
    let d = decode(bytes, kind)?;
    Ok((d.params.rest(), d.payload.rest()))
}

/// The variant and hasher of a head (a reader at the variant id) whose sections are `params`
/// and `payload`, checked against `expected`; the sections' readers know the file's `version`.
fn split<'a>(
    mut head: Reader<'_>,
    params: &'a [u8],
    payload: &'a [u8],
    expected: FileKind,
    version: u16,
) -> Result<Decoded<'a>, FormatError> {
    let variant_id = head.u8()?;
    if variant_id != expected.id() {
        return Err(FormatError::WrongVariant {
            expected: expected.name(),
            found_id: variant_id,
        });
    }
    let hash_id = head.u8()?;
    let kind = HashKind::from_id(hash_id).ok_or(FormatError::UnknownHash(hash_id))?;
    let seed = head.u64()?;
    let hasher =
        KeyHasher::new(kind, seed).map_err(|e| FormatError::Invalid(format!("hash seed: {e}")))?;
    Ok(Decoded {
        hasher,
        params: Reader::of_version(params, version),
        payload: Reader::of_version(payload, version),
    })
}

/// An empty vector with room for `n` elements, reserved fallibly: loading never aborts on an
/// allocation.
///
/// # Errors
/// [`FormatError::OutOfMemory`] when the allocator refuses.
pub fn try_vec<T>(n: usize) -> Result<Vec<T>, FormatError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| FormatError::OutOfMemory {
            bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    Ok(v)
}

/// A growing filter's list of stages, as its file holds it: `n_stages` (from the parameters)
/// between 1 and `max`, then each stage from the payload, oldest first, read by `read` given
/// its index and the stages read before it and returning the stage and its item count. Returns
/// the stages and their total item count.
///
/// # Errors
/// A count out of range, an error of `read`, a total that overflows, or
/// [`FormatError::OutOfMemory`].
pub fn decode_stages<S>(
    n_stages: u32,
    max: usize,
    mut read: impl FnMut(usize, &[S]) -> Result<(S, u64), FormatError>,
) -> Result<(Vec<S>, u64), FormatError> {
    let n = n_stages as usize;
    if n == 0 || n > max {
        return Err(invalid(format!("{n_stages} stages")));
    }
    let mut stages = try_vec(n)?;
    let mut total = 0u64;
    for i in 0..n {
        let (stage, len) = read(i, &stages)?;
        total = total
            .checked_add(len)
            .ok_or_else(|| invalid("item count overflows"))?;
        stages.push(stage);
    }
    Ok((stages, total))
}

/// A zeroed table of `n` elements for a loaded filter, allocated as
/// [`try_zeroed_table`](crate::try_zeroed_table) allocates a built one's.
fn try_table<T: Zeroable>(n: usize) -> Result<Table<T>, FormatError> {
    crate::try_zeroed_table(n, crate::MemoryCap::NONE, "loaded table").map_err(|_| {
        FormatError::OutOfMemory {
            bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        }
    })
}

/// Shorthand for an invalid-parameter error while loading.
pub fn invalid(why: impl Into<String>) -> FormatError {
    FormatError::Invalid(why.into())
}

/// A builder's refusal of what a file holds, as the invalid-parameter error a load reports
/// (with the builder's message): `validated(..).map_err(refused)?`.
pub fn refused(e: crate::Error) -> FormatError {
    invalid(e.to_string())
}

#[cfg(test)]
mod tests;
