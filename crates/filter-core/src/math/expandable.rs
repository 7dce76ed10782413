//! The formulas of the expandable cuckoo filter (`filter-expand`): stage shapes, each stage's false-positive rate,
//! the bound the compound rate never exceeds, and the memory the stages take.
//!
//! # One stage
//!
//! Stage `i` has `B` buckets of [`SLOTS`] slots and `f`-bit fingerprints. A key's fingerprint is
//! the top `f` bits of its hash, with the value 0 (the empty-slot marker) stored as 1, so value 1
//! has probability `2/2^f` and every other value `1/2^f`. Two independent fingerprints are then
//! equal with probability ([`fingerprint_collision`])
//!
//! ```text
//! q(f) = (2^f - 2)/4^f + (2/2^f)^2 = 2^-f + 2·4^-f.
//! ```
//!
//! A stored entry answers a query if it has the query's fingerprint and lies in the query's
//! bucket pair. With equal fingerprints both keys use the same alternate-bucket function, and
//! the entry's canonical bucket is uniform on `B`, so it lies in the query's pair with
//! probability `|pair|/B`; a pair has one bucket (the alternate is the bucket itself) with
//! probability `1/B`, else two: on average `(2B - 1)/B²` =: `g`. Given the query's fingerprint
//! value `v`, the `n` entries are independent, so the stage answers "maybe" with probability
//! `1 - (1 - P(v)·g)^n`; averaging over `v` ([`stage_fpr`]):
//!
//! ```text
//! p(f, B, n) = (1 - w)·(1 - (1 - g·2^-f)^n) + w·(1 - (1 - g·2^(1-f))^n),   w = 2^(1-f).
//! ```
//!
//! The union bound gives `p <= n·(2/B)·q(f)` ([`stage_fpr_bound`]); a stage never holds more than
//! its capacity `n <= 3.8·B` (a load of [`DESIGN_LOAD`]), so at any load
//! `p_i <= 8α·q(f_i) = 7.6·q(f_i)`.
//!
//! # The compound rate
//!
//! A query is a false positive if any stage says "maybe", so by the union bound
//!
//! ```text
//! P_total = 1 - Π_i (1 - p_i)  <=  Σ_i p_i  <=  Σ_i 7.6·q(f_i)  =: bound.
//! ```
//!
//! (the first inequality is Weierstrass' product inequality, `Π(1 - p_i) >= 1 - Σ p_i`). The sum
//! runs over every stage the filter can ever have ([`schedule_bound`]): the stages double in
//! size, so at most about 58 of them fit in an address space, and the bound holds at any size.
//! The builder picks the smallest first-stage width `f0` for which the bound is at or under the
//! target ([`initial_fingerprint_bits`]); stage `i` uses `f_i = f0 + floor(i/k)` bits (one more
//! bit every `k` stages, the *tightening period*), capped at [`MAX_FP_BITS`]. Without the cap the
//! sum has the closed form ([`series_bound`])
//!
//! ```text
//! Σ_i 7.6·q(f0 + floor(i/k)) = 7.6·k·Σ_j q(f0 + j) = 7.6·k·(2^(1-f0) + (8/3)·4^(-f0)),
//! ```
//!
//! an upper bound on the finite sum the filter uses as long as no stage reaches the cap (at 1%,
//! `f0 = 14` and `k = 8`, stage 49, the last there can be, has 20 bits).
//!
//! # How tight the schedule is
//!
//! The nesting needs widths that never shrink along the stages, and the guarantee needs the sum
//! over *every* stage the filter can have (50 from 1,000 keys) at most `p`. At 1% the 14 stages
//! 10M keys fill then need 14 bits from the eighth on: if stage `j` had 13 bits, so would
//! stages `0..=j`, and 8 stages of 13 bits and 6 of 14 already bound the rate above 1%. So no
//! schedule the proof allows takes fewer than 24.20 bits per key at 10M (a test computes it;
//! the largest stages hold 98% of the bits). A schedule of 20 stages of 14 bits, then one more
//! bit per stage, takes 24.22 (bound 0.0097 over all 50 stages; 21 stages of 14 bits would
//! exceed 1%), against 25.92 for
//! the default `f0 + floor(i/8)`, whose stages 8 to 13 have 15 bits; the best period of that
//! family at 10M is 11 (25.73, bound 0.0097). The saving, 6.6%, is small beside the empty room
//! of the newest stage (at 10M it is 22% full): see [`doubling_floor_bits_per_key`].

use crate::{Error, Result};

