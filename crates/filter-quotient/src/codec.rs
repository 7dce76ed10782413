//! The quotient filter's file: parameters (`Q0` u64, resizes u32, remainder bits u32, items
//! u64, the sizing), then the payload: the `occupieds` and `runends` bit vectors and the
//! remainders, in words, and in a version 2 file the `spill` index after them (`u32`s, one per
//! block of 64 slots and one for the table's end), which a version 1 file leaves to the load to
//! derive. A version 2 file opens in place ([`Reader::in_place`]): the index is read from it,
//! not derived, and nothing of the tables is checked (see `rsqf`'s docs).

use crate::{math, rsqf, QuotientFilter, FILE_KIND, MAX_QUOTIENTS, MIN_QUOTIENTS};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader, IN_PLACE_VERSION};
use filter_core::{FileKind, FormatError, KeyHasher, MemoryCap, Sizing, Table};
use rsqf::Slots;

impl Codec for QuotientFilter {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.base_quotients)
            .u32(self.doublings)
            .u32(self.remainder_bits())
            .u64(self.len);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        encode_slots(&self.slots, e);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let base_quotients = params.u64()?;
        let doublings = params.u32()?;
        let r = params.u32()?;
        let q = shape_of(base_quotients, doublings, r)?;
        payload_len(q, r, params.format_version()).map(|(bytes, ..)| bytes)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let base_quotients = params.u64()?;
        let doublings = params.u32()?;
        let r = params.u32()?;
        let len = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        let q = shape_of(base_quotients, doublings, r)?;
        // The builder sized `Q0` for the capacity, which each resize doubled.
        let built_for = (sizing.capacity.trailing_zeros() >= doublings)
            .then(|| sizing.capacity >> doublings)
            .and_then(|c| {
                math::quotients_for(c, math::MAX_LOAD, MIN_QUOTIENTS, MAX_QUOTIENTS).ok()
            });
        if built_for != Some(base_quotients) {
            return Err(invalid(format!(
                "{base_quotients} quotients resized {doublings} times do not fit a capacity of {}",
                sizing.capacity
            )));
        }
        let max_items = math::quotient_max_items(q, math::MAX_LOAD);
        if len > max_items || sizing.capacity > max_items {
            return Err(invalid(format!(
                "{len} items and capacity {} in a table that takes {max_items}",
                sizing.capacity
            )));
        }
        let (slots, used) = decode_slots(q, r, payload)?;
        if let Some(used) = used.filter(|&used| used != len) {
            return Err(invalid(format!("{used} stored remainders but {len} items")));
        }
        Ok(QuotientFilter {
            slots,
            base_quotients,
            doublings,
            len,
            sizing,
            cap: MemoryCap::NONE,
            pages: filter_core::Pages::Huge,
        })
    }
}

/// Whether a file of format `version` holds the `spill` index.
/// Writes a table: its bit vectors and remainders in words, then from version 2 its `spill`
/// index (what [`decode_slots`] reads back).
pub fn encode_slots(slots: &Slots, e: &mut Encoder<'_>) {
    for words in slots.words() {
        e.u64s(words);
    }
    if saves_spill(e.format_version()) {
        let mut chunk = [0u8; 512];
        for offsets in slots.spill().chunks(128) {
            for (c, s) in chunk.chunks_exact_mut(4).zip(offsets) {
                c.copy_from_slice(&s.to_le_bytes());
            }
            e.bytes(&chunk[..offsets.len() * 4]);
        }
    }
}

fn saves_spill(version: u16) -> bool {
    version >= IN_PLACE_VERSION
}

/// The table of `q` quotients and `r`-bit remainders in `payload` (all of it), with the number
/// of stored remainders: loaded, and checked as [`Slots::from_words`] checks it, or opened in
/// place with its saved index ([`Slots::in_place`]: O(1) checks, and no count).
pub fn decode_slots(
    q: u64,
    r: u32,
    payload: &mut Reader<'_>,
) -> Result<(Slots, Option<u64>), FormatError> {
    let version = payload.format_version();
    let (expected, bit_words, rem_words) = payload_len(q, r, version)?;
    if payload.remaining() as u64 != expected {
        return Err(invalid(format!(
            "Q {q}, r {r} needs a payload of {expected} bytes in a version {version} file, not {}",
            payload.remaining()
        )));
    }
    let words = [
        payload.u64s(bit_words)?,
        payload.u64s(bit_words)?,
        payload.u64s(rem_words)?,
    ];
    let spill = match saves_spill(version) {
        true => Some(read_spill(payload, bit_words + 1)?),
        false => None,
    };
    match spill {
        Some(spill) if payload.in_place() => {
            let slots = Slots::in_place(q, r, words, spill).map_err(invalid)?;
            Ok((slots, None))
        }
        // A load; or tables in place without their index, which an open never hands out (it
        // maps version 2 files only): checked in full then, the index derived.
        spill => {
            let (slots, used) = Slots::from_words(q, r, words, spill).map_err(invalid)?;
            Ok((slots, Some(used)))
        }
    }
}

/// The `n` offsets of the `spill` index: in place from a mapped file, else copied.
fn read_spill(payload: &mut Reader<'_>, n: usize) -> Result<Table<u32>, FormatError> {
    if let Some(spill) = payload.table::<u32>(n)? {
        return Ok(spill);
    }
    let mut spill: Table<u32> = filter_core::try_zeroed_table(n, MemoryCap::NONE, "spill")
        .map_err(|_| FormatError::OutOfMemory {
            bytes: n as u64 * 4,
        })?;
    for s in spill.iter_mut() {
        *s = payload.u32()?;
    }
    Ok(spill)
}

/// The quotients `Q = Q0·2^k` of a saved filter, checked: `Q0` and `Q` in 64..=2^31, and the
/// `r + k` remainder bits a key's hash gives at most 64.
fn shape_of(base: u64, doublings: u32, r: u32) -> Result<u64, FormatError> {
    let q = 1u64
        .checked_shl(doublings)
        .and_then(|scale| base.checked_mul(scale))
        .filter(|&q| (MIN_QUOTIENTS..=MAX_QUOTIENTS).contains(&q) && base >= MIN_QUOTIENTS);
    match q {
        Some(q) if r.checked_add(doublings).is_some_and(|bits| bits <= 64) => Ok(q),
        _ => Err(invalid(format!(
            "{base} quotients resized {doublings} times with {r} remainder bits"
        ))),
    }
}

/// The payload bytes of a table of `q` quotients and `r`-bit remainders in a file of format
/// `version` (two bit vectors and the remainders, in words, then from version 2 the `spill`
/// index), with the word counts of the bit vectors and the remainders.
pub fn payload_len(q: u64, r: u32, version: u16) -> Result<(u64, usize, usize), FormatError> {
    let (_, bit_words, rem_words) = rsqf::layout(q, r).map_err(refused)?;
    let words = 2 * bit_words as u64 + rem_words as u64;
    let spill = if saves_spill(version) {
        (bit_words as u64 + 1) * 4
    } else {
        0
    };
    Ok((
        filter_core::format::words_len(words)? + spill,
        bit_words,
        rem_words,
    ))
}
