//! The Aleph filter's formulas (`filter-aleph`): one quotient-filter table that doubles in
//! place, fingerprints that give up one bit per doubling, and the widening policy that decides
//! how long each generation's fingerprints are (Dayan, Bercea & Pagh, "Aleph Filter: To
//! Infinity in Constant Time", PVLDB 17(11), 2024, §4–5; the fingerprint growth of Dayan,
//! Bercea, Reviriego & Pagh, "InfiniFilter", SIGMOD 2023, §4).
//!
//! **Generations.** Generation `x` is the keys inserted while the table had `Q_x = Q0·2^x`
//! quotients; they are stored with `F_x`-bit fingerprints. After `k ≥ x` doublings each has
//! `F_x - (k - x)` bits left (one went into the address at each doubling), or none: a *void*
//! entry, which matches every key of its address and is copied to both halves at each later
//! doubling, so that a lookup still reads one run.
//!
//! **The rate after `k` doublings.** A non-member matches an entry of generation `x` with
//! probability `2^-(F_x - (k-x)) / Q_k` (its address, then its fingerprint bits); there are
//! `n_x` such entries, and `Q_k = Q_x·2^(k-x)`, so generation `x` adds `(n_x/Q_x)·2^-F_x`
//! whatever `k` is: the bit an entry gives up doubles its matches, and the doubling halves
//! their share of the table. A void entry (`2^(k-x-F_x)` copies of each of `n_x` entries, each
//! matching `1/Q_k`) adds the same. With independent entries,
//!
//! ```text
//! FP(k) = 1 - exp(-Σ_{x≤k} λ_x·2^-F_x),    λ_x = n_x / Q_x
//! ```
//!
//! A table doubles when it is 95% full, so `λ_0 ≤ 0.95` and each later generation fills half
//! of its table, `λ_x ≤ 0.475` ([`generation_load`]).
//!
//! **Widening.** Without an estimate of the final size, generation `x` gets the budget
//! `ε/((x+1)(x+2))`, which sums to `ε` over every generation (a telescoping series), so
//! `F_x = ⌈log2(λ_x·(x+1)(x+2)/ε)⌉`: about `2·log2(x)` bits more than a static filter's,
//! the `O(log log n)` bits per key of InfiniFilter and Aleph without an estimate. With an
//! estimate reached after `K` doublings, generation `x ≤ K` gets `F + K - x` bits, so every
//! entry has exactly `F` bits at the estimate and the table is a static quotient filter's plus
//! one bit (the length marker); `F` is the fewest bits with `0.95·2^-F ≤ 15/16·ε`, and the
//! sixteenth kept back is the budget of growth past the estimate, split as above.

use crate::math::check_fpr;
use crate::{Error, Result};

/// The load at which a table doubles (the quotient filter's [`super::quotient::MAX_LOAD`]).
pub const MAX_LOAD: f64 = super::quotient::MAX_LOAD;

/// Metadata bits per slot: the rank-and-select table's (see [`super::quotient`]).
pub const METADATA_BITS_PER_SLOT: f64 = super::quotient::METADATA_BITS_PER_SLOT;

/// The share of the target an estimate keeps for generations past it.
pub const PAST_ESTIMATE_SHARE: f64 = 1.0 / 16.0;

/// Most fingerprint bits a generation can have: a slot holds the bits and a marker in a word.
pub const MAX_FINGERPRINT_BITS: u32 = 56;

/// The widening policy: the target rate, and the doublings `K` after which the estimate of the
/// final size is reached (`None` without an estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Widening {
    /// The target false-positive rate `ε`.
    pub fpr: f64,
    /// `K`: the doublings to the estimated final size, if one was given.
    pub planned: Option<u32>,
}

impl Widening {
    /// A policy, checked.
    ///
    /// # Errors
    /// A rate outside (0, 1).
    pub fn new(fpr: f64, planned: Option<u32>) -> Result<Widening> {
        Ok(Widening {
            fpr: check_fpr(fpr)?,
            planned,
        })
    }

    /// `F_x`, the fingerprint bits of generation `x` (at least 1, at most
    /// [`MAX_FINGERPRINT_BITS`]).
    pub fn fingerprint_bits(&self, x: u32) -> u32 {
        let bits = match self.planned {
            Some(k) if x <= k => f64::from(estimated_bits(self.fpr) + (k - x)),
            Some(k) => budget_bits(x, self.past_estimate_budget(), x - k),
            None => budget_bits(x, self.fpr, x + 1),
        };
        bits.clamp(1.0, f64::from(MAX_FINGERPRINT_BITS)) as u32
    }

    /// What the generations past the estimate share: `ε - 0.95·2^-F` (at least `ε/16`).
    fn past_estimate_budget(&self) -> f64 {
        self.fpr - MAX_LOAD * (-f64::from(estimated_bits(self.fpr))).exp2()
    }

