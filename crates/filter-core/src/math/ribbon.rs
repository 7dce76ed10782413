//! The standard ribbon filter's formulas (`filter-ribbon`).
//!
//! Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom and Xor" (2021), and
//! RocksDB's `Standard128Ribbon`. A filter for `n` keys solves a banded linear system over
//! GF(2) with `m` rows (slots) of `r` result bits; every coefficient band is `w = 128` slots
//! wide, so a key's start slot lies in `[0, m - w]`, the `m - w + 1` *starts*.
//!
//! # False-positive rate
//!
//! A non-member's `r`-bit fingerprint is uniform and independent of the solution and of the
//! parities its band selects, so it matches with probability `2^-r` (§2). A target `p` between
//! powers of two is met with a fractional number of columns, as RocksDB does with interleaved
//! 6- and 7-column blocks: every key has `r = floor(log2(1/p))` bits, and the keys whose start
//! lies in the first fraction `f` of the starts (below the *boundary*) have one more, in an
//! extra column stored only over the slots those keys reach:
//!
//! ```text
//! ε = f 2^-(r+1) + (1 - f) 2^-r ,   f = 2 - p 2^(r+1)   (so that ε = p)
//! bits per key = (r m + m_extra) / n ,   m_extra ≈ f m
//! ```
//!
//! At `p = 1 %`: `r = 6`, `f = 0.72`, about 6.95 bits per key at 10^6 keys (RocksDB reports
//! about 7.05; the bound `log2(1/p)` is 6.64; whole columns, `ceil(log2(1/p)) = 7`, cost 7.24).
//!
//! # Sizing
//!
//! Standard ribbon's chance of a consistent system rises gradually with the overhead `m/n - 1`
//! (§4); the overhead a given chance needs grows with the number of `w`-slot windows that can
//! overflow, so with `log n`. [`ribbon_slots`] gives this library's first size and its growth
//! after failed attempts.
//!
//! # Evaluation
//!
//! Powers of two are `exp2` of a negative exponent (exact, no overflow); `ε` is a sum of two
//! non-negative terms (no cancellation); slot counts are computed in `f64` (for at most 2^40 keys)
//! and refused past 2^62 slots, so the rounding up to whole blocks in `u64` cannot overflow.

use crate::math::check_fpr;
use crate::{Error, Result};

/// The band width `w`: coefficients span 128 slots.
pub const W: usize = 128;

/// Slots per interleaved block (one `u64` per result column).
pub const BLOCK: usize = 64;

/// The most result bits (ε = 2^-16).
pub const MAX_RESULT_BITS: u32 = 16;

/// The most distinct keys a filter takes.
pub const MAX_KEYS: u64 = 1 << 40;

/// Extra slots per key added at each bump (after failed attempts; see [`ribbon_slots`]).
pub const BUMP_FRACTION: f64 = 0.005;

/// Slots per key, `m / n`, for a first attempt on a set of up to 2^20 keys:
/// `1 + BASE_OVERHEAD` (plus the small-set margin of [`ribbon_slots`]).
///
/// Standard ribbon's success probability rises gradually with the overhead (Dillinger & Walzer
/// 2021, §4). Measured here at 10^6 keys, `w = 128`, seeded: 0 of 4 seeds band at 2.5 %,
/// about half at 2.85–3.6 %, all 8 at 8 %. At 3 % a build takes about two attempts on average.
pub const BASE_OVERHEAD: f64 = 0.03;

/// Overhead added per doubling of the keys above 2^20: the overhead a given success rate needs
/// grows with the number of 128-slot windows that can overflow (Dillinger & Walzer 2021, §4).
/// Measured here (seeded, `w = 128`, overhead without the small-set margin): at 4·10^6 keys
/// 1, 2, 4 of 10 seeds band at 3.5, 3.75, 4 %; at 10^7 keys 1, 1, 2, 7 of 10 at 3.75, 4,
/// 4.25, 4.5 %, and 6 of 6 at 5 %. With this slope a first attempt at 10^7 keys has 4.59 %
/// (about 4 in 5 band), where the fixed 3 % of the past needed eight failed attempts or more.
pub const GROWTH_PER_DOUBLING: f64 = 0.0045;

