//! The PostgreSQL store, with a LISTEN/NOTIFY feed so that several gate instances on one
//! database learn each other's registrations.
//!
//! Client: the blocking `postgres` crate (rust-postgres). It speaks the wire protocol in pure
//! Rust (no libpq to install), supports COPY for bulk loads and LISTEN/NOTIFY, and the gate's
//! calls are synchronous, so the blocking client avoids carrying an async runtime.
//!
//! The table carries an `AFTER INSERT` trigger that calls `pg_notify('<table>_new', email)`.
//! PostgreSQL delivers a notification only when its transaction commits, so a listener never
//! hears of a row that was rolled back, and hears of every committed one in commit order.

use std::io::Write;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, Config, NoTls, Statement};

use crate::store::{
    check_table_name, Insert, RowId, Store, StoreError, StoreErrorKind, StoreResult,
};

/// Rows fetched per round trip while streaming the table.
const SCAN_BATCH: i32 = 10_000;
/// Notifications buffered between the listener thread and the gate.
const FEED_BUFFER: usize = 1 << 16;

fn pg_err(op: &'static str) -> impl Fn(postgres::Error) -> StoreError {
    move |e| {
        // SQLSTATE classes 08 (connection exception), 53 (insufficient resources) and 57
        // (operator intervention: shutdown, terminated backend) mean the server is not there
        // for us; any other server error is a refused statement.
        let kind = match e.as_db_error().map(|d| d.code().code()) {
            Some(c) if !["08", "53", "57"].iter().any(|p| c.starts_with(p)) => {
                StoreErrorKind::Query
            }
            _ => StoreErrorKind::Unavailable,
        };
        let msg = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        };
        StoreError::new(kind, op, msg)
    }
}

/// A message from the listener thread.
enum FeedItem {
    Email(String),
    Lost(String),
}

struct Feed {
    rx: Receiver<FeedItem>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            // The thread wakes at least every 100 ms to look at `stop`.
            let _ = t.join();
        }
    }
}

/// A users table `(id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL UNIQUE)` on a PostgreSQL server.
pub struct PgStore {
    client: Client,
    config: Config,
    table: String,
    exists: Statement,
    insert: Statement,
    feed: Option<Feed>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("table", &self.table)
            .field("feed", &self.feed.is_some())
            .finish_non_exhaustive()
    }
}

fn parse_config(conn: &str) -> StoreResult<Config> {
    let mut config = Config::from_str(conn)
        .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "connect", e))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(5));
    }
    Ok(config)
}

impl PgStore {
    /// Connects (`conn` is a libpq-style string such as
    /// `host=127.0.0.1 port=5432 user=postgres dbname=postgres`) and creates the table, its
    /// unique index `<table>_email_key` and the notify trigger if missing.
    ///
    /// # Errors
    /// A server that is down, refuses the login or the statements; a bad table name.
    pub fn connect(conn: &str, table: &str) -> StoreResult<Self> {
        check_table_name(table)?;
        let config = parse_config(conn)?;
        let mut client = config.connect(NoTls).map_err(pg_err("connect"))?;
        create_schema(&mut client, table)?;
        let exists = client
            .prepare(&format!("SELECT 1 FROM {table} WHERE email = $1"))
            .map_err(pg_err("prepare"))?;
        let insert = client
            .prepare(&format!(
                "INSERT INTO {table} (email) VALUES ($1) ON CONFLICT (email) DO NOTHING RETURNING id"
            ))
            .map_err(pg_err("prepare"))?;
        Ok(Self {
            client,
            config,
            table: table.to_owned(),
            exists,
            insert,
            feed: None,
        })
    }

    /// Like [`PgStore::connect`], and also starts listening for rows inserted by other
    /// instances (see [`Store::drain_remote`]). Listening starts before this returns, so a
    /// gate that then streams the table misses no row committed in between.
    ///
    /// # Errors
    /// As [`PgStore::connect`], or the listening connection fails.
    pub fn connect_with_feed(conn: &str, table: &str) -> StoreResult<Self> {
        let mut store = Self::connect(conn, table)?;
        store.start_feed()?;
        Ok(store)
    }

