//! The formulas, with their sources. Every variant sizes itself and predicts its false-positive
//! rate with these functions; the harness compares them with measurement.
//!
//! Notation: `n` items, `m` bits (or counters, or slots), `k` hash functions, `p` (or ε) the
//! false-positive rate, `b` slots per cuckoo bucket, `f` fingerprint bits, `α` load factor.

use crate::{Error, Result};
use std::f64::consts::LN_2;

pub mod aleph;
pub mod count;
mod exact;
pub mod expandable;
pub mod fuse;
pub mod quotient;
pub mod ribbon;
mod search;
mod spread;
pub mod vqf;
pub mod window;

pub use count::{bloom_count_estimate, bloom_count_estimate_sd, bloom_fpr_at_fill};
pub use spread::{bloom_rate_variance, split_block_rate_variance};

/// One number format for rates and other real numbers shown to people: the shortest decimal
/// that reads back as the same `f64`, in scientific notation below `1e-4` or from `1e6` on
/// (so `1e-300` prints as `1e-300`, not as 300 digits), plain otherwise (`0.01`).
pub fn format_real(x: f64) -> String {
    let a = x.abs();
    if x == 0.0 || !x.is_finite() || (1e-4..1e6).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Checks that `p` is a usable false-positive rate: finite and strictly between 0 and 1.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `fpr` for NaN, infinities, 0, 1 and anything outside.
pub fn check_fpr(p: f64) -> Result<f64> {
    if p.is_finite() && p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(Error::InvalidParameter {
            name: "fpr",
            value: format_real(p),
            expected: "a false-positive rate strictly between 0 and 1, for example 0.01 for 1%",
        })
    }
}

/// Checks that a capacity is at least one item.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `capacity` for 0.
pub fn check_capacity(n: u64) -> Result<u64> {
    if n == 0 {
        Err(Error::InvalidParameter {
            name: "capacity",
            value: "0".into(),
            expected: "the number of items you expect to insert, at least 1",
        })
    } else {
        Ok(n)
    }
}

/// Optimal number of bits for `n` items at false-positive rate `p`:
/// `m = ceil(-n ln p / (ln 2)^2)` (Bloom 1970; see Broder & Mitzenmacher 2004, §2.1).
///
/// For n = 10,000,000 and p = 1% this is 95,850,584 bits (11.98 MB).
///
/// # Errors
/// Invalid `n` or `p`, or an `m` above 2^63 bits.
pub fn optimal_bits(n: u64, p: f64) -> Result<u64> {
    let n = check_capacity(n)?;
    let p = check_fpr(p)?;
    let m = (-(n as f64) * p.ln() / (LN_2 * LN_2)).ceil();
    // Written so that a NaN m (impossible after the checks, but cheap to guard) is refused too.
    if m.is_nan() || m >= (1u64 << 63) as f64 {
        return Err(Error::SizeOverflow {
            what: "bit array",
            hint: format!(
                "{n} items at fpr {p} need {m:.3e} bits; lower the capacity or raise the fpr"
            ),
        });
    }
    Ok((m as u64).max(1))
}

/// Optimal number of hash functions for `m` bits and `n` items: `k = max(1, round((m/n) ln 2))`,
/// at most 64 (the classic filter's limit; [`classic_shape`] refuses a rate that needs more
/// instead of capping silently).
///
/// Rounded, not truncated: for 10M items at 1% the optimum is 6.64, and `k = 7` gives a lower
/// false-positive rate than the `int()`-truncated `k = 6` of many tutorials.
pub fn optimal_hashes(m: u64, n: u64) -> u32 {
    let k = (m as f64 / n.max(1) as f64 * LN_2).round();
    k.clamp(1.0, 64.0) as u32
}

/// Most hash functions a classic (or counting) Bloom filter uses.
pub const MAX_HASHES: u32 = 64;

