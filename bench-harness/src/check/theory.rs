//! Measured against theory: every row's theory recomputed from its recorded detail through the
//! registry's formulas (no formula per variant here), its stored rate and interval recomputed
//! from its counts, and its count held to binomial bounds.

use super::{MIN_EXPECTED, SIGMAS};
use crate::record::{Record, Scenario};
use filterlab::math;

/// Which rows are tested against theory, and how.
fn theory_role(r: &Record) -> Option<bool> {
    match r.scenario {
        // One filter each: independent samples, so the share outside the interval is counted.
        Scenario::Matrix | Scenario::SizeSweep => Some(true),
        // The same filter measured again and again with the same probes: each row is held to
        // the per-row bound, but they are not independent, so they do not enter the share.
        Scenario::Churn => Some(false),
        // Up to the declared capacity as churn. Past it, how full this one table happens to
        // be varies from filter to filter by more than the binomial spread of the probes (at
        // 4x capacity about twice as much), so theory is not a per-row bound there.
        Scenario::Growth | Scenario::Users if r.n <= r.capacity => Some(false),
        _ => None,
    }
}

/// Whether two computations of one figure agree (to rounding).
pub(super) fn same(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// The row's theory recomputed from its recorded detail through the registry's formulas
/// ([`filterlab::any::Detail::fpr_at`]); a problem (and `None`) when there is none, it cannot
/// hold the row's `n`, or the stored `theoretical_fpr` is not what it gives.
fn recomputed(r: &Record, id: &str, p: &mut Vec<String>) -> Option<f64> {
    let Some(shape) = &r.shape else {
        p.push(format!(
            "{id}: no typed parameters (`shape`): theory not recomputable, so not checked"
        ));
        return None;
    };
    let Some(q) = shape.fpr_at(r.n) else {
        p.push(format!(
            "{id}: parameters {shape:?} cannot hold n = {}: theory not recomputable",
            r.n
        ));
        return None;
    };
    if !same(q, r.theoretical_fpr) {
        p.push(format!(
            "{id}: stored theoretical FP rate {} but its parameters give {q}",
            r.theoretical_fpr
        ));
    }
    Some(q)
}

/// The stored rate and Wilson interval must be what the counts give.
fn stored_counts(r: &Record, id: &str, p: &mut Vec<String>) {
    let rate = r.false_positives as f64 / r.probes.max(1) as f64;
    if !same(rate, r.empirical_fpr) {
        p.push(format!(
            "{id}: stored empirical FP rate {} but {} / {} = {rate}",
            r.empirical_fpr, r.false_positives, r.probes
        ));
    }
    let (lo, hi) = math::wilson_interval(r.false_positives, r.probes, 1.96);
    if !(same(lo, r.fpr_ci_low) && same(hi, r.fpr_ci_high)) {
        p.push(format!(
            "{id}: stored interval [{}, {}] but the counts give [{lo}, {hi}]",
            r.fpr_ci_low, r.fpr_ci_high
        ));
    }
}

/// Measured against theory with binomial bounds, recomputed from the counts (the stored
/// flags and rates are not trusted): matrix, sweep, churn, and growth up to capacity.
pub fn theory(records: &[Record]) -> Vec<String> {
    let mut p = Vec::new();
    let (mut tested, mut outside) = (0usize, 0usize);
    for r in records.iter().filter(|r| r.scenario != Scenario::Parallel) {
        let id = format!(
            "{} {} n={} p={} step={:?}",
            r.scenario, r.variant, r.n, r.target_fpr, r.step
        );
        let Some(q) = recomputed(r, &id, &mut p) else {
            continue;
        };
        if !(q.is_finite() && (0.0..=1.0).contains(&q)) {
            p.push(format!(
                "{id}: theoretical FP rate {q} is not a probability"
            ));
            continue;
        }
        if r.false_positives > r.probes {
            p.push(format!(
                "{id}: {} false positives out of {} probes",
                r.false_positives, r.probes
            ));
            continue;
        }
        stored_counts(r, &id, &mut p);
        let expected = q * r.probes as f64;
        let Some(independent) = theory_role(r) else {
            continue;
        };
        if expected < MIN_EXPECTED {
            continue;
        }
        // The probes' binomial error, and the spread of the one random table that was built
        // (negligible for large filters; at 10^4 keys it is comparable).
        let table = r.shape.as_ref().map_or(0.0, |s| s.instance_variance(r.n));
        let probes = r.probes as f64;
        let sigma = (expected * (1.0 - q) + probes * probes * table).sqrt();
        let fp = r.false_positives as f64;
        if (fp - expected).abs() > SIGMAS * sigma {
            p.push(format!(
                "{id}: {} false positives in {} probes, theory expects {expected:.1} ± {sigma:.1} (binomial and table spread): more than {SIGMAS} sigmas off",
                r.false_positives, r.probes
            ));
        }
        if independent {
            tested += 1;
            let (lo, hi) = math::wilson_interval(r.false_positives, r.probes, 1.96);
            if q < lo || q > hi {
                outside += 1;
            }
        }
    }
    // 95% intervals: about 5% of honest rows miss; allow that share plus 3 sigmas.
    let n = tested as f64;
    let allowed = (0.05 * n + 3.0 * (n * 0.05 * 0.95).sqrt()).floor() as usize;
    if outside > allowed {
        p.push(format!(
            "theory lies outside the 95% interval in {outside} of {tested} independent rows; at most {allowed} expected"
        ));
    }
    p
}
