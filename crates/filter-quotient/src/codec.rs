//! The quotient filter's file: parameters (`Q0` u64, resizes u32, remainder bits u32, items
//! u64, the sizing), then the payload, the table. Saves write format version 3
//! ([`BLOCKED_VERSION`]): the table's bytes as they are in memory, one block per 64 slots (its
//! `spill` offset, `occupieds` and `runends` words and remainders) and a 16-byte tail (module
//! `rsqf::block`). Such a file opens in place ([`Reader::in_place`]): nothing of the table is
//! checked (see `rsqf`'s docs).
//!
//! Older files hold the table as separate arrays: the `occupieds` and `runends` bit vectors
//! and the remainders, in words, and in a version 2 file the `spill` index after them (`u32`s,
//! one per block and one for the table's end), which a version 1 file leaves to the load to
//! derive. They still load: the arrays are copied into blocks and checked in full. An open in
//! place of a version 2 file does the same (it cannot use the file's bytes as the table): the
//! filter then holds its table in memory of its own, as a loaded one does.

use crate::{math, rsqf, QuotientFilter, FILE_KIND, MAX_QUOTIENTS, MIN_QUOTIENTS};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader, IN_PLACE_VERSION};

/// The first format version whose quotient (and Aleph) payload is the blocked table; the
/// version these two variants write.
pub const BLOCKED_VERSION: u16 = 3;
use filter_core::{FileKind, FormatError, KeyHasher, MemoryCap, Sizing, Table};
use rsqf::Slots;

impl Codec for QuotientFilter {
    const KIND: FileKind = FILE_KIND;
    const WRITE_VERSION: u16 = BLOCKED_VERSION;

    fn table_layout(version: u16) -> Option<&'static str> {
        Some(table_layout(version))
    }

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

/// Writes a table as a file of the encoder's version keeps it (what [`decode_slots`] reads
/// back): from version 3 the blocks as they are; before, the bit vectors and remainders in
/// words, then from version 2 the `spill` index.
pub fn encode_slots(slots: &Slots, e: &mut Encoder<'_>) {
    if e.format_version() >= BLOCKED_VERSION {
        e.bytes(slots.blocked_bytes());
        return;
    }
    let blocks = slots.blocks();
    let words = |e: &mut Encoder<'_>, word: &dyn Fn(usize) -> u64| {
        let mut chunk = [0u64; 64];
        for first in (0..blocks).step_by(64) {
            let n = (blocks - first).min(64);
            (0..n).for_each(|i| chunk[i] = word(first + i));
            e.u64s(&chunk[..n]);
        }
    };
    words(e, &|b| slots.occupieds(b));
    words(e, &|b| slots.runends(b));
    let mut rems = [0u64; 64];
    for b in 0..blocks {
        let n = slots.rbits() as usize;
        rems.iter_mut()
            .zip(slots.remainder_words(b))
            .for_each(|(w, v)| *w = v);
        e.u64s(&rems[..n]);
    }
    if saves_spill(e.format_version()) {
        for b in 0..=blocks {
            e.u32(slots.spill(b));
        }
    }
}

/// How a file of format `version` lays out a quotient table (the quotient and Aleph filters').
pub fn table_layout(version: u16) -> &'static str {
    match version {
        v if v >= BLOCKED_VERSION => "blocked (format 3)",
        2 => "separate arrays (format 2)",
        _ => "separate arrays, no offsets (format 1)",
    }
}

fn saves_spill(version: u16) -> bool {
    version >= IN_PLACE_VERSION
}

/// The table of `q` quotients and `r`-bit remainders in `payload` (all of it), with the number
/// of stored remainders: loaded, and checked as [`Slots::from_blocks`] checks it, or opened in
/// place ([`Slots::in_place`]: O(1) checks, and no count). A version 1 or 2 payload is copied
/// into blocks and checked ([`Slots::from_words`]), opened in place or not.
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
    if version >= BLOCKED_VERSION {
        let table = payload.take_table(expected as usize)?;
        if payload.in_place() {
            let slots = Slots::in_place(q, r, table).map_err(invalid)?;
            return Ok((slots, None));
        }
        let (slots, used) = Slots::from_blocks(q, r, table).map_err(invalid)?;
        return Ok((slots, Some(used)));
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
    let (slots, used) = Slots::from_words(q, r, words, spill).map_err(invalid)?;
    Ok((slots, Some(used)))
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
/// `version` (from version 3 the blocks and their tail; before, two bit vectors and the
/// remainders, in words, then from version 2 the `spill` index), with the word counts of the
/// bit vectors and the remainders of the separate arrays.
pub fn payload_len(q: u64, r: u32, version: u16) -> Result<(u64, usize, usize), FormatError> {
    let (_, bit_words, rem_words) = rsqf::layout(q, r).map_err(refused)?;
    if version >= BLOCKED_VERSION {
        let bytes = rsqf::block::table_len(bit_words, r).expect("checked by layout");
        return Ok((bytes as u64, bit_words, rem_words));
    }
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
