//! Version 2's head: where the payload lies, and the head's own checksum, checked in O(1)
//! whatever the file's size (see the layout in the [module documentation](super)).

use super::{checksum, Codec, Encoder, FormatError, Reader, HEADER_LEN, MAX_PARAMS_LEN};

/// The version that lays the payload out for use in place.
pub const IN_PLACE_VERSION: u16 = 2;

/// A payload at least this long starts on a 4096-byte boundary (a page); a shorter one on a
/// 64-byte boundary (a cache line), so that small files stay small.
pub const PAGE_ALIGN_MIN: u64 = 1 << 20;

/// The fields after the parameters in a version 2 head: payload length, payload offset, head
/// checksum.
const TAIL: usize = 24;

/// The boundary a version 2 payload of `len` bytes starts on.
pub const fn payload_align(len: u64) -> u64 {
    if len >= PAGE_ALIGN_MIN {
        4096
    } else {
        64
    }
}

/// Where a version 2 writer puts a payload of `len` bytes after a head of `head_len` bytes: the
/// first multiple of [`payload_align`] at or past the head's end. `None` on overflow.
pub fn payload_offset(head_len: u64, len: u64) -> Option<u64> {
    head_len.checked_next_multiple_of(payload_align(len))
}

/// The length of a version 2 head with `params` bytes of parameters.
pub(super) const fn head_len(params: usize) -> usize {
    HEADER_LEN + params + TAIL
}

/// A version 2 file's sections, as its head declares them and the checks of [`parse`] allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of parameters, from offset 24.
    pub params_len: usize,
    /// The end of the head (where the padding before the payload begins).
    pub head_len: u64,
    /// Where the payload starts.
    pub payload_offset: u64,
    /// The payload's length.
    pub payload_len: u64,
}

impl Layout {
    /// The whole file's length: the payload's end and the trailing checksum.
    pub fn file_len(&self) -> u64 {
        // No overflow: `parse` checked `payload_offset + payload_len + 8` against a length.
        self.payload_offset + self.payload_len + 8
    }
}

/// The offset and declared length of a version 2 file whose first bytes are `head`, as far as
/// they show it: `Err(needed)` while `head` is shorter than the head's fixed part.
pub(super) fn declared(head: &[u8]) -> Result<(u64, u64), u64> {
    let params = u32::from_le_bytes(head[20..24].try_into().expect("4 bytes")) as usize;
    let end = head_len(params);
    if head.len() < end - 8 {
        return Err(end as u64);
    }
    let at = HEADER_LEN + params;
    let len = u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
    let offset = u64::from_le_bytes(head[at + 8..at + 16].try_into().expect("8 bytes"));
    Ok((offset, len))
}

