//! Fixtures the growth stage's checker must reject: a goal verdict that is not the
//! measurements', a false negative, a goal missing from results.json's targets, an edited page.

use super::*;
use crate::record::{Machine, Verdict};
use crate::stages::expansion::ExpansionReport;

fn machine() -> Machine {
    Machine {
        commit: "abc1234".into(),
        ..Machine::default()
    }
}

/// The stage's small run, judged.
fn report() -> ExpansionReport {
    let (checkpoints, summaries) = crate::stages::expansion::tests::measured();
    let mut r = ExpansionReport {
        machine: machine(),
        settings: crate::stages::expansion::tests::settings(),
        checkpoints,
        summaries,
        goals: Vec::new(),
    };
    r.goals = crate::judge::targets::growth::goals(&r);
    r
}

/// results.json's side: the run's commit and the goals among its targets.
fn results(r: &ExpansionReport) -> Results {
    Results {
        machine: machine(),
        ratios: r.goals.clone(),
        ..Results::default()
    }
}

/// A directory holding `r` written as the stage writes it; the problems `check` finds there.
fn problems(
    name: &str,
    r: &ExpansionReport,
    results: &Results,
    edit: impl Fn(&Path),
) -> Vec<String> {
    let d = std::env::temp_dir().join(format!("filterlab-expansion-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    crate::render::expansion::write(r, &d).unwrap();
    edit(&d);
    let p = check_dir(&d, results).problems;
    let _ = std::fs::remove_dir_all(&d);
    p
}

#[test]
fn a_consistent_report_passes() {
    let r = report();
    assert!(r.goals.len() > 3);
    assert_eq!(
        problems("pass", &r, &results(&r), |_| {}),
        Vec::<String>::new()
    );
}

#[test]
fn a_goal_verdict_that_is_not_the_measurements_is_rejected() {
    let mut r = report();
    let all = results(&r);
    r.goals[0].verdict = Verdict::NotMet;
    let p = problems("verdict", &r, &all, |_| {});
    assert!(p.iter().any(|p| p.contains("goals differ")), "{p:?}");
}

#[test]
fn a_false_negative_is_rejected() {
    let mut r = report();
    r.checkpoints[1].false_negatives = 1;
    r.goals = crate::judge::targets::growth::goals(&r);
    let p = problems("fneg", &r, &results(&r), |_| {});
    assert!(p.iter().any(|p| p.contains("1 false negatives")), "{p:?}");
}

#[test]
fn a_goal_missing_from_the_targets_is_rejected() {
    let r = report();
    let mut all = results(&r);
    all.ratios.pop();
    let p = problems("missing", &r, &all, |_| {});
    assert!(
        p.iter()
            .any(|p| p.contains("not among results.json's targets")),
        "{p:?}"
    );
}

#[test]
fn an_edited_page_is_rejected() {
    let r = report();
    let p = problems("page", &r, &results(&r), |d| {
        let path = d.join("expansion.md");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("| met |", "| not met |", 1)).unwrap();
    });
    assert!(
        p.iter().any(|p| p.contains("expansion.md differs")),
        "{p:?}"
    );
}

#[test]
fn a_batched_lookup_goal_that_is_not_the_measurements_is_rejected() {
    let mut r = report();
    let all = results(&r);
    let batched = r
        .goals
        .iter_mut()
        .find(|g| g.what.contains("batched ns per non-member"))
        .expect("a batched row");
    batched.numerator_value *= 10.0;
    let p = problems("batched", &r, &all, |_| {});
    assert!(p.iter().any(|p| p.contains("goals differ")), "{p:?}");
}

#[test]
fn a_tampered_reference_ratio_is_rejected() {
    let mut r = report();
    let all = results(&r);
    let reference = r
        .goals
        .iter_mut()
        .find(|g| g.what.starts_with("growth reference: cuckoo, fixed size"))
        .expect("a reference row");
    reference.ratio /= 4.0;
    let p = problems("reference", &r, &all, |_| {});
    assert!(p.iter().any(|p| p.contains("goals differ")), "{p:?}");
}

#[test]
fn a_tampered_reference_timing_is_rejected() {
    let mut r = report();
    let all = results(&r);
    let expandable = r
        .summaries
        .iter_mut()
        .find(|x| x.contender == crate::stages::expansion::EXPANDABLE)
        .expect("the expandable filter");
    if let crate::stages::expansion::Outcome::Measured(l) = &mut expandable.references[0].lookups {
        l.negative_large.median *= 4.0;
    }
    let p = problems("reference-timing", &r, &all, |_| {});
    assert!(p.iter().any(|p| p.contains("goals differ")), "{p:?}");
}