/// Slots per bucket, `b`.
pub const SLOTS: u32 = 4;
/// The load a stage is filled to before the next one is made, `α`.
pub const DESIGN_LOAD: f64 = 0.95;
/// Widest fingerprint: a slot is read through one unaligned 8-byte window, so `f + 7 <= 64`.
pub const MAX_FP_BITS: u32 = 57;
/// Most stages a filter may have (its stages reach the address limit first).
pub const MAX_STAGES: u32 = 64;
/// Most buckets in one stage (`2^58`): its table, at most 57 bits per slot, stays addressable.
pub const MAX_BUCKETS: u64 = 1 << 58;

/// Probability that two independent fingerprints of `f` bits are equal (0 stored as 1):
/// `q(f) = 2^-f + 2·4^-f`.
pub fn fingerprint_collision(f: u32) -> f64 {
    let v = (-f64::from(f)).exp2();
    v + 2.0 * v * v
}

/// Expected false-positive rate of one stage of `buckets` buckets holding `n` entries of `f`
/// bits (see the module docs). Evaluated with `ln_1p`/`expm1`, accurate for tiny rates.
pub fn stage_fpr(f: u32, buckets: u64, n: u64) -> f64 {
    if n == 0 || buckets == 0 {
        return 0.0;
    }
    let b = buckets as f64;
    let g = (2.0 * b - 1.0) / (b * b);
    let v = (-f64::from(f)).exp2();
    let w = 2.0 * v;
    let hit = |x: f64| -((n as f64) * (-x.min(1.0)).ln_1p()).exp_m1();
    (1.0 - w) * hit(g * v) + w * hit(g * w)
}

/// The union bound on a stage's rate: `min(1, n·(2/B)·q(f))`.
pub fn stage_fpr_bound(f: u32, buckets: u64, n: u64) -> f64 {
    if buckets == 0 {
        return 0.0;
    }
    (n as f64 * 2.0 / buckets as f64 * fingerprint_collision(f)).min(1.0)
}

/// Items a stage of `buckets` buckets takes before the next stage is made:
/// `floor(3.8·B)` (`b·α` with `b = 4`, `α = 0.95`), computed exactly.
pub fn stage_capacity(buckets: u64) -> u64 {
    (u128::from(buckets) * 19 / 5) as u64
}

/// Buckets of the first stage for an initial capacity `n`: the fewest with `3.8·B >= n`.
pub fn initial_buckets(n: u64) -> u64 {
    (u128::from(n) * 5).div_ceil(19).max(1) as u64
}

/// Buckets of stage `i`: `B0 · 2^(d·i)`, or `None` past [`MAX_BUCKETS`] or [`MAX_STAGES`].
pub fn stage_buckets(b0: u64, growth_bits: u32, i: u32) -> Option<u64> {
    let shift = growth_bits.checked_mul(i)?;
    if i >= MAX_STAGES || shift >= 64 {
        return None;
    }
    let b = u128::from(b0) << shift;
    (b <= u128::from(MAX_BUCKETS)).then_some(b as u64)
}

/// Fingerprint bits of stage `i`: `min(f0 + floor(i / period), 57)`.
pub fn stage_fingerprint_bits(f0: u32, period: u32, i: u32) -> u32 {
    f0.saturating_add(i / period.max(1)).min(MAX_FP_BITS)
}

/// How many stages a filter whose first stage has `b0` buckets can ever have.
pub fn possible_stages(b0: u64, growth_bits: u32) -> u32 {
    (0..MAX_STAGES)
        .take_while(|&i| stage_buckets(b0, growth_bits, i).is_some())
        .count() as u32
}

/// The bound on one stage's rate at any load up to its capacity: `8α·q(f) = 7.6·q(f)`.
pub fn stage_bound(f: u32) -> f64 {
    2.0 * f64::from(SLOTS) * DESIGN_LOAD * fingerprint_collision(f)
}

/// The bound on the compound rate of every stage the filter can have, each at its capacity:
/// `Σ_{i < stages} 8α·q(f_i)`.
pub fn schedule_bound(f0: u32, period: u32, stages: u32) -> f64 {
    (0..stages)
        .map(|i| stage_bound(stage_fingerprint_bits(f0, period, i)))
        .sum()
}

/// The closed form of the uncapped, infinite schedule sum: `8α·k·(2^(1-f0) + (8/3)·4^(-f0))`.
pub fn series_bound(f0: u32, period: u32) -> f64 {
    let v = (-f64::from(f0)).exp2();
    2.0 * f64::from(SLOTS) * DESIGN_LOAD * f64::from(period) * (2.0 * v + 8.0 / 3.0 * v * v)
}

