//! Authenticated files: a keyed MAC (HMAC-SHA256) over a filter's file, for files that cross a
//! trust boundary.
//!
//! The checksum every file ends with (XXH3-64) detects accidents (a torn write, a flipped bit),
//! not tampering: anyone can change a file's `m`, `k` or seed and recompute it, and the file
//! then loads and answers "absent" for keys that were inserted (a changed `k` alone hides
//! about half of them). A file that comes from, or passes through, a party you do not trust
//! should be saved with [`Persist::save_authenticated`]
//! and loaded with [`Persist::load_authenticated`], with a
//! secret key both ends share. The layout:
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"FLTRMAC\x01"
//!      8     N  the filter's file, exactly as Persist::save writes it
//!    8+N    32  HMAC-SHA256(key, every byte before it)
//! ```
//!
//! The tag is checked (in constant time) before any field of the filter is read.

use crate::{Error, FormatError, Persist};
use hmac::{Hmac, KeyInit, Mac};
use std::io::{self, Write};

type HmacSha256 = Hmac<sha2::Sha256>;

/// Magic bytes of an authenticated file.
pub const AUTH_MAGIC: [u8; 8] = *b"FLTRMAC\x01";
/// Bytes of the tag at the end of an authenticated file.
pub const TAG_LEN: usize = 32;
/// The shortest key accepted: 16 bytes (use 32 random bytes).
pub const MIN_KEY_LEN: usize = 16;

fn mac_for(key: &[u8]) -> Result<HmacSha256, Error> {
    if key.len() < MIN_KEY_LEN {
        return Err(Error::InvalidParameter {
            name: "key",
            value: format!("{} bytes", key.len()),
            expected: "a secret key of at least 16 bytes (32 random bytes recommended)",
        });
    }
    HmacSha256::new_from_slice(key).map_err(|_| Error::InvalidParameter {
        name: "key",
        value: format!("{} bytes", key.len()),
        expected: "a key HMAC-SHA256 accepts",
    })
}

/// A writer that feeds what it writes to a MAC.
struct Tee<'a> {
    out: &'a mut dyn Write,
    mac: &'a mut HmacSha256,
}

impl Write for Tee<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.mac.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Streams `filter`'s authenticated file into `out` (see the module docs).
///
/// # Errors
/// A key shorter than [`MIN_KEY_LEN`] (`InvalidInput`), or the errors of
/// [`Persist::write_to`].
pub fn write_authenticated<P: Persist>(
    filter: &P,
    key: &[u8],
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut mac = mac_for(key).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    mac.update(&AUTH_MAGIC);
    out.write_all(&AUTH_MAGIC)?;
    filter.write_to(Tee {
        out: &mut *out,
        mac: &mut mac,
    })?;
    out.write_all(&mac.finalize().into_bytes())
}

/// Verifies an authenticated file's tag with `key`, then loads the filter inside.
///
/// # Errors
/// A key shorter than [`MIN_KEY_LEN`]; [`FormatError::BadMagic`] for bytes that are not an
/// authenticated file (a plain one included); [`FormatError::AuthenticationFailed`] when the
/// tag does not match (the file was altered, or the key is not the one it was saved with);
/// then the errors of [`Persist::from_bytes`].
pub fn read_authenticated<P: Persist>(bytes: &[u8], key: &[u8]) -> Result<P, Error> {
    let mut mac = mac_for(key)?;
    if bytes.len() < AUTH_MAGIC.len() + TAG_LEN || bytes[..AUTH_MAGIC.len()] != AUTH_MAGIC {
        return Err(FormatError::BadMagic.into());
    }
    let (body, tag) = bytes.split_at(bytes.len() - TAG_LEN);
    mac.update(body);
    mac.verify_slice(tag)
        .map_err(|_| FormatError::AuthenticationFailed)?;
    Ok(P::from_bytes(&body[AUTH_MAGIC.len()..])?)
}
