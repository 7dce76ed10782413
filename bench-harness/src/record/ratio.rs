//! One target of the comparison as a measured ratio with its interval, bound and verdict.

use super::conditions::{self, Conditions, Terms};
use super::verdict::{ratio_interval, Bound, Verdict};
use serde::{Deserialize, Serialize};

/// Whether a row is one of the project's targets or shown for information only (a comparison
/// of unlike structures, such as the classic filter against fastbloom's blocked one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A target: counted in the headline.
    #[default]
    Target,
    /// Information: judged the same way, never counted.
    Information,
}

/// One target: `numerator / denominator` against a bound, with the interval and the verdict
/// computed from the two sides' rounds and the conditions each side ran under.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Ratio {
    /// What is compared, in words.
    pub what: String,
    /// Target or information.
    #[serde(default)]
    pub role: Role,
    /// The figure on top, named (`classic: ns per negative lookup, batched`).
    pub numerator: String,
    /// Its value (the median of its rounds).
    pub numerator_value: f64,
    /// Its rounds, in the order they ran.
    #[serde(default)]
    pub numerator_samples: Vec<f64>,
    /// The figure below, named.
    pub denominator: String,
    /// Its value.
    pub denominator_value: f64,
    /// Its rounds, in the order they ran.
    #[serde(default)]
    pub denominator_samples: Vec<f64>,
    /// numerator_value / denominator_value.
    pub ratio: f64,
    /// When the numerator is a rate counted over trials (false positives over probes): the
    /// counts. Its interval is then their Wilson 95% interval over the denominator's value, not
    /// a bootstrap over rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numerator_counts: Option<(u64, u64)>,
    /// When each side is bits per key over log2(1/FP) taken at its FP rate's Wilson 95% upper
    /// end: each side's (false positives, probes). The interval then spans both rates' Wilson
    /// intervals (`bound_interval`); the value keeps both upper ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound_counts: Option<[(u64, u64); 2]>,
    /// The 95% interval of the ratio: a bootstrap over the rounds
    /// ([`crate::record::verdict::ratio_interval`]), or Wilson's over `numerator_counts`.
    #[serde(default)]
    pub interval: Option<(f64, f64)>,
    /// The bound the ratio must meet.
    pub bound: Bound,
    /// The interval against the bound.
    #[serde(default)]
    pub verdict: Verdict,
    /// What "the same conditions" allows here.
    #[serde(default)]
    pub terms: Terms,
    /// What the numerator ran under.
    #[serde(default)]
    pub numerator_conditions: Conditions,
    /// What the denominator ran under.
    #[serde(default)]
    pub denominator_conditions: Conditions,
    /// Whether both sides ran under the same conditions (no difference listed).
    pub same_conditions: bool,
    /// What differs, `; `-separated (empty when nothing does).
    pub differences: String,
}

impl Ratio {
    /// The row with everything derived recomputed from its values, rounds, bound and
    /// conditions: what `check` compares the stored row with.
    #[must_use]
    pub fn recomputed(&self) -> Ratio {
        let ratio = self.numerator_value / self.denominator_value;
        let interval = match self.numerator_counts {
            Some((hits, trials)) if trials > 0 => {
                let (lo, hi) = filterlab::math::wilson_interval(hits, trials, 1.96);
                Some((lo / self.denominator_value, hi / self.denominator_value))
                    .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
            }
            Some(_) => None,
            None => match self.bound_counts {
                Some([a, b]) => {
                    bound_interval((self.numerator_value, a), (self.denominator_value, b))
                }
                None => ratio_interval(&self.numerator_samples, &self.denominator_samples),
            },
        };
        let mut diffs = conditions::differences(
            &self.numerator_conditions,
            &self.denominator_conditions,
            self.terms,
        );
        if !self.measured() {
            diffs.insert(0, "not measured".into());
        }
        let mut r = Ratio {
            ratio,
            interval,
            verdict: Verdict::of(self.bound, interval.filter(|_| self.measured())),
            same_conditions: diffs.is_empty(),
            ..self.clone()
        };
        // A not-measured row keeps the reason it was written with.
        if self.measured() || self.differences.is_empty() {
            r.differences = diffs.join("; ");
        }
        r
    }

    /// Whether both values were measured (a contender or figure missing from the run is a row
    /// with NaN values, reported as not measured).
    #[must_use]
    pub fn measured(&self) -> bool {
        self.numerator_value.is_finite() && self.denominator_value.is_finite()
    }
}

/// A side's bits per key over log2(1/r) at the lower end of its rate's Wilson 95% interval,
/// given its value `v` at the upper end `hi`: `bits = v·log2(1/hi)` over `log2(1/lo)`. No
/// filter of `bits` bits per key has a rate below `2^-bits` (the space lower bound), so the
/// lower end is at least that: a side with no false positive is at least 1, not 0.
fn at_lower_rate(v: f64, (fp, probes): (u64, u64)) -> Option<f64> {
    let (lo, hi) = filterlab::math::wilson_interval(fp, probes, 1.96);
    let bits = v * (1.0 / hi).log2();
    let low = bits / (1.0 / lo.max((-bits).exp2())).log2();
    (probes > 0 && bits > 0.0 && low.is_finite()).then_some(low)
}

/// The interval of `a / b` where each side is bits per key over log2(1/FP) at its rate's
/// Wilson upper end (`a`, `b` their values with their counts): from `a` at its lower rate over
/// `b` at its upper, to `a` at its upper over `b` at its lower.
#[must_use]
pub fn bound_interval(a: (f64, (u64, u64)), b: (f64, (u64, u64))) -> Option<(f64, f64)> {
    let (a_lo, b_lo) = (at_lower_rate(a.0, a.1)?, at_lower_rate(b.0, b.1)?);
    // In that order unless a rate's upper end lies below 2^-bits, which the bound forbids.
    let (x, y) = (a_lo / b.0, a.0 / b_lo);
    let (lo, hi) = (x.min(y), x.max(y));
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

#[cfg(test)]
mod tests;
