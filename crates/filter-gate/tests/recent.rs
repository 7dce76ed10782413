//! The gate's "registered in the last T" mode against a real PostgreSQL: rows younger than T at
//! start-up and the gate's own registrations are recent; older rows, unknown addresses and rows
//! that aged out are not; a table without a registration-time column is refused with the reason.

mod common;

use std::time::Duration;

use filter_gate::{
    Availability, Gate, GateError, PgOptions, PgStore, Recency, RecentWindow, Registration, Store,
    StoreErrorKind, StoreResult,
};

/// A PostgreSQL store that counts the questions about registration times.
struct Counted {
    inner: PgStore,
    asked: u32,
}

impl Store for Counted {
    common::forward_store!(inner => exists, insert, scan_since, scan_recent);
    fn registered_within(&mut self, email: &str, within: Duration) -> StoreResult<bool> {
        self.asked += 1;
        self.inner.registered_within(email, within)
    }
}

/// `registered_within(key)` and how many database questions it took.
fn ask(gate: &mut Gate<filter_classic::ClassicBloom, Counted>, key: &str) -> (Recency, u32) {
    let before = gate.store_mut().asked;
    let r = gate.registered_within(key).unwrap();
    (r, gate.store_mut().asked - before)
}

const WITHIN: Duration = Duration::from_secs(2);

fn window() -> RecentWindow {
    RecentWindow {
        within: WITHIN,
        registrations: 1000,
        fpr: 0.01,
    }
}

fn with_time(column: &str) -> PgOptions {
    PgOptions {
        created_column: Some(column.into()),
        ..PgOptions::default()
    }
}

fn kind<T: std::fmt::Debug>(r: Result<T, GateError>) -> StoreErrorKind {
    match r {
        Err(GateError::Store(e)) => e.kind,
        other => panic!("expected a store error, got {other:?}"),
    }
}

#[test]
fn registered_in_the_last_t() {
    let Some(conn) = common::pg() else { return };
    let t = common::table("recent");
    common::client(&conn)
        .batch_execute(&format!(
            "CREATE TABLE {t} (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE,
                               created_at timestamptz NOT NULL DEFAULT now());
             INSERT INTO {t} (email, created_at) VALUES
                 ('old@x.org', now() - interval '1 day'),
                 ('fresh@x.org', now() - interval '1 second')"
        ))
        .unwrap();
    PgStore::migrate(&conn, &t, "email").unwrap();

    // Without the column the mode is refused, and a gate without the mode says so.
    let store = PgStore::connect(&conn, &t).unwrap();
    let gate = Gate::rebuild(common::classic(100), store).unwrap();
    assert_eq!(kind(gate.with_recent(window())), StoreErrorKind::Schema);
    let mut plain =
        Gate::rebuild(common::classic(100), PgStore::connect(&conn, &t).unwrap()).unwrap();
    assert_eq!(
        kind(plain.registered_within("a@x.org")),
        StoreErrorKind::Schema
    );
    // A registration time that is not timestamptz is refused at connect.
    let e = PgStore::connect_with(&conn, &t, &with_time("email")).unwrap_err();
    assert_eq!(e.kind, StoreErrorKind::Type, "{e}");

    let store = Counted {
        inner: PgStore::connect_with(&conn, &t, &with_time("created_at")).unwrap(),
        asked: 0,
    };
    let mut gate = Gate::rebuild(common::classic(100), store)
        .unwrap()
        .with_recent(window())
        .unwrap();
    // Read at start-up: younger than T; the window filter's "maybe" is confirmed.
    assert_eq!(ask(&mut gate, "FRESH@x.org"), (Recency::Recent, 1));
    // Registered, but a day ago: not in the window filter, no question.
    assert_eq!(gate.is_taken("old@x.org").unwrap(), Availability::Taken);
    assert_eq!(ask(&mut gate, "old@x.org"), (Recency::NotRecent, 0));
    assert_eq!(ask(&mut gate, "never@x.org"), (Recency::NotRecent, 0));
    assert_eq!(
        gate.register("new@x.org").unwrap(),
        Registration::Registered
    );
    assert_eq!(ask(&mut gate, "new@x.org"), (Recency::Recent, 1));
    // Past the window filter's 1 + 1/N windows (2.29 s here) nothing is recent any more, and
    // the window filter knows it alone.
    std::thread::sleep(WITHIN + WITHIN / 4);
    for key in ["fresh@x.org", "new@x.org"] {
        assert_eq!(ask(&mut gate, key), (Recency::NotRecent, 0), "{key}");
        assert_eq!(gate.is_taken(key).unwrap(), Availability::Taken, "{key}");
    }
    drop((gate, plain));
    common::drop_pg(&conn, &t);
}

#[test]
fn a_shared_gate_answers_the_same() {
    let Some(conn) = common::pg() else { return };
    let t = common::table("recent_shared");
    common::client(&conn)
        .batch_execute(&format!(
            "CREATE TABLE {t} (email text PRIMARY KEY,
                               created_at timestamptz NOT NULL DEFAULT now());
             INSERT INTO {t} VALUES ('fresh@x.org', now() - interval '1 second'),
                                    ('old@x.org', now() - interval '1 day')"
        ))
        .unwrap();
    PgStore::migrate(&conn, &t, "email").unwrap();
    // The table and its options named once: the pool's stores, which answer
    // `registered_within`, get the registration-time column too.
    let stores = filter_gate::Stores::postgres(&conn, &t, &with_time("created_at"))
        .unwrap()
        .with_pool_size(2);
    let atomic = filter_classic::ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build_atomic()
        .unwrap();
    let gate = filter_gate::SharedGate::rebuild(atomic, stores).unwrap();
    assert_eq!(
        kind(gate.registered_within("fresh@x.org")),
        StoreErrorKind::Schema
    );
    let gate = gate.with_recent(window()).unwrap();
    std::thread::scope(|s| {
        for i in 0..2 {
            let gate = &gate;
            s.spawn(move || {
                let key = format!("t{i}@x.org");
                assert_eq!(gate.register(&key).unwrap(), Registration::Registered);
                assert_eq!(gate.registered_within(&key).unwrap(), Recency::Recent);
            });
        }
    });
    for (key, recency) in [
        ("fresh@x.org", Recency::Recent),
        ("old@x.org", Recency::NotRecent),
        ("never@x.org", Recency::NotRecent),
    ] {
        assert_eq!(gate.registered_within(key).unwrap(), recency, "{key}");
    }
    drop(gate);
    common::drop_pg(&conn, &t);
}
