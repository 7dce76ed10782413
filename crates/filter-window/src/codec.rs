//! The saved format of the window filters, in the envelope of [`filter_core::format`]:
//! [`ItemWindow`] (file kind 9), [`TimeWindow`] (10) and [`Apbf`] (11).
//!
//! ```text
//! ItemWindow  parameters  plan · window u64 · inserted u64
//!             payload     lane words (u64 LE)
//! TimeWindow  parameters  plan · window u64 · has-current u8 · current slice u64
//!             payload     N + 1 slice counts (u64) · lane words (u64 LE)
//! Apbf        parameters  k u32 · l u32 · per generation u64 · m u64 · window u64 · inserted u64
//!             payload     (k + l) · m / 64 slice words (u64 LE)
//! plan = generations N u32 · per generation u64 · positions m u64 · probes k u32
//! ```
//!
//! Only what cannot be recomputed is stored. An item window's and an APBF's ring position and
//! per-generation counts follow from the number of inserts (every generation but the current
//! one is full), so they are derived on load, never read; a time window's counts depend on when
//! the items came, so they are stored. The table lengths follow from the parameters, and a
//! payload of any other length is refused before anything is allocated.
//!
//! Every field is checked against the others as a build would have set it (generations among
//! [`GENERATION_CHOICES`], a window split into whole generations, at most 2^62 positions, slice
//! counts that neither overflow nor hold fewer items than the bits set in their slice, …), so a
//! file with a valid checksum but impossible parameters is an error, not a panic later.
//!
//! A [`TimeWindow`] keeps its place in time: the latest slice it filed an insert into is saved,
//! and the slices are measured against it after a load exactly as before the save.

use crate::apbf::MAX_SLICES;
use crate::lanes::Lanes;
use crate::math::{ApbfPlan, SlicedPlan};
use crate::{Apbf, ItemWindow, TimeWindow, GENERATION_CHOICES};
use filter_core::format::{invalid, words_len, Codec, Encoder, Hashed, Parts, Reader};
use filter_core::{FileKind, FormatError, KeyHasher, Table};

/// The file kind of an [`ItemWindow`].
pub const ITEM_WINDOW_FILE_KIND: FileKind = FileKind::new(9, "item-window");

/// The file kind of a [`TimeWindow`].
pub const TIME_WINDOW_FILE_KIND: FileKind = FileKind::new(10, "time-window");

/// The file kind of an [`Apbf`].
pub const APBF_FILE_KIND: FileKind = FileKind::new(11, "apbf");

/// The largest insert count (and item window) a file may hold: a stream of 2^62 inserts is
/// beyond any real one, and the bound leaves the counters room to go on without overflowing.
const MAX_INSERTED: u64 = 1 << 62;

/// The most positions a sliced plan has ([`SlicedPlan::new`]'s bound).
const MAX_POSITIONS: u64 = 1 << 62;

/// The most bits per APBF slice ([`ApbfPlan::for_target`]'s bound).
const MAX_SLICE_BITS: u64 = 1 << 56;

fn encode_plan(plan: &SlicedPlan, e: &mut Encoder<'_>) {
    e.u32(plan.generations)
        .u64(plan.per_generation)
        .u64(plan.m)
        .u32(plan.k);
}

/// Reads a plan, checked as [`SlicedPlan::new`] would have made it.
fn decode_plan(params: &mut Reader<'_>) -> Result<SlicedPlan, FormatError> {
    let generations = params.u32()?;
    let per_generation = params.u64()?;
    let m = params.u64()?;
    let k = params.u32()?;
    if !GENERATION_CHOICES.contains(&generations) {
        return Err(invalid(format!(
            "{generations} generations (one of {GENERATION_CHOICES:?})"
        )));
    }
    if per_generation == 0 {
        return Err(invalid("generations of 0 items"));
    }
    if !(1..=MAX_POSITIONS).contains(&m) {
        return Err(invalid(format!("{m} positions (1 to 2^62)")));
    }
    if !(1..=32).contains(&k) {
        return Err(invalid(format!("{k} probes (1 to 32)")));
    }
    Ok(SlicedPlan {
        generations,
        per_generation,
        m,
        k,
    })
}

/// Checks that the payload holds `words` u64s and nothing else, before they are allocated.
fn expect_words(payload: &Reader<'_>, words: u64, what: &str) -> Result<usize, FormatError> {
    let bytes = words.checked_mul(8);
    match (bytes, usize::try_from(words)) {
        (Some(b), Ok(n)) if payload.remaining() as u64 == b => Ok(n),
        _ => Err(invalid(format!(
            "a payload of {} bytes for {words} words of {what}",
            payload.remaining()
        ))),
    }
}

