//! Fitting a team's own PostgreSQL schema and privileges: any table name and key column, ids of
//! any type or none, other NOT NULL columns, a role without DDL rights, and a connect that takes
//! no lock stronger than ACCESS SHARE.

mod common;

use std::time::Duration;

use filter_classic::ClassicBloom;
use filter_core::Filter;

use filter_gate::{
    Availability, Gate, GateError, KeyMatch, PgOptions, PgStore, Registration, StoreErrorKind,
};

/// Runs statements one at a time.
fn each(client: &mut postgres::Client, statements: &[&str]) {
    for s in statements {
        client.batch_execute(s).unwrap();
    }
}

#[test]
fn connect_without_the_migration_names_it() {
    let Some(conn) = common::pg() else { return };
    let table = common::table("nomig");
    let mut admin = common::client(&conn);
    // A fresh database has no filter_gate schema: no other test's migration is visible there.
    let db = format!("gate_nomig_{}", std::process::id());
    each(
        &mut admin,
        &[
            &format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
            &format!("CREATE DATABASE {db}"),
        ],
    );
    let there = format!("{conn} dbname={db}");
    each(
        &mut common::client(&there),
        &[&format!("CREATE TABLE {table} (email text PRIMARY KEY)")],
    );
    let err = PgStore::connect(&there, &table).unwrap_err();
    assert_eq!(err.kind, StoreErrorKind::Schema, "{err}");
    assert!(err.to_string().contains("filter_gate.sql"), "{err}");
    // The migration is idempotent, and then the feed's trigger is there too.
    PgStore::migrate(&there, &table, "email").unwrap();
    PgStore::migrate(&there, &table, "email").unwrap();
    PgStore::connect_with_feed(&there, &table).unwrap();
    each(&mut admin, &[&format!("DROP DATABASE {db} WITH (FORCE)")]);
}

#[test]
fn tables_that_do_not_fit_are_refused_with_the_reason() {
    let Some(conn) = common::pg() else { return };
    let t = common::table("misfit");
    let mut admin = common::client(&conn);
    each(
        &mut admin,
        &[&format!(
            "CREATE TABLE {t} (id int PRIMARY KEY, email text, n int UNIQUE)"
        )],
    );
    PgStore::migrate(&conn, &t, "email").unwrap();
    let kind = |column: &str| {
        let opts = PgOptions {
            key_column: column.into(),
            ..PgOptions::default()
        };
        PgStore::connect_with(&conn, &t, &opts).unwrap_err()
    };
    // An integer key is a type error, not "the database is unreachable".
    let e = kind("n");
    assert_eq!(e.kind, StoreErrorKind::Type, "{e}");
    assert!(e.to_string().contains("integer"), "{e}");
    let e = kind("email");
    assert_eq!(e.kind, StoreErrorKind::Schema, "{e}");
    assert!(e.to_string().contains("unique index"), "{e}");
    let e = kind("nope");
    assert_eq!(e.kind, StoreErrorKind::Schema, "{e}");
    let e = PgStore::connect(&conn, "no_such_table").unwrap_err();
    assert_eq!(e.kind, StoreErrorKind::Schema, "{e}");
    common::drop_pg(&conn, &t);
}

#[test]
fn quoted_names_and_ids_of_any_type_or_none() {
    let Some(conn) = common::pg() else { return };
    let mut admin = common::client(&conn);
    let pid = std::process::id();
    let cases = [
        (
            format!("\"Users_{pid}\""),
            "id serial PRIMARY KEY, \"E-mail\" varchar(320) NOT NULL UNIQUE",
            "E-mail",
        ),
        (
            format!("uuid_users_{pid}"),
            "id uuid PRIMARY KEY DEFAULT gen_random_uuid(), email text NOT NULL UNIQUE",
            "email",
        ),
        (format!("no_id_{pid}"), "email text PRIMARY KEY", "email"),
        (
            format!("ci_{pid}"),
            "id int GENERATED ALWAYS AS IDENTITY, email citext NOT NULL UNIQUE",
            "email",
        ),
    ];
    admin
        .batch_execute("CREATE EXTENSION IF NOT EXISTS citext")
        .unwrap();
    for (table, columns, key) in &cases {
        each(&mut admin, &[&format!("CREATE TABLE {table} ({columns})")]);
        PgStore::migrate(&conn, table, key).unwrap();
        let opts = PgOptions {
            key_column: (*key).into(),
            feed: true,
            ..PgOptions::default()
        };
        let store = PgStore::connect_with(&conn, table, &opts).unwrap();
        let mut gate = Gate::rebuild(common::classic(100), store).unwrap();
        assert_eq!(gate.register("A@x.org").unwrap(), Registration::Registered);
        assert_eq!(
            gate.is_taken("a@x.org").unwrap(),
            Availability::Taken,
            "{table}"
        );
        assert_eq!(
            gate.register("a@x.org").unwrap(),
            Registration::AlreadyTaken
        );
        drop(gate);
        if table.starts_with("ci_") {
            citext_legacy_rows(&conn, table);
        }
        common::drop_pg(&conn, table);
    }
}

