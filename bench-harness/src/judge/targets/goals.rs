//! The absolute goals as rows of the targets table: a figure of one of our rows against
//! a fixed bound, judged three ways on the interval of the figure's median over its rounds (a
//! percentile bootstrap, as every ratio: the row's denominator is the unit, one sample of 1).
//! The goal's side records the conditions the goal is stated under (the FP rate it names; the
//! rest as measured), so that a run whose filter missed that rate says so in the row.

use super::{find, not_measured, row, side, Metric, Side};
use crate::filters::Variant;
use crate::measure::Spread;
use crate::record::{Bound, PeerRecord, Ratio, Role};
use anyhow::Result;

/// The figure an absolute goal bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoalFigure {
    /// Table bits per key (one value: a table's size does not vary between rounds).
    BitsPerKey,
    /// Build nanoseconds per key: one build per round, from the key bytes (hashing included).
    BuildNsPerKey,
    /// ns per negative lookup, batched.
    NegativeBatched,
    /// ns per positive lookup, batched.
    PositiveBatched,
}

impl GoalFigure {
    /// The figure of `r` over its rounds (`None`: not measured).
    fn pick(self, r: &PeerRecord) -> Option<Spread> {
        match self {
            GoalFigure::BitsPerKey => {
                (r.n > 0 && r.bytes > 0).then(|| Spread::single(r.bits_per_key))
            }
            GoalFigure::BuildNsPerKey => (r.n > 0 && r.build_seconds.rounds > 0)
                .then(|| r.build_seconds.scaled(1e9 / r.n as f64)),
            GoalFigure::NegativeBatched => r.ns_negative_batched.clone(),
            GoalFigure::PositiveBatched => r.ns_positive_batched.clone(),
        }
    }

    /// The metric whose recorded conditions the figure ran under.
    fn metric(self) -> Metric {
        match self {
            GoalFigure::BitsPerKey => Metric::Bytes,
            GoalFigure::BuildNsPerKey => Metric::Build,
            GoalFigure::NegativeBatched => Metric::NegativeBatched,
            GoalFigure::PositiveBatched => Metric::PositiveBatched,
        }
    }

    fn label(self) -> &'static str {
        match self {
            GoalFigure::BitsPerKey => "bits per key",
            GoalFigure::BuildNsPerKey => "build ns per key",
            GoalFigure::NegativeBatched => "ns per negative lookup, batched",
            GoalFigure::PositiveBatched => "ns per positive lookup, batched",
        }
    }
}

/// One absolute goal: our variant, the figure, its bound, and the FP rate the goal is stated at.
pub type Goal = (Variant, GoalFigure, Bound, f64);

/// Issue 19's absolute goals: the ribbon filter at a measured 1% in at most 7.2 bits per key
/// (RocksDB reports about 7.05 against Bloom's 10), built in at most 130 ns per key, batched
/// lookups in at most 50 ns.
pub const GOALS: &[Goal] = {
    use Bound::AtMost as M;
    use GoalFigure::*;
    use Variant::Ribbon;
    &[
        (Ribbon, BitsPerKey, M(7.2), 0.01),
        (Ribbon, BuildNsPerKey, M(130.0), 0.01),
        (Ribbon, NegativeBatched, M(50.0), 0.01),
        (Ribbon, PositiveBatched, M(50.0), 0.01),
    ]
};

/// A row for each of [`GOALS`]: `value / 1` against the bound, the interval that of the value's
/// median. A figure the run lacks is a not-measured row; a contender it lacks is an error.
///
/// # Errors
/// A variant of [`GOALS`] missing from `rows`.
pub fn goal_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    let mut out = Vec::new();
    for &(variant, figure, bound, rate) in GOALS {
        let r = find(rows, variant.name())?;
        let what = format!(
            "{}: {} (absolute goal at {} FP)",
            r.name,
            figure.label(),
            crate::record::pct(rate)
        );
        let goal_name = format!(
            "goal: {} {} at a measured {}",
            bound.text(),
            figure.label(),
            crate::record::pct(rate)
        );
        let ours = Side {
            name: format!("{}: {}", r.name, figure.label()),
            figure: figure.pick(r),
            ..side(r, figure.metric())
        };
        if ours.figure.is_none() {
            let why = format!("not measured: no {} figure", figure.label());
            out.push(not_measured(what, (ours.name, goal_name), bound, why));
            continue;
        }
        let goal = Side {
            name: goal_name,
            figure: Some(Spread::single(1.0)),
            conditions: super::Conditions {
                achieved_fpr: Some(rate),
                ..ours.conditions.clone()
            },
        };
        out.push(row(
            what,
            Role::Target,
            (ours, goal),
            bound,
            super::Terms::AlikeFp,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