/// The `(m, k)` a classic or counting Bloom filter uses for `n` items at rate `p`: the fewest
/// bits `m` (with `k = round((m/n) ln 2)`, [`optimal_hashes`]) whose *exact* rate
/// [`classic_fpr_exact`] is at most `p`.
///
/// The textbook [`optimal_bits`] and [`optimal_hashes`] meet `p` only under the
/// *approximation* [`classic_fpr`], and only before `k` is rounded to an integer. The exact rate
/// is higher, by a lot for small `n` (one key in 10 bits with `k = 7` is at 1.75% for a 1%
/// target), and rounding `k` alone puts the textbook shape above its target at any `n`
/// (10.07% for a 10% target, `k = 3` for the optimum 3.32; 1.0039% at 1%). So `m` grows from
/// the textbook value until the exact rate meets the target: by a few hundredths of a percent
/// for large `n`, by much more below a few thousand keys.
///
/// # Errors
/// Invalid `n` or `p`; an `m` above 2^63 bits; and a `p` that needs more than [`MAX_HASHES`] hash
/// functions (below about `2^-64.5 ≈ 3.9e-20`), which is refused rather than capped: with
/// `k = 64` the filter would miss the target by orders of magnitude.
pub fn classic_shape(n: u64, p: f64) -> Result<(u64, u32)> {
    let m0 = optimal_bits(n, p)?;
    if (m0 as f64 / n as f64 * LN_2).round() > f64::from(MAX_HASHES) {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: format_real(p),
            expected: "a rate a Bloom filter reaches with at most 64 hash functions (about \
                       4e-20 or above); use a larger rate, or a cuckoo filter with wide \
                       fingerprints",
        });
    }
    let meets = |m: u64| classic_fpr_best(m, n, optimal_hashes(m, n)) <= p;
    if meets(m0) {
        return Ok((m0, optimal_hashes(m0, n)));
    }
    let overflow = || Error::SizeOverflow {
        what: "bit array",
        hint: format!("{n} items at fpr {}", format_real(p)),
    };
    // Start where the approximation with the rounded k meets p, `m = -kn / ln(1 - p^(1/k))`:
    // for large n the answer lies within a few bits of it, so the search below takes a few
    // steps rather than one per doubling from m0.
    let k0 = optimal_hashes(m0, n);
    let guess = -f64::from(k0) * n as f64 / (-(p.ln() / f64::from(k0)).exp()).ln_1p();
    let start = if guess.is_finite() && guess < (1u64 << 63) as f64 {
        (guess.ceil() as u64).max(m0 + 1)
    } else {
        m0 + 1
    };
    // The least m above m0 (which misses) that meets p; sizes from 2^63 bits up overflow.
    let m = search::least(start, (m0, (1u64 << 63) - 1), meets).ok_or_else(overflow)?;
    Ok((m, optimal_hashes(m, n)))
}

/// The standard approximation of a classic Bloom filter's false-positive rate after `n` inserts
/// into `m` bits with `k` hashes: `p ≈ (1 - e^(-kn/m))^k` (Bloom 1970; Broder & Mitzenmacher 2004).
///
/// Evaluated as `(-expm1(-kn/m))^k`, which keeps full relative precision for any fill, however
/// small (`1 - e^(-x)` would cancel); the result underflows only below `f64`'s range.
/// It slightly *under*-estimates the true rate when `m` is small; see [`classic_fpr_exact`].
pub fn classic_fpr(m: u64, n: u64, k: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let fill = -(-(k as f64) * n as f64 / m as f64).exp_m1();
    fill.powi(k as i32)
}

/// Largest `k` for which [`classic_fpr_exact`] is computed (the filters' own limit,
/// [`MAX_HASHES`]).
pub const EXACT_FPR_MAX_HASHES: u32 = MAX_HASHES;

