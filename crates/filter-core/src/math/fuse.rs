//! The binary fuse filter's formulas (`filter-fuse`).
//!
//! Graf & Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters", ACM Journal of
//! Experimental Algorithmics 27 (2022). An array of `f`-bit fingerprints is cut into segments of
//! `L` slots; a key's three slots lie in three consecutive segments, the first among the first
//! `c`, so the array has `(c + 2) L` slots.
//!
//! # False-positive rate
//!
//! A non-member's fingerprint and the XOR of the three slots it reads are independent and
//! uniform over `2^f` values (§2), so, whatever the number of keys,
//!
//! ```text
//! ε = 2^-f      (f = 8: 0.39 %, f = 16: 0.0015 %)
//! ```
//!
//! # Sizing (arity 3, §4 and the reference C library)
//!
//! ```text
//! L = 2^floor(ln n / ln 3.33 + 2.25),  at most 2^18
//! c L ≈ n · max(1.125, 0.875 + 0.25 ln(10^6) / ln n)   (rounded up to whole segments, minus 2)
//! bits per key = f (c + 2) L / n  →  1.125 f
//! ```
//!
//! The segment length steps up by a factor 2 at `n = 3.33^(j - 2.25)` ([`fuse_segment_steps`]),
//! and the size factor reaches its floor 1.125 at `n = 10^6`: near those counts the array is
//! tightest for its segment length, which is where a construction without a fallback fails.
//!
//! # Evaluation
//!
//! `2^-f` is `exp2` of a negative exponent (exact); the logarithms take `n >= 2`, so no division
//! by `ln 1 = 0`; slot counts are rounded in `f64` below 2^32 and checked into `u32` indexes.

use crate::{Error, Result};

/// The largest segment (2^18 slots), as in the reference implementations: beyond it a larger
/// segment buys no construction reliability and costs locality.
pub const MAX_SEGMENT_LENGTH: u32 = 1 << 18;

/// The most distinct keys a filter takes: slot indexes are 32-bit.
pub const MAX_KEYS: u64 = 1 << 31;

/// Where a filter's slots are: `segment_count + 2` segments of `segment_length` slots; a key's
/// first slot is in one of the first `segment_count` segments, its others in the next two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Slots per segment, a power of two.
    pub segment_length: u32,
    /// Segments a key's first slot may fall in.
    pub segment_count: u32,
    /// Total slots: `(segment_count + 2) * segment_length`.
    pub array_length: u32,
}

impl Layout {
    /// The layout for `n` distinct keys, with `bumps` extra segments of slack.
    ///
    /// The formulas are the paper's for arity 3 (Graf & Lemire 2022, §4 and their reference C
    /// library): segment length [`fuse_segment_length`] and `n ·` [`fuse_size_factor`] slots,
    /// rounded up to whole segments, of which the last two hold only second and third slots.
    /// Sets of 0 or 1 key get one segment of 4 slots (12 in all).
    ///
    /// # Errors
    /// [`Error::SizeOverflow`] past [`MAX_KEYS`], or when the bumps take the array past 32-bit
    /// slot indexes.
    pub fn for_keys(n: u64, bumps: u32) -> Result<Self> {
        if n > MAX_KEYS {
            return Err(Error::SizeOverflow {
                what: "binary fuse filter",
                hint: format!("{n} distinct keys is above the limit of {MAX_KEYS}: split the set"),
            });
        }
        let segment_length = fuse_segment_length(n);
        let capacity = if n <= 1 {
            0
        } else {
            (n as f64 * fuse_size_factor(n)).round() as u64
        };
        let seg = u64::from(segment_length);
        let segments = capacity.div_ceil(seg).saturating_sub(2).max(1) + u64::from(bumps);
        let array_length = (segments + 2) * seg;
        // n <= 2^31 and a size factor below 2 keep this under 2^32 with room for the bumps.
        let array_length = u32::try_from(array_length).map_err(|_| Error::SizeOverflow {
            what: "binary fuse filter",
            hint: format!("{array_length} slots do not fit 32-bit indexes: split the set"),
        })?;
        Ok(Layout {
            segment_length,
            segment_count: segments as u32,
            array_length,
        })
    }

    /// Bits per key of `f`-bit fingerprints in this layout holding `n` keys: `f (c + 2) L / n`
    /// (infinite for `n = 0`).
    pub fn bits_per_key(&self, fingerprint_bits: u32, n: u64) -> f64 {
        f64::from(fingerprint_bits) * f64::from(self.array_length) / n as f64
    }
}

