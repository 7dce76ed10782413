//! Unit tests of `record/verdict.rs`.

use super::*;

#[test]
fn a_verdict_is_met_only_when_the_whole_interval_satisfies_the_bound() {
    let b = Bound::AtMost(1.0);
    assert_eq!(Verdict::of(b, Some((0.5, 0.9))), Verdict::Met);
    assert_eq!(Verdict::of(b, Some((1.1, 1.3))), Verdict::NotMet);
    assert_eq!(Verdict::of(b, Some((0.9, 1.1))), Verdict::Undecided);
    assert_eq!(Verdict::of(b, None), Verdict::NotMeasured);
    assert_eq!(Verdict::of(b, Some((f64::NAN, 1.0))), Verdict::NotMeasured);
    let s = Bound::Between(1.3, 2.0);
    assert_eq!(Verdict::of(s, Some((1.5, 1.9))), Verdict::Met);
    assert_eq!(Verdict::of(s, Some((2.1, 2.4))), Verdict::NotMet);
    assert_eq!(Verdict::of(s, Some((1.9, 2.4))), Verdict::Undecided);
    assert_eq!(
        Verdict::of(Bound::AtLeast(15.0), Some((16.0, 16.0))),
        Verdict::Met
    );
}

#[test]
fn the_interval_is_reproducible_and_covers_the_ratio_of_medians() {
    let num = [10.0, 11.0, 9.5, 10.5, 12.0];
    let den = [20.0, 21.0, 19.0, 22.0, 20.5];
    let (lo, hi) = ratio_interval(&num, &den).unwrap();
    assert_eq!(ratio_interval(&num, &den), Some((lo, hi)), "fixed seed");
    assert!(lo <= 10.5 / 20.5 && 10.5 / 20.5 <= hi, "{lo} {hi}");
    assert!(lo < hi);
    // Paired rounds that move together give a narrower interval than the same values
    // taken apart.
    let wide = ratio_interval(&num, &den[..4]).unwrap();
    assert!(wide.0.is_finite() && wide.1.is_finite());
    assert_eq!(ratio_interval(&[], &den), None);
    assert_eq!(ratio_interval(&[f64::NAN], &den), None);
    // One round each: a point.
    assert_eq!(ratio_interval(&[3.0], &[2.0]), Some((1.5, 1.5)));
}

#[test]
fn the_courses_former_verdict_words_read_as_the_one_verdict() {
    let read = |w: &str| serde_json::from_str::<Verdict>(&format!("\"{w}\"")).unwrap();
    assert_eq!(read("Holds"), Verdict::Met);
    assert_eq!(read("BoundKept"), Verdict::Met);
    assert_eq!(read("Underestimates"), Verdict::NotMet);
    assert_eq!(read("Overestimates"), Verdict::NotMet);
    assert_eq!(read("BoundBroken"), Verdict::NotMet);
    assert_eq!(read("NotComputable"), Verdict::NotMeasured);
    assert_eq!(
        serde_json::to_string(&Verdict::NotMet).unwrap(),
        "\"not_met\""
    );
    assert!(serde_json::from_str::<Verdict>("\"Maybe\"").is_err());
}