/// The narrowest first-stage fingerprint for which [`schedule_bound`] is at most `p`.
///
/// # Errors
/// [`Error::InvalidParameter`] (`fpr`) when even [`MAX_FP_BITS`] bits are not enough.
pub fn initial_fingerprint_bits(p: f64, period: u32, stages: u32) -> Result<u32> {
    (1..=MAX_FP_BITS)
        .find(|&f| schedule_bound(f, period, stages) <= p)
        .ok_or_else(|| Error::InvalidParameter {
            name: "fpr",
            value: crate::math::format_real(p),
            expected: "a rate of at least about 1e-14 (57-bit fingerprints in every stage)",
        })
}

/// Bytes of a stage's table: `ceil(4·B·f / 8)` plus 8 bytes of padding (every slot is read
/// through an 8-byte window), or `None` when that is not addressable.
pub fn stage_table_bytes(buckets: u64, f: u32) -> Option<u64> {
    let bits = u128::from(buckets) * u128::from(SLOTS) * u128::from(f);
    let bytes = bits.div_ceil(8) + 8;
    (bytes < isize::MAX as u128).then_some(bytes as u64)
}

/// Bits per key of a filter built for `initial` items at rate `p`, growth `2^growth_bits` and
/// tightening period `period`, after `n` inserts without deletions (every stage filled to its
/// capacity before the next one is made): the stages' table bytes · 8 / n.
///
/// # Errors
/// Those of [`initial_fingerprint_bits`]; [`Error::SizeOverflow`] if `n` items need more stages
/// than can exist.
pub fn bits_per_key(initial: u64, p: f64, growth_bits: u32, period: u32, n: u64) -> Result<f64> {
    let b0 = initial_buckets(initial);
    let f0 = initial_fingerprint_bits(p, period, possible_stages(b0, growth_bits))?;
    let (mut held, mut bytes, mut i) = (0u64, 0u64, 0u32);
    while held < n.max(1) {
        let b = stage_buckets(b0, growth_bits, i).ok_or(Error::SizeOverflow {
            what: "expandable filter",
            hint: format!("{n} items"),
        })?;
        let f = stage_fingerprint_bits(f0, period, i);
        bytes += stage_table_bytes(b, f).unwrap_or(u64::MAX);
        held = held.saturating_add(stage_capacity(b));
        i += 1;
    }
    Ok(bytes as f64 * 8.0 / n.max(1) as f64)
}

/// The fewest bits per key that any cuckoo design growing by doubling stages from `initial`
/// keys can take at `n` keys while each stage's rate stays at most `p` (the compound rate is at
/// least every stage's): the stages `n` keys need (stage `i` of `B0·2^i` buckets of [`SLOTS`]
/// slots, filled to [`DESIGN_LOAD`] before the next is made, the newest allocated whole), each
/// at the narrowest width `f` for which one full stage has [`stage_fpr`] at most `p`
/// (`f = ceil(log2(8α/p))` to first order: 10 bits at 1%), over `n`. Padding is not counted.
///
/// A floor, not this filter's figure: the filter also needs the *sum* of its stages' rates at
/// most `p` at every size, which takes 14 or more bits in its large stages at 1%
/// (see [`initial_fingerprint_bits`]).
///
/// # Errors
/// [`Error::SizeOverflow`] if `n` keys need more stages than can exist; [`Error::InvalidParameter`]
/// (`fpr`) if no width up to [`MAX_FP_BITS`] bits reaches `p`.
pub fn doubling_floor_bits_per_key(initial: u64, p: f64, n: u64) -> Result<f64> {
    let b0 = initial_buckets(initial);
    let (mut held, mut bits, mut i) = (0u64, 0f64, 0u32);
    while held < n.max(1) {
        let b = stage_buckets(b0, 1, i).ok_or(Error::SizeOverflow {
            what: "doubling floor",
            hint: format!("{n} items"),
        })?;
        let f = (1..=MAX_FP_BITS)
            .find(|&f| stage_fpr(f, b, stage_capacity(b)) <= p)
            .ok_or_else(|| Error::InvalidParameter {
                name: "fpr",
                value: crate::math::format_real(p),
                expected: "a rate one stage of 57-bit fingerprints can reach",
            })?;
        bits += (b * u64::from(SLOTS)) as f64 * f64::from(f);
        held = held.saturating_add(stage_capacity(b));
        i += 1;
    }
    Ok(bits / n.max(1) as f64)
}

#[cfg(test)]
mod tests;
