//! The bootstrap behind every interval of the reports: a percentile bootstrap of a ratio of
//! medians over rounds, with a fixed seed (so that `check` recomputes exactly what the run wrote).
//! The verdicts (the record module's `verdict`) and the timing loops' stopping rule
//! ([`super::rounds`]) both ask it.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The bootstrap's seed: fixed, so that `check` recomputes exactly the interval the run wrote.
pub const SEED: u64 = 0x0b00_75ea_5eed;
/// Bootstrap resamples behind every interval.
pub const RESAMPLES: usize = 2000;
/// Coverage of every interval.
pub const LEVEL: f64 = 0.95;

fn median_of(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The 95% interval of `median(num) / median(den)`: a percentile bootstrap with [`SEED`] over
/// [`RESAMPLES`] resamples. Rounds are resampled in pairs (round i of both sides together, as
/// they ran interleaved) when both sides have as many rounds; otherwise each side on its own.
/// `None` when a side has no finite sample.
#[must_use]
pub fn ratio_interval(num: &[f64], den: &[f64]) -> Option<(f64, f64)> {
    interval(num, den, num.len() == den.len())
}

/// [`ratio_interval`] for two sides that did not run in the same rounds (two processes, two
/// loops): each side is resampled on its own, whatever its number of rounds.
#[must_use]
pub fn unpaired_ratio_interval(num: &[f64], den: &[f64]) -> Option<(f64, f64)> {
    interval(num, den, false)
}

fn interval(num: &[f64], den: &[f64], paired: bool) -> Option<(f64, f64)> {
    if num.is_empty() || den.is_empty() || num.iter().chain(den).any(|v| !v.is_finite()) {
        return None;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED);
    let (mut a, mut b) = (vec![0.0; num.len()], vec![0.0; den.len()]);
    let mut ratios = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        for (j, x) in a.iter_mut().enumerate() {
            let i = rng.random_range(0..num.len());
            *x = num[i];
            if paired {
                b[j] = den[i];
            }
        }
        if !paired {
            for y in &mut b {
                *y = den[rng.random_range(0..den.len())];
            }
        }
        ratios.push(median_of(&mut a) / median_of(&mut b));
    }
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - LEVEL) / 2.0;
    let at = |q: f64| ratios[((q * RESAMPLES as f64) as usize).min(RESAMPLES - 1)];
    Some((at(tail), at(1.0 - tail)))
}
