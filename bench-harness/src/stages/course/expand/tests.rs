//! Unit tests of `stages/course/expand.rs`.

use super::*;
use crate::stages::course::model::CourseDoc;
use crate::stages::course::tests::{
    check_one_plot_all_met, check_rejects_tampering, one_section, Tamper,
};

/// The section run on 4,000 keys in 4 repetitions, judged, as a course of its own.
fn doc() -> (CourseDoc, Vec<Plot>) {
    one_section(expandable, 23)
}

#[test]
fn checkpoints_are_the_doublings_and_the_end() {
    assert_eq!(sizes(20_000), [1000, 2000, 4000, 8000, 16_000, 20_000]);
    assert_eq!(sizes(4000), [1000, 2000, 4000]);
    assert_eq!(sizes(1000), [1000]);
    assert!(sizes(999).is_empty());
}

#[test]
fn every_doubling_holds_its_formula_under_the_bound() {
    let (doc, plots) = doc();
    let rows = &doc.sections[0].rows;
    assert_eq!(rows.len(), sizes(4000).len() + 1);
    check_one_plot_all_met(rows, &plots, "expandable_growth");
    let bound = rows.last().and_then(|r| r.formula).unwrap();
    assert!(bound <= P, "{bound}");
    assert!(rows.iter().all(|r| r.formula.unwrap() <= bound));
    // Three stages at 4,000 keys: the pooled row sums every checkpoint's counts.
    let pooled_trials: u64 = rows[..rows.len() - 1]
        .iter()
        .map(|r| r.reps[0].trials)
        .sum();
    assert_eq!(rows.last().unwrap().reps[0].trials, pooled_trials);
}

#[test]
fn check_rejects_a_tampered_count_or_verdict() {
    let (doc, _) = doc();
    let at = Tamper {
        count: (1, 2),
        verdict: doc.sections[0].rows.len() - 1,
    };
    check_rejects_tampering(
        &doc,
        "Expandable cuckoo filter: a bound that holds as it grows",
        "expandable_growth",
        at,
    );
}