/// The words the lanes of `plan` take: `N + 1` lanes of one bit each per position, packed
/// into 64-bit words, the positions rounded up to a whole word.
fn lane_words(plan: &SlicedPlan) -> u64 {
    let per_word = 64u64 >> (plan.generations + 1).trailing_zeros();
    plan.m.div_ceil(per_word)
}

/// Reads the lanes of `plan` with the given slot counts, checking that no slot has more bits
/// set than its items can have set (`k` each).
fn decode_lanes(
    plan: &SlicedPlan,
    counts: Vec<u64>,
    payload: &mut Reader<'_>,
) -> Result<Lanes, FormatError> {
    let slots = plan.generations + 1;
    let lane_log2 = slots.trailing_zeros();
    let per_word = 64u64 >> lane_log2;
    let m = plan.m.next_multiple_of(per_word);
    let n = expect_words(payload, lane_words(plan), "lanes")?;
    let words = payload.u64s(n)?;
    let mut set = vec![0u64; slots as usize];
    // One bit per lane: all ones divided by the all-ones lane.
    let pattern = if slots == 64 {
        1
    } else {
        u64::MAX / (u64::MAX >> (64 - slots))
    };
    for &w in words.iter() {
        for (j, s) in set.iter_mut().enumerate() {
            *s += u64::from((w >> j & pattern).count_ones());
        }
    }
    for (j, (&bits, &items)) in set.iter().zip(&counts).enumerate() {
        if bits > items.saturating_mul(u64::from(plan.k)) {
            return Err(invalid(format!(
                "{bits} bits set in generation slot {j} by {items} items of {} probes",
                plan.k
            )));
        }
    }
    Ok(Lanes {
        words,
        m,
        k: plan.k,
        lane_log2,
        counts,
    })
}

/// Items per slot of an item window after `inserted` inserts: the current generation holds
/// what it has received, the `N` before it are full, older ones have been cleared.
fn item_counts(plan: &SlicedPlan, inserted: u64) -> Vec<u64> {
    let slots = u64::from(plan.generations) + 1;
    let mut counts = vec![0; slots as usize];
    if let Some(last) = inserted.checked_sub(1) {
        let g = plan.per_generation;
        let cur = last / g;
        for e in cur.saturating_sub(u64::from(plan.generations))..=cur {
            counts[(e % slots) as usize] = if e == cur { inserted - cur * g } else { g };
        }
    }
    counts
}

fn checked_inserted(inserted: u64) -> Result<u64, FormatError> {
    if inserted > MAX_INSERTED {
        return Err(invalid(format!("{inserted} inserts (at most 2^62)")));
    }
    Ok(inserted)
}

impl Codec for ItemWindow {
    const KIND: FileKind = ITEM_WINDOW_FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        encode_plan(&self.plan, e);
        e.u64(self.window).u64(self.inserted);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.u64s(&self.lanes.words);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        words_len(lane_words(&decode_plan(params)?))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let plan = decode_plan(params)?;
        let window = params.u64()?;
        let inserted = checked_inserted(params.u64()?)?;
        let g = window.div_ceil(u64::from(plan.generations)).max(1);
        if !(1..=MAX_INSERTED).contains(&window) || plan.per_generation != g {
            return Err(invalid(format!(
                "generations of {} items for a window of {window} in {} generations",
                plan.per_generation, plan.generations
            )));
        }
        let lanes = decode_lanes(&plan, item_counts(&plan, inserted), payload)?;
        Ok(ItemWindow {
            lanes,
            plan,
            window,
            inserted,
            hasher,
        })
    }
}

impl Hashed for TimeWindow {
    fn key_hasher(&self) -> KeyHasher {
        self.hasher
    }
}

impl Codec for TimeWindow {
    const KIND: FileKind = TIME_WINDOW_FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        encode_plan(&self.plan, e);
        e.u64(self.window)
            .u8(u8::from(self.current.is_some()))
            .u64(self.current.unwrap_or(0));
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for &c in &self.lanes.counts {
            e.u64(c);
        }
        e.u64s(&self.lanes.words);
    }

    /// The slice counts (`N + 1` u64s), then the lanes.
    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let plan = decode_plan(params)?;
        words_len(lane_words(&plan) + u64::from(plan.generations) + 1)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let plan = decode_plan(params)?;
        let window = params.u64()?;
        if window < u64::from(plan.generations) {
            return Err(invalid(format!(
                "a window of {window} ticks in {} generations (a slice lasts a tick at least)",
                plan.generations
            )));
        }
        let slice = window.div_ceil(u64::from(plan.generations));
        let current = match (params.u8()?, params.u64()?) {
            (0, 0) => None,
            (1, cur) if cur <= u64::MAX / slice => Some(cur),
            (flag, cur) => {
                return Err(invalid(format!(
                    "a current slice of {cur} (flag {flag}) for slices of {slice} ticks"
                )))
            }
        };
        let slots = plan.generations as usize + 1;
        let mut counts = Vec::with_capacity(slots);
        for _ in 0..slots {
            counts.push(payload.u64()?);
        }
        let total = counts.iter().try_fold(0u64, |t, &c| t.checked_add(c));
        match total {
            None => return Err(invalid("slice counts whose sum overflows")),
            Some(t) if t > 0 && current.is_none() => {
                return Err(invalid(format!(
                    "{t} items in a window never inserted into"
                )))
            }
            _ => {}
        }
        let lanes = decode_lanes(&plan, counts, payload)?;
        Ok(TimeWindow {
            lanes,
            plan,
            window,
            slice,
            current,
            hasher,
        })
    }
}

