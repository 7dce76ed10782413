//! `filterlab gate migrate` against a real PostgreSQL (the server of `scripts/pg.sh`, named by
//! `FILTERLAB_PG`): idempotent, refused for a role that does not own the table, and afterwards a
//! role with only USAGE, SELECT and INSERT runs the gate (with its LISTEN feed) without DDL.
#![cfg(feature = "gate")]

mod common;

use filterlab::gate::{Availability, Gate, PgStore, Registration, StoreErrorKind};
use filterlab::ClassicBloom;

/// The test server, or `None` (saying so) when there is none, unless
/// `FILTERLAB_REQUIRE_SERVERS=1`, which makes a missing server a failure.
fn pg() -> Option<String> {
    match std::env::var("FILTERLAB_PG") {
        Ok(s) if !s.is_empty() => Some(s),
        _ if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") => {
            panic!("FILTERLAB_PG is not set (eval \"$(bash scripts/pg.sh start)\"), and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping")
        }
        _ => {
            eprintln!("SKIPPED: no PostgreSQL server (FILTERLAB_PG is not set)");
            None
        }
    }
}

fn sql(conn: &str, statements: &[String]) {
    let mut c = postgres::Client::connect(conn, postgres::NoTls).unwrap();
    for s in statements {
        c.batch_execute(s).unwrap_or_else(|e| panic!("{s}: {e}"));
    }
}

/// A new, empty database `NAME_PID` (dropped first if a killed run left it): its name and the
/// connection string that reaches it.
fn empty_database(conn: &str, name: &str) -> (String, String) {
    let db = format!("{name}_{}", std::process::id());
    sql(
        conn,
        &[
            format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
            format!("CREATE DATABASE {db}"),
        ],
    );
    let there = format!("{conn} dbname={db}");
    (db, there)
}

/// A fresh database (no filter_gate schema from other tests), with the team's schema and table
/// owned by the server's superuser, and a login role granted USAGE, SELECT and INSERT only.
fn fresh_database(conn: &str, db: &str, role: &str) -> String {
    sql(
        conn,
        &[
            format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
            format!("CREATE DATABASE {db}"),
            format!("DROP ROLE IF EXISTS {role}"),
            format!("CREATE ROLE {role} LOGIN"),
        ],
    );
    let there = format!("{conn} dbname={db}");
    sql(
        &there,
        &[
            "REVOKE CREATE ON SCHEMA public FROM PUBLIC".into(),
            "REVOKE CREATE ON DATABASE ".to_owned() + db + " FROM PUBLIC",
            "CREATE SCHEMA auth".into(),
            "CREATE TABLE auth.users (id bigserial PRIMARY KEY, email text NOT NULL,
               created_at timestamptz DEFAULT now())"
                .into(),
            "CREATE UNIQUE INDEX ON auth.users (lower(email))".into(),
            format!("GRANT USAGE ON SCHEMA auth TO {role}"),
            format!("GRANT SELECT, INSERT ON auth.users TO {role}"),
            format!("GRANT USAGE ON SEQUENCE auth.users_id_seq TO {role}"),
        ],
    );
    there
}

fn triggers(conn: &str) -> i64 {
    let mut c = postgres::Client::connect(conn, postgres::NoTls).unwrap();
    c.query_one(
        "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'auth.users'::regclass
           AND tgname = 'filter_gate_notify'",
        &[],
    )
    .unwrap()
    .get(0)
}

#[test]
fn gate_migrate_is_idempotent_and_lets_a_role_without_ddl_run_the_gate() {
    let Some(conn) = pg() else { return };
    let pid = std::process::id();
    let (db, role) = (format!("cli_gate_{pid}"), format!("cli_gate_role_{pid}"));
    let owner = fresh_database(&conn, &db, &role);
    let as_role = format!("{owner} user={role}");

    // Before the migration the service cannot start, and says what to run.
    let err = PgStore::connect(&as_role, "auth.users").unwrap_err();
    assert_eq!(err.kind, StoreErrorKind::Schema, "{err}");
    // The role may not run the migration: it owns nothing and creates nothing.
    let args = |url: &str| {
        [
            "gate",
            "migrate",
            "--url",
            url,
            "--table",
            "auth.users",
            "--column",
            "email",
        ]
        .map(str::to_owned)
    };
    let refused = args(&as_role);
    let refused: Vec<&str> = refused.iter().map(String::as_str).collect();
    common::assert_clean_error(&refused, None, "permission denied");
    assert_eq!(triggers(&owner), 0);

    // The owner runs it twice: the same answer, one trigger.
    let run = args(&owner);
    let run: Vec<&str> = run.iter().map(String::as_str).collect();
    let first = common::json(&run);
    assert_eq!(first, common::json(&run));
    assert_eq!(first["unique_on"], "lower(email)", "{first}");
    assert_eq!(triggers(&owner), 1);
    let text = common::filterlab(&run);
    assert_eq!(text.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&text.stdout).contains("migrated: auth.users (email)"));

    // The role has no DDL rights, yet runs the gate with the feed and registers.
    let mut c = postgres::Client::connect(&as_role, postgres::NoTls).unwrap();
    assert!(c.batch_execute("CREATE TABLE auth.x (a int)").is_err());
    assert!(c.batch_execute("CREATE SCHEMA x").is_err());
    let filter = ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    let store = PgStore::connect_with_feed(&as_role, "auth.users").unwrap();
    let mut gate = Gate::rebuild(filter, store).unwrap();
    assert_eq!(
        gate.register("Ann@X.org").unwrap(),
        Registration::Registered
    );
    assert_eq!(gate.is_taken("ann@x.org").unwrap(), Availability::Taken);
    assert_eq!(
        gate.register("ANN@x.org").unwrap(),
        Registration::AlreadyTaken
    );
    drop((gate, c));
    sql(
        &conn,
        &[
            format!("DROP DATABASE {db} WITH (FORCE)"),
            format!("DROP ROLE {role}"),
        ],
    );
}

