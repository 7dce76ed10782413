//! Fixtures the systems checker must reject in the timed sample: a contender that timed another
//! number of checks than the stated sample, a latency outside its own interval, sub-step times
//! that add up to more than the stage, and a claim's interval edited in the JSON.

use super::*;
use crate::stages::systems::{self, SystemsResults};

fn machine() -> Machine {
    Machine {
        commit: "abc1234".into(),
        ..Machine::default()
    }
}

/// A judged report with a SQLite sign-up run over the fixture's stated sample.
fn report() -> SystemsResults {
    let (signup, unique) = systems::tests::fixture();
    let mut r = SystemsResults {
        machine: machine(),
        settings: systems::Settings {
            rows: 1_000_000,
            checks: systems::tests::CHECKS as usize,
            new_share: 0.95,
            ..systems::Settings::default()
        },
        python_lookup_ns: None,
        rows: 1_000_000,
        signup,
        postgres_absent: Some("no server in the test".into()),
        service: systems::service::ServiceOutcome::NotMeasured {
            why: "no server in the test".into(),
        },
        lag: systems::lag::LagOutcome::default(),
        unique,
        rolling: systems::rolling::run(3_000, 1_000, 3).unwrap(),
        claims: Vec::new(),
        timing: systems::tests::timing(),
    };
    crate::plan::Output::judge(&mut r);
    r
}

/// The problems `check` finds in a directory holding `r` as the stage writes it.
fn problems(name: &str, r: &SystemsResults) -> Vec<String> {
    let d = std::env::temp_dir().join(format!("filterlab-systems-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    crate::render::systems::write(r, &d).unwrap();
    let results = Results {
        machine: machine(),
        ..Results::default()
    };
    let p = check_dir(&d, &results, None).problems;
    let _ = std::fs::remove_dir_all(&d);
    p
}

fn rejected(p: &[String], needle: &str) {
    assert!(
        p.iter().any(|x| x.contains(needle)),
        "{needle:?} not in {p:?}"
    );
}

#[test]
fn a_consistent_sample_passes() {
    let r = report();
    assert!(r.claims.iter().any(|c| c.interval.is_some()));
    assert_eq!(problems("pass", &r), Vec::<String>::new());
}

#[test]
fn a_contender_that_timed_another_sample_is_rejected() {
    let mut r = report();
    r.signup[0].fronts[1].checks = 90_000;
    // Whole, so that the message's prefix is checked too (the claims that read the count
    // differ as well).
    let p = problems("count", &r);
    let expected = "systems: systems.json: Sqlite through Gate timed 90000 checks, not the stated \
                    sample of 100000";
    assert!(p.iter().any(|x| x == expected), "{p:?}");
}

#[test]
fn a_percentile_outside_its_interval_is_rejected() {
    let mut r = report();
    let f = &mut r.signup[0].fronts[0];
    f.p99_us = f.intervals.p99_us.1 * 2.0;
    rejected(
        &problems("p99", &r),
        "Sqlite through DbOnly: p99 µs 30.3 lies outside its interval 14.85–15.15",
    );
}

#[test]
fn steps_longer_than_the_stage_are_rejected() {
    let mut r = report();
    r.timing.wall_s = 5.0;
    rejected(
        &problems("steps", &r),
        "the steps add up to 11.5 s, more than the stage's 5 s",
    );
}

#[test]
fn a_claim_interval_edited_in_the_json_is_rejected() {
    let mut r = report();
    let c = r.claims.iter_mut().find(|c| c.interval.is_some()).unwrap();
    c.interval = Some((0.0, 1e9));
    rejected(
        &problems("claim", &r),
        "claims differ from the measurements",
    );
}