    fn start_feed(&mut self) -> StoreResult<()> {
        let mut client = self.config.connect(NoTls).map_err(pg_err("listen"))?;
        client
            .batch_execute(&format!("LISTEN {}_new", self.table))
            .map_err(pg_err("listen"))?;
        let (tx, rx) = sync_channel(FEED_BUFFER);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_thread = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("filter-gate-listen".into())
            .spawn(move || {
                while !stop_thread.load(Ordering::Relaxed) {
                    let mut notes = client.notifications();
                    let mut it = notes.timeout_iter(Duration::from_millis(100));
                    loop {
                        match it.next() {
                            Ok(Some(n)) => {
                                if tx.send(FeedItem::Email(n.payload().to_owned())).is_err() {
                                    return;
                                }
                            }
                            Ok(None) => break,
                            Err(e) => {
                                let _ = tx.send(FeedItem::Lost(e.to_string()));
                                return;
                            }
                        }
                    }
                }
            })
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "listen", e))?;
        self.feed = Some(Feed {
            rx,
            stop,
            thread: Some(thread),
        });
        Ok(())
    }

    /// Restarts a lost feed (see [`StoreErrorKind::FeedLost`]).
    ///
    /// # Errors
    /// The server is still unreachable.
    pub fn restart_feed(&mut self) -> StoreResult<()> {
        self.feed = None;
        self.start_feed()
    }

    /// Loads many addresses with `COPY ... FROM STDIN` in one transaction, without notifying
    /// listeners (a benchmark table load, not sign-ups). Every address must be new; returns the
    /// number of rows copied.
    ///
    /// # Errors
    /// A failing database or a duplicate address; nothing is kept then.
    pub fn bulk_load<'a>(&mut self, emails: impl IntoIterator<Item = &'a str>) -> StoreResult<u64> {
        let table = &self.table;
        let mut tx = self.client.transaction().map_err(pg_err("bulk load"))?;
        tx.batch_execute(&format!(
            "ALTER TABLE {table} DISABLE TRIGGER {table}_notify"
        ))
        .map_err(pg_err("bulk load"))?;
        let mut writer = tx
            .copy_in(&format!("COPY {table} (email) FROM STDIN"))
            .map_err(pg_err("bulk load"))?;
        let io = |e: std::io::Error| StoreError::new(StoreErrorKind::Unavailable, "bulk load", e);
        let mut line = Vec::with_capacity(64);
        for e in emails {
            line.clear();
            copy_text_escape(e, &mut line);
            writer.write_all(&line).map_err(io)?;
        }
        let n = writer.finish().map_err(pg_err("bulk load"))?;
        tx.batch_execute(&format!(
            "ALTER TABLE {table} ENABLE TRIGGER {table}_notify"
        ))
        .map_err(pg_err("bulk load"))?;
        tx.commit().map_err(pg_err("bulk load"))?;
        Ok(n)
    }

    /// Bytes of the unique index on `email` (`pg_relation_size`).
    ///
    /// # Errors
    /// A failing database.
    pub fn index_bytes(&mut self) -> StoreResult<u64> {
        let row = self
            .client
            .query_one(
                &format!("SELECT pg_relation_size('{}_email_key')", self.table),
                &[],
            )
            .map_err(pg_err("index size"))?;
        Ok(row.get::<_, i64>(0).max(0) as u64)
    }

    /// Runs `ANALYZE` on the table (after a bulk load, so that plans use the index).
    ///
    /// # Errors
    /// A failing database.
    pub fn analyze(&mut self) -> StoreResult<()> {
        self.client
            .batch_execute(&format!("ANALYZE {}", self.table))
            .map_err(pg_err("analyze"))
    }

    /// Drops the table and its trigger function (test and benchmark clean-up).
    ///
    /// # Errors
    /// A failing database.
    pub fn drop_table(mut self) -> StoreResult<()> {
        self.feed = None;
        let t = &self.table;
        self.client
            .batch_execute(&format!(
                "DROP TABLE IF EXISTS {t}; DROP FUNCTION IF EXISTS {t}_notify_fn()"
            ))
            .map_err(pg_err("drop"))
    }
}

