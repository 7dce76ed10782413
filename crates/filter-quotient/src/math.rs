//! The quotient filter's formulas (to move into `filter_core::math`).
//!
//! A key's `p = q + r` fingerprint bits are the top bits of its hash: the first `q` pick the
//! quotient (the home slot among `2^q`), the next `r` are the stored remainder. A query for a
//! key never inserted is a false positive exactly when some stored fingerprint equals its own:
//! where a fingerprint sits in the table does not matter, since a lookup compares quotient and
//! remainder both. With `n` stored fingerprints, independent and uniform on `2^p` values,
//!
//! ```text
//! FP = 1 - (1 - 2^-p)^n  ≈  1 - e^(-n/2^p)  =  1 - e^(-α/2^r)  ≤  α·2^-r,    α = n/2^q
//! ```
//!
//! which is Bender et al. 2012's `1 - e^(-α/2^r) ≤ 2^-r` ("Don't Thrash: How to Cache Your Hash
//! on Flash", PVLDB 5(11), §2), also used by Pandey, Bender, Johnson & Patro 2017 for the
//! rank-and-select layout (the metadata layout does not change which fingerprints are
//! stored). `n` counts copies: a key inserted twice is one fingerprint, so the formula is an
//! upper bound when copies are stored.
//!
//! Every function is evaluated with `ln_1p`/`exp_m1`, so rates as small as `2^-60` keep their
//! full relative precision.

use filter_core::{math::check_fpr, Error, Result};

/// The load the builder sizes a table for, and the most an insert may reach: Pandey et al.
/// 2017 run the RSQF and CQF to 95% occupancy (their §6 evaluation fills every filter to 95%),
/// where its clusters are still short enough (their rank and select find a run in a few words)
/// for inserts to shift a few dozen slots at most. The classic layout of Bender et al.
/// degrades sooner (its lookups walk back to the cluster start slot by slot), which is why
/// implementations of it stop at 75%.
pub const MAX_LOAD: f64 = 0.95;

/// Metadata bits per slot of this layout: `occupieds` and `runends`, plus a 32-bit `spill`
/// index per 64 slots (Pandey et al. use an 8-bit offset per 64 slots: 2.125).
pub const METADATA_BITS_PER_SLOT: f64 = 2.5;

/// The exact false-positive rate of a quotient filter holding `items` fingerprints of
/// `fingerprint_bits = q + r` bits: `1 - (1 - 2^-p)^n`.
pub fn quotient_fpr_exact(fingerprint_bits: u32, items: u64) -> f64 {
    if items == 0 {
        return 0.0;
    }
    let one_value = (-f64::from(fingerprint_bits)).exp2();
    -(items as f64 * (-one_value).ln_1p()).exp_m1()
}

/// The large-table rate at load `α` (stored items over `2^q` quotients) with `r`-bit
/// remainders: `1 - e^(-α/2^r)` (Bender et al. 2012, §2).
pub fn quotient_fpr(remainder_bits: u32, load: f64) -> f64 {
    let per_value = load.max(0.0) * (-f64::from(remainder_bits)).exp2();
    -(-per_value).exp_m1()
}

/// The fewest remainder bits that keep the rate at or below `p` at load `max_load`:
/// the smallest `r` with `1 - e^(-α/2^r) <= p`, that is `r = ceil(log2(α / -ln(1 - p)))`.
///
/// This is `ceil(log2(1/p))` or one bit less: `-ln(1 - p) >= p` and `α < 1` both work in the
/// filter's favour, so no margin is added; the load bound is the margin (the builder's table
/// is a power of two, so a filter at its capacity is at a load between `α/2` and `α`).
///
/// # Errors
/// A rate that is NaN or outside (0, 1), or a load outside (0, 1].
pub fn quotient_remainder_bits(p: f64, max_load: f64) -> Result<u32> {
    let p = check_fpr(p)?;
    if !(max_load > 0.0 && max_load <= 1.0) {
        return Err(Error::InvalidParameter {
            name: "max_load",
            value: max_load.to_string(),
            expected: "a load in (0, 1]",
        });
    }
    // log2(α) - log2(-ln(1-p)), not log2 of the quotient: it overflows for subnormal p.
    let r = (max_load.log2() - (-(-p).ln_1p()).log2()).ceil();
    Ok(r.max(1.0) as u32)
}

/// The most items a table of `2^q` quotients takes: `floor(max_load · 2^q)`.
pub fn quotient_max_items(qbits: u32, max_load: f64) -> u64 {
    (max_load * (1u64 << qbits.min(63)) as f64).floor() as u64
}