/// The columns for target rate `p`: `r = floor(log2(1/p))` for every key, and the fraction
/// `f = 2 - p 2^(r+1)` of the start range whose keys get one more (so that
/// `f 2^-(r+1) + (1 - f) 2^-r = p`); rates of 1/2 or more get one column, and `p = 2^-16`
/// exactly 16 columns and no extra one.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fpr` for a rate outside (0, 1) (NaN and infinities
/// included), or below 2^-16.
pub fn ribbon_columns(p: f64) -> Result<(u32, f64)> {
    let p = check_fpr(p)?;
    if p < (-f64::from(MAX_RESULT_BITS)).exp2() {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: crate::math::format_real(p),
            expected: "a rate of at least 2^-16 (1.53e-5) for a ribbon filter",
        });
    }
    // log2 of a rate in [2^-16, 1) is exact at powers of two and finite everywhere.
    let r = ((-p.log2()).floor() as u32).clamp(1, MAX_RESULT_BITS);
    if r == MAX_RESULT_BITS {
        return Ok((r, 0.0));
    }
    // p 2^(r+1) lies in [1, 2] for r = floor(log2(1/p)), so f in [0, 1] up to rounding.
    Ok((r, (2.0 - p * f64::from(r + 1).exp2()).clamp(0.0, 1.0)))
}

/// Slots for `n` distinct keys after `bumps` failed rounds: `n (1 + 0.03 + 4 / sqrt(n) +
/// 0.0045 max(0, log2 n - 20)) + bumps * max(0.005 n, 64)`, at least one band (128), rounded
/// up to whole 64-slot blocks.
///
/// The `4 / sqrt(n)` term is this library's margin for small sets (their load varies more
/// between 128-slot windows), chosen so that the first attempt usually succeeds; it vanishes at
/// scale. `n = 0` is sized as `n = 1` (one band).
///
/// # Errors
/// [`Error::SizeOverflow`] past [`MAX_KEYS`], or past 2^62 slots (bumps without end).
pub fn ribbon_slots(n: u64, bumps: u32) -> Result<u64> {
    if n > MAX_KEYS {
        return Err(Error::SizeOverflow {
            what: "ribbon filter",
            hint: format!("{n} distinct keys is above the limit of {MAX_KEYS}: split the set"),
        });
    }
    let nf = n as f64;
    let doublings = (nf.max(1.0).log2() - 20.0).max(0.0);
    let overhead = BASE_OVERHEAD + 4.0 / nf.max(1.0).sqrt() + GROWTH_PER_DOUBLING * doublings;
    let bump = (nf * BUMP_FRACTION).max(BLOCK as f64) * f64::from(bumps);
    let slots = (nf * (1.0 + overhead) + bump).ceil();
    // Only a huge number of bumps gets here (2^40 keys need 1.23 · 2^40 slots at first).
    if slots >= (1u64 << 62) as f64 {
        return Err(Error::SizeOverflow {
            what: "ribbon filter",
            hint: format!("{n} keys after {bumps} enlargements need {slots:.3e} slots"),
        });
    }
    let slots = (slots as u64).max(W as u64);
    Ok(slots.div_ceil(BLOCK as u64) * BLOCK as u64)
}

/// Where the extra column ends, for a filter of `slots` slots (at least [`W`]) whose keys
/// starting in the first fraction `upper` of the starts get an extra result bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RibbonShape {
    /// Start slots, `slots - W + 1`.
    pub starts: u64,
    /// Keys starting below this have `r + 1` result bits: `ceil(upper · starts)`.
    pub boundary: u64,
    /// Slots of the extra column: `boundary + W - 1` rounded up to whole blocks, 0 without one.
    pub extra_slots: u64,
}

/// The [`RibbonShape`] of `slots` slots with a fraction `upper` of the starts below the
/// boundary (`upper` from [`ribbon_columns`]; clamped to [0, 1], NaN as 0).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `slots` below one band ([`W`]).
pub fn ribbon_shape(slots: u64, upper: f64) -> Result<RibbonShape> {
    let starts = slots
        .checked_sub(W as u64 - 1)
        .filter(|&s| s > 0)
        .ok_or_else(|| Error::InvalidParameter {
            name: "slots",
            value: slots.to_string(),
            expected: "at least one band of 128 slots",
        })?;
    let upper = if upper.is_nan() {
        0.0
    } else {
        upper.clamp(0.0, 1.0)
    };
    let boundary = ((upper * starts as f64).ceil() as u64).min(starts);
    let extra_slots = ribbon_table_words(0, slots, boundary).1 * BLOCK as u64;
    Ok(RibbonShape {
        starts,
        boundary,
        extra_slots,
    })
}

