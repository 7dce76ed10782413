//! The formulas, with their sources. Every variant sizes itself and predicts its false-positive
//! rate with these functions; the harness compares them with measurement.
//!
//! Notation: `n` items, `m` bits (or counters, or slots), `k` hash functions, `p` (or ε) the
//! false-positive rate, `b` slots per cuckoo bucket, `f` fingerprint bits, `α` load factor.

use crate::{Error, Result};
use std::f64::consts::LN_2;

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
            value: format!("{p}"),
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

/// Optimal number of hash functions for `m` bits and `n` items: `k = max(1, round((m/n) ln 2))`.
///
/// Rounded, not truncated: for 10M items at 1% the optimum is 6.64, and `k = 7` gives a lower
/// false-positive rate than the `int()`-truncated `k = 6` of many tutorials.
pub fn optimal_hashes(m: u64, n: u64) -> u32 {
    let k = (m as f64 / n.max(1) as f64 * LN_2).round();
    k.clamp(1.0, 64.0) as u32
}

/// The standard approximation of a classic Bloom filter's false-positive rate after `n` inserts
/// into `m` bits with `k` hashes: `p ≈ (1 - e^(-kn/m))^k` (Bloom 1970; Broder & Mitzenmacher 2004).
///
/// It slightly *under*-estimates the true rate when `m` is small; see [`classic_fpr_exact`].
pub fn classic_fpr(m: u64, n: u64, k: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let fill = -(-(k as f64) * n as f64 / m as f64).exp_m1();
    fill.powi(k as i32)
}

/// Largest `k` for which [`classic_fpr_exact`] is computed; beyond it the alternating sum would
/// lose too many digits in `f64`.
pub const EXACT_FPR_MAX_HASHES: u32 = 24;

/// The exact false-positive rate of a classic Bloom filter (Christensen, Roginsky & Jimeno 2010,
/// "A new analysis of the false positive rate of a Bloom filter"), in the model where each of the
/// `kn` insert positions and the `k` query positions is uniform and independent:
///
/// ```text
/// p = m^-(k(n+1)) · Σ_{i=1..m} i^k · i! · C(m, i) · S(kn, i)
/// ```
///
/// with `S` the Stirling numbers of the second kind. That sum runs over `m` terms with huge
/// intermediate numbers; this function evaluates the same probability in `O(k²)` operations by
/// conditioning on the number `d` of *distinct* query positions instead:
///
/// ```text
/// p = Σ_{d=1..k} P(d distinct) · P(d given bits all set)
///   = Σ_{d=1..k} S(k, d) · (m)_d / m^k · Σ_{i=0..d} (-1)^i C(d, i) (1 - i/m)^(kn)
/// ```
///
/// (`(m)_d` the falling factorial; the inner sum is inclusion–exclusion over the `d` bits). It is
/// slightly *higher* than the approximation [`classic_fpr`], noticeably so for small `m`.
///
/// Returns `None` for `k >` [`EXACT_FPR_MAX_HASHES`].
pub fn classic_fpr_exact(m: u64, n: u64, k: u32) -> Option<f64> {
    if k > EXACT_FPR_MAX_HASHES || m == 0 {
        return None;
    }
    if n == 0 {
        return Some(0.0);
    }
    let k = k as usize;
    let mf = m as f64;
    let draws = n as f64 * k as f64;
    // Stirling numbers of the second kind S(k, d) by the recurrence S(j, d) = d S(j-1, d) + S(j-1, d-1).
    let mut stirling = vec![0.0f64; k + 1];
    stirling[0] = 1.0;
    for j in 1..=k {
        for d in (1..=j).rev() {
            stirling[d] = d as f64 * stirling[d] + stirling[d - 1];
        }
        stirling[0] = 0.0;
    }
    let mut p = 0.0;
    let mut falling = 1.0; // (m)_d / m^d
    for (d, &s) in stirling.iter().enumerate().skip(1) {
        falling *= 1.0 - (d - 1) as f64 / mf;
        if falling <= 0.0 {
            break; // more distinct positions than bits
        }
        let p_distinct = s * falling * mf.powi(d as i32 - k as i32);
        let mut all_set = 0.0;
        let mut binom = 1.0;
        for i in 0..=d {
            let miss_all = if i as f64 >= mf {
                0.0
            } else {
                (draws * (-(i as f64) / mf).ln_1p()).exp()
            };
            all_set += if i % 2 == 0 { binom } else { -binom } * miss_all;
            binom = binom * (d - i) as f64 / (i + 1) as f64;
        }
        p += p_distinct * all_set.max(0.0);
    }
    Some(p.clamp(0.0, 1.0))
}

