//! Unit tests of `stages/systems/mod.rs`.

use super::*;
use crate::judge::systems::claims as build_claims;
use crate::render::systems::markdown as render_markdown;
use claims::Verdict;
use signup::FrontResult;
use signup::{Front, StoreKind};
use steps::{Step, Timing};

/// Checks every front of [`fixture`] timed: its stated sample.
pub(crate) const CHECKS: u64 = 100_000;

fn front_fixture(front: Front, mean_us: f64, db_share: f64) -> FrontResult {
    // Intervals 1% either side of each figure: a sample that is large enough.
    let ci = |v: f64| (v * 0.99, v * 1.01);
    FrontResult {
        front,
        checks: CHECKS,
        db_share,
        p50_us: mean_us,
        p99_us: mean_us * 3.0,
        mean_us,
        checks_per_s: 1e6 / mean_us,
        intervals: sample::Intervals {
            p50_us: ci(mean_us),
            p99_us: ci(mean_us * 3.0),
            mean_us: ci(mean_us),
            checks_per_s: (1e6 / (mean_us * 1.01), 1e6 / (mean_us * 0.99)),
        },
        wrong: 0,
        filter_bytes: None,
        build_s: None,
    }
}

/// A SQLite run (DB only at 5 µs, the gate at 1 µs, over [`CHECKS`] checks) and a small
/// unique-users run.
pub(crate) fn fixture() -> (Vec<SignupResult>, UniqueResult) {
    let sqlite = SignupResult {
        store: StoreKind::Sqlite,
        rows: 1_000_000,
        new_share: 0.95,
        index_bytes: Some(35_000_000),
        load_s: 9.0,
        filter_lookup_ns: 120.0,
        gate_fpr: (0.0097, 0.009, 0.0104, 0.0099),
        timer_overhead_ns: 24.0,
        fronts: vec![
            front_fixture(Front::DbOnly, 5.0, 1.0),
            front_fixture(Front::Gate, 1.0, 0.0592),
        ],
        redis_absent: Some("no redis".into()),
    };
    let unique = unique::run(30_000, 10_000, 3, &[1000]).unwrap();
    (vec![sqlite], unique)
}

#[test]
fn claims_without_postgres_are_not_measured_and_the_rest_are_judged() {
    let (signup, unique) = fixture();
    let claims = build_claims(&signup, &unique, &lag::LagOutcome::default(), None);
    let verdict = |text: &str| {
        claims
            .iter()
            .find(|c| c.text.contains(text))
            .unwrap()
            .verdict
    };
    assert_eq!(verdict("8.2 ms"), Verdict::NotMeasured);
    assert_eq!(verdict("240–320 MB"), Verdict::NotMeasured);
    // 1.0 / 5.0 = 0.2 > 0.15: the SQLite target must fail on this fixture.
    assert_eq!(verdict("0.15×"), Verdict::NotMet);
    assert_eq!(verdict("5.95%"), Verdict::Met);
    assert_eq!(verdict("100% exact"), Verdict::Met);
}