/// The false-positive rate of a ribbon filter with `r` result columns whose keys starting
/// below `boundary` (of `starts` start slots) have one more: `f 2^-(r+1) + (1 - f) 2^-r`, with
/// `f = boundary / starts` the realised fraction (Dillinger & Walzer 2021, §2).
///
/// `boundary` is capped at `starts`; `starts = 0` counts as no extra column.
pub fn ribbon_fpr(r: u32, boundary: u64, starts: u64) -> f64 {
    let f = if starts == 0 {
        0.0
    } else {
        boundary.min(starts) as f64 / starts as f64
    };
    let base = (-f64::from(r)).exp2();
    f * base / 2.0 + (1.0 - f) * base
}

/// Words (`u64`, one per [`BLOCK`] slots and column) of the two tables of a ribbon filter with
/// `r` columns over `slots` slots whose keys starting below `boundary` have an extra column:
/// `slots / 64 · r` for the solution, and `boundary + W - 1` slots rounded up to whole blocks
/// for the extra column (none when `boundary` is 0). `boundary` lies within the starts, so
/// neither count overflows.
pub fn ribbon_table_words(r: u32, slots: u64, boundary: u64) -> (u64, u64) {
    let extra = if boundary == 0 {
        0
    } else {
        boundary.saturating_add(W as u64 - 1).div_ceil(BLOCK as u64)
    };
    (slots / BLOCK as u64 * u64::from(r), extra)
}

/// Bytes of a ribbon filter's tables: `r` words per 64-slot block of the solution, one word
/// per block of the extra column.
pub fn ribbon_table_bytes(r: u32, slots: u64, extra_slots: u64) -> u64 {
    (slots / BLOCK as u64 * u64::from(r) + extra_slots / BLOCK as u64) * 8
}