/// A `citext` column compares lower-cased: a row stored before normalisation is found, and no
/// second account is made for it.
fn citext_legacy_rows(conn: &str, table: &str) {
    common::client(conn)
        .batch_execute(&format!(
            "INSERT INTO {table} (email) VALUES ('Mixed.Case@X.org')"
        ))
        .unwrap();
    let store = PgStore::connect(conn, table).unwrap();
    assert_eq!(store.key_match(), KeyMatch::CaseInsensitive);
    let mut gate = Gate::rebuild(common::classic(100), store).unwrap();
    assert_eq!(
        gate.is_taken("mixed.case@x.org").unwrap(),
        Availability::Taken
    );
    assert_eq!(
        gate.register("MIXED.case@x.org").unwrap(),
        Registration::AlreadyTaken
    );
}

/// The table in schema `schema`, one legacy row, and a role with USAGE and SELECT only.
fn team_schema(admin: &mut postgres::Client, schema: &str, table: &str, role: &str) {
    each(
        admin,
        &[
            &format!("CREATE SCHEMA {schema}"),
            &format!(
                "CREATE TABLE {table} (id bigserial PRIMARY KEY, email text UNIQUE,
                   created_at timestamptz DEFAULT now(), password_hash text NOT NULL)"
            ),
            &format!("CREATE UNIQUE INDEX ON {table} (lower(email))"),
            &format!("INSERT INTO {table} (email, password_hash) VALUES ('Old.Timer@X.org', 'h')"),
            &format!("DROP ROLE IF EXISTS {role}"),
            &format!("CREATE ROLE {role} LOGIN"),
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
            &format!("GRANT USAGE ON SCHEMA {schema} TO {role}"),
            &format!("GRANT SELECT ON {table} TO {role}"),
        ],
    );
}

