//! Verdicts that survive noise: one [`Verdict`] for every target and claim of every report, one
//! [`Bound`], and the interval a verdict rests on ([`ratio_interval`], a bootstrap over paired
//! rounds with a fixed seed).
//!
//! A verdict is three-way: [`Verdict::Met`] when the whole interval satisfies the bound,
//! [`Verdict::NotMet`] when none of it does, [`Verdict::Undecided`] otherwise. A ratio with an
//! interval that straddles its bound is not a result either way, however its median falls.

use serde::{Deserialize, Serialize};

pub use crate::measure::bootstrap::{ratio_interval, LEVEL, RESAMPLES, SEED};

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

#[cfg(test)]
mod tests;
