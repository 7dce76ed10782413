//! Unit tests of `stages/course/quotient.rs`.

use super::*;
use crate::check::course::check_doc;
use crate::dataset::{generate, DatasetSpec};
use crate::record::Verdict;
use crate::render::course as markdown;
use crate::stages::course::model::{judge_doc, CourseDoc, Settings};
use crate::stages::course::{probe, stats, Scale};

/// The section run on 4,000 keys in 4 repetitions, judged, as a course of its own.
fn doc() -> (CourseDoc, Vec<Plot>) {
    let ds = generate(&DatasetSpec {
        members: 4000,
        non_members: 40_000,
        seed: 19,
    });
    let scale = Scale {
        n: 4000,
        probes: 40_000,
        reps: 4,
        ..Scale::QUICK
    };
    let lab = Lab {
        scale,
        n: scale.n,
        reps: scale.reps,
        members: probe::hash_all(ds.members.iter()),
        probes: probe::hash_all(ds.non_members.iter()),
        member_keys: &ds.members,
        probe_keys: &ds.non_members,
    };
    let (section, plots) = quotient(&lab).unwrap();
    let mut doc = CourseDoc {
        settings: Settings {
            n: lab.n,
            probes: lab.probes.len(),
            reps: lab.reps,
            small_filters: 0,
            hash_bits: 0,
            alpha: stats::ALPHA,
            commit: "test".into(),
            seconds: 0.0,
        },
        sections: vec![section],
        errata: vec![],
    };
    judge_doc(&mut doc);
    (doc, plots)
}

#[test]
fn every_load_holds_its_formula_and_a_resize_moves_a_bit_without_changing_the_rate() {
    let (doc, plots) = doc();
    let rows = &doc.sections[0].rows;
    assert_eq!(rows.len(), LOADS.len() + 2);
    assert_eq!(plots.len(), 1);
    assert_eq!(plots[0].stem, "quotient_fp_load");
    for r in rows {
        assert_eq!(r.reps.len(), 4, "{}", r.label);
        assert_eq!(
            r.verdict(),
            Some(Verdict::Met),
            "{}: {:?}",
            r.label,
            r.judged
        );
    }
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
    let md = markdown::course(&doc);
    assert_eq!(check_doc(&doc, &md), Vec::<String>::new());
    assert!(md.contains("Quotient filter: remainder bits, load and resizing"));
    assert!(md.contains("quotient_fp_load.svg"));

    let mut tampered = doc.clone();
    tampered.sections[0].rows[2].reps[0].hits += 200;
    let p = check_doc(&tampered, &md);
    let label = &doc.sections[0].rows[2].label;
    assert!(p.iter().any(|p| p.contains(label.as_str())), "{p:?}");
    assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");

    let mut flipped = doc.clone();
    if let Some(j) = flipped.sections[0].rows[0].judged.as_mut() {
        j.verdict = Verdict::NotMet;
    }
    let p = check_doc(&flipped, &md);
    let label = &doc.sections[0].rows[0].label;
    assert!(p.iter().any(|p| p.contains(label.as_str())), "{p:?}");
}
