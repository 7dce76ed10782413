//! Unit tests of `stages/systems/claims.rs`.

use super::*;
use crate::render::systems::claims as render;

fn claim(measured: Option<f64>, threshold: Threshold) -> Claim {
    Claim::new(1, "t", "m", measured, threshold)
}

#[test]
fn verdicts_follow_the_threshold() {
    assert_eq!(
        claim(Some(8.0), Threshold::factor(8.2, 2.0)).verdict(),
        Verdict::Met
    );
    assert_eq!(
        claim(Some(0.05), Threshold::factor(8.2, 2.0)).verdict(),
        Verdict::NotMet
    );
    assert_eq!(
        claim(Some(0.02), Threshold::AtMost(0.01)).verdict(),
        Verdict::NotMet
    );
    assert_eq!(
        claim(Some(2e9), Threshold::AtLeast(1e9)).verdict(),
        Verdict::Met
    );
    assert_eq!(
        claim(Some(f64::NAN), Threshold::AtLeast(0.0)).verdict(),
        Verdict::NotMet
    );
    assert_eq!(
        claim(None, Threshold::AtMost(1.0)).verdict(),
        Verdict::NotMeasured
    );
}

#[test]
fn the_table_shows_the_computed_verdict() {
    let t = render(&[
        claim(Some(0.02), Threshold::AtMost(0.01)),
        claim(None, Threshold::AtMost(1.0)),
    ]);
    assert!(t.contains("| 0.0200 | ≤ 0.0100 | not met |"), "{t}");
    assert!(t.contains("not measured"), "{t}");
}
