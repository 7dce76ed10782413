//! The window stage's guarantees, judged from its checkpoints: false positives over the window
//! (the worst checkpoint and every checkpoint pooled, Wilson 95% intervals against the target),
//! no false negative for an in-window item, items past the horizon found no more often than the
//! target allows, and memory flat over the stream.

use crate::record::{Bound, Verdict};
use crate::stages::window::{DesignResult, Guarantee, Judged, WindowReport};
use filterlab::math::wilson_interval;

/// The normal quantile of every interval here (95%).
const Z: f64 = 1.96;

/// A rate `hits / trials` against `AtMost(target)`, on its Wilson interval; no trials: not
/// measured.
fn rate(guarantee: Guarantee, (hits, trials): (u64, u64), target: f64) -> Judged {
    let bound = Bound::AtMost(target);
    let interval = (trials > 0).then(|| wilson_interval(hits, trials, Z));
    Judged {
        guarantee,
        measured: hits as f64 / trials.max(1) as f64,
        interval,
        bound,
        verdict: Verdict::of(bound, interval),
    }
}

/// A point against `bound`.
fn point(guarantee: Guarantee, v: f64, bound: Bound) -> Judged {
    let interval = Some((v, v));
    Judged {
        guarantee,
        measured: v,
        interval,
        bound,
        verdict: Verdict::of(bound, interval),
    }
}

/// Every guarantee of one design, in [`Guarantee`] order.
#[must_use]
pub fn guarantees(d: &DesignResult, target: f64) -> Vec<Judged> {
    let worst = d
        .checkpoints
        .iter()
        .max_by(|a, b| {
            let r = |c: &crate::stages::window::Checkpoint| {
                c.false_positives as f64 / c.probes.max(1) as f64
            };
            r(a).total_cmp(&r(b))
        })
        .map_or((0, 0), |c| (c.false_positives, c.probes));
    let lost: u64 = d.checkpoints.iter().map(|c| c.false_negatives).sum();
    let bytes = d.checkpoints.iter().map(|c| c.bytes);
    let flat = match (bytes.clone().min(), bytes.max()) {
        (Some(lo), Some(hi)) if lo > 0 => hi as f64 / lo as f64,
        _ => f64::NAN,
    };
    vec![
        rate(Guarantee::MaxFp, worst, target),
        rate(Guarantee::PooledFp, d.pooled_fp(), target),
        point(Guarantee::NoFalseNegative, lost as f64, Bound::AtMost(0.0)),
        rate(Guarantee::AgedOut, d.pooled_aged(), target),
        point(Guarantee::FlatMemory, flat, Bound::AtMost(1.0)),
    ]
}

/// Fills every design's guarantees.
pub fn judge(r: &mut WindowReport) {
    let target = r.fpr;
    for d in &mut r.designs {
        d.judged = guarantees(d, target);
    }
}

/// `check`'s part: every design's stored guarantees against those its checkpoints give.
#[must_use]
pub fn check(r: &WindowReport) -> Vec<String> {
    let mut p = Vec::new();
    for d in &r.designs {
        let again = guarantees(d, r.fpr);
        if again != d.judged {
            let at = again
                .iter()
                .zip(&d.judged)
                .find(|(a, b)| a != b)
                .map_or_else(
                    || format!("{} stored, {} computed", d.judged.len(), again.len()),
                    |(a, b)| {
                        format!(
                            "{:?}: stored {} ({:?}), the checkpoints give {} ({:?})",
                            a.guarantee, b.measured, b.verdict, a.measured, a.verdict
                        )
                    },
                );
            p.push(format!(
                "window.json: {} guarantees differ from its checkpoints ({at})",
                d.design.name()
            ));
        }
    }
    p
}

#[cfg(test)]
mod tests;
