//! Issue 51, item 3: a unique index in a non-deterministic ICU collation
//! (`CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`,
//! PostgreSQL's documented way to make a column case-insensitive) holds texts equal that the
//! gate's exact-text keys tell apart: a composed and a decomposed `é`, fullwidth letters, a
//! zero-width space, `σ` and `ς`. The gate used to start with `key_match: Exact` and answer
//! Available for 6 of 34 addresses the index refuses. Now it refuses such a table at connect,
//! with the reason and the schema to use; whatever it does, it must never answer Available for
//! an address the index refuses.

mod common;

use filter_gate::{Availability, Gate, PgStore, SharedGate, StoreError, StoreErrorKind, Stores};

/// Rows the table holds.
const STORED: [&str; 4] = [
    "ann@example.com",
    "jos\u{e9}@example.com",
    "ασ@example.com",
    "zoe@example.com",
];

/// Addresses users type: case, width, normalisation form, ignorable characters and sigma
/// variants of the stored rows, and new ones.
const TYPED: [&str; 36] = [
    "ANN@example.com",
    "Ann@Example.com",
    "ann@EXAMPLE.COM",
    "\u{ff41}\u{ff4e}\u{ff4e}@example.com",
    "\u{ff21}\u{ff2e}\u{ff2e}@example.com",
    "ann@\u{ff45}xample.com",
    "an\u{200b}n@example.com",
    "\u{200b}ann@example.com",
    "ann@example.com\u{200b}",
    "ann\u{ad}@example.com",
    "a\u{200d}nn@example.com",
    "jose\u{301}@example.com",
    "JOS\u{c9}@example.com",
    "JOSE\u{301}@example.com",
    "Jos\u{e9}@example.com",
    "\u{ff4a}os\u{e9}@example.com",
    "jos\u{e9}\u{200b}@example.com",
    "ας@example.com",
    "ΑΣ@example.com",
    "Ασ@example.com",
    "ΑΣ@EXAMPLE.COM",
    "ας@Example.com",
    "\u{3b1}\u{200b}σ@example.com",
    "ZOE@example.com",
    "\u{ff5a}oe@example.com",
    "zo\u{200b}e@example.com",
    "Zoe@example.com",
    "ZOE@EXAMPLE.COM",
    "zoe@example.co\u{200b}m",
    "zoe@\u{ff45}\u{ff58}ample.com",
    "jose@example.com",
    "zoë@example.com",
    "as@example.com",
    "new@example.com",
    "ann2@example.com",
    "jos@example.com",
];

/// Whether the unique index refuses `typed` (trimmed) as a new row: tried, rolled back.
fn refused(conn: &str, table: &str, typed: &str) -> bool {
    common::index_refuses(&mut common::client(conn), table, "email", typed.trim())
}

/// A refusal that names the reason and the schema to use.
fn assert_refusal(e: &StoreError, what: &str) {
    assert_eq!(e.kind, StoreErrorKind::Schema, "{what}: {e}");
    let text = e.to_string();
    assert!(
        text.contains("non-deterministic collation"),
        "{what}: {text}"
    );
    assert!(text.contains("CREATE UNIQUE INDEX ON"), "{what}: {text}");
    assert!(text.contains("(lower(email))"), "{what}: {text}");
}

/// Whether the server has ICU collations; `false` (the test skipped) when it has none, which
/// `FILTERLAB_REQUIRE_SERVERS=1` turns into a failure.
fn has_icu(admin: &mut postgres::Client) -> bool {
    let icu: bool = admin
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collprovider = 'i')",
            &[],
        )
        .unwrap()
        .get(0);
    if !icu {
        assert_ne!(
            std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref(),
            Ok("1"),
            "this server has no ICU, and FILTERLAB_REQUIRE_SERVERS=1"
        );
        eprintln!("SKIPPED: this server has no ICU");
    }
    icu
}

/// Each gate over `table` refuses to start, or answers `Taken` for every address in `refused`.
fn gates_refuse_or_answer_taken(conn: &str, table: &str, tag: &str, refused: &[&str]) {
    match PgStore::connect(conn, table) {
        Err(e) => assert_refusal(&e, tag),
        Ok(store) => {
            let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
            for t in refused {
                assert_eq!(
                    gate.is_taken(t).unwrap(),
                    Availability::Taken,
                    "{tag}: {t:?}"
                );
            }
        }
    }
    match Stores::postgres(conn, table, &Default::default()) {
        Err(e) => assert_refusal(&e, tag),
        Ok(stores) => {
            let filter = filter_classic::ClassicBloom::builder()
                .capacity(1000)
                .fpr(0.01)
                .build_atomic()
                .unwrap();
            let gate = SharedGate::rebuild(filter, stores).unwrap();
            for t in refused {
                assert_eq!(
                    gate.is_taken(t).unwrap(),
                    Availability::Taken,
                    "{tag}: {t:?}"
                );
            }
        }
    }
}

#[test]
fn a_non_deterministic_collation_never_gets_an_available_it_refuses() {
    let Some(conn) = common::pg() else { return };
    let mut admin = common::client(&conn);
    if !has_icu(&mut admin) {
        return;
    }
    // Another test binary may create it at the same time: its error is then harmless.
    let _ = admin.batch_execute(
        "CREATE COLLATION IF NOT EXISTS gate_ci (provider = icu, locale = 'und-u-ks-level2', \
         deterministic = false)",
    );
    for (tag, column, index) in [
        ("ci_unique", "text COLLATE gate_ci", "(email)"),
        ("ci_lower", "text COLLATE gate_ci", "(lower(email))"),
        ("ci_index", "text", "(email COLLATE gate_ci)"),
    ] {
        let table = common::table(tag);
        admin
            .batch_execute(&format!(
                "CREATE TABLE {table} (id bigserial PRIMARY KEY, email {column} NOT NULL);
                 CREATE UNIQUE INDEX ON {table} {index};"
            ))
            .unwrap();
        PgStore::migrate(&conn, &table, "email").unwrap();
        for s in STORED {
            let sql = format!("INSERT INTO {table} (email) VALUES ($1)");
            admin.execute(&sql, &[&s]).unwrap();
        }
        let refused: Vec<&str> = TYPED
            .iter()
            .copied()
            .filter(|t| refused(&conn, &table, t))
            .collect();
        // The kinds are all among them: NFD, fullwidth, a zero-width space, ς.
        for t in [
            "jose\u{301}@example.com",
            "\u{ff41}\u{ff4e}\u{ff4e}@example.com",
            "an\u{200b}n@example.com",
            "ας@example.com",
        ] {
            assert!(refused.contains(&t), "{tag}: the index refuses {t:?}");
        }
        assert!(refused.len() >= 30, "{tag}: {}", refused.len());
        eprintln!(
            "{tag}: the index refuses {} of {}",
            refused.len(),
            TYPED.len()
        );
        gates_refuse_or_answer_taken(&conn, &table, tag, &refused);
        common::drop_pg(&conn, &table);
    }
}
