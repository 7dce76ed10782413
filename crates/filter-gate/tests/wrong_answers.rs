//! The five ways the gate used to answer "Available" for a committed row (issue 17), each
//! reproduced against a real PostgreSQL.

mod common;

use std::path::PathBuf;

use filter_core::Filter;
use filter_gate::{
    Availability, EmailError, Gate, GateError, Insert, Mark, PgStore, Rebuild, Registration, Route,
    Startup, Store, StoreError, StoreErrorKind, StoreResult,
};

/// The tests of this file run one at a time: a catch-up re-reads the rows whose xmin is at or
/// above the saved snapshot's xmin, and a transaction that another test holds open keeps that
/// xmin back, so "the next start reads nothing new" holds only with no other transaction in the
/// cluster (the re-read rows are harmless in use: the filter already has them).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gate-wrong-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn count(conn: &str, table: &str) -> i64 {
    common::client(conn)
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// 1. A transaction takes a low id and commits after 5,000 higher ids, and after the gate
///    saved its filter: ids are not commit order, and a window of ids would miss it.
#[test]
fn a_row_committed_after_the_save_with_a_low_id_is_caught_up() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "late");
    let dir = tmpdir("late");
    let snap = dir.join("users.filter");
    let mut late = common::client(&conn);
    let mut tx = late.transaction().unwrap();
    tx.execute(
        &format!("INSERT INTO {table} (email) VALUES ('late@x.org')"),
        &[],
    )
    .unwrap();
    let mut other = common::client(&conn);
    other
        .batch_execute(&format!(
            "INSERT INTO {table} (email) SELECT 'r' || g || '@x.org' FROM generate_series(1, 5000) g"
        ))
        .unwrap();
    {
        let store = PgStore::connect(&conn, &table).unwrap();
        let mut gate = Gate::rebuild(common::classic(10_000), store).unwrap();
        gate.save(&snap).unwrap();
        assert!(!gate.filter().contains(b"late@x.org"), "not committed yet");
    }
    tx.commit().unwrap();
    // The late row has the lowest id of all.
    let late_id: i64 = other
        .query_one(&format!("SELECT min(id) FROM {table}"), &[])
        .unwrap()
        .get(0);
    let (id_of_late,): (i64,) = other
        .query_one(
            &format!("SELECT id FROM {table} WHERE email = 'late@x.org'"),
            &[],
        )
        .map(|r| (r.get(0),))
        .unwrap();
    assert_eq!(late_id, id_of_late);
    // Freezing keeps a row's xmin: the catch-up still finds it.
    other
        .batch_execute(&format!("VACUUM (FREEZE) {table}"))
        .unwrap();
    let store = PgStore::connect(&conn, &table).unwrap();
    let (mut gate, startup) = Gate::open(&snap, store, || Ok(common::classic(10_000))).unwrap();
    assert!(matches!(startup, Startup::Loaded { .. }), "{startup:?}");
    assert_eq!(gate.is_taken("late@x.org").unwrap(), Availability::Taken);
    assert!(gate.filter().contains(b"late@x.org"));
    // A save after the late commit moves the mark past it: the next start reads nothing new.
    gate.save(&snap).unwrap();
    drop(gate);
    let store = PgStore::connect(&conn, &table).unwrap();
    let (_, startup) = Gate::open(&snap, store, || Ok(common::classic(10_000))).unwrap();
    assert!(
        matches!(startup, Startup::Loaded { caught_up: 0 }),
        "{startup:?}"
    );
    common::drop_pg(&conn, &table);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A PostgreSQL store whose connection breaks right after the INSERT committed (the reply is
/// lost), or right before it reached the server.
struct Cut {
    inner: PgStore,
    after_commit: Option<bool>,
}

impl Store for Cut {
    common::forward_store!(inner => exists, scan_since);
    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        let lost = || StoreError::new(StoreErrorKind::Unavailable, "insert", "connection lost");
        match self.after_commit.take() {
            Some(true) => {
                self.inner.insert(email)?;
                Err(lost())
            }
            Some(false) => Err(lost()),
            None => self.inner.insert(email),
        }
    }
}

