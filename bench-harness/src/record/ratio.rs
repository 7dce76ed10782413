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
            None => ratio_interval(&self.numerator_samples, &self.denominator_samples),
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
