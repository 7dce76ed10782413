//! Verdicts from repeated samples. A row of the course is measured as several independent
//! repetitions, each with a fresh seed (so a fresh filter fill and fresh probes); the verdict
//! tests the formula against the pooled rate with a z statistic whose standard error is the
//! larger of the binomial one and the one seen between repetitions (the fill of one filter moves
//! all its probes together, which the binomial error alone ignores). The rows judged together in
//! one table are corrected for multiple testing by Holm's step-down method at a 5% family-wise
//! error rate.

use filterlab::math;
use serde::{Deserialize, Serialize};

/// Family-wise error rate of every table's verdicts.
pub const ALPHA: f64 = 0.05;
/// Normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.96;

/// One repetition: `hits` of `trials`, drawn with hash seed `seed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    /// The seed of this repetition's hash functions.
    pub seed: u64,
    /// Positive answers (false positives, or what the row says).
    pub hits: u64,
    /// Queries asked.
    pub trials: u64,
}

/// Pooled counts with their 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Hits over all repetitions.
    pub hits: u64,
    /// Trials over all repetitions.
    pub trials: u64,
    /// `hits / trials`.
    pub rate: f64,
    /// Lower end of the 95% Wilson interval.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Measured {
    /// `hits` of `trials`.
    pub fn new(hits: u64, trials: u64) -> Self {
        let (lo, hi) = math::wilson_interval(hits, trials, Z95);
        let rate = if trials == 0 {
            f64::NAN
        } else {
            hits as f64 / trials as f64
        };
        Measured {
            hits,
            trials,
            rate,
            lo,
            hi,
        }
    }

    /// The interval as an error bar.
    pub fn spread(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }
}

/// The pooled measurement of `reps`.
pub fn pooled(reps: &[Count]) -> Measured {
    Measured::new(
        reps.iter().map(|c| c.hits).sum(),
        reps.iter().map(|c| c.trials).sum(),
    )
}

/// Standard error of the pooled rate of `reps` around a rate `p`: the larger of the binomial
/// error at `p` and the spread between repetitions (sample variance of their rates over R).
pub fn std_error(reps: &[Count], p: f64) -> f64 {
    let m = pooled(reps);
    let binomial = if m.trials == 0 {
        f64::NAN
    } else {
        (p * (1.0 - p) / m.trials as f64).max(0.0)
    };
    let rates: Vec<f64> = reps
        .iter()
        .filter(|c| c.trials > 0)
        .map(|c| c.hits as f64 / c.trials as f64)
        .collect();
    let r = rates.len() as f64;
    let between = if rates.len() < 2 {
        0.0
    } else {
        let mean = rates.iter().sum::<f64>() / r;
        rates.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (r - 1.0) / r
    };
    binomial.max(between).sqrt()
}

/// `(x - y) / se`, with a zero error read as "equal or infinitely far".
fn ratio_z(diff: f64, se: f64) -> f64 {
    if se > 0.0 {
        diff / se
    } else if diff == 0.0 {
        0.0
    } else {
        diff.signum() * f64::INFINITY
    }
}

/// The z of the pooled rate of `reps` against `formula` (positive: measured above the formula).
pub fn z_against(reps: &[Count], formula: f64) -> f64 {
    let m = pooled(reps);
    if !formula.is_finite() || m.trials == 0 {
        return f64::NAN;
    }
    ratio_z(m.rate - formula, std_error(reps, formula.clamp(0.0, 1.0)))
}

/// The z of the difference of two pooled rates (positive: `a` above `b`), each with its own
/// standard error at its own rate.
pub fn z_between(a: &[Count], b: &[Count]) -> f64 {
    let (ma, mb) = (pooled(a), pooled(b));
    if ma.trials == 0 || mb.trials == 0 {
        return f64::NAN;
    }
    let se = (std_error(a, ma.rate).powi(2) + std_error(b, mb.rate).powi(2)).sqrt();
    ratio_z(ma.rate - mb.rate, se)
}

/// The complementary error function, to about 1.2e-7 relative (Numerical Recipes' Chebyshev
/// fit), enough for p-values.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Two-sided p-value of a standard normal `z`.
pub fn p_two_sided(z: f64) -> f64 {
    erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// One-sided p-value of `z` (the probability of a value at least this large).
pub fn p_upper(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// Holm's step-down adjustment: the adjusted p-values, in the order given. A NaN stays NaN and
/// does not count towards the family.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let family = order.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((family - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests;
