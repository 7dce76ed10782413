//! The quotient filter's formulas (`filter-quotient`).
//!
//! A key's hash gives a *quotient*, its home slot among `Q`, and an `r`-bit *remainder*, the
//! part that is stored (`Q` need not be a power of two: see the crate's header). A query for a
//! key never inserted is a false positive exactly when some stored (quotient, remainder) pair
//! equals its own: where a remainder sits in the table does not matter, since a lookup
//! compares quotient and remainder both. With `n` stored pairs, independent and uniform on
//! `Q·2^r` values,
//!
//! ```text
//! FP = 1 - (1 - 1/(Q·2^r))^n  ≈  1 - e^(-α/2^r)  ≤  α·2^-r,    α = n/Q
//! ```
//!
//! which is Bender et al. 2012's `1 - e^(-α/2^r) ≤ 2^-r` for `Q = 2^q` ("Don't Thrash: How to
//! Cache Your Hash on Flash", PVLDB 5(11), §2; Pandey, Bender, Johnson & Patro 2017 analyse
//! the rank-and-select layout the same way, since the metadata does not change which
//! fingerprints are stored). `n` counts copies: a key inserted twice is one fingerprint, so
//! the formula is an upper bound when copies are stored.
//!
//! Every function is evaluated with `ln_1p`/`exp_m1`, so rates as small as `2^-60` keep their
//! full relative precision.

use crate::{math::check_fpr, Error, Result};

/// The load the builder sizes a table for, and the most an insert may reach. Pandey et al.
/// 2017 restructured the metadata so that lookups stay fast "even up to a load factor of 95%"
/// (their abstract); the original layout of Bender et al. slows down sharply well before that
/// (its lookups walk back to the start of the cluster slot by slot, and clusters grow as
/// `1/(1-α)²`), which is why implementations of it stop at 75% or lower. Inserts still shift
/// a cluster's tail one slot to the right, so they slow down near 95% too; past it a cluster
/// may also run off the end of the table.
pub const MAX_LOAD: f64 = 0.95;

/// Metadata bits per slot of this layout: `occupieds` and `runends`, plus a 32-bit `spill`
/// index per 64 slots (Pandey et al. use an 8-bit offset per 64 slots: 2.125).
pub const METADATA_BITS_PER_SLOT: f64 = 2.5;

/// The exact false-positive rate of a quotient filter with `quotients` home slots and
/// `remainder_bits`-bit remainders holding `items` fingerprints: `1 - (1 - 1/(Q·2^r))^n`.
pub fn quotient_fpr_exact(quotients: u64, remainder_bits: u32, items: u64) -> f64 {
    if items == 0 || quotients == 0 {
        return 0.0;
    }
    let one_value = (-f64::from(remainder_bits)).exp2() / quotients as f64;
    -(items as f64 * (-one_value).ln_1p()).exp_m1()
}

/// The large-table rate at load `α` (stored items over `Q` quotients) with `r`-bit
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

/// The most items a table of `Q` quotients takes: `floor(max_load · Q)`.
pub fn quotient_max_items(quotients: u64, max_load: f64) -> u64 {
    (max_load * quotients as f64).floor() as u64
}

/// The fewest quotients, at least `min`, whose table takes `capacity` items at `max_load`
/// ([`quotient_max_items`]): about `capacity / max_load`.
///
/// # Errors
/// A capacity of 0, or one that needs more than `max` quotients.
pub fn quotients_for(capacity: u64, max_load: f64, min: u64, max: u64) -> Result<u64> {
    crate::math::check_capacity(capacity)?;
    let guess = ((capacity as f64 / max_load).ceil() as u64).max(min);
    // The guess is off by at most one either way (rounding of the product and the quotient).
    let q = (guess.saturating_sub(1).max(min)..=guess.saturating_add(1))
        .find(|&q| quotient_max_items(q, max_load) >= capacity)
        .unwrap_or(guess.saturating_add(2));
    if q > max {
        return Err(Error::SizeOverflow {
            what: "quotient table",
            hint: format!("{capacity} items need more than {max} quotients; lower the capacity"),
        });
    }
    Ok(q)
}

/// Bits per stored item at load `α` with `r`-bit remainders: `(r + 2.5) / α` (the extra slots
/// at the end of the table, `10·sqrt(Q)`, are left out: 0.1% at 10^8 quotients).
pub fn quotient_bits_per_item(remainder_bits: u32, load: f64) -> f64 {
    (f64::from(remainder_bits) + METADATA_BITS_PER_SLOT) / load
}

#[cfg(test)]
mod tests;
