//! The formulas of the vector quotient filter with overflow bits (`filter-vqf`).
//!
//! A block holds [`SLOTS`] one-byte fingerprints in [`BUCKETS`] buckets; a fingerprint is
//! uniform on the [`VALUES`] values `1..=255`. At load `α` (fingerprints over slots) a bucket
//! holds `λ = α·SLOTS/BUCKETS` fingerprints on average, counting those sent from other blocks
//! (a block's slots hold both kinds). A negative lookup compares its fingerprint with its
//! bucket in its first block and, with probability `ω` (the share of overflow bits set), with
//! the same bucket in its second block:
//!
//! ```text
//! p = 1 - (1 - 1/255)^(λ(1 + ω))                                          (1)
//! ```
//!
//! which treats the two buckets' fingerprints as independent (they are: the second block is
//! another block's first). `ω = 1` bounds it for any history (every lookup reads two blocks,
//! as the VQF's own lookups do: Pandey et al. 2021, §4, `p ≈ 2λ/2^f`).
//!
//! Before any delete, `ω` is bracketed by the loads: a block's keys are Poisson with mean
//! `μ = α·SLOTS` in a large table, and those past its [`SLOTS`] overflow. If each overflowing
//! key set the bit of a random one of [`GROUPS`] groups, and a block that overflows at all
//! sets at least one:
//!
//! ```text
//! P(X > S)/G  <=  ω  <=  1 - e^(-E[over]/G),   E[over] = Σ_{j>S} (j - S)·P(X = j)   (2)
//! ```
//!
//! The filter's inserts aim at the floor (an overflow reuses a group whose bit is set when it
//! can); the moves that make room near the table's limit set more. The tests hold measured
//! tables between the two.
//!
//! Every function is evaluated with `ln_1p`/`exp_m1`.

use crate::{math::check_fpr, Error, Result};

/// Fingerprint slots per block.
pub const SLOTS: u32 = 48;
/// Buckets per block.
pub const BUCKETS: u32 = 72;
/// Overflow groups (bits) per block.
pub const GROUPS: u32 = 8;
/// Values a fingerprint takes (0 is not used).
pub const VALUES: u32 = 255;

/// Fingerprints per bucket at load `α`: `λ = α·SLOTS/BUCKETS`.
pub fn vqf_bucket_mean(load: f64) -> f64 {
    load.max(0.0) * f64::from(SLOTS) / f64::from(BUCKETS)
}

/// (1): the rate at load `α` with a share `ω` of overflow bits set.
pub fn vqf_fpr(load: f64, overflow_share: f64) -> f64 {
    let compared = vqf_bucket_mean(load) * (1.0 + overflow_share.clamp(0.0, 1.0));
    -(compared * (-1.0 / f64::from(VALUES)).ln_1p()).exp_m1()
}

/// The rate at load `α` whatever the overflow bits: (1) with `ω = 1`.
pub fn vqf_fpr_bound(load: f64) -> f64 {
    vqf_fpr(load, 1.0)
}

/// Bits per item at load `α`: a 512-bit block per `SLOTS·α` items.
pub fn vqf_bits_per_item(load: f64) -> f64 {
    512.0 / (f64::from(SLOTS) * load)
}

/// The upper end of (2): the share of overflow bits set after inserts (no deletes) into a
/// large table at load `α` if every overflowing key marked a random group.
pub fn vqf_overflow_share(load: f64) -> f64 {
    let (_, over) = overflow_tail(load);
    -(-over / f64::from(GROUPS)).exp_m1()
}

/// The lower end of (2): `P(X > S)/G`, one bit per block that overflows at all.
pub fn vqf_overflow_share_floor(load: f64) -> f64 {
    overflow_tail(load).0 / f64::from(GROUPS)
}

/// `P(X > S)` and `E[(X - S)+]` for `X ~ Poisson(α·S)`.
fn overflow_tail(load: f64) -> (f64, f64) {
    let mu = load.max(0.0) * f64::from(SLOTS);
    if mu == 0.0 {
        return (0.0, 0.0);
    }
    // P(X = j) for j from 0, by the recurrence P(j) = P(j-1)·μ/j in logs.
    let mut log_p = -mu;
    let (mut tail, mut over) = (0.0, 0.0);
    let last = (mu + 40.0 * mu.sqrt() + 100.0) as u32;
    for j in 1..=last {
        log_p += (mu / f64::from(j)).ln();
        if j > SLOTS {
            tail += log_p.exp();
            over += f64::from(j - SLOTS) * log_p.exp();
        }
    }
    (tail, over)
}

/// Checks that a target rate `p` holds for a table at load `design_load` whatever its overflow
/// bits ([`vqf_fpr_bound`]): 8-bit fingerprints go no lower.
///
/// # Errors
/// A rate that is NaN or outside (0, 1), or one below the bound (name `fpr`).
pub fn vqf_check_fpr(p: f64, design_load: f64) -> Result<f64> {
    let p = check_fpr(p)?;
    if p < vqf_fpr_bound(design_load) {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: crate::math::format_real(p),
            expected: "a rate of at least 0.47%: the vector quotient filter's 8-bit fingerprints \
                       go no lower (it measures about 0.25% at its design load); for lower rates \
                       with deletes, use the cuckoo or quotient filter",
        });
    }
    Ok(p)
}