/// The table, in its own schema, with a unique index on `lower(email)` and a NOT NULL
/// column the gate knows nothing of; the gate's role may only SELECT.
#[test]
fn a_team_schema_and_a_role_without_ddl_rights() {
    let Some(conn) = common::pg() else { return };
    let pid = std::process::id();
    let (schema, role) = (format!("auth_{pid}"), format!("gate_{pid}"));
    let table = format!("{schema}.users");
    let mut admin = common::client(&conn);
    team_schema(&mut admin, &schema, &table, &role);
    PgStore::migrate(&conn, &table, "email").unwrap();
    let as_role = format!("{conn} user={role}");
    // The role really has no DDL rights.
    let denied =
        common::client(&as_role).batch_execute(&format!("CREATE TABLE {schema}.x (a int)"));
    assert!(denied.is_err());

    let store = PgStore::connect_with_feed(&as_role, &table).unwrap();
    assert_eq!(store.key_match(), KeyMatch::Lower);
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    let other = PgStore::connect_with_feed(&as_role, &table).unwrap();
    let mut other = Gate::rebuild(common::classic(1000), other).unwrap();
    assert_eq!(
        gate.is_taken("old.timer@x.org").unwrap(),
        Availability::Taken
    );

    // The team inserts with its own SQL, in its own transaction, then tells the gate.
    let mut team = common::client(&conn);
    let mut tx = team.transaction().unwrap();
    tx.execute(
        &format!("INSERT INTO {table} (email, password_hash) VALUES ($1, $2)"),
        &[&"new@x.org", &"hash"],
    )
    .unwrap();
    tx.commit().unwrap();
    gate.observe("New@x.org").unwrap();
    assert_eq!(gate.is_taken("new@x.org").unwrap(), Availability::Taken);
    // The other instance learns it through the feed (or, until then, never says Available
    // wrongly only because the database is asked on "maybe"; wait for the feed).
    let start = std::time::Instant::now();
    while !other.filter().contains(b"new@x.org") && start.elapsed() < Duration::from_secs(5) {
        other.is_taken("probe@x.org").unwrap();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(other.is_taken("new@x.org").unwrap(), Availability::Taken);

    register_is_refused_by_the_schema(&mut gate, &mut admin, (&schema, &table, &role));
    saves_and_reopens(gate, &as_role, &table);
    drop(other);
    each(
        &mut admin,
        &[
            &format!("DROP SCHEMA {schema} CASCADE"),
            &format!("DROP ROLE {role}"),
        ],
    );
}

/// `register` refused by the role's privileges (no INSERT grant), then, with INSERT granted,
/// by the NOT NULL column the gate knows nothing of: query errors, not an unreachable database,
/// and no unsettled key left behind.
fn register_is_refused_by_the_schema(
    gate: &mut Gate<ClassicBloom, PgStore>,
    admin: &mut postgres::Client,
    (schema, table, role): (&str, &str, &str),
) {
    match gate.register("fresh@x.org") {
        Err(GateError::Store(e)) => assert_eq!(e.kind, StoreErrorKind::Query, "{e}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(gate.unsettled(), 0);
    // With INSERT granted, the NOT NULL column still refuses the gate's own INSERT: a query
    // error naming it (the team uses `observe` for such tables).
    each(
        admin,
        &[
            &format!("GRANT INSERT ON {table} TO {role}"),
            &format!("GRANT USAGE ON SEQUENCE {schema}.users_id_seq TO {role}"),
        ],
    );
    match gate.register("fresh@x.org") {
        Err(GateError::Store(e)) => {
            assert_eq!(e.kind, StoreErrorKind::Query, "{e}");
            assert!(e.message.contains("23502"), "{e}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// Saving (a token through the SECURITY DEFINER function) and reopening as the role need
/// nothing more than its SELECT grant.
fn saves_and_reopens(mut gate: Gate<ClassicBloom, PgStore>, as_role: &str, table: &str) {
    let dir = std::env::temp_dir().join(format!("gate-role-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let snap = dir.join("users.filter");
    gate.save(&snap).unwrap();
    let store = PgStore::connect(as_role, table).unwrap();
    let (mut gate, startup) = Gate::open(&snap, store, || Ok(common::classic(1000))).unwrap();
    assert!(
        matches!(startup, filter_gate::Startup::Loaded { .. }),
        "{startup:?}"
    );
    assert_eq!(gate.is_taken("new@x.org").unwrap(), Availability::Taken);
    drop(gate);
    std::fs::remove_dir_all(dir).unwrap();
}

/// Connecting (with the feed) and rebuilding succeed while another session holds an EXCLUSIVE
/// lock on the table, which conflicts with every lock mode except ACCESS SHARE.
#[test]
fn connecting_takes_no_lock_stronger_than_access_share() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "locks");
    let mut holder = common::client(&conn);
    let mut tx = holder.transaction().unwrap();
    tx.batch_execute(&format!("LOCK TABLE {table} IN EXCLUSIVE MODE"))
        .unwrap();
    // The fixture can fail: a stronger lock (what DROP TRIGGER takes) waits and times out.
    let mut ddl = common::client(&conn);
    let blocked = ddl.batch_execute(&format!(
        "SET lock_timeout = '300ms'; ALTER TABLE {table} DISABLE TRIGGER filter_gate_notify"
    ));
    let e = blocked.expect_err("an ACCESS EXCLUSIVE lock must wait behind EXCLUSIVE");
    assert_eq!(
        e.as_db_error().map(|d| d.code().code()),
        Some("55P03"),
        "{e}"
    );
    let opts = PgOptions {
        feed: true,
        statement_timeout: Duration::from_secs(2),
        ..PgOptions::default()
    };
    let store = PgStore::connect_with(&conn, &table, &opts).unwrap();
    let mut gate = Gate::rebuild(common::classic(100), store).unwrap();
    assert_eq!(gate.is_taken("a@x.org").unwrap(), Availability::Available);
    tx.rollback().unwrap();
    drop(gate);
    common::drop_pg(&conn, &table);
}

#[test]
fn a_bulk_load_and_analyze_run_past_the_checks_statement_timeout() {
    let Some(conn) = common::pg() else { return };
    let t = common::pg_table(&conn, "bulk_timeout");
    let opts = PgOptions {
        statement_timeout: Duration::from_millis(50),
        ..PgOptions::default()
    };
    let mut store = PgStore::connect_with(&conn, &t, &opts).unwrap();
    // 300k rows through COPY with a unique index take far longer than 50 ms: with the checks'
    // timeout on the load it was cancelled (57014), and reported as an unreachable database.
    let emails: Vec<String> = (0..300_000).map(|i| format!("bulk{i}@x.org")).collect();
    let n = store
        .bulk_load(emails.iter().map(String::as_str))
        .unwrap_or_else(|e| panic!("{e} ({:?})", e.kind));
    assert_eq!(n, 300_000);
    store.analyze().unwrap();
    common::drop_pg(&conn, &t);
}