#[test]
fn the_report_has_every_table_and_names_what_is_missing() {
    let (signup, unique) = fixture();
    let claims = build_claims(&signup, &unique, &lag::LagOutcome::default(), None);
    let r = SystemsResults {
        machine: Machine::default(),
        settings: Settings::default(),
        python_lookup_ns: None,
        rows: 1_000_000,
        signup,
        postgres_absent: Some("pg.sh start failed: no initdb".into()),
        lag: lag::LagOutcome::default(),
        service: service::ServiceOutcome::NotMeasured {
            why: "pg.sh start failed: no initdb".into(),
        },
        unique,
        rolling: rolling::run(3_000, 1_000, 3).unwrap(),
        claims,
        timing: timing(),
    };
    let md = render_markdown(&r);
    for needle in [
        "## Sign-up gate",
        "| SQLite | DB only | 100000 | 100% |",
        "gate FP rate 0.97% (95% Wilson 0.9%–1.04%, filter predicts 0.99%)",
        "## Unique users",
        "## The articles' claims",
        "## Unique users in the last 24 hours (rolling)",
        "## The sign-up service under concurrent load",
        "Not measured: pg.sh start failed",
        "not met",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
}

/// Sub-step times that add up to less than the stage's wall time.
pub(crate) fn timing() -> Timing {
    let step = |step, seconds| steps::StepTime { step, seconds };
    Timing {
        steps: vec![
            step(Step::Load(StoreKind::Sqlite), 9.0),
            step(Step::Checks(StoreKind::Sqlite, Front::DbOnly), 0.5),
            step(Step::Unique, 2.0),
        ],
        wall_s: 12.5,
    }
}

#[test]
fn the_report_states_the_sample_and_where_the_time_went() {
    let (signup, unique) = fixture();
    let r = SystemsResults {
        machine: Machine::default(),
        settings: Settings {
            rows: 1_000_000,
            checks: CHECKS as usize,
            new_share: 0.95,
            ..Settings::default()
        },
        python_lookup_ns: None,
        rows: 1_000_000,
        claims: build_claims(&signup, &unique, &lag::LagOutcome::default(), None),
        signup,
        postgres_absent: None,
        service: service::ServiceOutcome::NotMeasured { why: "x".into() },
        lag: lag::LagOutcome::default(),
        unique,
        rolling: rolling::run(3_000, 1_000, 3).unwrap(),
        timing: timing(),
    };
    let md = render_markdown(&r);
    for needle in [
        "The table holds 1000000 rows. Every contender on every store answers the same stated sample of 100000 timed checks (95% new addresses",
        "| SQLite | DB only | 100000 | 100% | 5.00 (4.95–5.05) | 15.00 (14.85–15.15) | 5.00 (4.95–5.05) | 200000 (198020–202020) |",
        "## Where the stage's time went",
        "| SQLite table loaded | 9.0 |",
        "| checks on SQLite through DB only (summed) | 0.5 |",
        "| the rest (index sizes, the filter's own lookup timing, clean-up, servers) | 1.0 |",
        "| the whole stage | 12.5 |",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
}

#[test]
fn a_gate_cost_whose_interval_straddles_its_bound_is_undecided() {
    let (mut signup, unique) = fixture();
    // Gate 0.75 µs / DB 5 µs = 0.15, the bound itself; a wide interval on the gate's mean.
    let gate = &mut signup[0].fronts[1];
    gate.mean_us = 0.75;
    gate.intervals.mean_us = (0.6, 0.9);
    let claims = build_claims(&signup, &unique, &lag::LagOutcome::default(), None);
    let c = claims.iter().find(|c| c.text.contains("0.15×")).unwrap();
    assert_eq!(c.verdict, Verdict::Undecided, "{c:?}");
    let (lo, hi) = c.interval.unwrap();
    assert!(lo < 0.15 && 0.15 < hi, "{c:?}");
    let table = crate::render::systems::claims(&claims);
    assert!(
        table.contains(
            "Undecided on this sample: \"a gate check costs ≤ 0.15× a DB-only check on SQLite\""
        ),
        "{table}"
    );
    // The same figure with a narrow interval below the bound is met.
    let gate = &mut signup[0].fronts[1];
    gate.mean_us = 0.5;
    gate.intervals.mean_us = (0.499, 0.501);
    let claims = build_claims(&signup, &unique, &lag::LagOutcome::default(), None);
    let c = claims.iter().find(|c| c.text.contains("0.15×")).unwrap();
    assert_eq!(c.verdict, Verdict::Met, "{c:?}");
    assert!(!crate::render::systems::claims(&claims).contains("Undecided on this sample"));
}

#[test]
fn the_workload_is_exactly_the_sample_or_a_clear_error() {
    let ds = crate::dataset::generate(&crate::dataset::DatasetSpec {
        members: 2_000,
        non_members: 1_000,
        seed: 7,
    });
    let w = signup::workload(&ds.members, &ds.non_members, 1_000, 0.95, 7).unwrap();
    assert_eq!(w.len(), 1_000);
    assert_eq!(w.iter().filter(|(_, taken)| *taken).count(), 50);
    let taken: std::collections::HashSet<_> = w.iter().filter(|x| x.1).collect();
    assert_eq!(
        taken.len(),
        50,
        "registered addresses drawn without repeats"
    );
    // 1,000 checks at 0% new need 1,000 registered addresses; 500 rows cannot give them.
    let small = crate::dataset::generate(&crate::dataset::DatasetSpec {
        members: 500,
        non_members: 1_000,
        seed: 7,
    });
    let e = signup::workload(&small.members, &small.non_members, 1_000, 0.0, 7).unwrap_err();
    assert!(
        e.to_string().contains("lower the checks or raise the rows"),
        "{e}"
    );
}