/// The exact false-positive rate of a classic Bloom filter (Christensen, Roginsky & Jimeno 2010,
/// "A new analysis of the false positive rate of a Bloom filter"), in the model where each of the
/// `kn` insert positions and the `k` query positions is uniform and independent:
///
/// ```text
/// p = m^-(k(n+1)) · Σ_{i=1..m} i^k · i! · C(m, i) · S(kn, i)
/// ```
///
/// with `S` the Stirling numbers of the second kind. That sum runs over `m` terms with huge
/// intermediate numbers; this function evaluates the same probability in `O(k²)` terms by
/// conditioning on the number `d` of *distinct* query positions instead:
///
/// ```text
/// p = Σ_{d=1..k} P(d distinct) · P(d given bits all set)
///   = Σ_{d=1..k} S(k, d) · (m)_d / m^k · A_d
/// ```
///
/// (`(m)_d` the falling factorial). `A_d`, the probability that `d` given bits are all set, is
/// the inclusion–exclusion sum `Σ_{i=0..d} (-1)^i C(d, i) (1 - i/m)^(kn)` only where that sum is
/// well conditioned (the bits mostly set); below, where it cancels catastrophically (a filter
/// sized for 1M keys at 1e-6, `k = 20`, holding 100k keys: true 3.5e-24, the alternating sum in
/// `f64` gives 1e-68), it is a positive sum over the number of draws that land among the `d`
/// bits; the terms are carried as logarithms. Relative error below `1e-12` wherever the result is
/// a normal `f64` (checked against 60-digit values in `tests/`), in at most a few tens of
/// thousands of operations.
///
/// It is slightly *higher* than the approximation [`classic_fpr`], noticeably so for small `m`.
/// A rate below `f64`'s smallest normal number (2.2e-308) comes back subnormal or 0:
/// [`classic_fpr_exact_ln`] gives its natural logarithm, which stays finite.
///
/// Returns `None` for `k = 0` or `k >` [`EXACT_FPR_MAX_HASHES`], or `m = 0`.
pub fn classic_fpr_exact(m: u64, n: u64, k: u32) -> Option<f64> {
    classic_fpr_exact_ln(m, n, k).map(|ln| ln.exp().min(1.0))
}

/// The natural logarithm of [`classic_fpr_exact`], finite for rates far below `f64`'s range
/// (`-inf` only for `n = 0`, where the rate is 0).
///
/// Returns `None` for `k = 0` or `k >` [`EXACT_FPR_MAX_HASHES`], or `m = 0`.
pub fn classic_fpr_exact_ln(m: u64, n: u64, k: u32) -> Option<f64> {
    if k == 0 || k > EXACT_FPR_MAX_HASHES || m == 0 {
        return None;
    }
    if n == 0 {
        return Some(f64::NEG_INFINITY);
    }
    let draws = n as f64 * f64::from(k);
    Some(exact::ln_classic_exact(m, draws, k as usize).min(0.0))
}

/// The exact rate where defined (`1 <= k <= 64`), the approximation otherwise.
pub fn classic_fpr_best(m: u64, n: u64, k: u32) -> f64 {
    classic_fpr_exact(m, n, k).unwrap_or_else(|| classic_fpr(m, n, k))
}

/// Upper bound on the probability that any of `m` counters of a counting Bloom filter reaches
/// `2^counter_bits` (overflows) after `n` inserts with `k` hashes (Fan, Cao, Almeida & Broder 2000,
/// "Summary Cache", §5.2):
///
/// ```text
/// P(max counter >= j) <= m · C(nk, j) · m^-j  <=  m · (e·n·k / (j·m))^j,   j = 2^counter_bits
/// ```
///
/// With the optimal `k = (m/n) ln 2` and 4-bit counters (`j = 16`) the right side is
/// `m · (e ln 2 / 16)^16 ≈ 1.37e-15 · m`. This function returns the tighter binomial form.
pub fn counting_overflow_bound(m: u64, n: u64, k: u32, counter_bits: u32) -> f64 {
    let j = 1u64 << counter_bits.min(20);
    let draws = n as f64 * f64::from(k);
    if draws < j as f64 {
        return 0.0;
    }
    // C(nk, j) / m^j as a product of j factors, in log space to avoid overflow.
    let mut log = (m as f64).ln();
    for i in 0..j {
        log += ((draws - i as f64) / ((i + 1) as f64 * m as f64)).ln();
    }
    log.exp().min(1.0)
}

/// First-stage false-positive rate of a scalable Bloom filter with target `p` and tightening
/// ratio `r`: `P0 = P·(1 - r)` (Almeida, Baquero, Preguiça & Hutchison 2007, §4).
pub fn scalable_initial_fpr(p: f64, r: f64) -> f64 {
    p * (1.0 - r)
}

/// False-positive rate of stage `i` (from 0) of a scalable Bloom filter: `P0 · r^i`.
pub fn scalable_stage_fpr(p0: f64, r: f64, i: u32) -> f64 {
    p0 * r.powi(i as i32)
}

/// Bound on the compound false-positive rate of a scalable Bloom filter with any number of stages:
/// `P <= Σ P0·r^i = P0 / (1 - r)` (Almeida et al. 2007, eq. 3).
pub fn scalable_fpr_bound(p0: f64, r: f64) -> f64 {
    p0 / (1.0 - r)
}

