//! Fixtures the growth study's checker must reject: a goal verdict that is not the
//! measurements', a false negative, a commit outside HEAD's history, an edited page.

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
        cycle: crate::stages::expansion::tests::measured_cycle(),
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
    let p = check_dir(&d, results, None).problems;
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

/// A repository that knows whether a commit is HEAD's ancestor and lists one changed file.
struct Fixed(bool);

impl Repo for Fixed {
    fn is_ancestor(&self, _: &str) -> std::io::Result<bool> {
        Ok(self.0)
    }
    fn changed_between(&self, _: &str, _: &str) -> std::io::Result<Vec<String>> {
        Ok(vec!["crates/filter-expand/src/lib.rs".into()])
    }
}

#[test]
fn an_older_study_is_a_notice_and_one_outside_the_history_a_problem() {
    let r = report();
    let mut main = results(&r);
    main.machine.commit = "fedcba9".into();
    let d = std::env::temp_dir().join(format!("filterlab-expansion-age-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    crate::render::expansion::write(&r, &d).unwrap();
    let older = check_dir(&d, &main, Some(&Fixed(true)));
    assert!(older.problems.is_empty(), "{:?}", older.problems);
    assert!(
        older.notices.iter().any(|n| n.contains(
            "expansion.md: measured at abc1234; the code it measures changed since in: crates/filter-expand/src/lib.rs"
        )),
        "{:?}",
        older.notices
    );
    let foreign = check_dir(&d, &main, Some(&Fixed(false))).problems;
    assert!(
        foreign.iter().any(|p| p.contains("not in HEAD's history")),
        "{foreign:?}"
    );
    // Without the repository (a quick run's directory) every part must be of the one run.
    let quick = check_dir(&d, &main, None).problems;
    assert!(
        quick.iter().any(|p| p.contains("not the same run")),
        "{quick:?}"
    );
    let _ = std::fs::remove_dir_all(&d);
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
