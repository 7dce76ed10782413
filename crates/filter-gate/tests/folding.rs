//! Issue 51, item 2: the gate's key is the key the unique index compares. Under a libc
//! `lower()` index (the default collation of `scripts/pg.sh`'s cluster, C.UTF-8) or a citext
//! column, a stored `ilse@example.com` and a typed `İLSE@example.com` are one account to the
//! index (libc folds `İ` to `i`), and `ασ@…` and `ΑΣ@…` too (libc folds a final `Σ` to `σ`); a
//! gate keyed by Unicode's lower case (`i̇lse@…`, `ας@…`) answered Available and `register`
//! made the second account, with no other writer at all. The same for a `COLLATE "tr-x-icu"`
//! column. The oracle is the table itself: an INSERT of the address as typed, rolled back.

mod common;

use filter_core::concurrent::SharedInsert;
use filter_gate::{
    audit, Availability, Folding, Gate, Normalizer, PgStore, Registration, SharedGate, Store,
    Stores,
};

/// What the gate registers first, and what users then type.
const FIRST: [&str; 2] = ["ilse@example.com", "ασ@example.com"];
const TYPED: [&str; 9] = [
    "İLSE@example.com",
    "ΑΣ@example.com",
    " İlse@Example.com ",
    "ILSE@example.com",
    "i\u{307}lse@example.com",
    "ας@example.com",
    "Ασ@EXAMPLE.COM",
    "ılse@example.com",
    "new@example.com",
];

/// The two gates, seen the same way.
trait Front {
    fn taken(&mut self, email: &str) -> Availability;
    fn register(&mut self, email: &str) -> Registration;
}

impl Front for Gate<filter_classic::ClassicBloom, PgStore> {
    fn taken(&mut self, email: &str) -> Availability {
        self.is_taken(email).unwrap()
    }
    fn register(&mut self, email: &str) -> Registration {
        Gate::register(self, email).unwrap()
    }
}

impl<F: SharedInsert> Front for SharedGate<F, PgStore> {
    fn taken(&mut self, email: &str) -> Availability {
        self.is_taken(email).unwrap()
    }
    fn register(&mut self, email: &str) -> Registration {
        SharedGate::register(self, email).unwrap()
    }
}

/// Whether the unique index refuses `typed` (trimmed) as a new row: tried, rolled back.
fn refused(conn: &str, table: &str, typed: &str) -> bool {
    common::index_refuses(&mut common::client(conn), table, "email", typed.trim())
}

fn rows(conn: &str, table: &str) -> i64 {
    common::client(conn)
        .query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// A migrated table `(id, email <column>)` with the unique index `index`.
fn team_table(conn: &str, tag: &str, column: &str, index: &str) -> String {
    static EXTENSION: std::sync::Once = std::sync::Once::new();
    // Two CREATE EXTENSION IF NOT EXISTS at once can both try to create it: one at a time.
    EXTENSION.call_once(|| {
        let _ = common::client(conn).batch_execute("CREATE EXTENSION IF NOT EXISTS citext");
    });
    let t = common::table(tag);
    common::client(conn)
        .batch_execute(&format!(
            "CREATE TABLE {t} (id bigserial PRIMARY KEY, email {column} NOT NULL);
             CREATE UNIQUE INDEX ON {t} {index};"
        ))
        .unwrap();
    PgStore::migrate(conn, &t, "email").unwrap();
    t
}

fn has_icu(conn: &str) -> bool {
    let icu: bool = common::client(conn)
        .query_one(
            "SELECT count(*) = 2 FROM pg_collation WHERE collname IN ('und-x-icu', 'tr-x-icu')",
            &[],
        )
        .unwrap()
        .get(0);
    if !icu && std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") {
        panic!("this server has no ICU collations, and FILTERLAB_REQUIRE_SERVERS=1");
    }
    icu
}

/// The schemas, and the typed addresses the issue says the index refuses on each.
fn schemas(conn: &str) -> Vec<(&'static str, &'static str, &'static str, Vec<&'static str>)> {
    let both = vec!["İLSE@example.com", "ΑΣ@example.com"];
    let mut s = vec![
        ("lower", "text", "(lower(email))", both.clone()),
        ("citext", "citext", "(email)", both),
    ];
    if has_icu(conn) {
        s.push((
            "tr_icu",
            "text COLLATE \"tr-x-icu\"",
            "(lower(email))",
            vec!["İLSE@example.com"],
        ));
        s.push((
            "und_icu",
            "text COLLATE \"und-x-icu\"",
            "(lower(email))",
            vec![],
        ));
    } else {
        eprintln!("this server has no ICU collation: the ICU schemas are not tried");
    }
    s
}

/// The gate makes the first rows itself; then every typed address is answered as the index
/// would, and `register` makes no account the index would refuse.
fn answers_as_the_index(gate: &mut dyn Front, conn: &str, table: &str, must_refuse: &[&str]) {
    for f in FIRST {
        assert_eq!(gate.register(f), Registration::Registered, "{table}: {f}");
    }
    for t in must_refuse {
        assert!(refused(conn, table, t), "{table}: the scenario: {t:?}");
    }
    for t in TYPED {
        let before = rows(conn, table);
        let expected = if refused(conn, table, t) {
            Availability::Taken
        } else {
            Availability::Available
        };
        assert_eq!(gate.taken(t), expected, "{table}: is_taken({t:?})");
        let registered = gate.register(t);
        if expected == Availability::Taken {
            assert_eq!(registered, Registration::AlreadyTaken, "{table}: {t:?}");
            assert_eq!(
                rows(conn, table),
                before,
                "{table}: a second account for {t:?}"
            );
        } else {
            assert_eq!(registered, Registration::Registered, "{table}: {t:?}");
            assert_eq!(gate.taken(t), Availability::Taken, "{table}: {t:?}");
        }
    }
}

