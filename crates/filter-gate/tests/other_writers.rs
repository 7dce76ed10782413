//! Rows that other code writes into the users table (an admin tool, an import), in forms the
//! gate would not have stored: a mixed-case address under a unique index on the column, and
//! letters that the server's libc `lower()` folds otherwise than the gate's Unicode lower case
//! (`İ`, a final `Σ`). The gate learns them through the feed or a scan, and must answer neither
//! Available nor let `register` add a second account where the table already has one. The
//! oracle is the table itself: under a `lower()` or citext index, an INSERT of the address as
//! typed, rolled back, says whether the unique index refuses it (the gate's key is the index's:
//! issue 51); under a unique index on the column, the index refuses the gate's key, or two
//! addresses with the same key are one mailbox.

mod common;

use std::time::{Duration, Instant};

use filter_core::concurrent::SharedInsert;
use filter_core::Filter;
use filter_gate::{
    Availability, Gate, GateError, Normalizer, PgOptions, PgStore, Recency, Registration, Route,
    SharedGate, SqliteStore, Stores, MAX_UNNORMALISED_ROWS,
};

/// How long the feed may take to bring a row in.
const FEED_BOUND: Duration = Duration::from_secs(5);

/// What other code stores: a mixed-case address, a dotted capital I, a final capital sigma.
const STORED: [&str; 3] = ["Zed.Admin@Example.org", "\u{130}LKER@x.org", "ΟΔΟΣ@x.org"];

/// What users type: the stored forms, the gate's keys for them, what libc `lower()` makes of
/// them (`ilker`, `οδοσ`), and a new address.
const PROBES: [&str; 8] = [
    "Zed.Admin@Example.org",
    "zed.admin@example.org",
    "\u{130}LKER@x.org",
    "ilker@x.org",
    "ΟΔΟΣ@x.org",
    "οδος@x.org",
    "οδοσ@x.org",
    "new@x.org",
];

/// The two gates, seen the same way by the checks below.
trait Front {
    fn taken(&mut self, email: &str) -> Availability;
    fn register(&mut self, email: &str) -> Registration;
    fn knows(&self, key: &str) -> bool;
    fn key(&mut self, email: &str) -> String;
}

impl Front for Gate<filter_classic::ClassicBloom, PgStore> {
    fn taken(&mut self, email: &str) -> Availability {
        self.is_taken(email).unwrap()
    }
    fn register(&mut self, email: &str) -> Registration {
        Gate::register(self, email).unwrap()
    }
    fn knows(&self, key: &str) -> bool {
        self.filter().contains(key.as_bytes())
    }
    fn key(&mut self, email: &str) -> String {
        Gate::key(self, email).unwrap()
    }
}

impl<F: SharedInsert> Front for SharedGate<F, PgStore> {
    fn taken(&mut self, email: &str) -> Availability {
        self.is_taken(email).unwrap()
    }
    fn register(&mut self, email: &str) -> Registration {
        SharedGate::register(self, email).unwrap()
    }
    fn knows(&self, key: &str) -> bool {
        self.filter().contains(key.as_bytes())
    }
    fn key(&mut self, email: &str) -> String {
        SharedGate::key(self, email).unwrap()
    }
}

fn key(email: &str) -> String {
    Normalizer::default().normalize(email).unwrap()
}

/// Whether the table already has an account for `email`: its unique index refuses the gate's
/// key (tried and rolled back), or a stored address has the same key (one mailbox). Under a
/// `lower()` or citext index (`exact` false) the index alone says: it refuses the address as
/// typed.
fn has_account(
    client: &mut postgres::Client,
    table: &str,
    column: &str,
    email: &str,
    exact: bool,
) -> bool {
    let k = if exact {
        key(email)
    } else {
        email.trim().to_owned()
    };
    let stored: Vec<String> = if !exact {
        Vec::new()
    } else {
        client
            .query(&format!("SELECT {column}::text FROM {table}"), &[])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    };
    if stored.iter().any(|s| key(s) == k) {
        return true;
    }
    common::index_refuses(client, table, column, &k)
}

