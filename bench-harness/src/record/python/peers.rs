//! The `python-peers` study (`bench-harness study python-peers`): the pure-Python filters and
//! the first article's class at the run's full size (10M keys), which the main job measures on
//! a sample only, beside the package's ClassicBloom in the same interleaved rounds. Its goals:
//! each slow contender keeps its FP promise at full size (the Wilson interval of its measured
//! rate against ±4 binomial sigmas of the rate it was asked for); its build and lookup costs
//! are shown beside ClassicBloom's, at the same size.

use super::goals::{conditions, fp_band, measured_fpr};
use super::{ContenderId, ContenderRow, Outcome, Scale, Settings, Timing};
use crate::record::{Bound, Machine, Metric, Ratio, Role};
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// What the study measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeersMeasured {
    /// The timing process: [`super::STUDY`] at full size.
    pub timing: Timing,
    /// Each slow contender's FP promise at full size, judged.
    pub goals: Vec<Ratio>,
}

/// python-peers.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PythonPeersReport {
    /// Where and how (the commit, the date and the study's wall time included).
    pub machine: Machine,
    /// Sizes (no sample: every row at full size).
    pub settings: Settings,
    /// What happened.
    pub outcome: Outcome<PeersMeasured>,
}

impl PythonPeersReport {
    /// Its goals (none when skipped).
    #[must_use]
    pub fn goals(&self) -> Vec<Ratio> {
        match &self.outcome {
            Outcome::Measured(m) => m.goals.clone(),
            Outcome::Skipped { .. } => Vec::new(),
        }
    }
}

/// The FP promise of one row: measured rate over the promised one, its interval Wilson's, the
/// bound the binomial band around the promise (±4 sigmas over its probes) over the promise.
#[must_use]
pub fn promise_row(r: &ContenderRow) -> Ratio {
    let (rate, _) = measured_fpr(r);
    let p = r.promised_fpr;
    // The band over the promise, to four decimals (as the tables print it); a requested rate
    // is an upper bound only.
    let over = |x: f64| (x / p * 1e4).round() / 1e4;
    let bound = match fp_band(p, r.promise, r.probes) {
        Bound::Between(_, hi) if r.promise.is_upper_bound() => Bound::AtMost(over(hi)),
        Bound::Between(lo, hi) => Bound::Between(over(lo), over(hi)),
        other => other,
    };
    // Both sides under the row's own conditions: the promise is a rate of this very filter.
    let cond = conditions(r, Metric::Negative);
    Ratio {
        what: format!(
            "python-peers: {} keeps its FP promise at {} keys (measured / promised)",
            r.id.label(),
            r.n
        ),
        role: Role::Target,
        numerator: format!(
            "{}: FP on {} fresh non-members ({} hits)",
            r.id.label(),
            r.probes,
            r.false_positives
        ),
        numerator_value: rate,
        numerator_counts: Some((r.false_positives, r.probes)),
        denominator: format!("the rate it promises, {}", crate::record::pct(p)),
        denominator_value: p,
        denominator_samples: vec![p],
        bound,
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    }
    .recomputed()
}

/// The study's goals: the promise of every slow contender at full size.
///
/// # Errors
/// A row missing from the timing.
pub fn goals(timing: &Timing) -> Result<Vec<Ratio>> {
    super::STUDY
        .iter()
        .filter(|id| id.is_slow())
        .map(|&id| Ok(promise_row(timing.row(id, Scale::Full)?)))
        .collect()
}

/// `check`'s part: the rows validated, the goals recomputed from them and each goal's own
/// figures re-derived ([`crate::check::ratio_problems`] runs on them too, in the checker).
#[must_use]
pub fn check_report(r: &PythonPeersReport) -> Vec<String> {
    let Outcome::Measured(m) = &r.outcome else {
        return Vec::new();
    };
    let mut p = Vec::new();
    if let Err(e) = m.timing.validate(&super::study_rows()) {
        p.push(format!("python-peers.json: {e:#}"));
    }
    if (m.timing.n, m.timing.sample) != (r.settings.n, None) {
        p.push(format!(
            "python-peers.json: the timing ran {} keys (sample {:?}), the study is {} keys at full size",
            m.timing.n, m.timing.sample, r.settings.n
        ));
    }
    match goals(&m.timing) {
        Ok(again) => {
            // Compared through `Debug`, where a NaN equals itself.
            let same = |a: &Ratio, b: &Ratio| format!("{a:?}") == format!("{b:?}");
            let labels = ("goals", "the rows");
            let rows = (again.as_slice(), m.goals.as_slice());
            p.extend(crate::record::differ(
                "python-peers",
                labels,
                rows,
                same,
                |g| (g.what.clone(), format!("{:?}", g.verdict)),
            ));
        }
        Err(e) => p.push(format!("python-peers.json: {e:#}")),
    }
    p
}

/// Whether `id` is one of the study's contenders.
#[must_use]
pub fn in_study(id: ContenderId) -> bool {
    super::STUDY.contains(&id)
}