/// The exact rate where defined (`k <= 24`), the approximation otherwise.
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
pub fn compound_fpr(stage_fprs: impl IntoIterator<Item = f64>) -> f64 {
    1.0 - stage_fprs.into_iter().map(|p| 1.0 - p).product::<f64>()
}

/// Fingerprint bits a cuckoo filter with `b`-slot buckets needs so that its false-positive rate
/// stays at or below `p` even at full load: `f = ceil(log2(2b / p))` (Fan, Andersen, Kaminsky &
/// Mitzenmacher 2014, §5.1).
///
/// # Errors
/// Invalid `p`.
pub fn cuckoo_fingerprint_bits(p: f64, b: u32) -> Result<u32> {
    let p = check_fpr(p)?;
    Ok((2.0 * f64::from(b) / p).log2().ceil().max(1.0) as u32)
}

/// False-positive rate of a cuckoo filter with `f`-bit fingerprints, `b`-slot buckets and load
/// factor `α`: a negative lookup compares against the `2b·α` occupied slots of two buckets on
/// average, each matching with probability `1/(2^f - 1)` (Fan et al. 2014, §5.1):
///
/// ```text
/// p = 1 - (1 - 1/(2^f - 1))^(2b·α)   ≈   2b·α / 2^f
/// ```
///
/// The paper writes `2^-f`; filterlab reserves the all-zero fingerprint for an empty slot, so a
/// stored fingerprint takes one of `2^f - 1` values and this is the exact per-slot match rate.
pub fn cuckoo_fpr(f: u32, b: u32, load: f64) -> f64 {
    let values = 2f64.powi(f as i32) - 1.0;
    let slots = 2.0 * f64::from(b) * load.clamp(0.0, 1.0);
    -(slots * (-1.0 / values).ln_1p()).exp_m1()
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
    poisson_fill8(n as f64 / blocks.max(1) as f64, (-1.0f64 / 32.0).ln_1p())
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
/// Poisson terms fall under 1e-18 (the neglected tail is below 1e-16 in absolute terms).
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
    while pmf > 1e-18 || c < lambda + 10.0 {
        c += 1.0;
        pmf *= lambda / c;
        total += pmf * f(c);
    }
    let (mut pmf, mut c) = (at_mode, mode);
    while c > 0.0 && pmf > 1e-18 {
        pmf *= c / lambda;
        c -= 1.0;
        total += pmf * f(c);
    }
    total
}

/// Fewest keys per block [`split_block_keys_per_block`] considers: a thousand blocks (256,000
/// bits) per key. Its rate, about 9e-16, is the smallest target a split-block filter accepts.
pub const SPLIT_BLOCK_MIN_KEYS_PER_BLOCK: f64 = 1e-3;