/// Writes `email` as one line of COPY's text format (backslash escapes).
fn copy_text_escape(email: &str, out: &mut Vec<u8>) {
    for &b in email.as_bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out.push(b'\n');
}

fn create_schema(client: &mut Client, table: &str) -> StoreResult<()> {
    // Two instances starting together would race on CREATE ... IF NOT EXISTS; an advisory lock
    // held for the transaction serialises them.
    let mut tx = client.transaction().map_err(pg_err("create table"))?;
    tx.execute("SELECT pg_advisory_xact_lock(hashtext($1))", &[&table])
        .map_err(pg_err("create table"))?;
    tx.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {table} (
             id BIGSERIAL PRIMARY KEY,
             email TEXT NOT NULL,
             CONSTRAINT {table}_email_key UNIQUE (email));
         CREATE OR REPLACE FUNCTION {table}_notify_fn() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_notify('{table}_new', NEW.email); RETURN NULL; END $$;
         DROP TRIGGER IF EXISTS {table}_notify ON {table};
         CREATE TRIGGER {table}_notify AFTER INSERT ON {table}
             FOR EACH ROW EXECUTE FUNCTION {table}_notify_fn();"
    ))
    .map_err(pg_err("create table"))?;
    tx.commit().map_err(pg_err("create table"))
}

impl Store for PgStore {
    fn exists(&mut self, email: &str) -> StoreResult<bool> {
        let rows = self
            .client
            .query(&self.exists, &[&email])
            .map_err(pg_err("select"))?;
        Ok(!rows.is_empty())
    }

    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        let row = self
            .client
            .query_opt(&self.insert, &[&email])
            .map_err(pg_err("insert"))?;
        Ok(match row {
            Some(r) => Insert::Inserted(r.get(0)),
            None => Insert::Duplicate,
        })
    }

    fn scan_since(&mut self, after: RowId, each: &mut dyn FnMut(&str)) -> StoreResult<RowId> {
        let sql = format!(
            "SELECT id, email FROM {} WHERE id > $1 ORDER BY id",
            self.table
        );
        let mut tx = self.client.transaction().map_err(pg_err("scan"))?;
        let portal = tx.bind(sql.as_str(), &[&after]).map_err(pg_err("scan"))?;
        let mut high = after;
        loop {
            let rows = tx
                .query_portal(&portal, SCAN_BATCH)
                .map_err(pg_err("scan"))?;
            if rows.is_empty() {
                break;
            }
            for r in &rows {
                let id: i64 = r.get(0);
                let email: &str = r.get(1);
                each(email);
                high = high.max(id);
            }
        }
        tx.commit().map_err(pg_err("scan"))?;
        Ok(high)
    }

    fn drain_remote(&mut self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        let Some(feed) = &self.feed else {
            return Ok(());
        };
        loop {
            match feed.rx.try_recv() {
                Ok(FeedItem::Email(e)) => each(&e),
                Ok(FeedItem::Lost(msg)) => {
                    return Err(StoreError::new(StoreErrorKind::FeedLost, "listen", msg))
                }
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Disconnected) => {
                    return Err(StoreError::new(
                        StoreErrorKind::FeedLost,
                        "listen",
                        "the listener thread stopped",
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_lines_escape_backslashes() {
        let mut out = Vec::new();
        copy_text_escape("a\\b@x.org", &mut out);
        assert_eq!(out, b"a\\\\b@x.org\n");
    }

    #[test]
    fn an_unreachable_server_is_a_clear_error() {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let err = PgStore::connect("host=127.0.0.1 port=1 user=x dbname=x", "users").unwrap_err();
        assert_eq!(err.kind, StoreErrorKind::Unavailable, "{err}");
        assert!(err.to_string().contains("unreachable"), "{err}");
    }
}
