//! Unit tests of `stages/systems/lag.rs`: the table, and the two targets judged on it.

use super::*;
use crate::judge::systems::claims;
use crate::render::systems::lag as render;
use crate::stages::systems::claims::Verdict;

fn fixture(saving_p99_ms: f64, unseen: u64) -> LagOutcome {
    let idle = row(
        LagCondition::Idle,
        4,
        (vec![0.8, 0.5, 1.5, 0.6], 3, 0),
        Vec::new(),
    );
    let saving = row(
        LagCondition::Saving,
        3 + unseen as usize,
        (vec![0.7, saving_p99_ms, 0.9], 2, unseen),
        vec![120.0, 80.0, 100.0],
    );
    LagOutcome::Measured(LagResult {
        preload: 50_000,
        bound_ms: 5_000.0,
        rows: vec![idle, saving],
    })
}

#[test]
fn the_table_has_a_row_per_condition_with_its_percentiles() {
    let md = render(&fixture(1.2, 0));
    for needle in [
        "table of 50000 rows",
        "within 5000 ms counts as unseen",
        "| idle | 4 | 3 | 0 | 0.60 | 1.50 | 1.50 | 1.50 | 0 | — |",
        "| saving | 3 | 2 | 0 | 0.90 | 1.20 | 1.20 | 1.20 | 3 | 100.0 |",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
    let absent = LagOutcome::NotMeasured {
        why: "pg.sh start failed".into(),
    };
    assert_eq!(render(&absent), "Not measured: pg.sh start failed\n");
}

fn verdict(lag: &LagOutcome, text: &str) -> Verdict {
    let unique = crate::stages::systems::unique::run(3_000, 1_000, 3, &[100]).unwrap();
    let all = claims(&[], &unique, lag, None);
    all.iter().find(|c| c.text.contains(text)).unwrap().verdict
}

#[test]
fn a_feed_held_back_for_the_save_fails_the_target_and_an_unseen_key_too() {
    let held = "does not hold back";
    let seen = "every registration reaches";
    // 1.2 ms of lag against 100 ms saves: the feed was drained during them.
    assert_eq!(verdict(&fixture(1.2, 0), held), Verdict::Met);
    assert_eq!(verdict(&fixture(1.2, 0), seen), Verdict::Met);
    // A lag as long as a save: the feed waited for it.
    assert_eq!(verdict(&fixture(95.0, 0), held), Verdict::NotMet);
    assert_eq!(verdict(&fixture(1.2, 1), seen), Verdict::NotMet);
    assert_eq!(verdict(&LagOutcome::default(), held), Verdict::NotMeasured);
}

/// The measurement end to end on the test server (`FILTERLAB_PG`), at a small size: both
/// conditions, every registration seen, percentiles in order. No figure is asserted.
#[test]
fn the_measurement_runs_on_a_server() {
    let conn = match std::env::var("FILTERLAB_PG") {
        Ok(c) if !c.is_empty() => c,
        _ if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") => {
            panic!("FILTERLAB_PG is not set, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping")
        }
        _ => {
            eprintln!("SKIPPED: no PostgreSQL server (FILTERLAB_PG is not set)");
            return;
        }
    };
    let load = LagLoad {
        preload: 2_000,
        registrations: 30,
    };
    let r = match run(Ok(&conn), &load) {
        LagOutcome::Measured(r) => r,
        LagOutcome::NotMeasured { why } => panic!("{why}"),
    };
    assert_eq!(r.preload, 2_000);
    let conditions: Vec<_> = r.rows.iter().map(|x| x.condition).collect();
    assert_eq!(conditions, [LagCondition::Idle, LagCondition::Saving]);
    for x in &r.rows {
        assert_eq!((x.registrations, x.unseen), (30, 0), "{x:?}");
        assert!(x.p50_ms <= x.p90_ms && x.p90_ms <= x.p99_ms && x.p99_ms <= x.max_ms);
    }
    assert!(r.rows[1].saves >= 1 && r.rows[1].save_p50_ms.is_some());
    eprintln!("{}", render(&LagOutcome::Measured(r)));
}
