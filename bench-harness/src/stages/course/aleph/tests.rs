//! Unit tests of `stages/course/aleph.rs`.

use super::*;
use crate::stages::course::model::CourseDoc;
use crate::stages::course::tests::{
    check_one_plot_all_met, check_rejects_tampering, one_section, Tamper,
};

/// The section run on 4,000 keys in 4 repetitions, judged, as a course of its own.
fn doc() -> (CourseDoc, Vec<Plot>) {
    one_section(aleph, 29)
}

#[test]
fn every_doubling_holds_its_formula_under_the_bound() {
    let (doc, plots) = doc();
    let rows = &doc.sections[0].rows;
    assert_eq!(rows.len(), sizes(4000).len() + 1);
    check_one_plot_all_met(rows, &plots, "aleph_growth");
    let bound = rows.last().and_then(|r| r.formula).unwrap();
    assert!(bound <= P, "{bound}");
    assert!(rows.iter().all(|r| r.formula.unwrap() <= bound));
    let pooled_trials: u64 = rows[..rows.len() - 1]
        .iter()
        .map(|r| r.reps[0].trials)
        .sum();
    assert_eq!(rows.last().unwrap().reps[0].trials, pooled_trials);
}

#[test]
fn the_worked_example_is_computed_by_the_formulas() {
    let text = example().unwrap();
    // 10M keys from 1,000: 14 doublings without an estimate, 13 told it.
    assert!(text.contains("k = 14 doublings"), "{text}");
    assert!(text.contains("K = 13 doublings"), "{text}");
    let w = Widening::new(P, None).unwrap();
    assert!(
        text.contains(&format!("w = {} bits", w.slot_width(14))),
        "{text}"
    );
    assert!(
        text.contains(&format!("F = {} bits", am::estimated_bits(P))),
        "{text}"
    );
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
        "Aleph filter: one table that grows in place",
        "aleph_growth",
        at,
    );
}
