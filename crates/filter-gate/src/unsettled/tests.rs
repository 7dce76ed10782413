use super::*;

#[test]
fn keys_beyond_the_cap_stop_trust_until_a_late_enough_catch_up() {
    let mut u = Unsettled::new(2);
    for k in ["a", "b", "a"] {
        u.add(k);
    }
    assert_eq!((u.len(), u.overflowed()), (2, false));
    u.add("c");
    assert_eq!((u.len(), u.overflowed()), (2, true));
    assert!(!u.contains("c"));
    // A catch-up that started before the drop does not count.
    let early = Before {
        dropped: 0,
        at: Instant::now(),
    };
    u.caught_up(early, Duration::ZERO);
    assert!(u.overflowed());
    // Nor one that started too soon after it.
    u.caught_up(u.before(), Duration::from_secs(3600));
    assert!(u.overflowed());
    assert!(!u.due(Duration::from_secs(3600)));
    assert!(u.due(Duration::ZERO));
    u.caught_up(u.before(), Duration::ZERO);
    assert!(!u.overflowed());
    assert!(u.remove("a") && !u.remove("a"));
}
