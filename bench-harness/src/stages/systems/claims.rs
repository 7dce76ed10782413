//! The articles' claims, each with the value measured in this run and a verdict computed from it
//! and a stated threshold. No verdict is written by hand.

use serde::{Deserialize, Serialize};

/// How a measured value is judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Threshold {
    /// Holds when `lo <= measured <= hi`.
    Within {
        /// Lower end.
        lo: f64,
        /// Upper end.
        hi: f64,
    },
    /// Holds when `measured <= max`.
    AtMost(f64),
    /// Holds when `measured >= min`.
    AtLeast(f64),
}

impl Threshold {
    /// Within a factor of `f` of `x` (for timings that depend on the machine).
    pub fn factor(x: f64, f: f64) -> Self {
        Self::Within {
            lo: x / f,
            hi: x * f,
        }
    }

    /// The harness's one [`Bound`].
    pub fn bound(self) -> Bound {
        match self {
            Self::Within { lo, hi } => Bound::Between(lo, hi),
            Self::AtMost(max) => Bound::AtMost(max),
            Self::AtLeast(min) => Bound::AtLeast(min),
        }
    }

    /// The threshold in words (`<= 0.01`).
    pub fn describe(self) -> String {
        match self {
            Self::Within { lo, hi } => format!("{} to {}", num(lo), num(hi)),
            Self::AtMost(m) => format!("≤ {}", num(m)),
            Self::AtLeast(m) => format!("≥ {}", num(m)),
        }
    }
}

pub use crate::record::verdict::{Bound, Verdict};

/// One claim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// Which article (1: sign-up gate, 2: unique users) or `0` for this project's targets.
    pub article: u8,
    /// The claim as the article states it.
    pub text: String,
    /// What is measured, with its unit.
    pub measure: String,
    /// The measured value (`None`: not measured).
    pub measured: Option<f64>,
    /// Its 95% interval, when the value comes from a sample (the timed checks); the verdict
    /// then rests on the interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<(f64, f64)>,
    /// The threshold.
    pub threshold: Threshold,
    /// The verdict as the run wrote it (`check` recomputes it with [`Claim::verdict`]).
    #[serde(default)]
    pub verdict: Verdict,
}

impl Claim {
    /// The verdict computed from the measured value and its interval (none: a point
    /// interval; a non-finite figure is never met).
    pub fn verdict(&self) -> Verdict {
        match self.measured {
            None => Verdict::NotMeasured,
            Some(v) if !v.is_finite() => Verdict::NotMet,
            Some(v) => Verdict::of(
                self.threshold.bound(),
                Some(self.interval.unwrap_or((v, v))),
            ),
        }
    }

    /// The claim with its value's 95% interval, and its verdict computed again on it.
    #[must_use]
    pub fn with_interval(mut self, interval: Option<(f64, f64)>) -> Claim {
        self.interval = interval;
        self.verdict = self.verdict();
        self
    }

    /// A claim with its verdict computed.
    pub fn new(
        article: u8,
        text: &str,
        measure: &str,
        measured: Option<f64>,
        threshold: Threshold,
    ) -> Claim {
        let mut c = Claim {
            article,
            text: text.into(),
            measure: measure.into(),
            measured,
            interval: None,
            threshold,
            verdict: Verdict::NotMeasured,
        };
        c.verdict = c.verdict();
        c
    }
}

/// A measured value as the tables write it.
#[must_use]
pub fn num(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests;
