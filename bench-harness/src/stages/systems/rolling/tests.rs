//! Unit tests of `stages/systems/rolling.rs`.

use super::*;
use crate::render::systems::rolling as render;

fn fixture() -> RollingResult {
    RollingResult {
        events: 1_000,
        users: 500,
        window_s: WINDOW_S,
        slice_s: 12_343,
        generations: 7,
        items_per_window: 334,
        target_fpr: 0.01,
        filter_bytes: 1_250_000,
        exact_bytes: 40_000_000,
        checkpoints: vec![Checkpoint {
            at_s: 86_401,
            exact: 300,
            held: 310,
            filter: 312,
            rel_error: 0.04,
            predicted_rel_error: 0.035,
            measured_fpr: 0.0105,
            predicted_fpr: 0.009,
        }],
    }
}

#[test]
fn render_shows_every_figure_of_a_checkpoint_and_both_memories() {
    let md = render(&fixture());
    for needle in [
        "1000 events over 500 users",
        "7 slices of 12343 s (8 kept), sized for",
        "events per window at 1%.",
        "| 24.0 | 300 | 310 | 312 | +4.000% | +3.500% | 1.05% | 0.9% |",
        "window filter 1.25 MB",
        "up to 40.00 MB",
    ] {
        assert!(md.contains(needle), "missing {needle:?} in\n{md}");
    }
}

/// A small seeded stream: the filter never misses a user of the window, the exact count
/// never exceeds what the filter holds, and the error stays near its prediction.
#[test]
fn small_stream_counts_are_consistent_and_near_the_prediction() {
    let r = run(60_000, 12_000, 7).unwrap();
    assert_eq!(r.checkpoints.len(), 5, "slices 7, 10, 13, 16, 19 of 21");
    for c in &r.checkpoints {
        assert_eq!(c.at_s % r.slice_s, 0, "{c:?}");
        assert!(c.exact <= c.held && c.held <= c.filter, "{c:?}");
        // On a boundary the kept slices reach 1 s past the window: the tail is (nearly) gone.
        assert!(c.held - c.exact <= c.exact / 1000, "{c:?}");
        let others = (r.users - c.held) as f64;
        let sd = (others * c.predicted_fpr * (1.0 - c.predicted_fpr)).sqrt();
        let fp = (c.filter - c.held) as f64;
        assert!(
            (fp - others * c.predicted_fpr).abs() <= 4.0 * sd + 1.0,
            "{c:?}"
        );
        assert!(c.predicted_fpr <= TARGET_FPR, "{c:?}");
    }
    assert!(r.filter_bytes < r.exact_bytes);
}
