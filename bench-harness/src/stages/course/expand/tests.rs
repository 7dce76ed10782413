//! Unit tests of `stages/course/expand.rs`.

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
        seed: 23,
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
    let (section, plots) = expandable(&lab).unwrap();
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
    assert_eq!(plots.len(), 1);
    assert_eq!(plots[0].stem, "expandable_growth");
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
    let md = markdown::course(&doc);
    assert_eq!(check_doc(&doc, &md), Vec::<String>::new());
    assert!(md.contains("Expandable cuckoo filter: a bound that holds as it grows"));
    assert!(md.contains("expandable_growth.svg"));

    let mut tampered = doc.clone();
    tampered.sections[0].rows[1].reps[2].hits += 100;
    let p = check_doc(&tampered, &md);
    let label = &doc.sections[0].rows[1].label;
    assert!(p.iter().any(|p| p.contains(label.as_str())), "{p:?}");
    assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");

    let mut flipped = doc.clone();
    let last = flipped.sections[0].rows.len() - 1;
    if let Some(j) = flipped.sections[0].rows[last].judged.as_mut() {
        j.verdict = Verdict::NotMet;
    }
    let p = check_doc(&flipped, &md);
    assert!(
        p.iter().any(|p| p.contains("every checkpoint pooled")),
        "{p:?}"
    );
}
