//! Unit tests of `stages/course/tables.rs`.

use super::*;

#[test]
fn poisson_tail_hand_values() {
    // P(Pois(1) >= 1) = 1 - e^-1; P(Pois(2) >= 2) = 1 - 3e^-2.
    assert!((poisson_tail(1.0, 1) - (1.0 - (-1f64).exp())).abs() < 1e-12);
    assert!((poisson_tail(2.0, 2) - (1.0 - 3.0 * (-2f64).exp())).abs() < 1e-12);
    assert_eq!(poisson_tail(0.0, 3), 0.0);
    // A tail far below 1e-16 keeps its digits: P(Pois(0.7) >= 15) ≈ e^-0.7 0.7^15 / 15!.
    let direct = (-0.7f64).exp() * 0.7f64.powi(15) / (1..=15).map(f64::from).product::<f64>();
    assert!(
        (poisson_tail(0.7, 15) / direct - 1.0).abs() < 0.1,
        "{}",
        poisson_tail(0.7, 15)
    );
}
