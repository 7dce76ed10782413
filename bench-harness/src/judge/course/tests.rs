//! Unit tests of `judge/course.rs`.

use super::*;
use crate::stages::course::hash64::blocks_for;

/// A run at 10^9 keys with a 64th of the blocks, `trials` probes per kind and the given hits.
pub(crate) fn run_with(trials: u64, wide_hits: u64, narrow_hits: u64) -> SliceRun {
    let n = 1_000_000_000;
    let blocks = blocks_for(n).unwrap();
    let count = |hits| KindCount {
        members: n / 64,
        trials,
        hits,
    };
    SliceRun {
        n,
        blocks,
        slice_blocks: blocks / 64,
        probed: trials * 64,
        wide: count(wide_hits),
        narrow: count(narrow_hits),
        judged: None,
    }
}

fn at_formula(trials: u64, scale: f64) -> u64 {
    let r = run_with(1, 0, 0);
    (math::split_block_fpr(r.blocks, r.n) * trials as f64 * scale).round() as u64
}

#[test]
fn equal_rates_on_ten_million_probes_are_met() {
    let hits = at_formula(10_000_000, 1.0);
    let j = judge_run(&run_with(10_000_000, hits, hits), HASH64_MARGIN);
    assert_eq!(j.equal, Verdict::Met, "{j:?}");
    assert_eq!(j.wide_vs_formula, Verdict::Met, "{j:?}");
    assert_eq!(j.narrow_vs_formula, Verdict::Met, "{j:?}");
    // About ±0.01 percentage points: the interval of the difference, fill spread included.
    let half = (j.difference.1 - j.difference.0) / 2.0;
    assert!(half > 6e-5 && half < 1.2e-4, "{half}");
    assert!(j.difference.0 < 0.0 && j.difference.1 > 0.0, "{j:?}");
    assert!((j.floor_lanes - 5.7e-9).abs() < 0.1e-9, "{}", j.floor_lanes);
    assert!(
        (j.floor_whole - 5.42e-11).abs() < 0.01e-11,
        "{}",
        j.floor_whole
    );
}

#[test]
fn a_rate_ten_percent_higher_is_not_met_and_too_few_probes_are_undecided() {
    let (hits, more) = (at_formula(10_000_000, 1.0), at_formula(10_000_000, 1.1));
    let j = judge_run(&run_with(10_000_000, hits, more), HASH64_MARGIN);
    assert_eq!(j.equal, Verdict::NotMet, "{j:?}");
    assert_eq!(j.narrow_vs_formula, Verdict::NotMet, "{j:?}");
    assert!(j.difference.0 > 0.0, "{j:?}");
    let few = at_formula(100_000, 1.0);
    let j = judge_run(&run_with(100_000, few, few), HASH64_MARGIN);
    assert_eq!(j.equal, Verdict::Undecided, "{j:?}");
    let j = judge_run(&run_with(0, 0, 0), HASH64_MARGIN);
    assert_eq!(j.equal, Verdict::NotMeasured, "{j:?}");
}

#[test]
fn the_difference_interval_is_newcombes() {
    // Two rates with symmetric intervals: the difference's half-width is their hypotenuse.
    let (lo, hi) = difference((0.3, (0.2, 0.4)), (0.1, (0.07, 0.13)));
    assert!((lo - (0.2 - 0.1f64.hypot(0.03))).abs() < 1e-12, "{lo}");
    assert!((hi - (0.2 + 0.1f64.hypot(0.03))).abs() < 1e-12, "{hi}");
}

#[test]
fn judging_a_course_sets_the_margin_and_every_run() {
    let mut study = Hash64Study {
        fpr: 0.01,
        seed: 1,
        key_bytes: 26,
        slice: 64,
        margin: 0.0,
        runs: vec![run_with(1000, 10, 11)],
    };
    judge_hash64(&mut study);
    assert_eq!(study.margin, HASH64_MARGIN);
    assert!(study.runs[0].judged.is_some());
}
