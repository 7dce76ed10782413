//! `check` on the Python section (fixtures: `stages::python::tests`): what it refuses (a ratio across sizes, a stored verdict the
//! records do not give, a peak off the sample, an edited page, another run's JSON).

use crate::record::python::goals::{goals, target_ratios};
use crate::record::python::{ContenderId, GoalId, Outcome, Scale};
use crate::record::{Machine, Metric, Verdict};
use crate::stages::python::tests::{load, measured, report, row_of, timing};
use crate::stages::python::SAMPLE;
use std::path::{Path, PathBuf};

#[test]
fn a_ratio_of_a_sampled_row_over_a_full_size_row_is_refused() {
    // rbloom's row taken at the sample's size, ClassicBloom's at 10M: no goal, no target row.
    let mut t = timing();
    let rb = row_of(&mut t, ContenderId::Rbloom, Scale::Full);
    (rb.n, rb.probes, rb.positives) = (SAMPLE.keys, SAMPLE.probes, SAMPLE.probes);
    let err = goals(&t, &load(100, 100), None).unwrap_err().to_string();
    assert!(err.contains("at the same size"), "{err}");
    assert!(target_ratios(&t).is_err());
    // Stored that way anyway, check refuses it.
    let mut r = report();
    measured(&mut r).timing = t;
    let problems = crate::record::python::goals::check_report(&r);
    assert!(
        problems.iter().any(|p| p.contains("at the same size")),
        "{problems:?}"
    );
    // The target rows record each side's keys: one over another size is refused by `check`.
    let mut row = target_ratios(&timing()).unwrap().remove(0);
    row.denominator_conditions.keys = Some(SAMPLE.keys);
    let row = row.recomputed();
    let p = crate::check::ratio_problems(&row, "target");
    assert!(
        p.iter()
            .any(|m| m.contains("compares a figure taken at 10000000 keys")),
        "{p:?}"
    );
    // The page's sample table compares with ClassicBloom on the sample only.
    let t = timing();
    let slow = t.row(ContenderId::BloomFilter2, Scale::Sample).unwrap();
    let full = t.row(ContenderId::FilterlabClassic, Scale::Full).unwrap();
    let base = t.row(ContenderId::FilterlabClassic, Scale::Sample).unwrap();
    assert_eq!(
        crate::render::python::times(slow, Some(full), Metric::Build),
        "–"
    );
    assert!(crate::render::python::times(slow, Some(base), Metric::Build).starts_with("1.0×"));
}

#[test]
fn check_rejects_a_stored_verdict_the_records_do_not_give() {
    let mut r = report();
    let Outcome::Measured(m) = &mut r.outcome else {
        unreachable!()
    };
    let g = m
        .goals
        .iter_mut()
        .find(|g| g.id == GoalId::BatchPositive)
        .unwrap();
    g.verdict = Verdict::Met;
    let problems = crate::record::python::goals::check_report(&r);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].contains("BatchPositive"), "{}", problems[0]);
    // A record changed under its goals.
    let mut r = report();
    let Outcome::Measured(m) = &mut r.outcome else {
        unreachable!()
    };
    m.timing.contenders[0].ns_negative = vec![100.0, 101.0, 99.0];
    assert!(!crate::record::python::goals::check_report(&r).is_empty());
}

#[test]
fn check_re_renders_python_md_and_rejects_an_edit_or_another_runs_json() {
    let dir = std::env::temp_dir().join(format!("filterlab-python-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let r = report();
    crate::plan::Output::write(&r, &dir).unwrap();
    let results = crate::record::Results {
        machine: r.machine.clone(),
        ..Default::default()
    };
    let run = |d: &Path| crate::check::reports::check_dir(d, &results, None);
    let ok = run(&dir);
    assert!(ok.problems.is_empty(), "{:?}", ok.problems);
    assert!(ok.covered.contains(&PathBuf::from("python.md")));
    let md = dir.join("python.md");
    let text = std::fs::read_to_string(&md).unwrap();
    std::fs::write(&md, text.replacen("| not met |", "| met |", 1)).unwrap();
    let edited = run(&dir).problems;
    assert!(
        edited.iter().any(|p| p.contains("python.md differs")),
        "{edited:?}"
    );
    std::fs::write(&md, &text).unwrap();
    let other = crate::record::Results {
        machine: Machine {
            commit: "def5678".into(),
            ..Machine::default()
        },
        ..Default::default()
    };
    let stale = crate::check::reports::check_dir(&dir, &other, None).problems;
    assert!(
        stale.iter().any(|p| p.contains("not the same run")),
        "{stale:?}"
    );
    std::fs::write(dir.join("python.json"), "{\"machine\": 1}").unwrap();
    let broken = run(&dir).problems;
    assert!(
        broken.iter().any(|p| p.contains("parsing python.json")),
        "{broken:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_peak_off_the_sample_and_an_undecided_goal_the_budget_ended_are_said() {
    let mut r = report();
    measured(&mut r).peaks[3].n = 10_000_000;
    let p = crate::record::python::goals::check_report(&r);
    assert!(
        p.iter().any(|m| m.contains("taken at 10000000 keys")),
        "{p:?}"
    );
    let mut t = timing();
    t.loops[0].record.stop = crate::measure::rounds::Stop::Budget;
    row_of(&mut t, ContenderId::Rbloom, Scale::Full).ns_negative = vec![68.0, 64.0, 70.0];
    let g = goals(&t, &load(100, 100), None).unwrap().remove(0);
    assert_eq!(g.verdict, Verdict::Undecided, "{g:?}");
    assert_eq!(g.note, "undecided after 3 rounds: the time budget ended it");
}
