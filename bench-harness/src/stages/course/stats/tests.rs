//! Unit tests of `stages/course/stats.rs`.

use super::*;

fn c(hits: u64, trials: u64) -> Count {
    Count {
        seed: hits,
        hits,
        trials,
    }
}

#[test]
fn erfc_hand_values() {
    assert!((erfc(0.0) - 1.0).abs() < 1e-7);
    assert!((p_two_sided(1.959_964) - 0.05).abs() < 1e-6);
    assert!((p_upper(1.644_854) - 0.05).abs() < 1e-6);
    assert!((erfc(-1.0) - 1.842_700_79).abs() < 1e-6);
}

#[test]
fn holm_steps_down_and_keeps_order() {
    let adj = holm(&[0.01, 0.04, 0.03, f64::NAN]);
    // Sorted 0.01, 0.03, 0.04 over a family of 3: 0.03, 0.06, max(0.06, 0.04).
    assert!((adj[0] - 0.03).abs() < 1e-12);
    assert!((adj[2] - 0.06).abs() < 1e-12);
    assert!((adj[1] - 0.06).abs() < 1e-12);
    assert!(adj[3].is_nan());
}

#[test]
fn spread_between_repetitions_widens_the_error() {
    // Same pooled rate (1%), but one set of repetitions disagrees wildly.
    let calm = [c(100, 10_000), c(100, 10_000), c(100, 10_000)];
    let wild = [c(20, 10_000), c(100, 10_000), c(180, 10_000)];
    assert!(std_error(&wild, 0.01) > 3.0 * std_error(&calm, 0.01));
    assert!(z_against(&calm, 0.008) > z_against(&wild, 0.008));
    assert_eq!(z_against(&[c(0, 10)], 0.0), 0.0);
    assert!(z_against(&[c(0, 0)], 0.1).is_nan());
    assert!(z_between(&wild, &calm).abs() < 1e-12);
}
