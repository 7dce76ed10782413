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
// The aliases read the course's verdicts as `course.json` wrote them before the course used
// this type (its words are now computed from the verdict, the claim and the sign of z).
pub enum Verdict {
    /// The whole interval satisfies the bound.
    #[serde(alias = "Holds", alias = "BoundKept")]
    Met,
    /// No point of the interval does.
    #[serde(
        alias = "Underestimates",
        alias = "Overestimates",
        alias = "BoundBroken"
    )]
    NotMet,
    /// The interval straddles the bound: the run cannot tell.
    Undecided,
    /// Not measured in this run (a contender, a server or a second thread missing).
    #[default]
    #[serde(alias = "NotComputable")]
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
mod tests;