/// `2^floor(ln n / ln 3.33 + 2.25)`, at most [`MAX_SEGMENT_LENGTH`]; 4 for `n <= 1`.
pub fn fuse_segment_length(n: u64) -> u32 {
    if n <= 1 {
        return 4;
    }
    let exp = ((n as f64).ln() / 3.33f64.ln() + 2.25).floor() as u32;
    1u32.checked_shl(exp)
        .unwrap_or(MAX_SEGMENT_LENGTH)
        .min(MAX_SEGMENT_LENGTH)
}

/// Slots per key before rounding: `max(1.125, 0.875 + 0.25 · ln 10^6 / ln n)`; `n <= 1` is taken
/// as `n = 2` (the formula diverges at `ln 1 = 0`; [`Layout::for_keys`] sizes such sets apart).
pub fn fuse_size_factor(n: u64) -> f64 {
    (0.875 + 0.25 * 1e6f64.ln() / (n.max(2) as f64).ln()).max(1.125)
}

/// The key counts, from 2 to `up_to`, at which [`fuse_segment_length`] changes: the first `n`
/// of each new segment length (`n ≈ 3.33^(j - 2.25)`), found from the function itself so that
/// floating-point rounding at the boundary is the filter's own.
pub fn fuse_segment_steps(up_to: u64) -> Vec<u64> {
    let mut steps = Vec::new();
    let (mut lo, mut len) = (2u64, fuse_segment_length(2));
    while lo < up_to && len < MAX_SEGMENT_LENGTH {
        // Gallop to a count with a longer segment (at most 4x further: 3.33 < 4), then bisect.
        let mut hi = lo.saturating_mul(4).min(up_to);
        if fuse_segment_length(hi) == len {
            break;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if fuse_segment_length(mid) == len {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        steps.push(hi);
        (lo, len) = (hi, fuse_segment_length(hi));
    }
    steps
}

/// The false-positive rate of `f`-bit fingerprints: `2^-f` (Graf & Lemire 2022, §2).
pub fn fuse_fpr(fingerprint_bits: u32) -> f64 {
    (-f64::from(fingerprint_bits)).exp2()
}

/// Checks that `f`-bit fingerprints meet target rate `p`: `2^-f <= p`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fpr` for a rate outside (0, 1) or below `2^-f`, saying
/// which filter reaches it.
pub fn fuse_check_rate(p: f64, fingerprint_bits: u32) -> Result<f64> {
    let p = crate::math::check_fpr(p)?;
    if fuse_fpr(fingerprint_bits) > p {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: crate::math::format_real(p),
            expected: if fingerprint_bits <= 8 {
                "a rate of at least 2^-8 (0.39%) for binary-fuse8; use binary-fuse16 or ribbon below it"
            } else {
                "a rate of at least 2^-16 (0.0015%) for binary-fuse16"
            },
        });
    }
    Ok(p)
}

