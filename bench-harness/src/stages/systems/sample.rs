//! The timed checks are a stated sample of the workload (200k by default, out of a 10M-row
//! table): each latency figure comes with its 95% interval over that sample, so a reader sees
//! whether the sample is large enough for it.
//!
//! The percentiles' intervals are distribution-free: the q-quantile of the population lies
//! between the order statistics of ranks n·q ∓ 1.96·√(n·q·(1 − q)) with 95% probability (the
//! count of samples below it is binomial; normal approximation, sound when n·q·(1 − q) is a few
//! dozen or more: 1,980 for the p99 of 200k). The mean's is the normal approximation
//! (mean ± 1.96 · sd / √n), and the throughput's follows from it (checks/s = 10⁶ / mean µs).

use serde::{Deserialize, Serialize};

/// The normal quantile of a two-sided 95% interval.
const Z: f64 = 1.96;

/// 95% intervals of one contender's figures over the timed sample, as `(low, high)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Intervals {
    /// Of the median, µs (order statistics).
    pub p50_us: (f64, f64),
    /// Of the 99th percentile, µs (order statistics).
    pub p99_us: (f64, f64),
    /// Of the mean, µs (normal approximation).
    pub mean_us: (f64, f64),
    /// Of the checks per second (from the mean's).
    pub checks_per_s: (f64, f64),
}

/// The figures of a sample of latencies in ns, with their intervals.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Median, µs.
    pub p50_us: f64,
    /// 99th percentile, µs.
    pub p99_us: f64,
    /// Mean, µs.
    pub mean_us: f64,
    /// Checks per second (10⁶ / mean µs).
    pub checks_per_s: f64,
    /// Their 95% intervals.
    pub intervals: Intervals,
}

/// The 0-based ranks, in `n` sorted samples, of the point estimate of the `q`-quantile and of
/// the two ends of its 95% interval: `(low, point, high)`. The interval always holds the point.
fn ranks(n: usize, q: f64) -> (usize, usize, usize) {
    let last = n.saturating_sub(1);
    let point = ((last as f64) * q) as usize;
    let (nf, half) = (n as f64, Z * (n as f64 * q * (1.0 - q)).sqrt());
    // 1-based ranks floor(nq − half) and ceil(nq + half), clamped into the sample.
    let low = ((nf * q - half).floor().max(1.0) as usize - 1).min(point);
    let high = ((nf * q + half).ceil().min(nf).max(1.0) as usize - 1).max(point);
    (low, point, high.min(last))
}

/// Checks per second of a mean latency in µs (and of an interval's ends, swapped).
pub fn per_second(mean_us: f64) -> f64 {
    1e6 / mean_us
}

/// The figures of `ns` (sorted here); all zero for an empty sample.
pub fn summarise(ns: &mut [u64]) -> Summary {
    ns.sort_unstable();
    let us = |rank: usize| ns.get(rank).copied().unwrap_or(0) as f64 / 1e3;
    let quantile = |q: f64| {
        let (lo, point, hi) = ranks(ns.len(), q);
        (us(point), (us(lo), us(hi)))
    };
    let (p50_us, p50_ci) = quantile(0.50);
    let (p99_us, p99_ci) = quantile(0.99);
    let n = ns.len().max(1) as f64;
    let mean_ns = ns.iter().map(|&v| v as f64).sum::<f64>() / n;
    let var = ns
        .iter()
        .map(|&v| (v as f64 - mean_ns).powi(2))
        .sum::<f64>()
        / (n - 1.0).max(1.0);
    let half_ns = Z * (var / n).sqrt();
    let mean_us = mean_ns / 1e3;
    let mean_ci = (
        (mean_ns - half_ns).max(0.0) / 1e3,
        (mean_ns + half_ns) / 1e3,
    );
    Summary {
        p50_us,
        p99_us,
        mean_us,
        checks_per_s: per_second(mean_us),
        intervals: Intervals {
            p50_us: p50_ci,
            p99_us: p99_ci,
            mean_us: mean_ci,
            checks_per_s: (per_second(mean_ci.1), per_second(mean_ci.0)),
        },
    }
}

/// The interval of `a / b` from their means' 95% intervals (independent samples): the delta
/// method on the log scale, `a/b · exp(∓1.96 · √((se_a/a)² + (se_b/b)²))`, with each standard
/// error read back from its interval's half-width.
pub fn ratio_interval(a: (f64, (f64, f64)), b: (f64, (f64, f64))) -> Option<(f64, f64)> {
    let rel = |(v, (lo, hi)): (f64, (f64, f64))| (hi - lo) / (2.0 * Z) / v;
    let r = a.0 / b.0;
    let spread = Z * (rel(a).powi(2) + rel(b).powi(2)).sqrt();
    let (lo, hi) = (r * (-spread).exp(), r * spread.exp());
    (lo.is_finite() && hi.is_finite() && lo > 0.0).then_some((lo, hi))
}

/// What is wrong with `figure`'s interval `ci` around `value`: reversed, not finite, or not
/// holding the value.
pub fn interval_problem(figure: &str, value: f64, (lo, hi): (f64, f64)) -> Option<String> {
    let sound = lo.is_finite() && hi.is_finite() && lo <= value && value <= hi;
    (!sound).then(|| format!("{figure} {value} lies outside its interval {lo}–{hi}"))
}

#[cfg(test)]
mod tests;
