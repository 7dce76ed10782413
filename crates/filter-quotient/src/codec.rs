//! The quotient filter's file: parameters (`Q0` u64, resizes u32, remainder bits u32, items
//! u64, the sizing), then the payload: the `occupieds` and `runends` bit vectors and the
//! remainders, in words.

use crate::{math, rsqf, QuotientFilter, FILE_KIND, MAX_QUOTIENTS, MIN_QUOTIENTS};
use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, MemoryCap, Sizing};
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
        for words in self.slots.words() {
            e.u64s(words);
        }
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let base_quotients = params.u64()?;
        let doublings = params.u32()?;
        let r = params.u32()?;
        payload_len(shape_of(base_quotients, doublings, r)?, r).map(|(bytes, ..)| bytes)
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
        let (expected, bit_words, rem_words) = payload_len(q, r)?;
        if payload.remaining() as u64 != expected {
            return Err(invalid(format!(
                "Q {q}, r {r} needs a payload of {expected} bytes, not {}",
                payload.remaining()
            )));
        }
        let max_items = math::quotient_max_items(q, math::MAX_LOAD);
        if len > max_items || sizing.capacity > max_items {
            return Err(invalid(format!(
                "{len} items and capacity {} in a table that takes {max_items}",
                sizing.capacity
            )));
        }
        let occupieds = payload.u64s(bit_words)?;
        let runends = payload.u64s(bit_words)?;
        let rems = payload.u64s(rem_words)?;
        let (slots, used) = Slots::from_words(q, r, occupieds, runends, rems).map_err(invalid)?;
        if used != len {
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

/// The payload bytes of a table of `q` quotients and `r`-bit remainders (two bit vectors and
/// the remainders, in words), with the word counts of each.
fn payload_len(q: u64, r: u32) -> Result<(u64, usize, usize), FormatError> {
    let (_, bit_words, rem_words) = rsqf::layout(q, r).map_err(refused)?;
    let words = 2 * bit_words as u64 + rem_words as u64;
    Ok((filter_core::format::words_len(words)?, bit_words, rem_words))
}
