//! Unit tests of `record/ratio.rs`: the interval of a bits-over-bound row.

use super::*;

/// bits / log2(1/r) at the Wilson 95% upper end of `fp / probes`, as the judge computes it.
fn at_upper(bits: f64, (fp, probes): (u64, u64)) -> f64 {
    let (_, hi) = filterlab::math::wilson_interval(fp, probes, 1.96);
    bits / (1.0 / hi).log2()
}

/// A row of two sides' bits per key over their bound, judged against `≤ 1`.
fn row(a: (f64, (u64, u64)), b: (f64, (u64, u64))) -> Ratio {
    Ratio {
        what: "a vs b: bits per key / log2(1/achieved FP)".into(),
        numerator_value: at_upper(a.0, a.1),
        denominator_value: at_upper(b.0, b.1),
        bound_counts: Some([a.1, b.1]),
        bound: Bound::AtMost(1.0),
        ..Ratio::default()
    }
    .recomputed()
}

#[test]
fn equal_bits_at_rates_within_noise_are_undecided_not_missed() {
    // The last run's binary fuse 8 against xorf's: the same bytes, FP counts within noise.
    let r = row((9.02, (3903, 1_000_000)), (9.02, (3883, 1_000_000)));
    assert!(r.ratio > 1.0, "{}", r.ratio);
    let (lo, hi) = r.interval.unwrap();
    assert!(lo < 1.0 && hi > 1.0, "{lo} {hi}");
    assert_eq!(r.verdict, Verdict::Undecided);
}

#[test]
fn more_bits_at_the_same_rate_is_not_met_and_fewer_is_met() {
    let counts = (10_000, 1_000_000);
    let worse = row((12.0, counts), (9.0, counts));
    assert!(worse.interval.unwrap().0 > 1.0);
    assert_eq!(worse.verdict, Verdict::NotMet);
    let better = row((9.0, counts), (12.0, counts));
    assert!(better.interval.unwrap().1 < 1.0);
    assert_eq!(better.verdict, Verdict::Met);
}

#[test]
fn no_false_positive_is_bounded_by_the_space_lower_bound() {
    // 30 bits per key cannot have a rate below 2^-30: its lower end is 30 / 30 = 1, not 0.
    let r = row((9.0, (10_000, 1_000_000)), (30.0, (0, 1_000_000)));
    let (lo, hi) = r.interval.unwrap();
    assert!(hi.is_finite() && hi > 1.0 && lo < 1.0, "{lo} {hi}");
    assert_eq!(r.verdict, Verdict::Undecided);
    let v = at_upper(30.0, (0, 1_000_000));
    assert!((at_lower_rate(v, (0, 1_000_000)).unwrap() - 1.0).abs() < 1e-12);
    // No probes: nothing to say.
    assert_eq!(bound_interval((1.0, (0, 0)), (1.0, (1, 10))), None);
}