/// Bits per key of the first attempt's filter of `f`-bit fingerprints for `n` distinct keys
/// ([`Layout::for_keys`] with no bump).
///
/// # Errors
/// [`Error::InvalidParameter`] for `n = 0`; as [`Layout::for_keys`].
pub fn fuse_bits_per_key(n: u64, fingerprint_bits: u32) -> Result<f64> {
    let n = crate::math::check_capacity(n)?;
    Ok(Layout::for_keys(n, 0)?.bits_per_key(fingerprint_bits, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_the_papers_formulas() {
        // n = 10^6: L = 2^floor(13.816 / 1.2030 + 2.25) = 2^13; 1.125 n = 1,125,000 slots make
        // 138 segments (rounded up), of which 136 hold first slots.
        let l = Layout::for_keys(1_000_000, 0).unwrap();
        assert_eq!(
            (l.segment_length, l.segment_count, l.array_length),
            (8192, 136, 138 * 8192)
        );
        assert_eq!(fuse_size_factor(1_000_000), 1.125);
        // Below 10^6 the factor is larger: 0.875 + 0.25 · 13.8155 / 9.3501 = 1.2444 at 11,500.
        assert!((fuse_size_factor(11_500) - 1.244_4).abs() < 1e-4);
        assert_eq!(fuse_segment_length(11_500), 1024);
        let c = Layout::for_keys(11_500, 0).unwrap();
        assert_eq!((c.segment_count, c.array_length), (12, 14 * 1024));
        assert_eq!(Layout::for_keys(1, 0).unwrap().array_length, 12);
        assert_eq!(Layout::for_keys(0, 0).unwrap().array_length, 12);
        assert_eq!(
            Layout::for_keys(5_000, 3).unwrap().segment_count,
            3 + Layout::for_keys(5_000, 0).unwrap().segment_count
        );
    }

    #[test]
    fn edges_do_not_overflow_or_divide_by_zero() {
        assert_eq!(fuse_segment_length(0), 4);
        assert_eq!(fuse_segment_length(1), 4);
        assert!(fuse_size_factor(1).is_finite() && fuse_size_factor(0) == fuse_size_factor(2));
        // n = 10^12: the segment length is capped, the size factor is at its floor, and the
        // layout is refused with a typed error (32-bit slots), not wrapped.
        assert_eq!(fuse_segment_length(1_000_000_000_000), MAX_SEGMENT_LENGTH);
        assert_eq!(fuse_segment_length(u64::MAX), MAX_SEGMENT_LENGTH);
        assert_eq!(fuse_size_factor(1_000_000_000_000), 1.125);
        assert!(matches!(
            Layout::for_keys(1_000_000_000_000, 0),
            Err(Error::SizeOverflow { .. })
        ));
        assert!(Layout::for_keys(MAX_KEYS, 0).is_ok());
        assert!(matches!(
            Layout::for_keys(MAX_KEYS, u32::MAX),
            Err(Error::SizeOverflow { .. })
        ));
    }

    #[test]
    fn rates_are_powers_of_two_and_tight_targets_are_refused() {
        assert_eq!(fuse_fpr(8), 1.0 / 256.0);
        assert_eq!(fuse_fpr(16), 1.0 / 65536.0);
        assert!(fuse_check_rate(0.01, 8).is_ok());
        assert!(fuse_check_rate(1.0 / 256.0, 8).is_ok());
        assert!(fuse_check_rate(1e-4, 16).is_ok());
        for (p, f) in [(0.003, 8), (1e-12, 16), (f64::NAN, 8), (0.0, 8), (1.0, 16)] {
            assert!(
                matches!(
                    fuse_check_rate(p, f),
                    Err(Error::InvalidParameter { name: "fpr", .. })
                ),
                "{p} {f}"
            );
        }
    }

    /// Graf & Lemire report 9.0 bits per key for 8-bit fingerprints at scale (xorf's
    /// BinaryFuse8: 9.02) and 18.0 for 16-bit ones: 1.125 f, against the xor filter's 1.23 f.
    #[test]
    fn bits_per_key_approach_one_point_one_two_five_f() {
        let b8 = fuse_bits_per_key(1_000_000, 8).unwrap();
        let b16 = fuse_bits_per_key(1_000_000, 16).unwrap();
        assert!((9.0..9.1).contains(&b8), "{b8}");
        assert_eq!(b16, 2.0 * b8);
        // Fixture: the xor filter's 1.23 slots per key are outside that band.
        assert!(!(9.0..9.1).contains(&(1.23 * 8.0)));
        // One key pays a whole small array; small sets more slack than 1.125.
        assert_eq!(fuse_bits_per_key(1, 8).unwrap(), 96.0);
        assert!(fuse_bits_per_key(11_500, 8).unwrap() > 9.9);
        assert!(fuse_bits_per_key(0, 8).is_err());
    }

    #[test]
    fn segment_steps_are_where_the_length_doubles() {
        let steps = fuse_segment_steps(2_000_000);
        // 3.33^(j - 2.25) for j = 3..=14: 2.5, 8.2, 27.3, …, 413,309.6, 1,376,321.3.
        assert_eq!(steps.len(), 12, "{steps:?}");
        assert_eq!(steps[..4], [3, 9, 28, 92]);
        assert_eq!(steps[7..], [11_193, 37_273, 124_118, 413_310, 1_376_322]);
        for (j, &n) in (3..).zip(&steps) {
            let want = 3.33f64.powf(j as f64 - 2.25);
            assert!((n as f64 - want).abs() <= 1.0, "j {j}: {n} {want}");
            assert_eq!(fuse_segment_length(n), 2 * fuse_segment_length(n - 1));
        }
        assert!(fuse_segment_steps(2).is_empty());
    }
}
