//! Unit tests of `stages/course/quotient.rs`.

use super::*;
use crate::stages::course::model::CourseDoc;
use crate::stages::course::tests::{
    check_one_plot_all_met, check_rejects_tampering, one_section, Tamper,
};

/// The section run on 4,000 keys in 4 repetitions, judged, as a course of its own.
fn doc() -> (CourseDoc, Vec<Plot>) {
    one_section(quotient, 19)
}

#[test]
fn every_load_holds_its_formula_and_a_resize_moves_a_bit_without_changing_the_rate() {
    let (doc, plots) = doc();
    let rows = &doc.sections[0].rows;
    assert_eq!(rows.len(), LOADS.len() + 2);
    check_one_plot_all_met(rows, &plots, "quotient_fp_load");
    let full = rows[LOADS.len() - 1].formula.unwrap();
    let same = rows[LOADS.len()].formula.unwrap();
    let grown = rows[LOADS.len() + 1].formula.unwrap();
    assert!((same - full).abs() <= 1e-12 * full, "{same} {full}");
    assert!(grown > 1.9 * full && grown < 2.1 * full, "{grown} {full}");
    assert!(full <= P);
    // The resize keeps every (quotient, remainder) pair: the same probes collide.
    assert_eq!(rows[LOADS.len()].reps, rows[LOADS.len() - 1].reps);
    // The rate grows with the load.
    assert!(rows
        .windows(2)
        .take(LOADS.len() - 1)
        .all(|w| w[0].formula < w[1].formula));
}

#[test]
fn check_rejects_a_tampered_count_or_verdict() {
    let (doc, _) = doc();
    let at = Tamper {
        count: (2, 0),
        verdict: 0,
    };
    check_rejects_tampering(
        &doc,
        "Quotient filter: remainder bits, load and resizing",
        "quotient_fp_load",
        at,
    );
}
