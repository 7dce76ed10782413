//! The saved format of a [`Ribbon`] (file kind 8), in the envelope of [`filter_core::format`].
//!
//! ```text
//! parameters  seed u64 · keys u64 · result bits r u32 · slots u64 · boundary u64
//! payload     slots / 64 · r words (the interleaved solution), then the extra column's words
//!             ((boundary + 127) / 64 rounded up, 0 when the boundary is 0), u64 LE
//! ```
//!
//! Neither table length is stored: both follow from the parameters, and a payload of any other
//! length is refused before anything is allocated. The decoder accepts exactly the shapes a
//! build can produce (whole 64-slot blocks, at least one band, `1 <= r <= 16`, no extra column
//! at `r = 16`, a boundary within the start range, no more keys than slots), so every query of
//! a loaded filter reads inside its tables.

use crate::{math, Ribbon, BLOCK, MAX_RESULT_BITS, W};
use filter_core::format::{invalid, Codec, Encoder, Hashed, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, StaticFilter};

/// The file kind of a [`Ribbon`].
pub const FILE_KIND: FileKind = FileKind::new(8, "ribbon");

impl Hashed for Ribbon {
    fn key_hasher(&self) -> KeyHasher {
        self.hasher()
    }
}

/// The word counts of the two tables of a filter with these parameters, after checking that
/// they describe a filter a build could make.
fn checked_shape(r: u32, slots: u64, boundary: u64, len: u64) -> Result<(u64, u64), FormatError> {
    if !(1..=MAX_RESULT_BITS).contains(&r) {
        return Err(invalid(format!(
            "{r} result bits (a ribbon filter has 1 to {MAX_RESULT_BITS})"
        )));
    }
    if slots < W as u64 || slots % BLOCK as u64 != 0 {
        return Err(invalid(format!(
            "{slots} slots (whole blocks of {BLOCK}, at least one band of {W})"
        )));
    }
    let starts = slots - W as u64 + 1;
    if boundary > starts {
        return Err(invalid(format!(
            "an extra-column boundary of {boundary} past the {starts} start slots"
        )));
    }
    if r == MAX_RESULT_BITS && boundary > 0 {
        return Err(invalid(format!(
            "an extra column beyond {MAX_RESULT_BITS} result bits (boundary {boundary})"
        )));
    }
    if len > slots {
        return Err(invalid(format!(
            "{len} keys in {slots} slots (the system has a slot per key at least)"
        )));
    }
    Ok(math::ribbon_table_words(r, slots, boundary))
}

/// The payload bytes of the two tables.
fn payload_len(table_words: u64, extra_words: u64) -> Result<u64, FormatError> {
    table_words
        .checked_add(extra_words)
        .and_then(|w| w.checked_mul(8))
        .ok_or_else(|| {
            invalid(format!(
                "{table_words} + {extra_words} words overflow 64-bit sizes"
            ))
        })
}

/// The payload bytes of the tables the parameters describe, checked.
fn checked_payload_len(params: &mut Reader<'_>) -> Result<u64, FormatError> {
    let _seed = params.u64()?;
    let len = params.u64()?;
    let r = params.u32()?;
    let slots = params.u64()?;
    let boundary = params.u64()?;
    let (table_words, extra_words) = checked_shape(r, slots, boundary, len)?;
    payload_len(table_words, extra_words)
}

impl Codec for Ribbon {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.seed)
            .u64(self.len)
            .u32(self.r)
            .u64(self.slots)
            .u64(self.boundary);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.u64s(&self.table).u64s(&self.extra);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        checked_payload_len(params)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let seed = params.u64()?;
        let len = params.u64()?;
        let r = params.u32()?;
        let slots = params.u64()?;
        let boundary = params.u64()?;
        let (table_words, extra_words) = checked_shape(r, slots, boundary, len)?;
        let expected = payload_len(table_words, extra_words)?;
        if payload.remaining() as u64 != expected {
            return Err(invalid(format!(
                "a payload of {} bytes for {table_words} + {extra_words} words ({expected} bytes)",
                payload.remaining()
            )));
        }
        // The length check above bounds both counts by the payload present.
        let table = payload.u64s(table_words as usize)?;
        let extra = payload.u64s(extra_words as usize)?;
        let span = (slots, boundary);
        Ok(Ribbon::assemble(hasher, seed, r, span, (table, extra), len))
    }
}

#[cfg(test)]
mod tests;
