//! Unit tests of `stages/systems/mod.rs`.

use super::*;
use crate::judge::systems::claims as build_claims;
use crate::render::systems::markdown as render_markdown;
use claims::Verdict;
use signup::FrontResult;
use signup::{Front, StoreKind};

fn front_fixture(front: Front, mean_us: f64, db_share: f64) -> FrontResult {
    FrontResult {
        front,
        checks: 100_000,
        db_share,
        p50_us: mean_us,
        p99_us: mean_us * 3.0,
        mean_us,
        checks_per_s: 1e6 / mean_us,
        wrong: 0,
        filter_bytes: None,
        build_s: None,
    }
}

fn fixture() -> (Vec<SignupResult>, UniqueResult) {
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
