//! Unit tests of `stages/systems/service.rs`.

use super::*;
use crate::render::systems::service as render;

fn fixture(duplicates: i64) -> ServiceOutcome {
    let mode = |mode, p50| ModeResult {
        mode,
        requests: 2_000,
        seconds: 4.0,
        checks: 1_200,
        signups: 640,
        check_p50_us: p50,
        check_p99_us: p50 * 4.0,
        signup_p50_us: 900.0,
        signup_p99_us: 3_100.0,
        hit_time_bound: mode == ServiceMode::DbOnly,
        gate_fpr: (mode == ServiceMode::Gate).then_some(0.0095),
    };
    ServiceOutcome::Measured(ServiceResult {
        clients: 8,
        ops_per_client: 150,
        preload: 20_000,
        contested: 20,
        max_seconds: 10.0,
        modes: vec![
            mode(ServiceMode::DbOnly, 400.0),
            mode(ServiceMode::Gate, 120.0),
        ],
        duplicates,
    })
}

#[test]
fn render_has_a_row_per_mode_and_judges_the_duplicates() {
    let md = render(&fixture(0));
    for needle in [
            "8 concurrent clients × up to 150",
            "| DB only (time bound hit) | 2000 | 4.00 | 500 | 1200 | 400 | 1600 | 640 | 900 | 3100 | — |",
            "| gate (classic, 1%) + DB | 2000 | 4.00 | 500 | 1200 | 120 | 480 | 640 | 900 | 3100 | 0.95% |",
            "must be 0): 0 — holds.",
        ] {
            assert!(md.contains(needle), "missing {needle:?} in\n{md}");
        }
    assert!(render(&fixture(3)).contains("must be 0): 3 — does not hold."));
    let absent = ServiceOutcome::NotMeasured {
        why: "pg.sh start failed".into(),
    };
    assert_eq!(render(&absent), "Not measured: pg.sh start failed\n");
}

#[test]
fn quick_load_is_small_and_bounded() {
    let q = quick_load();
    assert!(q.clients * q.ops <= 2_000 && q.max_duration <= Duration::from_secs(10));
    assert!(full_load().clients > q.clients);
}