/// Keys per block at which a split-block filter reaches rate `p` ([`split_block_fpr`]), by
/// bisection; the builder sizes `blocks = ceil(n / λ)`.
///
/// # Errors
/// Invalid `p`, or a `p` below the rate at [`SPLIT_BLOCK_MIN_KEYS_PER_BLOCK`] keys per block,
/// which no sensible split-block filter reaches (a classic filter does).
pub fn split_block_keys_per_block(p: f64) -> Result<f64> {
    let p = check_fpr(p)?;
    let rate = |lambda: f64| split_block_fpr(1_000_000, (lambda * 1e6) as u64);
    let (mut lo, mut hi) = (SPLIT_BLOCK_MIN_KEYS_PER_BLOCK, 1024.0f64);
    if rate(lo) > p {
        return Err(Error::InvalidParameter {
            name: "fpr",
            value: format!("{p}"),
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

/// The information-theoretic lower bound on the bits any approximate-membership structure needs
/// for `n` items at false-positive rate `p`: `n · log2(1/p)` (Carter, Floyd, Gill, Markowsky &
/// Wegman 1978; Broder & Mitzenmacher 2004, §2.2). A Bloom filter needs `1.44×` this.
pub fn lower_bound_bits(n: u64, p: f64) -> f64 {
    n as f64 * (1.0 / p).log2()
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
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(f64::MIN_POSITIVE)
    }

    #[test]
    fn ten_million_at_one_percent() {
        let m = optimal_bits(10_000_000, 0.01).unwrap();
        assert_eq!(m, 95_850_584);
        assert_eq!(m.div_ceil(8), 11_981_323); // 11.98 MB
        assert_eq!(optimal_hashes(m, 10_000_000), 7);
    }

    #[test]
    fn one_million_at_one_percent_matches_the_articles() {
        // The second article's explicit m = 9,585,059 for n = 1M, p = 1%.
        assert_eq!(optimal_bits(1_000_000, 0.01).unwrap(), 9_585_059);
        // 0.1% and 0.01% for 10M items: 17.97 MB and 23.96 MB.
        assert_eq!(
            optimal_bits(10_000_000, 0.001).unwrap().div_ceil(8),
            17_971_985
        );
        assert_eq!(
            optimal_bits(10_000_000, 0.0001).unwrap().div_ceil(8),
            23_962_646
        );
    }

    #[test]
    fn hashes_round_not_truncate() {
        // (m/n) ln 2 = 6.64 for p = 1%: rounding gives 7, int() would give 6.
        assert_eq!(optimal_hashes(9_585_059, 1_000_000), 7);
        assert_eq!(optimal_hashes(1, 1_000_000), 1);
        assert_eq!(optimal_hashes(100, 100), 1); // 0.69 rounds to 1
        assert_eq!(optimal_hashes(300, 100), 2); // 2.08
    }

    #[test]
    fn bad_parameters_are_rejected() {
        for p in [
            0.0,
            1.0,
            -0.1,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let e = optimal_bits(10, p).unwrap_err();
            assert!(
                matches!(e, Error::InvalidParameter { name: "fpr", .. }),
                "{p}: {e}"
            );
        }
        assert!(matches!(
            optimal_bits(0, 0.01),
            Err(Error::InvalidParameter {
                name: "capacity",
                ..
            })
        ));
        assert!(matches!(
            optimal_bits(u64::MAX, 1e-300),
            Err(Error::SizeOverflow { .. })
        ));
    }

    #[test]
    fn classic_approximation_hand_values() {
        // m/n = 9.585, k = 7: (1 - e^(-7/9.5850584))^7 = 0.0100392
        let p = classic_fpr(95_850_584, 10_000_000, 7);
        assert!(close(p, 0.010_039_2, 1e-5), "{p}");
        // m = 2, n = 1, k = 1: 1 - e^(-1/2) = 0.393469
        assert!(close(classic_fpr(2, 1, 1), 0.393_469_340_3, 1e-9));
        assert_eq!(classic_fpr(100, 0, 3), 0.0);
    }

    #[test]
    fn classic_exact_hand_values() {
        // m = 2, n = 1, k = 1: exactly one bit set, so p = 1/2 (the approximation says 0.39).
        assert!(close(classic_fpr_exact(2, 1, 1).unwrap(), 0.5, 1e-12));
        // m = 2, n = 1, k = 2: X = 1 w.p. 1/2 (p = 1/4), X = 2 w.p. 1/2 (p = 1): 0.625.
        assert!(close(classic_fpr_exact(2, 1, 2).unwrap(), 0.625, 1e-12));
        // m = 4, n = 2, k = 1: X after 2 draws is 1 w.p. 1/4, 2 w.p. 3/4:
        // E[X/4] = 1/16 + 6/16 = 7/16.
        assert!(close(
            classic_fpr_exact(4, 2, 1).unwrap(),
            7.0 / 16.0,
            1e-12
        ));
        // Christensen's formula with Stirling numbers for m = 3, n = 2, k = 2 (4 draws):
        // S(4,1) = 1, S(4,2) = 7, S(4,3) = 6;
        // p = 3^-6 (1*1*3*1 + 4*2*3*7 + 9*6*1*6) = (3 + 168 + 324) / 729 = 495/729.
        assert!(close(
            classic_fpr_exact(3, 2, 2).unwrap(),
            495.0 / 729.0,
            1e-12
        ));
    }

    /// The distribution of the number of set bits after `kn` uniform draws, by the recurrence
    /// P(X grows) = (m - X)/m; then E[(X/m)^k]. Slow but obviously right: the oracle.
    fn exact_by_occupancy(m: u64, n: u64, k: u32) -> f64 {
        let (m_us, mf) = (m as usize, m as f64);
        let mut dist = vec![0.0f64; m_us + 1];
        dist[0] = 1.0;
        for t in 0..u64::from(k) * n {
            for j in (1..=(t as usize + 1).min(m_us)).rev() {
                dist[j] = dist[j] * (j as f64 / mf) + dist[j - 1] * ((mf - (j - 1) as f64) / mf);
            }
            dist[0] = 0.0;
        }
        dist.iter()
            .enumerate()
            .map(|(j, &pj)| pj * (j as f64 / mf).powi(k as i32))
            .sum()
    }

    #[test]
    fn exact_closed_form_matches_the_occupancy_oracle() {
        for m in [1u64, 2, 3, 5, 16, 64, 200] {
            for n in [1u64, 2, 5, 20] {
                for k in [1u32, 2, 3, 7, 13] {
                    let fast = classic_fpr_exact(m, n, k).unwrap();
                    let slow = exact_by_occupancy(m, n, k);
                    assert!(
                        (fast - slow).abs() < 1e-10,
                        "m {m} n {n} k {k}: {fast} vs {slow}"
                    );
                }
            }
        }
    }

    #[test]
    fn exact_exceeds_approximation_and_converges() {
        for (m, n, k) in [(64, 8, 5), (1000, 100, 7), (10_000, 1000, 7)] {
            let exact = classic_fpr_exact(m, n, k).unwrap();
            let approx = classic_fpr(m, n, k);
            assert!(exact >= approx, "{m} {n} {k}: {exact} < {approx}");
        }
        // At 10M items the two agree to better than 1e-6 relative.
        let exact = classic_fpr_exact(95_850_584, 10_000_000, 7).unwrap();
        assert!(
            close(exact, classic_fpr(95_850_584, 10_000_000, 7), 1e-6),
            "{exact}"
        );
        assert_eq!(classic_fpr_exact(1000, 10, 25), None);
    }

    #[test]
    fn counting_overflow_is_negligible_at_4_bits() {
        let m = 95_850_584;
        let b = counting_overflow_bound(m, 10_000_000, 7, 4);
        // Fan et al.'s closed form m (e ln2 / 16)^16 = 1.37e-15 m is an upper bound on this.
        let closed = m as f64 * (std::f64::consts::E * LN_2 / 16.0).powi(16);
        assert!(b > 0.0 && b <= closed, "{b} vs {closed}");
        assert!(close(closed / m as f64, 1.37e-15, 0.01));
        // Overfill heavily and the bound approaches certainty.
        assert!(counting_overflow_bound(1000, 10_000, 7, 4) > 0.5);
        assert_eq!(counting_overflow_bound(1000, 1, 7, 4), 0.0);
    }

    #[test]
    fn scalable_bound_hand_values() {
        let p0 = scalable_initial_fpr(0.01, 0.9);
        assert!(close(p0, 0.001, 1e-12));
        assert!(close(scalable_fpr_bound(p0, 0.9), 0.01, 1e-12));
        assert!(close(scalable_stage_fpr(p0, 0.9, 2), 0.00081, 1e-12));
        let stages: Vec<f64> = (0..50).map(|i| scalable_stage_fpr(p0, 0.9, i)).collect();
        let c = compound_fpr(stages);
        assert!(c < 0.01 && c > 0.0099, "{c}"); // 1 - Π(1-p_i) < Σ p_i < bound
        assert!(close(compound_fpr([0.5, 0.5]), 0.75, 1e-12));
    }

    #[test]
    fn cuckoo_hand_values() {
        // f = ceil(log2(8 / 0.01)) = ceil(9.64) = 10
        assert_eq!(cuckoo_fingerprint_bits(0.01, 4).unwrap(), 10);
        assert_eq!(cuckoo_fingerprint_bits(0.001, 4).unwrap(), 13);
        assert_eq!(cuckoo_fingerprint_bits(0.0001, 4).unwrap(), 17);
        // 1 - (1 - 1/1023)^(8 * 0.95) = 0.0074...
        let p = cuckoo_fpr(10, 4, 0.95);
        assert!(close(p, 1.0 - (1.0 - 1.0 / 1023.0f64).powf(7.6), 1e-12));
        assert!(p < 0.01);
        assert!(close(cuckoo_bits_per_item(10, 0.95), 10.526_315_8, 1e-8));
        assert!(cuckoo_fingerprint_bits(f64::NAN, 4).is_err());
    }

    #[test]
    fn split_block_closed_form_agrees_with_the_series() {
        for ln_q in [(-1.0f64 / 32.0).ln_1p(), 8.0 * (-1.0f64 / 256.0).ln_1p()] {
            for lambda in [0.5, 1.0, 7.3, 20.0, 40.0, POISSON_SUM_MAX_LAMBDA] {
                let series = poisson_mix(lambda, |c| (-(c * ln_q).exp_m1()).powi(8));
                let closed = poisson_fill8_closed(lambda, ln_q);
                // The stated absolute error of the closed form, and a relative one where it is used.
                assert!(
                    (closed - series).abs() < 3e-13,
                    "{lambda}: {closed} vs {series}"
                );
                assert!(lambda < POISSON_SUM_MAX_LAMBDA || close(closed, series, 1e-12));
            }
        }
    }

    #[test]
    fn split_block_rate_returns_at_any_load() {
        // Unbounded loops here once hung on a loaded `len` near u64::MAX; run on a thread so
        // a regression fails the test instead of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rates: Vec<f64> = [(1, u64::MAX), (1, 1_000_000_000), (3, 1 << 40), (7, 65)]
                .iter()
                .map(|&(b, n)| split_block_fpr(b, n))
                .collect();
            let _ = tx.send(rates);
        });
        let rates = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("split_block_fpr did not return within 20 s");
        assert!(
            rates[..3].iter().all(|&p| p > 0.999_999 && p <= 1.0),
            "{rates:?}"
        );
        assert!(rates[3] > 0.0 && rates[3] < 1.0);
    }

    #[test]
    fn split_block_refuses_unreachable_targets() {
        assert!(split_block_keys_per_block(1e-12).is_ok());
        assert!(matches!(
            split_block_keys_per_block(1e-18),
            Err(Error::InvalidParameter { name: "fpr", .. })
        ));
    }

    #[test]
    fn split_block_hand_values() {
        // λ = 0: nothing set. A huge λ: every lane full, every query passes.
        assert_eq!(split_block_fpr(100, 0), 0.0);
        assert!(split_block_fpr(1, 100_000) > 0.999);
        // A fixed load of c = 32 keys (no Poisson spread) would give (1 - (31/32)^32)^8 = 0.027432;
        // the Poisson spread of real blocks raises the average (Jensen).
        let fixed = (1.0 - (31.0f64 / 32.0).powi(32)).powi(8);
        assert!(close(fixed, 0.027_432, 1e-4), "{fixed}");
        let spread = split_block_fpr(1_000_000, 32_000_000);
        assert!(spread > fixed, "{spread} vs {fixed}");
        // The 256-bit-block model underestimates the per-lane rate.
        assert!(split_block_fpr_block_model(1_000_000, 32_000_000) < spread);
        // Sizing round-trips: λ for 1% gives 1%.
        let lambda = split_block_keys_per_block(0.01).unwrap();
        let p = split_block_fpr(1_000_000, (lambda * 1e6) as u64);
        assert!(close(p, 0.01, 1e-3), "{lambda} {p}");
        assert!(split_block_keys_per_block(f64::NAN).is_err());
    }

    #[test]
    fn lower_bound_hand_values() {
        // 10M · log2(100) = 66,438,561.9 bits
        assert!(close(
            lower_bound_bits(10_000_000, 0.01),
            66_438_561.9,
            1e-9
        ));
    }

    #[test]
    fn wilson_interval_hand_values() {
        // 10 of 1000 at z = 1.96: (0.0054407, 0.0183097), computed by hand from the formula.
        let (lo, hi) = wilson_interval(10, 1000, 1.96);
        assert!(
            close(lo, 0.005_440_7, 1e-4) && close(hi, 0.018_309_7, 1e-4),
            "{lo} {hi}"
        );
        let (lo, hi) = wilson_interval(0, 100, 1.96);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.0 && hi < 0.05);
        assert!(close(binomial_sigma(0.01, 10_000), 0.000_994_987, 1e-6));
    }
}