/// The fewest quotient bits, at least `min_bits`, whose table takes `capacity` items at
/// `max_load` ([`quotient_max_items`]).
///
/// # Errors
/// A capacity of 0, or one that needs more than `max_bits`.
pub fn quotient_bits_for(
    capacity: u64,
    max_load: f64,
    min_bits: u32,
    max_bits: u32,
) -> Result<u32> {
    filter_core::math::check_capacity(capacity)?;
    (min_bits..=max_bits)
        .find(|&q| quotient_max_items(q, max_load) >= capacity)
        .ok_or_else(|| Error::SizeOverflow {
            what: "quotient table",
            hint: format!(
                "{capacity} items need more than 2^{max_bits} quotients; lower the capacity"
            ),
        })
}

/// Bits per stored item at load `α` with `r`-bit remainders: `(r + 2.5) / α` (the extra slots
/// at the end of the table, `10·sqrt(2^q)`, are left out: 0.1% at `2^26` quotients).
pub fn quotient_bits_per_item(remainder_bits: u32, load: f64) -> f64 {
    (f64::from(remainder_bits) + METADATA_BITS_PER_SLOT) / load
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `1 - (1 - x)^n` by repeated multiplication, the independent evaluation.
    fn by_product(x: f64, n: u64) -> f64 {
        let mut miss = 1.0f64;
        for _ in 0..n {
            miss *= 1.0 - x;
        }
        1.0 - miss
    }

    #[test]
    fn exact_rate_matches_the_product() {
        for (p, n) in [(8u32, 1u64), (8, 200), (12, 3000), (16, 60_000), (20, 5)] {
            let want = by_product(2f64.powi(-(p as i32)), n);
            let got = quotient_fpr_exact(p, n);
            // The product loses ~1e-11 relative to cancellation in `1 - miss`.
            assert!(
                (got - want).abs() <= 1e-9 * want,
                "p {p} n {n}: {got} {want}"
            );
        }
        assert_eq!(quotient_fpr_exact(10, 0), 0.0);
        assert_eq!(quotient_fpr_exact(10, 1), 2f64.powi(-10));
    }

    #[test]
    fn load_rate_is_the_limit_of_the_exact_one() {
        // 2^q = 2^20 quotients at load 0.9: n = 0.9·2^20 fingerprints of q + r bits.
        for r in [1u32, 4, 7, 10, 20] {
            let n = (0.9 * (1u64 << 20) as f64) as u64;
            let exact = quotient_fpr_exact(20 + r, n);
            let limit = quotient_fpr(r, n as f64 / (1u64 << 20) as f64);
            assert!(
                (exact - limit).abs() < 1e-6 * limit,
                "r {r}: {exact} {limit}"
            );
            assert!(limit <= 0.9 * 2f64.powi(-(r as i32)));
        }
        // Tiny rates keep their relative precision (1 - e^-x = x - x²/2 + …).
        let x = 0.95 * 2f64.powi(-60);
        assert!((quotient_fpr(60, 0.95) - x).abs() < 1e-15 * x);
    }

    #[test]
    fn remainder_bits_are_the_fewest_that_meet_the_target() {
        for p in [0.5, 0.1, 0.05, 0.01, 0.003, 0.001, 1e-4, 1e-6, 1e-9] {
            let r = quotient_remainder_bits(p, MAX_LOAD).unwrap();
            assert!(quotient_fpr(r, MAX_LOAD) <= p, "p {p}: r {r}");
            if r > 1 {
                assert!(
                    quotient_fpr(r - 1, MAX_LOAD) > p,
                    "p {p}: r {r} not the fewest"
                );
            }
            let plain = (1.0 / p).log2().ceil() as u32;
            assert!(r == plain || r + 1 == plain, "p {p}: {r} against {plain}");
        }
        assert_eq!(quotient_remainder_bits(0.01, MAX_LOAD).unwrap(), 7);
        assert!(quotient_remainder_bits(0.0, MAX_LOAD).is_err());
        assert!(quotient_remainder_bits(0.01, 0.0).is_err());
        assert!(quotient_remainder_bits(0.01, f64::NAN).is_err());
        assert!(quotient_remainder_bits(f64::MIN_POSITIVE / 4.0, MAX_LOAD).unwrap() > 1000);
    }

    #[test]
    fn quotient_bits_hold_the_capacity() {
        assert_eq!(quotient_bits_for(1, MAX_LOAD, 6, 31).unwrap(), 6);
        assert_eq!(quotient_bits_for(60, MAX_LOAD, 6, 31).unwrap(), 6);
        assert_eq!(quotient_bits_for(61, MAX_LOAD, 6, 31).unwrap(), 7);
        // 10M at 95%: 2^24 = 16.8M quotients, 59.6% full.
        assert_eq!(quotient_bits_for(10_000_000, MAX_LOAD, 6, 31).unwrap(), 24);
        assert_eq!(quotient_max_items(6, MAX_LOAD), 60);
        assert!(quotient_bits_for(0, MAX_LOAD, 6, 31).is_err());
        assert!(matches!(
            quotient_bits_for(u64::MAX, MAX_LOAD, 6, 31),
            Err(Error::SizeOverflow { .. })
        ));
        assert!((quotient_bits_per_item(7, 0.5) - 19.0).abs() < 1e-12);
    }
}