fn rows(client: &mut postgres::Client, table: &str) -> i64 {
    client
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// Every probe is answered as the table says, and no probe with an account gets a second one.
fn answers_match_the_table(gate: &mut dyn Front, conn: &str, table: &str, what: &str) {
    let mut admin = common::client(conn);
    let before = rows(&mut admin, table);
    let mut available = Vec::new();
    let exact = what.starts_with("exact");
    for p in PROBES {
        let expected = if has_account(&mut admin, table, "email", p, exact) {
            Availability::Taken
        } else {
            available.push(p);
            Availability::Available
        };
        assert_eq!(gate.taken(p), expected, "{what}: is_taken({p:?})");
    }
    for p in PROBES.iter().filter(|p| !available.contains(p)) {
        assert_eq!(
            gate.register(p),
            Registration::AlreadyTaken,
            "{what}: register({p:?})"
        );
    }
    assert_eq!(rows(&mut admin, table), before, "{what}: a second account");
    assert!(available.contains(&"new@x.org"), "{what}: {available:?}");
}

/// Other code stores [`STORED`] while `gate` runs with the feed; returns once the feed brought
/// every row in.
fn stored_by_others(gate: &mut dyn Front, conn: &str, table: &str) {
    let mut admin = common::client(conn);
    for s in STORED {
        admin
            .execute(&format!("INSERT INTO {table} (email) VALUES ($1)"), &[&s])
            .unwrap();
    }
    let keys: Vec<String> = STORED.iter().map(|s| gate.key(s)).collect();
    let start = Instant::now();
    while !keys.iter().all(|k| gate.knows(k)) && start.elapsed() < FEED_BOUND {
        gate.taken("probe@x.org");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(keys.iter().all(|k| gate.knows(k)), "the feed");
}

/// A table `t (id, email <column type>)` with the unique index `index` on it, migrated.
fn team_table(conn: &str, tag: &str, column: &str, index: &str) -> String {
    let t = common::table(tag);
    let mut admin = common::client(conn);
    admin
        .batch_execute(&format!(
            "CREATE EXTENSION IF NOT EXISTS citext;
             CREATE TABLE {t} (id bigserial PRIMARY KEY, email {column} NOT NULL);
             CREATE UNIQUE INDEX ON {t} {index};"
        ))
        .unwrap();
    PgStore::migrate(conn, &t, "email").unwrap();
    t
}

/// The schemas the README accepts, with the default (libc) collation of `scripts/pg.sh`'s
/// cluster and with ICU's root collation where the server has ICU (citext folds in the
/// database's default collation whatever the column's: with an ICU column it still folds as
/// libc does).
fn schemas(conn: &str) -> Vec<(&'static str, &'static str, &'static str)> {
    let mut s = vec![
        ("exact", "text", "(email)"),
        ("lower", "text", "(lower(email))"),
        ("citext", "citext", "(email)"),
    ];
    if has_icu(conn) {
        s.push(("lower_icu", "text COLLATE \"und-x-icu\"", "(lower(email))"));
        s.push(("citext_icu", "citext COLLATE \"und-x-icu\"", "(email)"));
    } else {
        eprintln!("this server has no ICU collation: the ICU schemas are not tried");
    }
    s
}

fn has_icu(conn: &str) -> bool {
    common::client(conn)
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')",
            &[],
        )
        .unwrap()
        .get(0)
}

#[test]
fn rows_other_code_stores_are_answered_as_the_table_says() {
    let Some(conn) = common::pg() else { return };
    rows_answered_as_the_table_says(&conn, &schemas(&conn));
}

/// A database whose default collation is ICU's (`LOCALE_PROVIDER icu`): citext and a `lower()`
/// index on a column without a collation of its own then fold as the gate does.
#[test]
fn rows_other_code_stores_in_an_icu_database_are_answered_as_the_table_says() {
    let Some(conn) = common::pg() else { return };
    if !has_icu(&conn) {
        eprintln!("SKIPPED: this server has no ICU");
        return;
    }
    let db = format!("gate_icu_{}", std::process::id());
    let mut admin = common::client(&conn);
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .unwrap();
    admin
        .batch_execute(&format!(
            "CREATE DATABASE {db} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und' \
             LOCALE 'C.UTF-8'"
        ))
        .unwrap();
    let there = format!("{conn} dbname={db}");
    let schemas = [
        ("lower", "text", "(lower(email))"),
        ("citext", "citext", "(email)"),
    ];
    rows_answered_as_the_table_says(&there, &schemas);
    admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .unwrap();
}

fn rows_answered_as_the_table_says(conn: &str, schemas: &[(&str, &str, &str)]) {
    for &(tag, column, index) in schemas {
        let table = team_table(conn, tag, column, index);
        let store = PgStore::connect_with_feed(conn, &table).unwrap();
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        stored_by_others(&mut gate, conn, &table);
        answers_match_the_table(&mut gate, conn, &table, &format!("{tag}, fed"));
        drop(gate);
        // A new start reads the same rows with a scan: no refusal to start, the same answers.
        let store = PgStore::connect(conn, &table).unwrap();
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        answers_match_the_table(&mut gate, conn, &table, &format!("{tag}, scanned"));
        drop(gate);
        common::drop_pg(conn, &table);
    }
}

#[test]
fn a_shared_gate_answers_rows_other_code_stores_as_the_table_says() {
    let Some(conn) = common::pg() else { return };
    for (tag, column, index) in schemas(&conn) {
        let table = team_table(&conn, tag, column, index);
        let atomic = || {
            filter_classic::ClassicBloom::builder()
                .capacity(1000)
                .fpr(0.01)
                .build_atomic()
                .unwrap()
        };
        let stores = || Stores::postgres(&conn, &table, &PgOptions::default()).unwrap();
        let mut gate = SharedGate::rebuild(atomic(), stores()).unwrap();
        stored_by_others(&mut gate, &conn, &table);
        answers_match_the_table(&mut gate, &conn, &table, &format!("{tag}, shared, fed"));
        drop(gate);
        let mut gate = SharedGate::rebuild(atomic(), stores()).unwrap();
        answers_match_the_table(&mut gate, &conn, &table, &format!("{tag}, shared, scanned"));
        drop(gate);
        common::drop_pg(&conn, &table);
    }
}

/// The case on a plain `UNIQUE(email)` table: an admin tool stores
/// `Zed.Admin@Example.org`; the gate says Taken, refuses a second account, starts again without
/// refusing, and forgets the alias once the row is fixed.
#[test]
fn an_admin_row_on_a_plain_unique_table_is_no_second_account_and_no_outage() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "admin_row");
    let store = PgStore::connect_with_feed(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    let mut admin = common::client(&conn);
    admin
        .batch_execute(&format!(
            "INSERT INTO {table} (email) VALUES ('Zed.Admin@Example.org')"
        ))
        .unwrap();
    let start = Instant::now();
    while gate.unnormalised() == 0 && start.elapsed() < FEED_BOUND {
        gate.is_taken("probe@x.org").unwrap();
        std::thread::sleep(Duration::from_millis(10));
    }
    let zed = "zed.admin@example.org";
    assert_eq!(gate.is_taken(zed).unwrap(), Availability::Taken);
    assert_eq!(gate.register(zed).unwrap(), Registration::AlreadyTaken);
    assert_eq!(rows(&mut admin, &table), 1);
    drop(gate);
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.unnormalised(), 1);
    assert_eq!(gate.is_taken(zed).unwrap(), Availability::Taken);
    // The fix the gate names, run as it is named: the row is then found by its key.
    let audit = filter_gate::audit(gate.store_mut(), Normalizer::default()).unwrap();
    let fix = audit.example.unwrap().repair;
    let update = fix.split("; ").next().unwrap();
    assert_eq!(
        update,
        format!(
            "UPDATE {table} SET email = 'zed.admin@example.org' WHERE email = \
             'Zed.Admin@Example.org'"
        )
    );
    admin.batch_execute(update).unwrap();
    assert_eq!(gate.is_taken(zed).unwrap(), Availability::Taken);
    assert_eq!(gate.unnormalised(), 0, "the stored form is gone: forgotten");
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// "Registered in the last T" asks for such a row as stored, too.
#[test]
fn a_recent_row_other_code_stores_is_recent() {
    let Some(conn) = common::pg() else { return };
    let table = common::table("recent_alias");
    common::client(&conn)
        .batch_execute(&format!(
            "CREATE TABLE {table} (email text PRIMARY KEY,
                                   created_at timestamptz NOT NULL DEFAULT now());
             INSERT INTO {table} (email) VALUES ('Zed.Admin@Example.org')"
        ))
        .unwrap();
    PgStore::migrate(&conn, &table, "email").unwrap();
    let opts = PgOptions {
        created_column: Some("created_at".into()),
        ..PgOptions::default()
    };
    let window = filter_gate::RecentWindow {
        within: Duration::from_secs(3600),
        registrations: 100,
        fpr: 0.01,
    };
    let store = PgStore::connect_with(&conn, &table, &opts).unwrap();
    let mut gate = Gate::rebuild(common::classic(100), store)
        .unwrap()
        .with_recent(window)
        .unwrap();
    let zed = "zed.admin@example.org";
    assert_eq!(gate.registered_within(zed).unwrap(), Recency::Recent);
    let stores = Stores::postgres(&conn, &table, &opts).unwrap();
    let atomic = filter_classic::ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build_atomic()
        .unwrap();
    let shared = SharedGate::rebuild(atomic, stores)
        .unwrap()
        .with_recent(window)
        .unwrap();
    assert_eq!(shared.registered_within(zed).unwrap(), Recency::Recent);
    drop((gate, shared));
    common::drop_pg(&conn, &table);
}

