//! The gate's behaviour on both stores: answers, validation, false-positive accounting, a
//! database that goes away, saving and reloading.

mod common;

use filter_core::Filter;
use filter_gate::{
    Availability, Gate, GateError, Insert, Mark, PgStore, Rebuild, Registration, Route, ScannedRow,
    SqliteStore, Startup, Store, StoreErrorKind,
};

fn sqlite() -> SqliteStore {
    SqliteStore::open_in_memory("users").unwrap()
}

fn basic_contract<S: Store>(store: S) {
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.is_taken("a@x.org").unwrap(), Availability::Available);
    assert!(matches!(
        gate.register("A@x.org ").unwrap(),
        Registration::Registered
    ));
    assert_eq!(gate.is_taken(" a@X.ORG").unwrap(), Availability::Taken);
    assert_eq!(
        gate.register("a@x.org").unwrap(),
        Registration::AlreadyTaken
    );
    // Bad input: a clear error, and nothing stored.
    for bad in ["", "   ", "no-at", "@x.org", "a\u{7}@x.org"] {
        assert!(
            matches!(gate.register(bad), Err(GateError::Invalid(_))),
            "{bad:?}"
        );
        assert!(
            matches!(gate.is_taken(bad), Err(GateError::Invalid(_))),
            "{bad:?}"
        );
    }
    let mut rows = 0;
    gate.store_mut()
        .scan_since(Mark::Start, &mut |_| rows += 1)
        .unwrap();
    assert_eq!(rows, 1, "only the one valid registration is stored");
}

#[test]
fn the_gate_contract_holds_on_sqlite() {
    basic_contract(sqlite());
}

#[test]
fn the_gate_contract_holds_on_postgres() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "contract");
    basic_contract(PgStore::connect(&conn, &table).unwrap());
    common::drop_pg(&conn, &table);
}

#[test]
fn false_positives_are_counted_and_an_overfull_filter_warns() {
    // A filter sized for 20 keys holding 2000: nearly every check is a "maybe".
    let mut gate = Gate::rebuild(common::classic(20), sqlite())
        .unwrap()
        .with_target_fpr(0.01);
    for i in 0..2000 {
        gate.register(&format!("member{i}@x.org")).unwrap();
    }
    let mut fp = 0;
    for i in 0..2000 {
        match gate.check(&format!("new{i}@y.org")).unwrap() {
            Route::FalsePositive => fp += 1,
            Route::FilterAbsent => {}
            other => panic!("a new address was answered {other:?}"),
        }
    }
    let report = gate.fpr_report();
    assert_eq!(report.false_positives, fp);
    assert_eq!(report.negatives, 2000);
    assert_eq!(gate.counts().database_queries(), fp);
    assert!(report.over_target(), "{report:?}");
    assert!(report.interval.0 <= report.rate && report.rate <= report.interval.1);
}

#[test]
fn a_well_sized_filter_does_not_warn_and_matches_its_prediction() {
    let mut gate = Gate::rebuild(common::classic(5000), sqlite())
        .unwrap()
        .with_target_fpr(0.01);
    for i in 0..5000 {
        gate.register(&format!("member{i}@x.org")).unwrap();
    }
    for i in 0..20_000 {
        assert_eq!(
            gate.is_taken(&format!("new{i}@y.org")).unwrap(),
            Availability::Available
        );
    }
    let r = gate.fpr_report();
    assert!(!r.over_target(), "{r:?}");
    // Binomial tolerance: 4 sigma around the filter's prediction at its load.
    let sigma = filter_core::math::binomial_sigma(r.expected, r.negatives);
    assert!((r.rate - r.expected).abs() <= 4.0 * sigma, "{r:?}");
}

/// A store that can be switched off, standing for a database that goes down.
struct Switch<S> {
    inner: S,
    up: bool,
}

impl<S: Store> Store for Switch<S> {
    fn exists(&mut self, email: &str) -> filter_gate::StoreResult<bool> {
        self.gate()?;
        self.inner.exists(email)
    }
    fn insert(&mut self, email: &str) -> filter_gate::StoreResult<Insert> {
        self.gate()?;
        self.inner.insert(email)
    }
    fn scan_since(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> filter_gate::StoreResult<Mark> {
        self.gate()?;
        self.inner.scan_since(since, each)
    }
}

impl<S> Switch<S> {
    fn gate(&self) -> filter_gate::StoreResult<()> {
        if self.up {
            Ok(())
        } else {
            Err(filter_gate::StoreError::new(
                StoreErrorKind::Unavailable,
                "test",
                "switched off",
            ))
        }
    }
}

#[test]
fn a_database_that_is_down_gives_errors_never_guesses() {
    let store = Switch {
        inner: sqlite(),
        up: true,
    };
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    gate.register("taken@x.org").unwrap();
    gate.store_mut().up = false;
    // "maybe" with no database: an error, not Available and not Taken.
    assert!(matches!(
        gate.is_taken("taken@x.org"),
        Err(GateError::Store(_))
    ));
    // "absent" is a proof: still answered.
    assert_eq!(
        gate.is_taken("never@x.org").unwrap(),
        Availability::Available
    );
    // A registration cannot be decided without the constraint.
    assert!(matches!(
        gate.register("new@x.org"),
        Err(GateError::Store(_))
    ));
    gate.store_mut().up = true;
    assert!(matches!(
        gate.register("new@x.org").unwrap(),
        Registration::Registered
    ));
}

/// The gate's connection is cut: the next check reconnects. While the server refuses
/// connections, "maybe" is an error and "absent" still an answer; then it recovers by itself.
#[test]
fn a_postgres_connection_that_dies_is_replaced_or_a_clear_error() {
    let Some(conn) = common::pg() else { return };
    let db = format!("gate_down_{}", std::process::id());
    let mut admin = common::client(&conn);
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .unwrap();
    admin
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .unwrap();
    let there = format!("{conn} dbname={db}");
    PgStore::create_table(&there, "users").unwrap();
    let store = PgStore::connect(&there, "users").unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    gate.register("taken@x.org").unwrap();
    let cut = |admin: &mut postgres::Client| {
        admin
            .execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
                &[&db],
            )
            .unwrap();
    };
    cut(&mut admin);
    assert_eq!(gate.check("taken@x.org").unwrap(), Route::ConfirmedTaken);