/// 2. The connection breaks after the commit: `register` fails, yet the row is there.
#[test]
fn a_registration_with_an_unknown_outcome_is_checked_in_the_database() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "cut");
    let store = Cut {
        inner: PgStore::connect(&conn, &table).unwrap(),
        after_commit: None,
    };
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();

    gate.store_mut().after_commit = Some(true);
    assert!(matches!(
        gate.register("cut@x.org"),
        Err(GateError::Store(_))
    ));
    assert_eq!(count(&conn, &table), 1, "the row did commit");
    assert_eq!(gate.unsettled(), 1);
    assert_eq!(
        gate.check("cut@x.org").unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    // Settled: the key is in the filter now.
    assert_eq!(gate.unsettled(), 0);
    assert_eq!(gate.check("cut@x.org").unwrap(), Route::ConfirmedTaken);

    // Cut before the server saw it: unknown to the gate, absent in the database. Every check
    // asks until a registration settles it.
    gate.store_mut().after_commit = Some(false);
    assert!(gate.register("lost@x.org").is_err());
    for _ in 0..3 {
        assert_eq!(
            gate.check("lost@x.org").unwrap(),
            Route::Bypassed(Availability::Available)
        );
    }
    assert_eq!(
        gate.register("lost@x.org").unwrap(),
        Registration::Registered
    );
    assert_eq!(gate.unsettled(), 0);
    assert_eq!(gate.check("lost@x.org").unwrap(), Route::ConfirmedTaken);
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// Runs statements one at a time (DROP and CREATE DATABASE refuse a transaction block).
fn each(client: &mut postgres::Client, statements: &[String]) {
    for s in statements {
        client.batch_execute(s).unwrap();
    }
}

fn with_db(conn: &str, db: &str) -> String {
    format!("{conn} dbname={db}")
}

/// 3. The database is restored from a backup older than the saved filter.
#[test]
fn a_database_restored_from_an_older_backup_is_rebuilt() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let db = format!("gate_restore_{}", std::process::id());
    let backup = format!("{db}_backup");
    let mut admin = common::client(&conn);
    each(
        &mut admin,
        &[
            format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
            format!("DROP DATABASE IF EXISTS {backup} WITH (FORCE)"),
            format!("CREATE DATABASE {db}"),
        ],
    );
    let live = with_db(&conn, &db);
    PgStore::create_table(&live, "users").unwrap();
    let dir = tmpdir("restore");
    let snap = dir.join("users.filter");
    let fresh = || Ok(common::classic(1000));
    {
        let mut gate =
            Gate::rebuild(fresh().unwrap(), PgStore::connect(&live, "users").unwrap()).unwrap();
        for i in 0..10 {
            gate.register(&format!("old{i}@x.org")).unwrap();
        }
    }
    admin
        .batch_execute(&format!("CREATE DATABASE {backup} TEMPLATE {db}"))
        .unwrap();
    {
        let mut gate =
            Gate::rebuild(fresh().unwrap(), PgStore::connect(&live, "users").unwrap()).unwrap();
        for i in 0..50 {
            gate.register(&format!("lost{i}@x.org")).unwrap();
        }
        gate.save(&snap).unwrap();
    }
    // The restore, then sign-ups into the restored database.
    each(
        &mut admin,
        &[
            format!("DROP DATABASE {db} WITH (FORCE)"),
            format!("CREATE DATABASE {db} TEMPLATE {backup}"),
        ],
    );
    common::client(&live)
        .batch_execute(
            "INSERT INTO users (email) SELECT 'new' || g || '@x.org' FROM generate_series(0, 49) g",
        )
        .unwrap();
    let (mut gate, startup) =
        Gate::open(&snap, PgStore::connect(&live, "users").unwrap(), fresh).unwrap();
    match &startup {
        Startup::Rebuilt {
            rows: 60,
            reason: Rebuild::Stale(why),
        } => assert!(why.contains("restored"), "{why}"),
        other => panic!("expected a rebuild of 60 rows, got {other:?}"),
    }
    for i in 0..50 {
        assert_eq!(
            gate.is_taken(&format!("new{i}@x.org")).unwrap(),
            Availability::Taken
        );
    }
    assert_eq!(
        gate.filter().len(),
        60,
        "the lost rows are gone from the filter"
    );
    drop(gate);
    each(
        &mut admin,
        &[
            format!("DROP DATABASE {db} WITH (FORCE)"),
            format!("DROP DATABASE {backup} WITH (FORCE)"),
        ],
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// 4. Rows stored before normalisation: found under a unique index on the column (held as
///    aliases, see tests/other_writers.rs) and under a unique index on `lower(column)`.
#[test]
fn rows_stored_before_normalisation_are_found() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "legacy");
    let mut admin = common::client(&conn);
    admin
        .batch_execute(&format!(
            "INSERT INTO {table} (email) VALUES ('Legacy.User@Example.com')"
        ))
        .unwrap();
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.unnormalised(), 1);
    assert_eq!(
        gate.register("LEGACY.user@example.com").unwrap(),
        Registration::AlreadyTaken
    );
    drop(gate);
    admin
        .batch_execute(&format!("CREATE UNIQUE INDEX ON {table} (lower(email))"))
        .unwrap();
    let store = PgStore::connect(&conn, &table).unwrap();
    assert_eq!(store.key_match(), filter_gate::KeyMatch::Lower);
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(
        gate.unnormalised(),
        0,
        "the lower() index finds it by its key"
    );
    assert_eq!(
        gate.is_taken("legacy.user@example.com").unwrap(),
        Availability::Taken
    );
    assert_eq!(
        gate.register("LEGACY.user@example.com").unwrap(),
        Registration::AlreadyTaken
    );
    assert_eq!(count(&conn, &table), 1, "no second account for the mailbox");
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// 5. The length limit applies to the stored key, after lower-casing.
#[test]
fn an_address_too_long_once_lower_cased_is_refused_and_not_stored() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "long");
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    let raw = format!("{}@x.org", "\u{130}".repeat(124));
    assert_eq!(raw.len(), 254);
    assert!(matches!(
        gate.register(&raw),
        Err(GateError::Invalid(EmailError::TooLong { len: 378 }))
    ));
    assert_eq!(count(&conn, &table), 0);
    let stored: Option<i32> = common::client(&conn)
        .query_one(
            &format!("SELECT max(octet_length(email)) FROM {table}"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(stored, None);
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// A filter saved for one table is not taken for another table of the same database.
#[test]
fn a_filter_saved_for_another_table_is_not_used() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let (a, b) = (
        common::pg_table(&conn, "own"),
        common::pg_table(&conn, "other"),
    );
    let dir = tmpdir("other");
    let snap = dir.join("users.filter");
    {
        let store = PgStore::connect(&conn, &a).unwrap();
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        gate.register("a@x.org").unwrap();
        gate.save(&snap).unwrap();
    }
    common::client(&conn)
        .batch_execute(&format!("INSERT INTO {b} (email) VALUES ('b@x.org')"))
        .unwrap();
    let store = PgStore::connect(&conn, &b).unwrap();
    let (mut gate, startup) = Gate::open(&snap, store, || Ok(common::classic(1000))).unwrap();
    assert!(
        matches!(
            startup,
            Startup::Rebuilt {
                rows: 1,
                reason: Rebuild::Stale(_)
            }
        ),
        "{startup:?}"
    );
    assert_eq!(gate.is_taken("b@x.org").unwrap(), Availability::Taken);
    drop(gate);
    common::drop_pg(&conn, &a);
    common::drop_pg(&conn, &b);
    std::fs::remove_dir_all(dir).unwrap();
}

/// A PostgreSQL store that accepts every saved mark: the fixture that shows what
/// [`Store::check_mark`] prevents.
struct Trusting(PgStore);

impl Store for Trusting {
    common::forward_store!(0 => exists, insert, scan_since);
}

/// A saved mark whose token is known but whose transaction ids lie above the server's (a
/// cluster restored from a physical backup, whose ids went back, with the token table intact):
/// the gate rebuilds. Without the check (the `Trusting` fixture) the same file is loaded, the
/// catch-up reads nothing, and a committed row is answered Available.
#[test]
fn a_mark_above_the_servers_transaction_ids_is_rebuilt() {
    let _serial = serial();
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "xidback");
    let dir = tmpdir("xidback");
    let snap = dir.join("users.filter");
    let fresh = || Ok(common::classic(1000));
    let stamp = {
        let mut gate =
            Gate::rebuild(fresh().unwrap(), PgStore::connect(&conn, &table).unwrap()).unwrap();
        gate.save(&snap).unwrap();
        match gate.mark() {
            Mark::PgSnapshot { stamp, .. } => stamp,
            other => panic!("not a PostgreSQL mark: {other:?}"),
        }
    };
    // Rows the saved (empty) filter lacks, written by transactions below the forged mark.
    common::client(&conn)
        .batch_execute(&format!(
            "INSERT INTO {table} (email) SELECT 'r' || g || '@x.org' FROM generate_series(1, 20) g"
        ))
        .unwrap();
    let now: i64 = common::client(&conn)
        .query_one("SELECT pg_current_xact_id()::text::int8", &[])
        .unwrap()
        .get(0);
    let ahead = now as u64 + 1_000_000;
    let forged = Mark::PgSnapshot {
        xmin: ahead,
        xmax: ahead,
        stamp,
    };
    filter_gate::snapshot::save(&common::classic(1000), forged, &snap).unwrap();

    let (mut gate, startup) =
        Gate::open(&snap, PgStore::connect(&conn, &table).unwrap(), fresh).unwrap();
    match &startup {
        Startup::Rebuilt {
            rows: 20,
            reason: Rebuild::Stale(why),
        } => assert!(why.contains("went back"), "{why}"),
        other => panic!("expected a rebuild of 20 rows, got {other:?}"),
    }
    assert_eq!(gate.is_taken("r7@x.org").unwrap(), Availability::Taken);
    drop(gate);

    // The fixture: without the check, the forged file is trusted and the answer is wrong.
    let store = Trusting(PgStore::connect(&conn, &table).unwrap());
    let (mut gate, startup) = Gate::open(&snap, store, fresh).unwrap();
    assert!(
        matches!(startup, Startup::Loaded { caught_up: 0 }),
        "{startup:?}"
    );
    assert_eq!(gate.is_taken("r7@x.org").unwrap(), Availability::Available);
    drop(gate);
    common::drop_pg(&conn, &table);
    std::fs::remove_dir_all(dir).unwrap();
}