/// Compound false-positive rate of independent filters queried in turn: `1 - Π (1 - p_i)`.
///
/// Evaluated as `-expm1(Σ ln_1p(-p_i))`: stages far below `1e-16` would vanish in `1 - p_i`
/// and leave 0; this form keeps full relative precision (error below `(stages + 2)·1.1e-16`).
pub fn compound_fpr(stage_fprs: impl IntoIterator<Item = f64>) -> f64 {
    let ln_pass: f64 = stage_fprs.into_iter().map(|p| (-p).ln_1p()).sum();
    -ln_pass.exp_m1()
}

/// Fingerprint bits a cuckoo filter with `b`-slot buckets needs so that its false-positive rate
/// stays at or below `p` even at full load: `f = ceil(log2(2b / p))` (Fan, Andersen, Kaminsky &
/// Mitzenmacher 2014, §5.1).
///
/// # Errors
/// Invalid `p`.
pub fn cuckoo_fingerprint_bits(p: f64, b: u32) -> Result<u32> {
    let p = check_fpr(p)?;
    // log2(2b) - log2(p), not log2(2b/p): the quotient overflows for subnormal p.
    Ok(((2.0 * f64::from(b)).log2() - p.log2()).ceil().max(1.0) as u32)
}

/// Number of values a stored fingerprint takes: `2^f - 1` (0 marks an empty slot).
fn fingerprint_values(f: u32) -> f64 {
    2f64.powi(f as i32) - 1.0
}

/// The textbook *upper bound* on a cuckoo filter's false-positive rate with `f`-bit fingerprints,
/// `b`-slot buckets and load factor `α` (Fan et al. 2014, §5.1, with `2^f - 1` fingerprint values
/// since filterlab reserves 0 for an empty slot):
///
/// ```text
/// p <= 1 - (1 - 1/(2^f - 1))^(2b·α)
/// ```
///
/// It treats each of the `2b·α` occupied slots of the two buckets as an independent trial that
/// matches with probability `1/(2^f - 1)`. Its mean number of matches, `2b·α/(2^f - 1)`, is the
/// true one; but a stored fingerprint can match only if its key shares the query's *bucket
/// pair* (see [`cuckoo_fpr_exact`]), so the matches really come from all `n` stored keys, each
/// with the tiny probability `2/(B·(2^f - 1))`: the same mean over many more, rarer trials, a
/// count that is zero more often (`e^(-x·k) > (1 - x)^k`). So the true rate is lower: at
/// `f = 4` this bound is 40.8% against a true 39.75%. Kept as the named bound the paper states.
pub fn cuckoo_fpr_upper_bound(f: u32, b: u32, load: f64) -> f64 {
    let slots = 2.0 * f64::from(b) * load.clamp(0.0, 1.0);
    -(slots * (-1.0 / fingerprint_values(f)).ln_1p()).exp_m1()
}

/// False-positive rate of this library's cuckoo filter with `f`-bit fingerprints and `b`-slot
/// buckets at load factor `α`, in the limit of a large table ([`cuckoo_fpr_exact`] with
/// `B → ∞` buckets at `n = α·b·B` items):
///
/// ```text
/// p = 1 - e^(-2b·α / (2^f - 1))   ≈   2b·α / 2^f
/// ```
///
/// 39.75% at `f = 4`, `b = 4`, `α = 0.95`, 11.364% at `f = 6`; the textbook form is
/// [`cuckoo_fpr_upper_bound`]. Evaluated with `expm1`, so full relative precision at any rate.
pub fn cuckoo_fpr(f: u32, b: u32, load: f64) -> f64 {
    let slots = 2.0 * f64::from(b) * load.clamp(0.0, 1.0);
    -(-slots / fingerprint_values(f)).exp_m1()
}