/// An APBF's ring after `inserted` inserts, `g` per generation: the youngest slice's ring
/// position, the inserts of the current generation, and the bits set in each ring position
/// (the slice of age `i` received the generations `cur - i ..= cur - i + k - 1` that exist).
fn apbf_state(plan: &ApbfPlan, inserted: u64) -> (u32, u64, Vec<u64>) {
    let slices = plan.k + plan.l;
    let mut counts = vec![0; slices as usize];
    let Some(last) = inserted.checked_sub(1) else {
        return (0, 0, counts);
    };
    let g = plan.per_generation;
    let cur = last / g;
    let in_generation = inserted - cur * g;
    let base = ((u64::from(slices) - cur % u64::from(slices)) % u64::from(slices)) as u32;
    let (cur_i, k) = (i128::from(cur), i128::from(plan.k));
    for age in 0..slices {
        let youngest_at = cur_i - i128::from(age);
        let (lo, hi) = (youngest_at.max(0), (youngest_at + k - 1).min(cur_i));
        if lo > hi {
            continue;
        }
        // Generations before the current one are full: at most cur of them, so no overflow.
        let full = (hi.min(cur_i - 1) - lo + 1).max(0) as u64;
        let current = if hi == cur_i { in_generation } else { 0 };
        counts[((base + age) % slices) as usize] = full * g + current;
    }
    (base, in_generation, counts)
}

/// An APBF's `k` and `l`, checked: both at least 1, `k + l` at most [`MAX_SLICES`].
fn checked_slices(k: u32, l: u32) -> Result<(u32, u32), FormatError> {
    if k == 0 || l == 0 || k.saturating_add(l) > MAX_SLICES {
        return Err(invalid(format!(
            "k = {k}, l = {l} (k, l >= 1, k + l <= 64)"
        )));
    }
    Ok((k, l))
}

/// An APBF's bits per slice, checked: whole words, at most [`MAX_SLICE_BITS`].
fn checked_slice_bits(m: u64) -> Result<u64, FormatError> {
    if m == 0 || m % 64 != 0 || m > MAX_SLICE_BITS {
        return Err(invalid(format!(
            "slices of {m} bits (whole words, at most 2^56)"
        )));
    }
    Ok(m)
}

impl Codec for Apbf {
    const KIND: FileKind = APBF_FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u32(self.plan.k)
            .u32(self.plan.l)
            .u64(self.plan.per_generation)
            .u64(self.plan.m)
            .u64(self.window)
            .u64(self.inserted);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.u64s(&self.words);
    }

    /// `k + l` slices of `m` bits.
    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let (k, l) = checked_slices(params.u32()?, params.u32()?)?;
        let _per_generation = params.u64()?;
        let m = checked_slice_bits(params.u64()?)?;
        words_len(m / 64 * u64::from(k + l))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let (k, l) = checked_slices(params.u32()?, params.u32()?)?;
        let per_generation = params.u64()?;
        let m = params.u64()?;
        let window = params.u64()?;
        let inserted = checked_inserted(params.u64()?)?;
        if !(1..=MAX_INSERTED).contains(&window) || per_generation != window.div_ceil(u64::from(l))
        {
            return Err(invalid(format!(
                "generations of {per_generation} items for a window of {window} in {l}"
            )));
        }
        let m = checked_slice_bits(m)?;
        let plan = ApbfPlan {
            k,
            l,
            per_generation,
            m,
        };
        let words_per_slice = m / 64;
        let n = expect_words(payload, words_per_slice * u64::from(k + l), "slices")?;
        let words: Table<u64> = payload.u64s(n)?;
        let (base, in_generation, counts) = apbf_state(&plan, inserted);
        for (ring, slice) in words.chunks_exact(words_per_slice as usize).enumerate() {
            let bits: u64 = slice.iter().map(|w| u64::from(w.count_ones())).sum();
            if bits > counts[ring] {
                return Err(invalid(format!(
                    "{bits} bits set in slice {ring} by {} inserts",
                    counts[ring]
                )));
            }
        }
        Ok(Apbf {
            words,
            plan,
            words_per_slice: words_per_slice as usize,
            base,
            in_generation,
            counts,
            inserted,
            window,
            hasher,
        })
    }
}

#[cfg(test)]
mod tests;