    /// `Σ_{x≤k} λ_x·2^-F_x` with each generation's largest load ([`generation_load`]) except
    /// generation `k`, at `fill` (its keys over `Q_k`): the expected matches of a non-member.
    pub fn expected_matches(&self, k: u32, fill: f64) -> f64 {
        let past: f64 = (0..k)
            .map(|x| generation_load(x) * (-f64::from(self.fingerprint_bits(x))).exp2())
            .sum();
        past + fill.max(0.0) * (-f64::from(self.fingerprint_bits(k))).exp2()
    }

    /// `FP(k) = 1 - exp(-expected matches)` (see the module docs).
    pub fn fpr_after(&self, k: u32, fill: f64) -> f64 {
        -(-self.expected_matches(k, fill)).exp_m1()
    }

    /// The rate the filter never exceeds through `max_doublings` doublings, each generation
    /// full: at most `ε` by construction of the budgets.
    pub fn fpr_bound(&self, max_doublings: u32) -> f64 {
        self.fpr_after(max_doublings, generation_load(max_doublings))
    }

    /// The slot width after `k` doublings: the longest fingerprint any generation still has,
    /// plus the marker bit that ends it.
    pub fn slot_width(&self, k: u32) -> u32 {
        (0..=k)
            .map(|x| self.fingerprint_bits(x).saturating_sub(k - x))
            .max()
            .unwrap_or(0)
            + 1
    }

    /// The table after `items` inserts and no deletes, from `q0` quotients, doubling when 95%
    /// full: `(k, Q, FP)`, the doublings, the quotients and the rate (void copies, which fill
    /// a few slots more, left out). `None` past 2^31 quotients.
    pub fn after_inserts(&self, q0: u64, items: u64) -> Option<(u32, u64, f64)> {
        let full = |q: u64| super::quotient::quotient_max_items(q, MAX_LOAD);
        let (mut k, mut q, mut carried) = (0u32, q0, 0u64);
        while items > full(q) {
            carried = full(q);
            q = q.checked_mul(2).filter(|&q| q <= 1 << 31)?;
            k += 1;
        }
        let fill = (items - carried) as f64 / q as f64;
        Some((k, q, self.fpr_after(k, fill)))
    }

    /// Copies of void entries per quotient after `k` doublings, each generation full: the
    /// generations whose fingerprints ran out add `λ_x·2^-F_x` each.
    pub fn void_density(&self, k: u32) -> f64 {
        (0..=k)
            .filter(|&x| self.fingerprint_bits(x) <= k - x)
            .map(|x| generation_load(x) * (-f64::from(self.fingerprint_bits(x))).exp2())
            .sum()
    }
}

/// `λ_x`, the most keys generation `x` adds over its table's quotients: 0.95 for the first
/// table, then half of each doubled table (it doubles at 95%, so it starts at 47.5%).
pub fn generation_load(x: u32) -> f64 {
    if x == 0 {
        MAX_LOAD
    } else {
        MAX_LOAD / 2.0
    }
}

/// `F`, the fingerprint bits every entry has at the estimate: the fewest with
/// `0.95·2^-F ≤ (1 - 1/16)·ε`.
pub fn estimated_bits(fpr: f64) -> u32 {
    let kept = fpr * (1.0 - PAST_ESTIMATE_SHARE);
    (MAX_LOAD / kept).log2().ceil().max(1.0) as u32
}

/// `⌈log2(λ_x·j(j+1)/budget)⌉`: the bits that keep generation `x`'s matches within
/// `budget/(j(j+1))`, the `j`-th term of a series that sums to `budget`.
fn budget_bits(x: u32, budget: f64, j: u32) -> f64 {
    let j = f64::from(j);
    (generation_load(x) * j * (j + 1.0) / budget).log2().ceil()
}

/// Bits per key of a table with `slot_width`-bit slots at `load` keys per quotient:
/// `(w + 2.5) / load` (the extra slots at the table's end left out, as for the quotient filter).
pub fn bits_per_key(slot_width: u32, load: f64) -> f64 {
    (f64::from(slot_width) + METADATA_BITS_PER_SLOT) / load
}

/// The expected remainders a lookup compares: the mean length of a run, the stored entries
/// (void copies included) over the quotients. Constant however often the table doubled.
pub fn expected_compares(entries: u64, quotients: u64) -> f64 {
    entries as f64 / quotients.max(1) as f64
}

/// `K`, the doublings from a declared `capacity` to an estimate `max_n`: the most that leave
/// at least `capacity` keys to the first table (`⌊log2(max_n / capacity)⌋`, 0 when the
/// estimate is not above the capacity), with the keys the first table is sized for,
/// `⌈max_n / 2^K⌉`, so that the table after `K` doublings holds `max_n` at 95% and no more.
///
/// # Errors
/// A capacity of 0.
pub fn planned_doublings(capacity: u64, max_n: u64) -> Result<(u32, u64)> {
    crate::math::check_capacity(capacity)?;
    if max_n <= capacity {
        return Ok((0, capacity));
    }
    let k = (max_n / capacity).ilog2();
    if k >= 63 {
        return Err(Error::InvalidParameter {
            name: "max_n",
            value: max_n.to_string(),
            expected: "an estimate less than 2^63 times the capacity",
        });
    }
    Ok((k, max_n.div_ceil(1u64 << k)))
}

#[cfg(test)]
mod tests;