/// The false-positive rate of this library's cuckoo filter with `f`-bit fingerprints, `buckets`
/// buckets of `b` slots and `items` stored keys (`filter_cuckoo`'s scheme), exactly:
///
/// ```text
/// p = (1 - 1/B) · (1 - (1 - 2/(B·V))^n)  +  (1/B) · (1 - (1 - 1/(B·V))^n),   V = 2^f - 1
/// ```
///
/// Derivation. A key's fingerprint `v` is uniform on `1..=V` (from the hash's high half) and its
/// primary bucket `i` uniform on `0..B` (from the low half), independently; its other bucket is
/// `alt(i, v) = (h(v) - i) mod B` with `h(v) = reduce(mix(v), B)`, an involution, so the key's
/// bucket *pair* is `{i, h(v) - i}`, and wherever evictions moved it, the key sits in one of
/// the two. A query with `(i, v)` reads buckets `i` and `h(v) - i` and reports a false positive
/// iff some stored key has the same fingerprint `v` and sits in one of them. A stored key with
/// fingerprint `v` in bucket `i` or `h(v) - i` has pair `{i, h(v) - i}`, the query's pair: so a
/// match needs the same fingerprint (probability `1/V`) *and* the same pair, that is a primary
/// bucket in `{i, h(v) - i}` (probability `2/B`, or `1/B` when the pair is one bucket,
/// `2i = h(v) mod B`). The `n` stored keys are independent, hence the two terms above, the
/// second for self-paired buckets (a share of `1/B`, exactly for odd `B`; for even `B` it is
/// `1/B` on average over fingerprint values, and a different share moves the result by less than
/// `p/B`). With `n = α·b·B` and `B` large this is `1 - e^(-2b·α/V)` ([`cuckoo_fpr`]).
///
/// The textbook [`cuckoo_fpr_upper_bound`] has the same mean number of matches, `2b·α/V`, but
/// draws it from the `2b·α` occupied slots of the two buckets as trials of `1/V` each, where it
/// comes from `n` keys of `2/(B·V)` each: fewer, likelier trials, which leave no match less
/// often, so that form is an upper bound on this one.
/// Evaluated with `ln_1p`/`expm1`: full relative precision for any `f` up to 64.
pub fn cuckoo_fpr_exact(f: u32, b: u32, buckets: u64, items: u64) -> f64 {
    let _ = b; // the slots per bucket bound the load, not the rate at a given load
    if items == 0 || buckets == 0 {
        return 0.0;
    }
    let (bf, values, n) = (buckets as f64, fingerprint_values(f), items as f64);
    let miss = |pair_buckets: f64| -(n * (-pair_buckets / (bf * values)).ln_1p()).exp_m1();
    if buckets == 1 {
        return miss(1.0); // the one bucket is its own pair
    }
    let self_paired = 1.0 / bf;
    (1.0 - self_paired) * miss(2.0) + self_paired * miss(1.0)
}

/// Bits per item of a cuckoo filter with `f`-bit fingerprints at load `α`: `f / α`
/// (Fan et al. 2014, §5.2: `C <= (log2(1/ε) + log2(2b)) / α`).
pub fn cuckoo_bits_per_item(f: u32, load: f64) -> f64 {
    f64::from(f) / load
}

/// False-positive rate of a split-block Bloom filter (the layout of Parquet and Impala: 256-bit
/// blocks of eight 32-bit lanes, one bit set per lane per key) with `blocks` blocks after `n`
/// inserts.
///
/// A block's load `c` is Poisson with mean `λ = n / blocks` (Putze, Sanders & Singler 2007,
/// "Cache-, hash- and space-efficient Bloom filters", §3). Within a block each key sets one bit in
/// each lane, so a lane bit is set with probability `1 - (1 - 1/32)^c` and a negative query, which
/// tests one bit per lane, passes all eight with
///
/// ```text
/// p = Σ_c Pois(c; λ) · (1 - (31/32)^c)^8
/// ```
///
/// This *per-lane* formula is the right one: treating the block as a 256-bit Bloom filter with
/// k = 8, `Σ_c Pois(c; λ) (1 - (1 - 1/256)^(8c))^8`, ignores that the eight bits of one key are
/// confined to distinct lanes and underestimates the rate
/// ([`split_block_fpr_block_model`], kept for comparison).
pub fn split_block_fpr(blocks: u64, n: u64) -> f64 {
    split_block_fpr_at_load(n as f64 / blocks.max(1) as f64)
}

/// The 256-bit-block model of a split-block filter, which underestimates its rate; see
/// [`split_block_fpr`].
pub fn split_block_fpr_block_model(blocks: u64, n: u64) -> f64 {
    poisson_fill8(
        n as f64 / blocks.max(1) as f64,
        8.0 * (-1.0f64 / 256.0).ln_1p(),
    )
}