/// Checks a version 2 head in O(1): its parameter length, its checksum, a payload offset that
/// is exactly where a writer puts it (aligned, right after the head), and a file of exactly
/// the length the head declares (`file_len`: a file shorter than its head says is refused here,
/// not at a lookup).
///
/// # Errors
/// [`FormatError::Truncated`], [`FormatError::TrailingBytes`], [`FormatError::ChecksumMismatch`]
/// for the head's checksum, or [`FormatError::Invalid`] naming the offset.
pub fn parse(bytes: &[u8], file_len: u64) -> Result<Layout, FormatError> {
    let mut r = Reader::new(bytes.get(20..).unwrap_or_default());
    let params_len = r.u32()?;
    if params_len > MAX_PARAMS_LEN {
        return Err(FormatError::Invalid(format!(
            "a parameter section of {params_len} bytes (at most {MAX_PARAMS_LEN})"
        )));
    }
    let params_len = params_len as usize;
    let head_len = head_len(params_len);
    let head = bytes.get(..head_len).ok_or(FormatError::Truncated {
        needed: head_len as u64,
        available: bytes.len() as u64,
    })?;
    let (body, sum) = head.split_at(head_len - 8);
    let stored = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
    let computed = checksum(body);
    if stored != computed {
        return Err(FormatError::ChecksumMismatch { stored, computed });
    }
    let (payload_offset, payload_len) = declared(head).expect("the whole head");
    let align = payload_align(payload_len);
    if payload_offset % align != 0 {
        return Err(FormatError::Invalid(format!(
            "the payload offset {payload_offset} is not aligned to {align} bytes, so its tables \
             cannot be used in place: the file is damaged, save the filter again"
        )));
    }
    let expected = payload_offset_checked(head_len as u64, payload_len)?;
    if payload_offset != expected {
        return Err(FormatError::Invalid(format!(
            "the payload is declared at offset {payload_offset}; a version 2 file of a \
             {payload_len}-byte payload has it at {expected} (aligned to {}): the file is \
             damaged, save the filter again",
            payload_align(payload_len)
        )));
    }
    let declared = expected
        .checked_add(payload_len)
        .and_then(|n| n.checked_add(8))
        .ok_or_else(|| FormatError::Invalid(format!("a payload of {payload_len} bytes")))?;
    if declared > file_len {
        return Err(FormatError::Truncated {
            needed: declared,
            available: file_len,
        });
    }
    if declared < file_len {
        return Err(FormatError::TrailingBytes(file_len - declared));
    }
    Ok(Layout {
        params_len,
        head_len: head_len as u64,
        payload_offset,
        payload_len,
    })
}

fn payload_offset_checked(head_len: u64, len: u64) -> Result<u64, FormatError> {
    payload_offset(head_len, len)
        .ok_or_else(|| FormatError::Invalid(format!("a payload of {len} bytes")))
}

/// The head of a version 2 file: the 20 bytes of `header`, the parameters, the payload's length
/// and offset and the head's checksum.
pub(super) fn head(header: &[u8; 20], params: &[u8], payload_len: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(head_len(params.len()));
    h.extend_from_slice(header);
    h.extend_from_slice(&(params.len() as u32).to_le_bytes());
    h.extend_from_slice(params);
    let offset = payload_offset(head_len(params.len()) as u64, payload_len)
        .expect("a payload that fits in memory");
    h.extend_from_slice(&payload_len.to_le_bytes());
    h.extend_from_slice(&offset.to_le_bytes());
    let sum = checksum(&h);
    h.extend_from_slice(&sum.to_le_bytes());
    h
}

/// The version 1 file of the same filter as the version 2 file `bytes` (checked as a load
/// checks it), its payload copied as it is: for tests of the envelope. That is the file an
/// earlier build wrote for every variant whose payload is the same in both versions, but not
/// for one that adds tables in version 2 (the quotient filter's offsets); a filter's own
/// [`Persist::to_bytes_version_1`](crate::Persist::to_bytes_version_1) is right for every
/// variant.
///
/// # Errors
/// The errors of a load's checks of `bytes`.
pub fn to_version_1(bytes: &[u8]) -> Result<Vec<u8>, FormatError> {
    let d = super::decode_any(bytes)?;
    let mut header = [0u8; 20];
    header.copy_from_slice(&bytes[..20]);
    Ok(version_1(&header, d.0, d.1))
}

/// The version 1 file of `filter`, as builds before version 2 wrote it (and read it): its
/// encoder asked for version 1 ([`Encoder::format_version`](super::Encoder::format_version)).
pub fn encode_version_1<C: Codec>(filter: &C) -> Vec<u8> {
    let mut e = Encoder::of_version(C::KIND, filter.key_hasher(), 0, 1);
    filter.encode_params(&mut e);
    e.begin_payload();
    filter.encode_payload(&mut e);
    e.finish()
}

/// A version 1 file: `header` (its version field set to 1 here), the parameter length and
/// `params`, the payload length and `payload`, and the checksum.
pub(super) fn version_1(header: &[u8; 20], params: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + params.len() + 8 + payload.len() + 8);
    out.extend_from_slice(header);
    out[8..10].copy_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&(params.len() as u32).to_le_bytes());
    out.extend_from_slice(params);
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}
