//! Shared by the integration tests: the PostgreSQL server that `scripts/pg.sh` started.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use filter_classic::ClassicBloom;

/// The connection string of the test server: `FILTERLAB_PG` when set (as `.ci/run` exports),
/// otherwise a throwaway cluster that this test process starts once through `scripts/pg.sh` and
/// that a watcher stops and removes when the process exits. `None` (with the reason printed)
/// when no server can be had, unless `FILTERLAB_REQUIRE_SERVERS=1`, which makes it a failure.
pub fn pg() -> Option<String> {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    let server = SERVER.get_or_init(|| match std::env::var("FILTERLAB_PG") {
        Ok(s) if !s.is_empty() => Ok(s),
        _ => start_own_cluster(),
    });
    match server {
        Ok(conn) => Some(conn.clone()),
        Err(why) => {
            if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") {
                panic!("{why}, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping");
            }
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

/// Runs `scripts/pg.sh start`, and leaves behind a watcher that runs `scripts/pg.sh stop` once
/// this process has exited (a test binary has no teardown hook of its own).
fn start_own_cluster() -> Result<String, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg.sh");
    let out = Command::new("bash")
        .arg(&script)
        .arg("start")
        .output()
        .map_err(|e| format!("no PostgreSQL server: running {}: {e}", script.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("no PostgreSQL server: {}", err.trim()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let value = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("export {name}=")))
            .map(|v| v.trim_matches('\'').to_owned())
            .ok_or(format!("no PostgreSQL server: pg.sh printed no {name}"))
    };
    let (conn, dir) = (value("FILTERLAB_PG")?, value("FILTERLAB_PG_DIR")?);
    let watcher = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; bash '{script}' stop '{dir}'",
        pid = std::process::id(),
        script = script.display(),
    );
    Command::new("bash")
        .args(["-c", &watcher])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("no PostgreSQL server: cannot watch it: {e}"))?;
    eprintln!("started a PostgreSQL cluster for this test binary ({dir}); stopped on exit");
    Ok(conn)
}

/// A table name unique to this process and call, so tests can share one database.
pub fn table(tag: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "t_{tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A classic filter for `n` keys at 1%.
pub fn classic(n: u64) -> ClassicBloom {
    ClassicBloom::builder()
        .capacity(n)
        .fpr(0.01)
        .build()
        .unwrap()
}

/// Creates a fresh users table `table` (with the migration) on `conn`, as a deployment would.
pub fn pg_table(conn: &str, tag: &str) -> String {
    let t = table(tag);
    filter_gate::PgStore::create_table(conn, &t).unwrap();
    t
}

/// Drops a test table.
pub fn drop_pg(conn: &str, table: &str) {
    filter_gate::PgStore::drop_table(conn, table).unwrap();
}

/// A plain client (the test's own SQL).
pub fn client(conn: &str) -> postgres::Client {
    postgres::Client::connect(conn, postgres::NoTls).unwrap()
}

/// Writes the [`filter_gate::Store`] methods named after `=>` as calls on the store in field
/// `$inner` of a test's wrapper store, so that the wrapper spells out only the methods whose
/// behaviour it changes (a fault, a counter): `forward_store!(inner => exists, scan_since);`
/// inside its `impl Store`.
#[allow(unused_macros)]
macro_rules! forward_store {
    ($inner:tt => $($method:ident),+ $(,)?) => {
        $($crate::common::forward_store!(@ $inner $method);)+
    };
    (@ $inner:tt exists) => {
        fn exists(&mut self, email: &str) -> filter_gate::StoreResult<bool> {
            self.$inner.exists(email)
        }
    };
    (@ $inner:tt insert) => {
        fn insert(&mut self, email: &str) -> filter_gate::StoreResult<filter_gate::Insert> {
            self.$inner.insert(email)
        }
    };
    (@ $inner:tt scan_since) => {
        fn scan_since(
            &mut self,
            since: filter_gate::Mark,
            each: &mut dyn FnMut(filter_gate::ScannedRow<'_>),
        ) -> filter_gate::StoreResult<filter_gate::Mark> {
            self.$inner.scan_since(since, each)
        }
    };
    (@ $inner:tt scan_recent) => {
        fn scan_recent(
            &mut self,
            within: std::time::Duration,
            each: &mut dyn FnMut(&str, std::time::Duration),
        ) -> filter_gate::StoreResult<()> {
            self.$inner.scan_recent(within, each)
        }
    };
}
#[allow(unused_imports)]
pub(crate) use forward_store;

/// Whether the unique index of `table` refuses `value` in `column` as a new row: tried through
/// `client`, rolled back (an error other than a unique violation fails the test).
pub fn index_refuses(
    client: &mut postgres::Client,
    table: &str,
    column: &str,
    value: &str,
) -> bool {
    let mut tx = client.transaction().unwrap();
    let insert = format!("INSERT INTO {table} ({column}) VALUES ($1::text)");
    let refused = match tx.execute(&insert, &[&value]) {
        Ok(_) => false,
        Err(e) => {
            assert_eq!(e.code().map(|c| c.code()), Some("23505"), "{e}");
            true
        }
    };
    tx.rollback().unwrap();
    refused
}
