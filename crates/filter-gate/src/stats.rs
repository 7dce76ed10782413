//! The gate's own measurement of its false-positive rate.
//!
//! Every check of an address that is *not* registered ends in one of two ways: the filter says
//! "absent" (a true negative, no database query), or it says "maybe" and the database answers
//! "absent" (a false positive, one wasted query). The measured rate is
//! `false_positives / (false_positives + true_negatives)`, an unbiased estimate of the filter's
//! false-positive rate on the addresses people actually try.

use filter_core::math::wilson_interval;

/// The normal quantile of the interval: 1.96 for 95% confidence.
pub const WILSON_Z: f64 = 1.96;

/// The normal quantile of the over-target alarm: 3.89, one-sided 99.995%. A gate is checked
/// over and over, so a 95% alarm would fire for one report in 40 of a filter that sits exactly
/// at its target; at 3.89 such a filter raises it about once in 20,000 reports.
pub const ALARM_Z: f64 = 3.89;

/// Counters kept by the gate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateCounts {
    /// Calls to `is_taken` that returned an answer.
    pub checks: u64,
    /// Checks answered by the filter alone ("absent": `Available`, no database query).
    pub filter_absent: u64,
    /// Checks the database confirmed as taken.
    pub confirmed_taken: u64,
    /// Checks where the filter said "maybe" and the database "absent".
    pub false_positives: u64,
    /// Checks sent to the database because the filter could not be trusted (a failed insert
    /// into it, see [`crate::Gate::filter_trusted`]).
    pub bypassed: u64,
}

impl GateCounts {
    /// Checks that reached the database.
    pub fn database_queries(&self) -> u64 {
        self.confirmed_taken + self.false_positives
    }
}

/// The measured false-positive rate beside the filter's prediction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FprReport {
    /// False positives observed.
    pub false_positives: u64,
    /// Checks of unregistered addresses (false positives + filter "absent" answers).
    pub negatives: u64,
    /// `false_positives / negatives` (0 when there were none).
    pub rate: f64,
    /// 95% Wilson interval of the rate.
    pub interval: (f64, f64),
    /// The filter's own prediction at its current load (`Filter::expected_fpr`).
    pub expected: f64,
    /// The rate the gate was configured to stay under.
    pub target: f64,
}

impl FprReport {
    /// Builds the report from the counters.
    pub fn new(counts: &GateCounts, expected: f64, target: f64) -> Self {
        let negatives = counts.false_positives + counts.filter_absent;
        let rate = if negatives == 0 {
            0.0
        } else {
            counts.false_positives as f64 / negatives as f64
        };
        Self {
            false_positives: counts.false_positives,
            negatives,
            rate,
            interval: wilson_interval(counts.false_positives, negatives, WILSON_Z),
            expected,
            target,
        }
    }

    /// The filter is over-filled: even the low end of the [`ALARM_Z`] Wilson interval lies above
    /// the target, so the measured rate is above it with 99.995% confidence (the 95% interval
    /// reported in [`FprReport::interval`] is for reading, not for raising an alarm). Rebuild the
    /// filter larger.
    pub fn over_target(&self) -> bool {
        wilson_interval(self.false_positives, self.negatives, ALARM_Z).0 > self.target
    }
}

#[cfg(test)]
mod tests;
