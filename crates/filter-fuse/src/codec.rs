//! The saved format of [`BinaryFuse8`](crate::BinaryFuse8) (file kind 6) and
//! [`BinaryFuse16`](crate::BinaryFuse16) (file kind 7), in the envelope of
//! [`filter_core::format`].
//!
//! ```text
//! parameters  seed u64 · keys u64 · segment length u32 · segment count u32
//! payload     (segment count + 2) · segment length fingerprints, 1 or 2 bytes each (LE)
//! ```
//!
//! The table length is not stored: it follows from the layout, and a payload of any other
//! length is refused before anything is allocated. The decoder accepts exactly the layouts a
//! build can produce in shape (a power-of-two segment length from 4 to 2^18, at least one
//! segment, 32-bit slot indexes, no more keys than slots), so every query of a loaded filter
//! stays inside its table.

use crate::build::{Layout, MAX_KEYS, MAX_SEGMENT_LENGTH};
use crate::{BinaryFuse, Fingerprint};
use filter_core::format::{invalid, Codec, Encoder, Hashed, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, StaticFilter};

/// The file kind of [`BinaryFuse8`](crate::BinaryFuse8).
pub const FILE_KIND_8: FileKind = FileKind::new(6, "binary-fuse8");

/// The file kind of [`BinaryFuse16`](crate::BinaryFuse16).
pub const FILE_KIND_16: FileKind = FileKind::new(7, "binary-fuse16");

/// A fingerprint width as stored: its file kind and its little-endian bytes (`Plain`: a
/// mapped file's bytes are a table of them, read in place). Public in a private module, so the
/// `Codec` impl can name it in its bounds while users cannot.
pub trait Stored: Fingerprint + filter_core::Plain {
    /// The file kind of filters with this width.
    const KIND: FileKind;
    /// Appends the fingerprints, little-endian.
    fn write(table: &[Self], e: &mut Encoder<'_>);
    /// Reads one fingerprint from its `BITS / 8` little-endian bytes.
    fn read(bytes: &[u8]) -> Self;
}

impl Stored for u8 {
    const KIND: FileKind = FILE_KIND_8;

    fn write(table: &[Self], e: &mut Encoder<'_>) {
        e.bytes(table);
    }

    fn read(bytes: &[u8]) -> Self {
        bytes[0]
    }
}

impl Stored for u16 {
    const KIND: FileKind = FILE_KIND_16;

    fn write(table: &[Self], e: &mut Encoder<'_>) {
        let mut chunk = [0u8; 512];
        for part in table.chunks(chunk.len() / 2) {
            for (c, f) in chunk.chunks_exact_mut(2).zip(part) {
                c.copy_from_slice(&f.to_le_bytes());
            }
            e.bytes(&chunk[..part.len() * 2]);
        }
    }

    fn read(bytes: &[u8]) -> Self {
        u16::from_le_bytes([bytes[0], bytes[1]])
    }
}

impl<F: Fingerprint> Hashed for BinaryFuse<F> {
    fn key_hasher(&self) -> KeyHasher {
        self.hasher()
    }
}

/// The layout a file describes, checked so that every slot a query can compute is in the table.
fn checked_layout(segment_length: u32, segment_count: u32) -> Result<Layout, FormatError> {
    if !segment_length.is_power_of_two() || !(4..=MAX_SEGMENT_LENGTH).contains(&segment_length) {
        return Err(invalid(format!(
            "a segment length of {segment_length} (a power of two from 4 to {MAX_SEGMENT_LENGTH})"
        )));
    }
    if segment_count == 0 {
        return Err(invalid(
            "no segment (a binary fuse filter has at least one)",
        ));
    }
    let slots = (u64::from(segment_count) + 2) * u64::from(segment_length);
    let array_length = u32::try_from(slots).map_err(|_| {
        invalid(format!(
            "{segment_count} segments of {segment_length} slots overflow 32-bit slot indexes"
        ))
    })?;
    Ok(Layout {
        segment_length,
        segment_count,
        array_length,
    })
}

impl<F: Stored> Codec for BinaryFuse<F> {
    const KIND: FileKind = F::KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.seed)
            .u64(self.len)
            .u32(self.layout.segment_length)
            .u32(self.layout.segment_count);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        F::write(&self.fingerprints, e);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let _seed = params.u64()?;
        let _len = params.u64()?;
        let layout = checked_layout(params.u32()?, params.u32()?)?;
        Ok(u64::from(layout.array_length) * u64::from(F::BITS / 8))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let seed = params.u64()?;
        let len = params.u64()?;
        let layout = checked_layout(params.u32()?, params.u32()?)?;
        let slots = layout.array_length as usize;
        if len > u64::from(layout.array_length).min(MAX_KEYS) {
            return Err(invalid(format!(
                "{len} keys in {slots} slots (a binary fuse filter has a slot per key at least)"
            )));
        }
        let width = F::BITS as usize / 8;
        let expected = slots as u64 * width as u64;
        if payload.remaining() as u64 != expected {
            return Err(invalid(format!(
                "a table of {} bytes for {slots} slots of {width} byte(s) ({expected} bytes)",
                payload.remaining()
            )));
        }
        // Opened in place: the file's fingerprints, no copy (any value is a fingerprint).
        // Loaded from a file: read from it straight into the filter's memory.
        let fingerprints = if let Some(table) = payload.table::<F>(slots)? {
            table
        } else if let Some(table) = payload.streamed_table::<F>(slots)? {
            table
        } else {
            let raw = payload.take(slots * width)?;
            let mut fingerprints = filter_core::format::try_vec(slots)?;
            fingerprints.extend(raw.chunks_exact(width).map(F::read));
            fingerprints.into()
        };
        Ok(BinaryFuse {
            hasher,
            seed,
            layout,
            fingerprints,
            len,
        })
    }
}

#[cfg(test)]
mod tests;