/// Bits per key of the first attempt's filter for `n` distinct keys at rate `p`:
/// `(r m + m_extra) / n` from [`ribbon_columns`], [`ribbon_slots`] and [`ribbon_shape`].
///
/// # Errors
/// As those functions, and [`Error::InvalidParameter`] for `n = 0`.
pub fn ribbon_bits_per_key(n: u64, p: f64) -> Result<f64> {
    let n = crate::math::check_capacity(n)?;
    let (r, upper) = ribbon_columns(p)?;
    let slots = ribbon_slots(n, 0)?;
    let shape = ribbon_shape(slots, upper)?;
    Ok(ribbon_table_bytes(r, slots, shape.extra_slots) as f64 * 8.0 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_meet_the_target_exactly_and_whole_columns_do_not() {
        assert_eq!(ribbon_columns(0.01).unwrap().0, 6);
        for p in [0.5 - 1e-9, 0.3, 0.01, 0.0039, 1e-3, 1e-4, 2e-5] {
            let (r, f) = ribbon_columns(p).unwrap();
            // The realised rate with f of the starts (here as a fraction of 2^40 starts).
            let starts = 1u64 << 40;
            let rate = ribbon_fpr(r, (f * starts as f64).ceil() as u64, starts);
            assert!((rate - p).abs() <= 1e-9 * p, "p {p}: r {r} f {f} -> {rate}");
            // Fixture: whole columns (r or r + 1 for every key) miss a target between powers.
            let whole = (-(p.log2()).ceil()).exp2();
            assert!((whole - p).abs() > 1e-3 * p, "p {p}");
        }
        // Powers of two need no extra column; 2^-8 and 2^-16 are fuse8's and fuse16's rates.
        assert_eq!(ribbon_columns(1.0 / 256.0).unwrap(), (8, 0.0));
        assert_eq!(ribbon_columns(1.0 / 65536.0).unwrap(), (16, 0.0));
        assert_eq!(ribbon_columns(0.6).unwrap(), (1, 0.0));
        assert_eq!(ribbon_fpr(8, 0, 1000), 1.0 / 256.0);
        assert_eq!(ribbon_fpr(16, 0, 1000), 1.0 / 65536.0);
    }

    #[test]
    fn out_of_range_rates_are_refused_with_a_typed_error() {
        for p in [
            0.0,
            1.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e-12,
            1e-300,
            1.0 / 65537.0,
        ] {
            assert!(
                matches!(
                    ribbon_columns(p),
                    Err(Error::InvalidParameter { name: "fpr", .. })
                ),
                "{p}"
            );
        }
        assert!(ribbon_bits_per_key(1000, 1e-12).is_err());
        assert!(ribbon_bits_per_key(0, 0.01).is_err());
    }

    #[test]
    fn slots_follow_the_formula_at_every_scale() {
        assert_eq!(ribbon_slots(1_000_000, 0).unwrap(), 1_034_048);
        assert_eq!(ribbon_slots(1_000_000, 2).unwrap(), 1_044_032);
        assert_eq!(ribbon_slots(10_000_000, 0).unwrap(), 10_459_072);
        assert_eq!(ribbon_slots(100, 0).unwrap(), 192);
        assert_eq!(ribbon_slots(100, 1).unwrap(), 256);
        assert_eq!(
            (ribbon_slots(1, 0).unwrap(), ribbon_slots(0, 0).unwrap()),
            (128, 128)
        );
        // 10^12 keys: 1 + 0.03 + 0.0045 (log2 10^12 - 20) = 1.1194 slots per key, no overflow.
        let huge = ribbon_slots(1_000_000_000_000, 0).unwrap();
        let per_key = huge as f64 / 1e12;
        let want = 1.03 + 4e-6 + GROWTH_PER_DOUBLING * (1e12f64.log2() - 20.0);
        assert!((per_key - want).abs() < 1e-9, "{per_key} {want}");
        assert_eq!(huge % BLOCK as u64, 0);
        assert!(ribbon_slots(MAX_KEYS, 1000).is_ok());
        assert!(matches!(
            ribbon_slots(MAX_KEYS, u32::MAX),
            Err(Error::SizeOverflow { .. })
        ));
        assert!(matches!(
            ribbon_slots(MAX_KEYS + 1, 0),
            Err(Error::SizeOverflow { .. })
        ));
    }

    #[test]
    fn shape_places_the_boundary_and_the_extra_column() {
        let s = ribbon_shape(1_034_048, 0.72).unwrap();
        assert_eq!(s.starts, 1_033_921);
        assert_eq!(s.boundary, (0.72f64 * 1_033_921.0).ceil() as u64);
        assert_eq!(s.extra_slots, (s.boundary + 127).div_ceil(64) * 64);
        let none = ribbon_shape(128, 0.0).unwrap();
        assert_eq!((none.starts, none.boundary, none.extra_slots), (1, 0, 0));
        let all = ribbon_shape(128, f64::INFINITY).unwrap();
        assert_eq!((all.boundary, all.extra_slots), (1, 128));
        assert_eq!(ribbon_shape(128, f64::NAN).unwrap().boundary, 0);
        assert!(ribbon_shape(127, 0.5).is_err());
        assert_eq!(ribbon_fpr(3, 10, 0), 0.125);
    }

    /// RocksDB reports about 7.05 bits per key for its standard ribbon at 1 %, against Bloom's
    /// 10 and the bound log2(100) = 6.64; ours is about 6.95 at 10^6 keys.
    #[test]
    fn bits_per_key_at_one_percent_are_near_rocksdbs() {
        let bpk = ribbon_bits_per_key(1_000_000, 0.01).unwrap();
        assert!((6.9..7.0).contains(&bpk), "{bpk}");
        assert!(bpk < 7.05 && bpk > 0.01f64.log2().abs());
        // Fixture: whole columns (r = ceil(log2 100) = 7 for every key) are above the goal.
        let whole = 7.0 * ribbon_slots(1_000_000, 0).unwrap() as f64 / 1e6;
        assert!(whole > 7.2, "{whole}");
        // At scale the slack grows with log n; one key pays a whole band.
        let big = ribbon_bits_per_key(1_000_000_000_000, 0.01).unwrap();
        assert!((7.4..7.7).contains(&big), "{big}");
        assert_eq!(ribbon_bits_per_key(1, 1.0 / 256.0).unwrap(), 8.0 * 128.0);
        // 16 columns: 16 bits per slot.
        let b16 = ribbon_bits_per_key(1_000_000, 1.0 / 65536.0).unwrap();
        assert!((b16 - 16.0 * 1.034_048).abs() < 1e-9, "{b16}");
    }
}
