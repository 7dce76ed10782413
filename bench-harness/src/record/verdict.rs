//! Verdicts that survive noise: one [`Verdict`] for every target and claim of every report, one
//! [`Bound`], and the interval a verdict rests on ([`ratio_interval`], a bootstrap over paired
//! rounds with a fixed seed).
//!
//! A verdict is three-way: [`Verdict::Met`] when the whole interval satisfies the bound,
//! [`Verdict::NotMet`] when none of it does, [`Verdict::Undecided`] otherwise. A ratio with an
//! interval that straddles its bound is not a result either way, however its median falls.

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The bootstrap's seed: fixed, so that `check` recomputes exactly the interval the run wrote.
pub const SEED: u64 = 0x0b00_75ea_5eed;
/// Bootstrap resamples behind every interval.
pub const RESAMPLES: usize = 2000;
/// Coverage of every interval.
pub const LEVEL: f64 = 0.95;

/// Which way a bound goes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// value ≤ the bound.
    AtMost(f64),
    /// value ≥ the bound.
    AtLeast(f64),
    /// `lo` ≤ value ≤ `hi` (a parallel speed-up: at least a gain, at most the thread count).
    Between(f64, f64),
}

impl Default for Bound {
    fn default() -> Self {
        Bound::AtMost(1.0)
    }
}

impl Bound {
    /// Whether `v` satisfies it.
    #[must_use]
    pub fn met(self, v: f64) -> bool {
        match self {
            Bound::AtMost(b) => v <= b,
            Bound::AtLeast(b) => v >= b,
            Bound::Between(lo, hi) => lo <= v && v <= hi,
        }
    }

    /// Whether no point of `[lo, hi]` satisfies it.
    #[must_use]
    pub fn missed_by(self, (lo, hi): (f64, f64)) -> bool {
        match self {
            Bound::AtMost(b) => lo > b,
            Bound::AtLeast(b) => hi < b,
            Bound::Between(a, b) => hi < a || lo > b,
        }
    }

    /// `≤ 0.7`, `≥ 15`, `1.3 to 2`.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Bound::AtMost(b) => format!("≤ {b}"),
            Bound::AtLeast(b) => format!("≥ {b}"),
            Bound::Between(lo, hi) => format!("{lo} to {hi}"),
        }
    }
}

/// The one verdict of every report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval satisfies the bound.
    Met,
    /// No point of the interval does.
    NotMet,
    /// The interval straddles the bound: the run cannot tell.
    Undecided,
    /// Not measured in this run (a contender, a server or a second thread missing).
    #[default]
    NotMeasured,
}

impl Verdict {
    /// The verdict of `interval` (a point is `(v, v)`) against `bound`; `None` or a non-finite
    /// end is not measured.
    #[must_use]
    pub fn of(bound: Bound, interval: Option<(f64, f64)>) -> Verdict {
        match interval {
            Some((lo, hi)) if lo.is_finite() && hi.is_finite() => {
                if bound.met(lo) && bound.met(hi) && bound.met((lo + hi) / 2.0) {
                    Verdict::Met
                } else if bound.missed_by((lo, hi)) {
                    Verdict::NotMet
                } else {
                    Verdict::Undecided
                }
            }
            _ => Verdict::NotMeasured,
        }
    }

    /// Its word in the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "not met",
            Verdict::Undecided => "undecided",
            Verdict::NotMeasured => "not measured",
        }
    }
}

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
    if num.is_empty() || den.is_empty() || num.iter().chain(den).any(|v| !v.is_finite()) {
        return None;
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(SEED);
    let paired = num.len() == den.len();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_met_only_when_the_whole_interval_satisfies_the_bound() {
        let b = Bound::AtMost(1.0);
        assert_eq!(Verdict::of(b, Some((0.5, 0.9))), Verdict::Met);
        assert_eq!(Verdict::of(b, Some((1.1, 1.3))), Verdict::NotMet);
        assert_eq!(Verdict::of(b, Some((0.9, 1.1))), Verdict::Undecided);
        assert_eq!(Verdict::of(b, None), Verdict::NotMeasured);
        assert_eq!(Verdict::of(b, Some((f64::NAN, 1.0))), Verdict::NotMeasured);
        let s = Bound::Between(1.3, 2.0);
        assert_eq!(Verdict::of(s, Some((1.5, 1.9))), Verdict::Met);
        assert_eq!(Verdict::of(s, Some((2.1, 2.4))), Verdict::NotMet);
        assert_eq!(Verdict::of(s, Some((1.9, 2.4))), Verdict::Undecided);
        assert_eq!(
            Verdict::of(Bound::AtLeast(15.0), Some((16.0, 16.0))),
            Verdict::Met
        );
    }

    #[test]
    fn the_interval_is_reproducible_and_covers_the_ratio_of_medians() {
        let num = [10.0, 11.0, 9.5, 10.5, 12.0];
        let den = [20.0, 21.0, 19.0, 22.0, 20.5];
        let (lo, hi) = ratio_interval(&num, &den).unwrap();
        assert_eq!(ratio_interval(&num, &den), Some((lo, hi)), "fixed seed");
        assert!(lo <= 10.5 / 20.5 && 10.5 / 20.5 <= hi, "{lo} {hi}");
        assert!(lo < hi);
        // Paired rounds that move together give a narrower interval than the same values
        // taken apart.
        let wide = ratio_interval(&num, &den[..4]).unwrap();
        assert!(wide.0.is_finite() && wide.1.is_finite());
        assert_eq!(ratio_interval(&[], &den), None);
        assert_eq!(ratio_interval(&[f64::NAN], &den), None);
        // One round each: a point.
        assert_eq!(ratio_interval(&[3.0], &[2.0]), Some((1.5, 1.5)));
    }
}
