//! The course's verdicts: its formula tables (judged by [`judge_doc`]) and the 64-bit-hash
//! study's intervals and three-way verdicts ([`judge_hash64`]). The stage writes the counts,
//! the pipeline judges them here before rendering, and `check` judges the JSON again.

use crate::record::{Bound, Verdict};
use crate::stages::course::hash64::{Hash64Study, KindCount, SliceJudged, SliceRun};
use crate::stages::course::model::{judge_doc, CourseDoc};
use crate::stages::course::stats::Z95;
use filterlab::math;

/// The study's margin, relative to the formula's rate: a difference under 2% of the rate
/// (0.02 percentage points at 1%) is "nothing measurable". 10^7 probes per kind resolve the
/// difference to about ±0.01 points, so a run of that size can meet it; a smaller one is
/// undecided.
pub const HASH64_MARGIN: f64 = 0.02;

/// Judges every table, erratum and study of `doc`, in place.
pub fn judge_course(doc: &mut CourseDoc) {
    judge_doc(doc);
    if let Some(study) = doc.hash64.as_mut() {
        judge_hash64(study);
    }
}

/// Fills in every run's intervals and verdicts at [`HASH64_MARGIN`].
pub fn judge_hash64(study: &mut Hash64Study) {
    study.margin = HASH64_MARGIN;
    for r in &mut study.runs {
        r.judged = Some(judge_run(r, HASH64_MARGIN));
    }
}

/// A kind's rate and its 95% interval: Wilson's over the slice's probes, each side widened (in
/// quadrature) by the spread of the slice's fill, whose blocks move all their probes together
/// ([`math::split_block_rate_variance`] over the slice's blocks and members).
#[must_use]
pub fn rate_interval(c: KindCount, slice_blocks: u64) -> (f64, (f64, f64)) {
    if c.trials == 0 {
        return (f64::NAN, (f64::NAN, f64::NAN));
    }
    let p = c.hits as f64 / c.trials as f64;
    let (lo, hi) = math::wilson_interval(c.hits, c.trials, Z95);
    let fill = Z95 * math::split_block_rate_variance(slice_blocks, c.members).sqrt();
    (p, (p - (p - lo).hypot(fill), p + (hi - p).hypot(fill)))
}

/// Newcombe's hybrid score interval of `a - b` from each rate's own interval.
#[must_use]
pub fn difference(a: (f64, (f64, f64)), b: (f64, (f64, f64))) -> (f64, f64) {
    let (pa, (la, ha)) = a;
    let (pb, (lb, hb)) = b;
    let d = pa - pb;
    (d - (pa - la).hypot(hb - pb), d + (ha - pa).hypot(pb - lb))
}

/// One run's formula, floors, intervals and verdicts at relative `margin`.
#[must_use]
pub fn judge_run(r: &SliceRun, margin: f64) -> SliceJudged {
    let formula = math::split_block_fpr(r.blocks, r.n);
    let lambda = r.n as f64 / r.blocks.max(1) as f64;
    let (wide, narrow) = (
        rate_interval(r.wide, r.slice_blocks),
        rate_interval(r.narrow, r.slice_blocks),
    );
    let near = Bound::Between(formula * (1.0 - margin), formula * (1.0 + margin));
    let difference = difference(narrow, wide);
    SliceJudged {
        formula,
        floor_lanes: lambda / 2f64.powi(32),
        floor_whole: r.n as f64 / 2f64.powi(64),
        wide: wide.1,
        narrow: narrow.1,
        difference,
        wide_vs_formula: Verdict::of(near, Some(wide.1)),
        narrow_vs_formula: Verdict::of(near, Some(narrow.1)),
        equal: Verdict::of(
            Bound::Between(-formula * margin, formula * margin),
            Some(difference),
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests;
