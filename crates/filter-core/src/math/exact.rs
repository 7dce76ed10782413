//! The exact classic rate, evaluated without cancellation (see [`super::classic_fpr_exact`]).
//!
//! `p = Σ_{d=1..k} S(k, d) · (m)_d / m^k · A_d`, with `A_d` the probability that `d` given bits
//! are all set after `N = kn` uniform draws. Every term of the outer sum is positive; the
//! difficulty is `A_d`, whose textbook inclusion–exclusion form
//! `Σ_i (-1)^i C(d, i) (1 - i/m)^N` has terms up to `(1 + r)^d` in total (`r = (1 - 1/m)^N`, the
//! probability that one bit stays clear) that cancel down to about `(1 - r)^d`: for a filter far
//! below capacity (`r` near 1) and `d = 20` that loses every digit of `f64`. So:
//!
//! * **`r <= 0.05`** (the bits are mostly set): the alternating sum, whose terms add up to at
//!   most `1.05^64 < 23` against a result of at least about `0.95^64 ≈ 0.04`: it loses at most a
//!   factor of about 600 over `f64`'s `1.1e-16`, so its relative error stays below `1e-12`.
//! * **`r > 0.05`** (then `N/m < 3`): condition on the number `T` of draws that land among the `d`
//!   bits, binomial `(N, d/m)`, and on the probability `c(t, d) = d!·S(t, d)/d^t` that `t` draws
//!   into `d` bits cover all of them: `A_d = Σ_{t>=d} P(T = t) c(t, d)`, a sum of positive terms.
//!   `c` follows the positive recurrence `c(t, d) = c(t-1, d) + c(t-1, d-1)·((d-1)/d)^(t-1)`.
//!   `T` has mean `Nd/m < 3d <= 192`, so the sum stops after a few hundred terms, once they fall
//!   below `1e-18` of the total past the mean.
//!
//! Each term of the outer sum is carried as a logarithm, so a term whose factors would underflow
//! (`m^(d-k)` for a large `m`) still counts when the total is a normal number.

/// `A_d` uses the alternating sum when `r = (1 - 1/m)^N` is at most this.
const ALTERNATING_MAX_CLEAR: f64 = 0.05;

/// `ln p` for `m` bits, `draws = kn` and `k` query positions (`1 <= k <= 64`, `m >= 1`,
/// `draws >= 1`); `-inf` when `p = 0`.
pub(super) fn ln_classic_exact(m: u64, draws: f64, k: usize) -> f64 {
    let mf = m as f64;
    let ln_clear = draws * (-1.0 / mf).ln_1p(); // ln r
    let alternating = m == 1 || ln_clear <= ALTERNATING_MAX_CLEAR.ln();
    let mut cover = Cover::new(k);
    let ln_stirling = ln_stirling_row(k);
    let mut terms = Vec::with_capacity(k);
    let mut ln_falling = 0.0; // ln((m)_d / m^d)
    for (d, &ln_s) in ln_stirling.iter().enumerate().skip(1) {
        if (d - 1) as f64 >= mf {
            break; // more distinct positions than bits
        }
        ln_falling += (-((d - 1) as f64) / mf).ln_1p();
        let ln_all_set = if alternating {
            ln_all_set_alternating(mf, draws, d)
        } else {
            ln_all_set_positive(mf, draws, d, &mut cover)
        };
        terms.push(ln_s + ln_falling + (d as f64 - k as f64) * mf.ln() + ln_all_set);
    }
    log_sum_exp(&terms)
}

/// `ln Σ e^x` without overflow or underflow of the largest term.
fn log_sum_exp(xs: &[f64]) -> f64 {
    let top = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + xs.iter().map(|&x| (x - top).exp()).sum::<f64>().ln()
}

/// `ln S(k, d)` for `d = 0..=k` (Stirling numbers of the second kind, at most about `1e65` for
/// `k <= 64`, so the positive recurrence in `f64` is exact to a few ulps).
fn ln_stirling_row(k: usize) -> Vec<f64> {
    let mut s = vec![0.0f64; k + 1];
    s[0] = 1.0;
    for j in 1..=k {
        for d in (1..=j).rev() {
            s[d] = d as f64 * s[d] + s[d - 1];
        }
        s[0] = 0.0;
    }
    s.iter().map(|x| x.ln()).collect()
}

/// `ln A_d` by inclusion–exclusion (used only when it is well conditioned).
fn ln_all_set_alternating(mf: f64, draws: f64, d: usize) -> f64 {
    let mut total = 0.0;
    let mut binom = 1.0;
    for i in 0..=d {
        let miss = if i as f64 >= mf {
            0.0
        } else {
            (draws * (-(i as f64) / mf).ln_1p()).exp()
        };
        total += if i % 2 == 0 { binom } else { -binom } * miss;
        binom = binom * (d - i) as f64 / (i + 1) as f64;
    }
    total.max(f64::MIN_POSITIVE).ln()
}

/// `ln A_d` as the positive sum over the number of draws among the `d` bits.
fn ln_all_set_positive(mf: f64, draws: f64, d: usize, cover: &mut Cover) -> f64 {
    let df = d as f64;
    if draws < df {
        return f64::NEG_INFINITY;
    }
    if df >= mf {
        // Every draw lands among the d = m bits (here `draws < 3m <= 192`).
        return cover.get(draws as usize, d).ln();
    }
    // ln P(T = d) = ln C(N, d) + d ln(d/m) + (N - d) ln(1 - d/m)
    let ln_choose: f64 = (0..d)
        .map(|j| ((draws - j as f64) / (j + 1) as f64).ln())
        .sum();
    let ln_first = ln_choose + df * (df / mf).ln() + (draws - df) * (-df / mf).ln_1p();
    let odds = df / (mf - df);
    let mean = draws * df / mf;
    let (mut weight, mut total) = (1.0f64, cover.get(d, d));
    let mut t = d;
    while (t as f64) < draws {
        weight *= (draws - t as f64) / (t + 1) as f64 * odds;
        t += 1;
        let term = weight * cover.get(t, d);
        total += term;
        if t as f64 > mean && term < 1e-18 * total {
            break;
        }
    }
    ln_first + total.ln()
}

/// The covering probabilities `c(t, d)` for `d <= k`, grown row by row as `t` is asked for.
struct Cover {
    k: usize,
    rows: Vec<Vec<f64>>,
    /// `((j - 1) / j)^(t - 1)` for the next row's `t`, by `j`: one product per row and column
    /// rather than a power (a sizing evaluates a few hundred rows of up to 65 columns, and
    /// `recommend` sizes thousands of filters).
    shrink: Vec<f64>,
}

impl Cover {
    fn new(k: usize) -> Cover {
        let mut first = vec![0.0; k + 1];
        first[0] = 1.0; // zero draws cover zero bits
        Cover {
            k,
            rows: vec![first],
            shrink: vec![1.0; k + 1],
        }
    }

    fn get(&mut self, t: usize, d: usize) -> f64 {
        while self.rows.len() <= t {
            let prev = &self.rows[self.rows.len() - 1];
            let mut row = vec![0.0; self.k + 1];
            for (j, slot) in row.iter_mut().enumerate().skip(1) {
                *slot = prev[j] + prev[j - 1] * self.shrink[j];
                self.shrink[j] *= (j - 1) as f64 / j as f64;
            }
            self.rows.push(row);
        }
        self.rows[t][d]
    }
}