    admin
        .batch_execute(&format!("ALTER DATABASE {db} WITH ALLOW_CONNECTIONS false"))
        .unwrap();
    cut(&mut admin);
    match gate.is_taken("taken@x.org") {
        Err(GateError::Store(e)) => assert_eq!(e.kind, StoreErrorKind::Unavailable, "{e}"),
        other => panic!("expected the database to be unavailable, got {other:?}"),
    }
    assert_eq!(
        gate.is_taken("never@x.org").unwrap(),
        Availability::Available
    );
    admin
        .batch_execute(&format!("ALTER DATABASE {db} WITH ALLOW_CONNECTIONS true"))
        .unwrap();
    assert_eq!(gate.is_taken("taken@x.org").unwrap(), Availability::Taken);
    drop(gate);
    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .unwrap();
}

#[test]
fn a_saved_filter_reloads_and_catches_up() {
    let dir = std::env::temp_dir().join(format!("gate-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("users.db");
    let snap = dir.join("users.filter");
    {
        let store = SqliteStore::open(&db, "users").unwrap();
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        gate.register("before@x.org").unwrap();
        gate.catch_up().unwrap();
        gate.save(&snap).unwrap();
        // Registered after the save: only the catch-up can bring it back.
        gate.register("after@x.org").unwrap();
    }
    let store = SqliteStore::open(&db, "users").unwrap();
    let (mut gate, startup) = Gate::open(&snap, store, || Ok(common::classic(1000))).unwrap();
    assert!(
        matches!(startup, Startup::Loaded { caught_up: 1 }),
        "{startup:?}"
    );
    assert_eq!(gate.is_taken("after@x.org").unwrap(), Availability::Taken);
    assert_eq!(gate.is_taken("before@x.org").unwrap(), Availability::Taken);

    // A damaged file: rebuilt from the table, and the reason kept.
    std::fs::write(&snap, b"garbage").unwrap();
    let store = SqliteStore::open(&db, "users").unwrap();
    let (mut gate, startup) = Gate::open(&snap, store, || Ok(common::classic(1000))).unwrap();
    assert!(
        matches!(
            startup,
            Startup::Rebuilt {
                rows: 2,
                reason: Rebuild::Damaged(_)
            }
        ),
        "{startup:?}"
    );
    assert_eq!(gate.is_taken("after@x.org").unwrap(), Availability::Taken);
    assert_eq!(gate.filter().len(), 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_failed_filter_insert_sends_every_check_to_the_database() {
    // A cuckoo table of a few slots fills at once; the gate must then stop trusting it.
    let filter = filter_cuckoo::CuckooFilter::builder()
        .capacity(4)
        .build()
        .unwrap();
    let mut gate = Gate::rebuild(filter, sqlite()).unwrap();
    for i in 0..200 {
        gate.register(&format!("u{i}@x.org")).unwrap();
    }
    assert!(!gate.filter_trusted());
    for i in 0..200 {
        assert_eq!(
            gate.is_taken(&format!("u{i}@x.org")).unwrap(),
            Availability::Taken
        );
    }
    assert_eq!(gate.counts().bypassed, 200);
}

#[test]
fn open_rebuilds_when_the_capacity_or_rate_changed() {
    let dir = std::env::temp_dir().join(format!("gate-resize-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("users.db");
    let snap = dir.join("users.filter");
    {
        let store = SqliteStore::open(&db, "users").unwrap();
        let mut gate = Gate::rebuild(common::classic(100), store).unwrap();
        gate.register("a@x.org").unwrap();
        gate.save(&snap).unwrap();
    }
    let store = SqliteStore::open(&db, "users").unwrap();
    let (gate, startup) = Gate::open(&snap, store, || Ok(common::classic(5000))).unwrap();
    match startup {
        Startup::Rebuilt {
            rows: 1,
            reason: Rebuild::Resized { saved, wanted },
        } => assert_eq!((saved.0, wanted.0), (100, 5000)),
        other => panic!("expected a rebuild at the new size, got {other:?}"),
    }
    assert_eq!(gate.filter().capacity(), 5000);
    // The same size again: loaded.
    let store = SqliteStore::open(&db, "users").unwrap();
    let (_, startup) = Gate::open(&snap, store, || Ok(common::classic(100))).unwrap();
    assert!(
        matches!(startup, Startup::Loaded { caught_up: 0 }),
        "{startup:?}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