/// Up to this mean the split-block rates are summed term by term; above it they use the closed
/// form. The sum then takes at most a few hundred terms, whatever the load.
pub const POISSON_SUM_MAX_LAMBDA: f64 = 64.0;

/// `Σ_c Pois(c; λ) (1 - q^c)^8` with `ln_q = ln q`, in bounded time for every `λ`.
///
/// Expanding the eighth power and using `E[q^(jc)] = e^(-λ(1 - q^j))` for a Poisson `c` gives the
/// closed form `Σ_{j=0..8} C(8, j) (-1)^j e^(-λ(1 - q^j))`. It is exact, but its nine terms
/// (each up to 70 in size) cancel down to the result, so it loses about `256 · 2^-53 ≈ 3e-14` in
/// absolute terms: used above [`POISSON_SUM_MAX_LAMBDA`], where the rate is above 0.3 and the
/// relative error below 1e-13. Below it the series is summed from the mode outwards until the
/// Poisson terms fall under 1e-20 of the running total past `λ + 10` (the neglected tails, which
/// decay geometrically there, are below 1e-17 of the result, however small the result is).
fn poisson_fill8(lambda: f64, ln_q: f64) -> f64 {
    if lambda.is_nan() || lambda <= 0.0 {
        return 0.0;
    }
    if lambda <= POISSON_SUM_MAX_LAMBDA {
        return poisson_mix(lambda, |c| (-(c * ln_q).exp_m1()).powi(8));
    }
    poisson_fill8_closed(lambda, ln_q)
}

/// The closed form of [`poisson_fill8`].
fn poisson_fill8_closed(lambda: f64, ln_q: f64) -> f64 {
    let mut binom = 1.0;
    let mut total = 0.0;
    for j in 0..=8u32 {
        let term = binom * (lambda * (f64::from(j) * ln_q).exp_m1()).exp();
        total += if j % 2 == 0 { term } else { -term };
        binom = binom * f64::from(8 - j) / f64::from(j + 1);
    }
    total.clamp(0.0, 1.0)
}

/// `Σ_c Pois(c; λ) f(c)`, summed from the mode outwards until the terms vanish. Only called
/// with `λ <=` [`POISSON_SUM_MAX_LAMBDA`], so it takes a bounded number of steps.
fn poisson_mix(lambda: f64, f: impl Fn(f64) -> f64) -> f64 {
    debug_assert!(lambda > 0.0 && lambda <= POISSON_SUM_MAX_LAMBDA);
    let mode = lambda.floor();
    // ln Pois(mode; λ) = mode ln λ - λ - ln(mode!)
    let ln_fact: f64 = (1..=mode as u64).map(|i| (i as f64).ln()).sum();
    let at_mode = (mode * lambda.ln() - lambda - ln_fact).exp();
    let mut total = at_mode * f(mode);
    let mut pmf = at_mode;
    let mut c = mode;
    // Relative stops: the rate can be far below 1e-18 (a thousand blocks per key).
    while pmf > 1e-20 * total || c < lambda + 10.0 {
        c += 1.0;
        pmf *= lambda / c;
        total += pmf * f(c);
    }
    let (mut pmf, mut c) = (at_mode, mode);
    while c > 0.0 && (pmf > 1e-20 * total || total == 0.0) {
        pmf *= c / lambda;
        c -= 1.0;
        total += pmf * f(c);
    }
    total
}

/// Fewest keys per block [`split_block_keys_per_block`] considers: a thousand blocks (256,000
/// bits) per key. Its rate, about 9e-16, is the smallest target a split-block filter accepts.
pub const SPLIT_BLOCK_MIN_KEYS_PER_BLOCK: f64 = 1e-3;

/// The rate of a split-block filter at a mean load of `lambda` keys per block
/// ([`split_block_fpr`] with `λ = n / blocks`, for any real `λ`).
pub fn split_block_fpr_at_load(lambda: f64) -> f64 {
    poisson_fill8(lambda, (-1.0f64 / 32.0).ln_1p())
}

