//! The first load of a table (`create_loaded`, SQLite and PostgreSQL): the rows first, the unique
//! index built once after them. What the gate needs must hold afterwards: the index refuses a
//! duplicate, a rebuilt gate finds every row, and a load that breaks uniqueness keeps nothing.

mod common;

use std::path::PathBuf;

use filter_gate::{Availability, Gate, Insert, PgStore, SqliteStore, Store, StoreErrorKind};

/// A fresh directory for one test's database file, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let d = std::env::temp_dir().join(format!("gate-bulk-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Self(d)
    }

    fn db(&self) -> PathBuf {
        self.0.join("users.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn emails(n: usize) -> Vec<String> {
    // Not in sorted order, as real sign-ups are not: the index is built from unordered rows.
    (0..n)
        .map(|i| format!("u{}@x.org", (i * 7919) % n))
        .collect()
}

/// Every address is taken, a new one is not, and the unique index refuses a second copy.
fn holds_what_the_gate_needs<S: Store>(store: S, loaded: &[String]) {
    let mut gate = Gate::rebuild(common::classic(loaded.len() as u64), store).unwrap();
    for e in loaded.iter().step_by(97) {
        assert_eq!(gate.is_taken(e).unwrap(), Availability::Taken, "{e}");
    }
    assert_eq!(gate.is_taken("new@x.org").unwrap(), Availability::Available);
    let store = gate.store_mut();
    assert_eq!(store.insert(&loaded[3]).unwrap(), Insert::Duplicate);
    assert_eq!(store.insert("new@x.org").unwrap(), Insert::Inserted);
}

#[test]
fn a_sqlite_table_loaded_first_and_indexed_after_holds_what_the_gate_needs() {
    let dir = TempDir::new("sqlite");
    let rows = emails(20_000);
    let (store, n) =
        SqliteStore::create_loaded(dir.db(), "users", rows.iter().map(String::as_str)).unwrap();
    assert_eq!(n, 20_000);
    assert_eq!(store.count().unwrap(), 20_000);
    // The index built after the rows is the one measured (not the constraint's automatic one).
    let bytes = store.index_bytes().unwrap();
    assert!(bytes > 20_000 * 8, "index of {bytes} bytes");
    holds_what_the_gate_needs(store, &rows);
    // Reopened as a deployment would: the same table, the same index.
    let mut again = SqliteStore::open(dir.db(), "users").unwrap();
    assert_eq!(again.insert(&rows[5]).unwrap(), Insert::Duplicate);
}

#[test]
fn the_unique_index_is_measured_on_a_table_opened_the_usual_way_too() {
    let dir = TempDir::new("sqlite-open");
    let mut store = SqliteStore::open(dir.db(), "users").unwrap();
    let rows = emails(5_000);
    store.bulk_load(rows.iter().map(String::as_str)).unwrap();
    assert!(store.index_bytes().unwrap() > 5_000 * 8);
}

#[test]
fn a_sqlite_load_with_a_duplicate_keeps_nothing() {
    let dir = TempDir::new("sqlite-dup");
    let mut rows = emails(5_000);
    rows.push(rows[10].clone());
    let e = SqliteStore::create_loaded(dir.db(), "users", rows.iter().map(String::as_str))
        .expect_err("the unique index must refuse the load");
    assert_eq!(e.kind, StoreErrorKind::Query, "{e}");
    let store = SqliteStore::open(dir.db(), "users").unwrap();
    assert_eq!(store.count().unwrap(), 0);
}

#[test]
fn a_sqlite_load_into_an_existing_table_is_refused_and_changes_nothing() {
    let dir = TempDir::new("sqlite-exists");
    let mut store = SqliteStore::open(dir.db(), "users").unwrap();
    store.insert("a@x.org").unwrap();
    drop(store);
    let rows = emails(100);
    let e = SqliteStore::create_loaded(dir.db(), "users", rows.iter().map(String::as_str))
        .expect_err("an existing table must be refused");
    assert_eq!(e.kind, StoreErrorKind::Schema, "{e}");
    assert!(e.message.contains("bulk_load"), "{e}");
    assert_eq!(
        SqliteStore::open(dir.db(), "users")
            .unwrap()
            .count()
            .unwrap(),
        1
    );
}

#[test]
fn a_postgres_table_loaded_first_and_indexed_after_holds_what_the_gate_needs() {
    let Some(conn) = common::pg() else { return };
    let t = common::table("bulk");
    let rows = emails(20_000);
    let n = PgStore::create_loaded(&conn, &t, rows.iter().map(String::as_str)).unwrap();
    assert_eq!(n, 20_000);
    // The migration ran after the load: the feed's trigger is there.
    let mut store = PgStore::connect_with_feed(&conn, &t).unwrap();
    assert_eq!(store.key_match(), filter_gate::KeyMatch::Exact);
    assert!(store.index_bytes().unwrap() > 20_000 * 8);
    holds_what_the_gate_needs(store, &rows);
    common::drop_pg(&conn, &t);
}

#[test]
fn a_postgres_load_with_a_duplicate_keeps_nothing() {
    let Some(conn) = common::pg() else { return };
    let t = common::table("bulk_dup");
    let mut rows = emails(5_000);
    rows.push(rows[10].clone());
    let e = PgStore::create_loaded(&conn, &t, rows.iter().map(String::as_str))
        .expect_err("the unique constraint must refuse the load");
    assert_eq!(e.kind, StoreErrorKind::Query, "{e}");
    let gone = PgStore::connect(&conn, &t).expect_err("the table must not exist");
    assert_eq!(gone.kind, StoreErrorKind::Schema, "{gone}");
}

#[test]
fn a_postgres_load_into_an_existing_table_is_refused_and_changes_nothing() {
    let Some(conn) = common::pg() else { return };
    let t = common::pg_table(&conn, "bulk_exists");
    let mut store = PgStore::connect(&conn, &t).unwrap();
    store.insert("a@x.org").unwrap();
    let rows = emails(100);
    assert!(PgStore::create_loaded(&conn, &t, rows.iter().map(String::as_str)).is_err());
    let count: i64 = common::client(&conn)
        .query_one(&format!("SELECT count(*) FROM {t}"), &[])
        .unwrap()
        .get(0);
    assert_eq!(count, 1);
    common::drop_pg(&conn, &t);
}

/// The service's preload builds its unique indexes after the rows: both must be there after it
/// (the one on `lower(email)` is what the gate compares, the one on the column what the
/// service's own insert meets).
#[cfg(feature = "service")]
#[test]
fn the_service_table_is_preloaded_with_both_unique_indexes() {
    use filter_gate::service::{setup, TABLE};
    let Some(conn) = common::pg() else { return };
    setup(&conn, 2_000).unwrap();
    let mut store = PgStore::connect(&conn, TABLE).unwrap();
    assert_eq!(store.key_match(), filter_gate::KeyMatch::Lower);
    assert!(store.exists("member5@x.org").unwrap());
    let mut c = common::client(&conn);
    for copy in ["member7@x.org", "MEMBER7@x.org"] {
        let sql = format!("INSERT INTO {TABLE} (email, password_hash) VALUES ('{copy}', 'x')");
        let e = c
            .execute(&sql, &[])
            .expect_err("a unique index must refuse a copy");
        assert_eq!(e.code().map(|c| c.code()), Some("23505"), "{copy}: {e}");
    }
    let n: i64 = c
        .query_one(&format!("SELECT count(*) FROM {TABLE}"), &[])
        .unwrap()
        .get(0);
    assert_eq!(n, 2_000);
    common::drop_pg(&conn, TABLE);
}
