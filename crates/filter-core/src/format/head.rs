//! The part of a file before its payload, and the check a reader makes with it before it reads
//! a byte of the payload: the payload length the header declares must be one the parameters
//! allow ([`Codec::max_payload_len`]). Without it, a 48-byte header on a sparse file of any size
//! made every reader hold the whole declared length in memory before the loader refused it.

use super::{check_head, Codec, Reader, HEADER_LEN};
use crate::{FormatError, HashKind, KeyHasher};

/// The longest parameter section a reader accepts: every variant writes a few fixed-width
/// fields (well under 100 bytes), so a longer one is damage, refused before it is read.
pub const MAX_PARAMS_LEN: u32 = 4096;

/// A file's header, parameter section and declared payload length: what a reader knows before
/// it reads the payload.
#[derive(Clone, Copy, Debug)]
pub struct Head<'a> {
    /// The format version.
    pub version: u16,
    /// The variant id.
    pub kind_id: u8,
    /// The hash function id.
    pub hash_id: u8,
    /// The hash seed.
    pub seed: u64,
    /// The parameter section.
    pub params: &'a [u8],
    /// The payload length the file declares.
    pub payload_len: u64,
}

impl<'a> Head<'a> {
    /// The head of the file whose first bytes are `bytes`: `None` while `bytes` does not yet
    /// reach the payload length.
    ///
    /// # Errors
    /// A bad magic or version, or a parameter section longer than [`MAX_PARAMS_LEN`].
    pub fn parse(bytes: &'a [u8]) -> Result<Option<Self>, FormatError> {
        if bytes.len() < HEADER_LEN {
            return Ok(None);
        }
        let mut r = match check_head(bytes) {
            Ok(r) => r,
            Err(FormatError::Truncated { .. }) => Reader::new(&bytes[10..HEADER_LEN]),
            Err(e) => return Err(e),
        };
        let version = super::version(bytes);
        let (kind_id, hash_id, seed) = (r.u8()?, r.u8()?, r.u64()?);
        let params_len = r.u32()?;
        if params_len > MAX_PARAMS_LEN {
            return Err(FormatError::Invalid(format!(
                "a parameter section of {params_len} bytes (at most {MAX_PARAMS_LEN})"
            )));
        }
        let mut rest = Reader::new(&bytes[HEADER_LEN..]);
        let Ok(params) = rest.take(params_len as usize) else {
            return Ok(None);
        };
        let Ok(payload_len) = rest.u64() else {
            return Ok(None);
        };
        Ok(Some(Head {
            version,
            kind_id,
            hash_id,
            seed,
            params,
            payload_len,
        }))
    }

    /// The hasher the header names.
    ///
    /// # Errors
    /// An unknown hash id, or a seed its function refuses.
    pub fn hasher(&self) -> Result<KeyHasher, FormatError> {
        let kind = HashKind::from_id(self.hash_id).ok_or(FormatError::UnknownHash(self.hash_id))?;
        KeyHasher::new(kind, self.seed).map_err(|e| FormatError::Invalid(format!("hash seed: {e}")))
    }
}

/// Checks a head against the variant `C`: its variant id, and a declared payload length no
/// longer than `C`'s parameters allow.
///
/// # Errors
/// [`FormatError::WrongVariant`], the parameters' own refusal, or
/// [`FormatError::PayloadTooLarge`].
pub fn check_payload<C: Codec>(head: &Head<'_>) -> Result<(), FormatError> {
    if head.kind_id != C::KIND.id() {
        return Err(FormatError::WrongVariant {
            expected: C::KIND.name(),
            found_id: head.kind_id,
        });
    }
    let mut params = Reader::of_version(head.params, head.version);
    let allowed = C::max_payload_len(head.hasher()?, &mut params)?;
    if head.payload_len > allowed {
        return Err(FormatError::PayloadTooLarge {
            declared: head.payload_len,
            allowed,
        });
    }
    Ok(())
}

/// The bytes `words` little-endian `u64` words take, or the refusal of a count that overflows.
///
/// # Errors
/// A count whose bytes overflow `u64`.
pub fn words_len(words: u64) -> Result<u64, FormatError> {
    words
        .checked_mul(8)
        .ok_or_else(|| FormatError::Invalid(format!("{words} words overflow 64-bit sizes")))
}
