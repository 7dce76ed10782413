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
use filter_core::format::{invalid, Codec, Encoder, Hashed, Parts};
use filter_core::{FileKind, FormatError, KeyHasher, StaticFilter};

/// The file kind of [`BinaryFuse8`](crate::BinaryFuse8).
pub const FILE_KIND_8: FileKind = FileKind::new(6, "binary-fuse8");

/// The file kind of [`BinaryFuse16`](crate::BinaryFuse16).
pub const FILE_KIND_16: FileKind = FileKind::new(7, "binary-fuse16");

/// A fingerprint width as stored: its file kind and its little-endian bytes. Public in a
/// private module, so the `Codec` impl can name it in its bounds while users cannot.
pub trait Stored: Fingerprint {
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
        let raw = payload.take(slots * width)?;
        let mut fingerprints = filter_core::format::try_vec(slots)?;
        fingerprints.extend(raw.chunks_exact(width).map(F::read));
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
mod tests {
    use super::*;
    use crate::{BinaryFuse16, BinaryFuse8};
    use filter_core::{testkit, Persist};

    fn keys(tag: &str, n: usize) -> Vec<Vec<u8>> {
        testkit::keys(tag, n)
    }

    fn build<F: Fingerprint>(n: usize) -> BinaryFuse<F> {
        let k = keys("saved", n);
        let refs: Vec<&[u8]> = k.iter().map(Vec::as_slice).collect();
        let hasher = KeyHasher::new(filter_core::HashKind::Murmur3X64_128, 99).unwrap();
        BinaryFuse::<F>::from_keys_with(&refs, hasher).unwrap()
    }

    fn round_trip<F: Stored>(n: usize) {
        let f = build::<F>(n);
        let mut probes = keys("saved", n);
        probes.extend(keys("stranger", 20_000));
        testkit::check_static_round_trip(&f, &probes);
        let copy = BinaryFuse::<F>::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(copy, f, "every field restored");
    }

    #[test]
    fn a_loaded_filter_answers_as_the_saved_one() {
        for n in [0, 1, 2, 100, 5_000] {
            round_trip::<u8>(n);
            round_trip::<u16>(n);
        }
    }

    #[test]
    fn every_truncation_and_bit_flip_is_refused() {
        let dir = std::env::temp_dir().join(format!("filterlab-fuse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(testkit::check_damaged_files(&build::<u8>(30), &dir), 0);
        assert_eq!(testkit::check_damaged_files(&build::<u16>(30), &dir), 0);
        std::fs::remove_dir_all(&dir).unwrap();
        testkit::check_rejects_bad_bytes(&build::<u8>(3_000));
        testkit::check_rejects_bad_bytes(&build::<u16>(3_000));
    }

    #[test]
    fn the_decoder_validates_every_field() {
        assert!(testkit::check_decoder_validates(&build::<u8>(200)) > 0);
        assert!(testkit::check_decoder_validates(&build::<u16>(200)) > 0);
    }

    #[test]
    fn the_two_widths_do_not_load_as_each_other() {
        let b8 = build::<u8>(100).to_bytes();
        assert!(matches!(
            BinaryFuse16::from_bytes(&b8),
            Err(FormatError::WrongVariant { .. })
        ));
        let b16 = build::<u16>(100).to_bytes();
        assert!(matches!(
            BinaryFuse8::from_bytes(&b16),
            Err(FormatError::WrongVariant { .. })
        ));
    }

    /// Parameters rewritten (with a valid checksum) to describe impossible filters.
    fn crafted(seg_len: u32, seg_count: u32, len: u64, payload_len: Option<usize>) -> Vec<u8> {
        let bytes = build::<u8>(100).to_bytes();
        testkit::reenvelope::<BinaryFuse8>(&bytes, |params, payload| {
            params[8..16].copy_from_slice(&len.to_le_bytes());
            params[16..20].copy_from_slice(&seg_len.to_le_bytes());
            params[20..24].copy_from_slice(&seg_count.to_le_bytes());
            let n = payload_len.unwrap_or((seg_count as usize + 2) * seg_len as usize);
            payload.resize(n, 0);
        })
    }

    fn refused(bytes: &[u8], why: &str) {
        testkit::check_refused::<BinaryFuse8>(bytes, why);
    }

    #[test]
    fn impossible_layouts_are_refused_before_allocating() {
        // The crafted payload has the length the layout implies, so only the layout check stops
        // these.
        refused(&crafted(6, 10, 10, None), "segment length of 6");
        refused(&crafted(2, 10, 10, None), "segment length of 2");
        refused(&crafted(1 << 19, 1, 10, None), "segment length of 524288");
        refused(&crafted(16, 0, 10, Some(32)), "no segment");
        refused(&crafted(16, 100, 10_000, None), "10000 keys in 1632 slots");
        // 2^32 slots would need a 4 GiB payload: the count is refused from the parameters.
        refused(
            &crafted(1 << 18, u32::MAX, 10, Some(64)),
            "overflow 32-bit slot indexes",
        );
        // A segment count that does not match the table present.
        refused(
            &crafted(16, 100, 10, Some(16 * 101)),
            "a table of 1616 bytes",
        );
        refused(
            &crafted(16, 100, 10, Some(16 * 103)),
            "a table of 1648 bytes",
        );
        // A well-formed crafted layout loads and answers without reading out of bounds.
        let ok = BinaryFuse8::from_bytes(&crafted(16, 100, 10, None)).unwrap();
        let strangers = keys("stranger", 2_000);
        assert!(strangers.iter().any(|k| ok.contains(k)), "all-zero table");
    }
}