/// Beyond the cap of held rows, a "maybe" the database does not confirm is an error naming the
/// fix, never Available, and `register` adds nothing for it; "absent" stays a proof.
#[test]
fn beyond_the_cap_an_unconfirmed_maybe_is_refused_not_answered_available() {
    let mut store = SqliteStore::open_in_memory("users").unwrap();
    let stored: Vec<String> = (0..=MAX_UNNORMALISED_ROWS)
        .map(|i| format!("User{i}@X.org"))
        .collect();
    store.bulk_load(stored.iter().map(String::as_str)).unwrap();
    let mut gate = Gate::rebuild(common::classic(100_000), store).unwrap();
    assert_eq!(gate.unnormalised(), MAX_UNNORMALISED_ROWS);
    // The one row beyond the cap (the scan reads in id order).
    let last = format!("user{MAX_UNNORMALISED_ROWS}@x.org");
    match gate.check(&last) {
        Err(e @ GateError::Unnormalised { .. }) => {
            let text = e.to_string();
            let sql = format!(
                "UPDATE users SET email = '{last}' WHERE email = 'User{MAX_UNNORMALISED_ROWS}@X.org'"
            );
            assert!(text.contains(&sql), "{text}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(matches!(
        gate.register(&last),
        Err(GateError::Unnormalised { .. })
    ));
    assert_eq!(
        gate.check("user7@x.org").unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    assert_eq!(gate.check("fresh@y.org").unwrap(), Route::FilterAbsent);
    assert_eq!(
        gate.register("fresh@y.org").unwrap(),
        Registration::Registered
    );
    assert_eq!(
        gate.store_mut().count().unwrap(),
        MAX_UNNORMALISED_ROWS as u64 + 2
    );
}
