//! Two gate instances on one PostgreSQL database: the LISTEN/NOTIFY feed closes the staleness
//! hole, and the unique constraint refuses a duplicate even before the feed arrives.

mod common;

use std::time::{Duration, Instant};

use filter_gate::{Availability, Gate, PgStore, Registration, Route};

/// The bound within which a registration through one instance must reach another.
const FEED_BOUND: Duration = Duration::from_secs(5);

#[test]
fn a_key_registered_through_a_becomes_taken_through_b() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "multi");
    let mut a = Gate::rebuild(
        common::classic(1000),
        PgStore::connect_with_feed(&conn, &table).unwrap(),
    )
    .unwrap();
    let mut b = Gate::rebuild(
        common::classic(1000),
        PgStore::connect_with_feed(&conn, &table).unwrap(),
    )
    .unwrap();
    // A third instance without the feed shows the hole the feed closes.
    let mut stale = Gate::rebuild(
        common::classic(1000),
        PgStore::connect(&conn, &table).unwrap(),
    )
    .unwrap();

    // The constraint is the arbiter: B refuses A's key at once, feed or not.
    assert!(matches!(
        a.register("first@x.org").unwrap(),
        Registration::Registered
    ));
    assert_eq!(
        b.register("first@x.org").unwrap(),
        Registration::AlreadyTaken
    );

    assert!(matches!(
        a.register("second@x.org").unwrap(),
        Registration::Registered
    ));
    let start = Instant::now();
    let route = loop {
        let r = b.check("second@x.org").unwrap();
        if r.availability() == Availability::Taken || start.elapsed() > FEED_BOUND {
            break r;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(
        route,
        Route::ConfirmedTaken,
        "B did not learn A's key within {FEED_BOUND:?}"
    );
    eprintln!("feed delay: {:?}", start.elapsed());
    // Without the feed, the filter's stale "absent" would be a wrong answer.
    assert_eq!(stale.check("second@x.org").unwrap(), Route::FilterAbsent);
    drop((a, b, stale));
    common::drop_pg(&conn, &table);
}

#[test]
fn a_lost_feed_sends_checks_to_the_database_until_it_recovers_by_itself() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "lost");
    let mut a = Gate::rebuild(
        common::classic(1000),
        PgStore::connect(&conn, &table).unwrap(),
    )
    .unwrap();
    let mut b = Gate::rebuild(
        common::classic(1000),
        PgStore::connect_with_feed(&conn, &table).unwrap(),
    )
    .unwrap();
    // Kill B's listening connection (the one that ran LISTEN).
    let mut admin = common::client(&conn);
    let killed: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE query = format('LISTEN \"filter_gate_%s\"', $1::text::regclass::oid)",
            &[&table],
        )
        .unwrap()
        .get(0);
    assert_eq!(killed, 1);
    a.register("during@x.org").unwrap();
    let start = Instant::now();
    while b.filter_trusted() && start.elapsed() < FEED_BOUND {
        let _ = b.check("probe@x.org").unwrap();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!b.filter_trusted(), "a lost feed must be noticed");
    assert!(
        b.counts().bypassed >= 1,
        "the check that noticed it went to the database"
    );
    // Whatever happens meanwhile, the row A committed is never answered Available.
    let start = Instant::now();
    while !b.filter_trusted() && start.elapsed() < FEED_BOUND {
        assert_eq!(b.is_taken("during@x.org").unwrap(), Availability::Taken);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(b.filter_trusted(), "the feed must recover by itself");
    assert_eq!(b.check("during@x.org").unwrap(), Route::ConfirmedTaken);
    // An explicit resync works too.
    b.resync().unwrap();
    assert!(b.filter_trusted());
    drop((a, b));
    common::drop_pg(&conn, &table);
}

/// Dropping a gate never waits on its listener, even with the feed's buffer full and more
/// notifications queued behind it (100,000 in all).
#[test]
fn a_gate_with_100k_queued_notifications_drops_at_once() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "queued");
    let gate = Gate::rebuild(
        common::classic(1000),
        PgStore::connect_with_feed(&conn, &table).unwrap(),
    )
    .unwrap();
    let mut admin = common::client(&conn);
    admin
        .execute(
            "SELECT count(pg_notify(format('filter_gate_%s', $1::text::regclass::oid),
                                    'k' || g || '@x.org'))
             FROM generate_series(1, 100000) g",
            &[&table],
        )
        .unwrap();
    // Let the listener fill its buffer and block on it.
    std::thread::sleep(Duration::from_secs(2));
    let start = Instant::now();
    drop(gate);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(1), "drop took {took:?}");
    common::drop_pg(&conn, &table);
}
