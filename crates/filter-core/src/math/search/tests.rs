use super::least;

#[test]
fn finds_the_threshold_from_any_start_and_refuses_an_unreachable_one() {
    for threshold in [1u64, 2, 7, 1000, 123_456_789] {
        for start in [0u64, 1, threshold / 2, threshold, threshold + 5, 1 << 40] {
            assert_eq!(
                least(start, (0, 1 << 41), |m| m >= threshold),
                Some(threshold),
                "threshold {threshold}, start {start}"
            );
        }
    }
    // A floor above which everything meets: the least is just above it.
    assert_eq!(least(50, (10, 100), |m| m > 3), Some(11));
    assert_eq!(least(5, (0, 100), |m| m > 100), None);
    assert_eq!(least(5, (100, 100), |_| true), None);
}

/// The number of evaluations stays logarithmic in the distance from the start.
#[test]
fn a_good_start_costs_few_evaluations() {
    let calls = std::cell::Cell::new(0u32);
    let found = least(1_000_000, (0, 1 << 62), |m| {
        calls.set(calls.get() + 1);
        m >= 1_000_003
    });
    assert_eq!(found, Some(1_000_003));
    assert!(calls.get() <= 8, "{} evaluations", calls.get());
}