#[test]
fn the_gate_keys_every_address_as_the_unique_index_folds_it() {
    let Some(conn) = common::pg() else { return };
    for (tag, column, index, must_refuse) in schemas(&conn) {
        let table = team_table(&conn, tag, column, index);
        let store = PgStore::connect_with_feed(&conn, &table).unwrap();
        assert!(matches!(store.folding(), Folding::Server { .. }), "{tag}");
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        answers_as_the_index(&mut gate, &conn, &table, &must_refuse);
        common::drop_pg(&conn, &table);

        let table = team_table(&conn, tag, column, index);
        let stores = Stores::postgres(&conn, &table, &Default::default()).unwrap();
        let filter = filter_classic::ClassicBloom::builder()
            .capacity(1000)
            .fpr(0.01)
            .build_atomic()
            .unwrap();
        let mut shared = SharedGate::rebuild(filter, stores).unwrap();
        answers_as_the_index(&mut shared, &conn, &table, &must_refuse);
        drop(shared);
        common::drop_pg(&conn, &table);
    }
}

/// A gate started on a table that already holds the rows folds them as the index does: the
/// scan's keys are the index's, so a typed `İLSE@…` is Taken without any alias.
#[test]
fn rows_already_stored_are_keyed_as_the_index_folds_them() {
    let Some(conn) = common::pg() else { return };
    let table = team_table(&conn, "stored", "text", "(lower(email))");
    common::client(&conn)
        .execute(
            &format!("INSERT INTO {table} (email) VALUES ('ILSE@example.com'), ('ΑΣ@example.com')"),
            &[],
        )
        .unwrap();
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.unnormalised(), 0);
    for t in ["İLSE@example.com", "ασ@example.com", "Ασ@example.com"] {
        assert_eq!(gate.is_taken(t).unwrap(), Availability::Taken, "{t}");
        assert_eq!(gate.register(t).unwrap(), Registration::AlreadyTaken, "{t}");
    }
    assert_eq!(gate.key("İLSE@example.com").unwrap(), "ilse@example.com");
    assert_eq!(rows(&conn, &table), 2);
    common::drop_pg(&conn, &table);
}

/// `audit` (what `filterlab gate migrate` reports) finds the pairs a gate keyed by Unicode's
/// lower case made: `i̇lse@…` beside `ilse@…`, `ας@…` beside `ασ@…`.
#[test]
fn audit_finds_the_second_accounts_that_already_exist() {
    let Some(conn) = common::pg() else { return };
    let table = team_table(&conn, "pairs", "text", "(lower(email))");
    common::client(&conn)
        .execute(
            &format!(
                "INSERT INTO {table} (email) VALUES ('ilse@example.com'), \
                 ('i\u{307}lse@example.com'), ('ασ@example.com'), ('ας@example.com'), \
                 ('ann@example.com')"
            ),
            &[],
        )
        .unwrap();
    let mut store = PgStore::connect(&conn, &table).unwrap();
    let found = audit(&mut store, Normalizer::default()).unwrap();
    assert_eq!(found.rows, 5);
    assert_eq!(found.pairs, 2, "{found:?}");
    let (second, first) = found.pair_example.unwrap();
    assert!(
        [
            ("i\u{307}lse@example.com", "ilse@example.com"),
            ("ας@example.com", "ασ@example.com")
        ]
        .contains(&(second.as_str(), first.as_str())),
        "{second:?} {first:?}"
    );
    common::drop_pg(&conn, &table);
}

/// A store whose index folds as a server does, and whose server cannot fold (down).
struct CannotFold {
    inner: filter_gate::SqliteStore,
}

impl Store for CannotFold {
    common::forward_store!(inner => exists, insert, scan_since);
    fn folding(&self) -> Folding {
        let mut ascii = Box::new([None; 128]);
        for (i, slot) in ascii.iter_mut().enumerate().skip(1) {
            *slot = Some(char::from(i as u8).to_ascii_lowercase());
        }
        Folding::Server { ascii }
    }
    fn fold(&mut self, _typed: &str) -> filter_gate::StoreResult<String> {
        Err(filter_gate::StoreError::new(
            filter_gate::StoreErrorKind::Unavailable,
            "fold",
            "the server is down",
        ))
    }
}

/// An address only the server can fold, with the server down: a check is an error (never a
/// guess), and a row the caller's own SQL committed (or may have) withdraws the filter until a
/// catch-up, instead of being lost.
#[test]
fn an_address_the_server_cannot_fold_is_never_guessed() {
    let inner = filter_gate::SqliteStore::open_in_memory("users").unwrap();
    let mut gate = Gate::rebuild(common::classic(100), CannotFold { inner }).unwrap();
    assert_eq!(
        gate.register("ann@x.org").unwrap(),
        Registration::Registered
    );
    assert!(matches!(
        gate.is_taken("\u{130}lse@x.org"),
        Err(filter_gate::GateError::Store(_))
    ));
    assert!(gate.filter_trusted());
    gate.observe("\u{130}lse@x.org").unwrap();
    assert!(
        !gate.filter_trusted(),
        "a committed row whose key is unknown"
    );
    gate.catch_up().unwrap();
    assert!(gate.filter_trusted());
    gate.may_have_committed("\u{d6}@x.org").unwrap();
    assert!(!gate.filter_trusted(), "a row that may commit, key unknown");
    // SQLite's statements end with the call (settle time zero): the next check's catch-up
    // restores the filter.
    assert_eq!(gate.is_taken("bob@x.org").unwrap(), Availability::Available);
    assert!(gate.filter_trusted());
}