/// Rows stored in a form the unique index does not find by the gate's key are reported with
/// the exact SQL that fixes them (the real table and column, quoted), not as a success; the SQL
/// run as printed makes the next run succeed.
#[test]
fn gate_migrate_finds_rows_the_index_does_not_find_by_their_key() {
    let Some(conn) = pg() else { return };
    let (db, there) = empty_database(&conn, "cli_gate_rows");
    sql(
        &there,
        &[
            "CREATE SCHEMA auth".into(),
            "CREATE TABLE auth.\"Users\" (id bigserial PRIMARY KEY, \"E-mail\" text UNIQUE)".into(),
            "INSERT INTO auth.\"Users\" (\"E-mail\") VALUES ('ann@x.org'), \
             ('Zed.O''Neil@Example.org')"
                .into(),
        ],
    );
    let args = [
        "gate",
        "migrate",
        "--url",
        &there,
        "--table",
        "auth.\"Users\"",
        "--column",
        "E-mail",
    ];
    let fix = "UPDATE auth.\"Users\" SET \"E-mail\" = 'zed.o''neil@example.org' WHERE \
               \"E-mail\" = 'Zed.O''Neil@Example.org'";
    common::assert_clean_error(&args, None, fix);
    common::assert_clean_error(&args, None, "1 of the 2 rows");
    let e = common::assert_json_error(&args, None, "not find by the gate's key");
    assert!(e["error"].as_str().unwrap().contains(fix), "{e}");
    sql(&there, &[fix.to_owned()]);
    let done = common::json(&args);
    assert_eq!(done["rows"], 2, "{done}");
    assert_eq!(done["unique_on"], "E-mail", "{done}");
    sql(&conn, &[format!("DROP DATABASE {db} WITH (FORCE)")]);
}

/// Issue 51, item 2: a libc `lower()` index holding `ilse@…` beside `i̇lse@…` (an `i` and a
/// combining dot: what a gate folding with Unicode's lower case stored for a typed `İLSE@…`,
/// which the index folds to `ilse@…`), and `ασ@…` beside `ας@…` (a typed `ΑΣ@…`): two
/// accounts for one address each. `migrate` used to report the table clean.
#[test]
fn gate_migrate_finds_the_second_accounts_a_unicode_folding_gate_made() {
    let Some(conn) = pg() else { return };
    let pid = std::process::id();
    let db = format!("cli_gate_pairs_{pid}");
    sql(
        &conn,
        &[
            format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
            format!("CREATE DATABASE {db} TEMPLATE template0 LOCALE 'C.UTF-8'"),
        ],
    );
    let there = format!("{conn} dbname={db}");
    sql(
        &there,
        &[
            "CREATE TABLE users (id bigserial PRIMARY KEY, email text NOT NULL)".into(),
            "CREATE UNIQUE INDEX ON users (lower(email))".into(),
            "INSERT INTO users (email) VALUES ('ilse@example.com'), ('i\u{307}lse@example.com'), \
             ('ασ@example.com'), ('ας@example.com'), ('ann@example.com')"
                .into(),
        ],
    );
    let args = ["gate", "migrate", "--url", &there, "--table", "users"];
    common::assert_clean_error(&args, None, "2 pairs of accounts for one address");
    common::assert_clean_error(&args, None, "ilse@example.com");
    sql(
        &there,
        &["DELETE FROM users WHERE email IN ('i\u{307}lse@example.com', 'ας@example.com')".into()],
    );
    let done = common::json(&args);
    assert_eq!(done["rows"], 3, "{done}");
    sql(&conn, &[format!("DROP DATABASE {db} WITH (FORCE)")]);
}

/// Issue 51, item 3: a unique index in a non-deterministic ICU collation is refused with the
/// reason and the schema to use, not reported as fronted.
#[test]
fn gate_migrate_refuses_a_non_deterministic_collation() {
    let Some(conn) = pg() else { return };
    let (db, there) = empty_database(&conn, "cli_gate_ci");
    sql(
        &there,
        &[
            "CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', \
             deterministic = false)"
                .into(),
            "CREATE TABLE users (id bigserial PRIMARY KEY, email text COLLATE ci UNIQUE)".into(),
        ],
    );
    let args = ["gate", "migrate", "--url", &there, "--table", "users"];
    common::assert_clean_error(&args, None, "non-deterministic collation ci");
    common::assert_clean_error(&args, None, "CREATE UNIQUE INDEX ON users (lower(email))");
    sql(&conn, &[format!("DROP DATABASE {db} WITH (FORCE)")]);
}

#[test]
fn gate_migrate_on_an_unreachable_server_is_one_clear_line() {
    common::assert_clean_error(
        &[
            "gate",
            "migrate",
            "--url",
            "host=127.0.0.1 port=1 user=x dbname=x",
            "--table",
            "users",
        ],
        None,
        "unreachable",
    );
}