/// Keys per block at which a split-block filter reaches rate `p` ([`split_block_fpr_at_load`]),
/// by bisection: the largest `λ` found whose rate is at most `p`. [`split_block_blocks`]
/// sizes `blocks = max(1, ceil(n / λ))` from it.
///
/// # Errors
/// Invalid `p`, or a `p` below the rate at [`SPLIT_BLOCK_MIN_KEYS_PER_BLOCK`] keys per block,
/// which no sensible split-block filter reaches (a classic filter does).
pub fn split_block_keys_per_block(p: f64) -> Result<f64> {
    let p = check_fpr(p)?;
    // The rate at λ itself, not at λ rounded to a millionth: a λ checked at its rounded value
    // and used as it is put the filter above its target (1.0000013e-9 for 10^10 keys at 1e-9).
    let rate = split_block_fpr_at_load;
    let (mut lo, mut hi) = (SPLIT_BLOCK_MIN_KEYS_PER_BLOCK, 1024.0f64);
    if rate(lo) > p {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: format_real(p),
            expected: "a rate a split-block filter can reach (above about 1e-15); use a classic \
                       filter for smaller ones",
        });
    }
    for _ in 0..100 {
        let mid = (lo * hi).sqrt();
        if rate(mid) > p {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(lo)
}

/// Blocks of a split-block filter for `n` keys at rate `p`: `max(1, ceil(n / λ))` with `λ` from
/// [`split_block_keys_per_block`], and one more block while the rate of the blocks found,
/// [`split_block_fpr`]`(blocks, n)`, is above `p` (rounding `n / λ` in floating point can put
/// it a hair above). Every sizing of a split-block filter (the builder, the facade's registry,
/// the harness) calls this one function, so they agree block for block, and the expected rate
/// of what is built never exceeds `p`.
///
/// `n = 0` gives one block, the smallest table; a capacity check, where one is wanted, is the
/// caller's ([`check_capacity`]).
///
/// # Errors
/// Invalid or unreachable `p` (as [`split_block_keys_per_block`]), or a count of 2^64 blocks or
/// more ([`Error::SizeOverflow`]), which only a huge `n` at a tiny `p` asks for.
pub fn split_block_blocks(n: u64, p: f64) -> Result<u64> {
    let lambda = split_block_keys_per_block(p)?;
    let blocks = (n as f64 / lambda).ceil().max(1.0);
    let overflow = || Error::SizeOverflow {
        what: "block array",
        hint: format!(
            "{n} items at fpr {p} need {blocks:.3e} blocks; lower the capacity or raise the fpr"
        ),
    };
    // 2^64 is exactly representable; every f64 below it converts without saturating.
    if blocks >= 18_446_744_073_709_551_616.0 {
        return Err(overflow());
    }
    let mut blocks = blocks as u64;
    // A few steps at most: each block lowers λ by λ / blocks.
    while split_block_fpr(blocks, n) > p {
        blocks = blocks.checked_add(1).ok_or_else(overflow)?;
    }
    Ok(blocks)
}

/// The information-theoretic lower bound on the bits any approximate-membership structure needs
/// for `n` items at false-positive rate `p`: `n · log2(1/p)` (Carter, Floyd, Gill, Markowsky &
/// Wegman 1978; Broder & Mitzenmacher 2004, §2.2). A Bloom filter needs `1.44×` this.
pub fn lower_bound_bits(n: u64, p: f64) -> f64 {
    -(n as f64) * p.log2()
}

/// Standard deviation of the measured rate of `trials` Bernoulli(`p`) trials: `sqrt(p(1-p)/N)`.
/// Statistical tests accept a measurement within a few of these of the formula.
pub fn binomial_sigma(p: f64, trials: u64) -> f64 {
    (p * (1.0 - p) / trials as f64).sqrt()
}

/// Wilson score interval for `successes` out of `trials` at normal quantile `z` (1.96 for 95%).
/// Unlike the normal approximation it stays inside `[0, 1]` and is sound for very small rates.
pub fn wilson_interval(successes: u64, trials: u64, z: f64) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let phat = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (phat + z2 / (2.0 * n)) / denom;
    let half = z * (phat * (1.0 - phat) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    // centre - half cancels for few successes: (C - H)(C + H) = phat²·denom with C, H the
    // undivided centre and half, so the lower end is phat² / (C + H), with no subtraction.
    let lower = phat * phat / ((centre + half) * denom);
    (lower.max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests;
