use super::*;

#[test]
fn each_flag_withdraws_the_filter_and_a_catch_up_restores_only_behind() {
    let mut t = Trust::default();
    assert!(t.trusted());
    t.fall_behind();
    assert!(!t.trusted());
    t.caught_up(Instant::now());
    assert!(
        t.trusted(),
        "a catch-up reads the row learnt without its form"
    );
    t.lose_feed();
    t.caught_up(Instant::now());
    assert!(!t.trusted(), "a catch-up alone does not restart the feed");
    t.feed_restored();
    assert!(t.trusted());
    t.fail_insert();
    t.caught_up(Instant::now());
    assert!(
        !t.trusted() && t.insert_failed(),
        "a filter that lost a key stays withdrawn"
    );
}

#[test]
fn retries_are_spaced_and_the_periodic_catch_up_follows_its_period() {
    let mut t = Trust::default();
    assert!(t.take_retry());
    assert!(!t.take_retry(), "at most one retry a second");
    assert!(!t.take_periodic(None), "no period: never");
    let every = Duration::from_secs(3600);
    assert!(t.take_periodic(Some(every)), "the first one is due at once");
    assert!(!t.take_periodic(Some(every)));
    t.caught_up(Instant::now());
    assert!(!t.take_periodic(Some(every)));
    // A failed one is due again a second later, not a whole period later.
    t.periodic_failed(every);
    assert!(!t.take_periodic(Some(every)));
    std::thread::sleep(RESYNC_EVERY);
    assert!(t.take_periodic(Some(every)));
}

#[test]
fn the_period_stretches_with_the_cost_of_a_catch_up() {
    let mut p = Periodic::default();
    let every = Duration::from_millis(10);
    assert!(p.take(Some(every)));
    // A catch-up that took 100 ms: the next is due 5 s later, not 10 ms.
    p.done(Instant::now() - Duration::from_millis(100));
    std::thread::sleep(Duration::from_millis(20));
    assert!(!p.take(Some(every)));
    // A quick one brings the period back to `every`.
    p.done(Instant::now());
    std::thread::sleep(Duration::from_millis(20));
    assert!(p.take(Some(every)));
}
