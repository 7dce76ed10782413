//! The PostgreSQL store: any table with a text key column and a unique index on it (or on
//! `lower(column)`), with a LISTEN/NOTIFY feed so that several gate instances on one database
//! learn each other's registrations.
//!
//! Client: the blocking `postgres` crate (rust-postgres), pure Rust (no libpq), with COPY and
//! LISTEN/NOTIFY; the gate's calls are synchronous, so no async runtime to carry.
//!
//! # No DDL on connect
//! Connecting only reads the catalogs (the table, the key column's type, its unique index, the
//! migration's trigger and function) and prepares two statements: no lock stronger than ACCESS
//! SHARE. The trigger and function come from a one-time migration run by the table's owner
//! ([`MIGRATION_SQL`], [`PgStore::migrate`]). The gate's role needs SELECT on the table,
//! INSERT if it calls `register`, and nothing else.
//!
//! # Catching up whatever the commit order
//! Ids are not commit order: a transaction can take id 10 and commit after id 5,000. So a scan
//! runs in a REPEATABLE READ transaction and records its snapshot ([`Mark::PgSnapshot`]). Every
//! row it did not see was written by a transaction still running or not yet started when the
//! snapshot was taken, hence with a transaction id at least the snapshot's `xmin`. The next
//! scan reads the rows whose `xmin` is at or above that (compared modulo 2^32, as PostgreSQL
//! does; a mark more than 2^31 transactions old is refused by [`Store::check_mark`]), which is
//! a superset of what was missed. `xmin` is kept by freezing, so frozen rows are not missed
//! either (a test freezes the table between the two scans). The catch-up reads the whole
//! table once on the server side (no index on `xmin`) but sends only the newer rows.

use std::hash::{BuildHasher, Hasher};
use std::str::FromStr;
use std::sync::{Arc, Mutex, TryLockError};
use std::time::Duration;

use tokio_postgres::{Config, Statement};

use crate::fold::Folding;
use crate::pg_conn::Conn;
use crate::pg_feed::Feed;
use crate::pg_scan::stream_rows;
use crate::pg_schema::{inspect, TableInfo};
pub use crate::pg_schema::{KeyMatch, MIGRATION_SQL};
use crate::shared::lock;
use crate::store::{
    FeedTap, Insert, Mark, ScannedRow, Store, StoreError, StoreErrorKind, StoreResult,
};

/// Maps a driver error to a [`StoreError`]: a conversion of a parameter or a column is a type
/// error, a refused statement a query error, and only a lost or refused connection (or
/// SQLSTATE classes 08, 53, 57) makes the database "unreachable".
pub(crate) fn pg_err(op: &'static str) -> impl Fn(postgres::Error) -> StoreError {
    move |e| {
        if let Some(db) = e.as_db_error() {
            let c = db.code().code();
            // 57014 (query_canceled) is a statement timeout, not a server that went away.
            let kind = if c == "57014" {
                StoreErrorKind::Timeout
            } else if ["08", "53", "57"].iter().any(|p| c.starts_with(p)) {
                StoreErrorKind::Unavailable
            } else if ["42804", "42883", "22P02"].contains(&c) {
                StoreErrorKind::Type
            } else {
                StoreErrorKind::Query
            };
            return StoreError::new(kind, op, format!("{c}: {}", db.message()));
        }
        let text = e.to_string();
        let conversion = std::error::Error::source(&e)
            .is_some_and(|s| s.is::<postgres::types::WrongType>())
            || text.starts_with("error serializing")
            || text.starts_with("error deserializing");
        let kind = if conversion {
            StoreErrorKind::Type
        } else {
            StoreErrorKind::Unavailable
        };
        StoreError::new(kind, op, text)
    }
}

/// Maps a failed connection attempt: whatever the reason (refused, timed out, a login or a
/// database that does not accept connections), the database cannot be reached.
pub(crate) fn conn_err(op: &'static str) -> impl Fn(postgres::Error) -> StoreError {
    move |e| {
        let msg = match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        };
        StoreError::new(StoreErrorKind::Unavailable, op, msg)
    }
}

/// The default of [`PgOptions::catch_up_every`].
pub const DEFAULT_CATCH_UP_EVERY: Duration = Duration::from_secs(10);

/// How [`PgStore::connect_with`] connects.
#[derive(Clone, Debug)]
pub struct PgOptions {
    /// The key column (`email` by default).
    pub key_column: String,
    /// Whether to listen for other instances' rows ([`Store::drain_remote`]).
    pub feed: bool,
    /// Connect timeout, unless the connection string sets one.
    pub connect_timeout: Duration,
    /// `statement_timeout` of the checks and inserts (scans run without one). A check or an
    /// insert also fails, as [`StoreErrorKind::Timeout`], when no answer has arrived a second
    /// after it (a half-open connection, a server that stopped answering), and the connection
    /// is then replaced (see the `pg_conn` module). Zero: no timeout at all.
    pub statement_timeout: Duration,
    /// How long sent data may stay unacknowledged before the kernel drops the connection
    /// (`TCP_USER_TIMEOUT`, Linux): what bounds a scan, which has no statement timeout, on a
    /// connection whose peer vanished. Idle connections are probed with keepalives (after 30 s,
    /// every 5 s, 3 probes).
    pub tcp_user_timeout: Duration,
    /// The registration-time column (`timestamptz`, for example `created_at`), which
    /// [`crate::Gate::with_recent`] needs; none by default.
    pub created_column: Option<String>,
    /// How often a gate reads the rows its mark does not cover, feed or no feed (10 s by
    /// default; `None`: never). The feed carries only what the notify trigger sends, and the
    /// trigger does not fire for rows written under `session_replication_role = replica`
    /// (logical replication's apply, `pg_restore --disable-triggers`) or while it is disabled
    /// (`ALTER TABLE ... DISABLE TRIGGER`, [`PgStore::bulk_load`]); a gate without the feed
    /// hears of no other writer at all. Such rows reach the filter at the next catch-up: at
    /// most this period (plus one check's wait, as the catch-up runs inside a check) after
    /// they commit. Each catch-up reads the table once on the server (see the module docs),
    /// about 0.2 s at 1M rows, so the period stretches to 50 times the last catch-up's
    /// duration when that is longer (catch-ups then take at most 2% of the time: 10 s up to
    /// about 1M rows, longer beyond). The start's whole-table read counts as a catch-up: the
    /// first period after it is 50 times that read.
    pub catch_up_every: Option<Duration>,
}

impl Default for PgOptions {
    fn default() -> Self {
        Self {
            key_column: "email".into(),
            feed: false,
            connect_timeout: Duration::from_secs(5),
            statement_timeout: Duration::from_secs(5),
            tcp_user_timeout: Duration::from_secs(30),
            created_column: None,
            catch_up_every: Some(DEFAULT_CATCH_UP_EVERY),
        }
    }
}

/// A users table on a PostgreSQL server.
pub struct PgStore {
    pub(crate) conn: Conn,
    pub(crate) config: Config,
    connect_timeout: Duration,
    pub(crate) table: TableInfo,
    exists: Statement,
    /// Prepared at the first `insert`: preparing an INSERT takes ROW EXCLUSIVE on the table,
    /// which connecting must not.
    insert: Option<Statement>,
    /// With the feed: its listener, or `None` while it is not running (a restart that failed).
    /// Shared with the store's [`FeedTap`]s, which drain it apart from the store.
    feed: Option<Arc<Mutex<Option<Feed>>>>,
    /// The last statement lost the connection: reconnect before the next one.
    broken: bool,
    /// The statement timeout: after it, an INSERT the client gave up on has ended.
    statement_timeout: Duration,
    /// How the unique index folds (read at connect), and the statement that asks the server
    /// (see the `pg_fold` module).
    folding: Folding,
    pub(crate) fold_stmt: Option<Statement>,
    /// See [`PgOptions::catch_up_every`].
    catch_up_every: Option<Duration>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("table", &self.table.name)
            .field("column", &self.table.column)
            .field("key_match", &self.table.key_match)
            .field("feed", &self.feed.is_some())
            .finish_non_exhaustive()
    }
}

fn parse_config(conn: &str, opts: &PgOptions) -> StoreResult<Config> {
    let mut config = Config::from_str(conn)
        .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "connect", e))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(opts.connect_timeout);
    }
    config
        .tcp_user_timeout(opts.tcp_user_timeout)
        .keepalives(true)
        .keepalives_idle(Duration::from_secs(30))
        .keepalives_interval(Duration::from_secs(5))
        .keepalives_retries(3);
    let ms = opts.statement_timeout.as_millis();
    let options = config.get_options().unwrap_or_default().to_owned();
    config.options(format!("{options} -c statement_timeout={ms}").trim());
    Ok(config)
}

impl PgStore {
    /// Connects to the table `table` (a name as SQL would resolve it: `users`, `auth.users`,
    /// `"Users"`) with key column `email`, without the feed. See [`PgStore::connect_with`].
    ///
    /// # Errors
    /// As [`PgStore::connect_with`].
    pub fn connect(conn: &str, table: &str) -> StoreResult<Self> {
        Self::connect_with(conn, table, &PgOptions::default())
    }

    /// [`PgStore::connect`] with the feed: listening starts before this returns, so a gate that
    /// then scans the table misses no row committed in between.
    ///
    /// # Errors
    /// As [`PgStore::connect_with`].
    pub fn connect_with_feed(conn: &str, table: &str) -> StoreResult<Self> {
        let opts = PgOptions {
            feed: true,
            ..PgOptions::default()
        };
        Self::connect_with(conn, table, &opts)
    }

    /// Connects (`conn` is a libpq-style string such as
    /// `host=127.0.0.1 port=5432 user=app dbname=app`) and checks, with catalog reads only,
    /// that the table fits: the key column is text, a unique index covers it or
    /// `lower(column)`, the migration ran (and with the feed, its trigger is on the table).
    ///
    /// # Errors
    /// [`StoreErrorKind::Unavailable`] for a server that is down or refuses the login;
    /// [`StoreErrorKind::Schema`] or [`StoreErrorKind::Type`] for a table that does not fit,
    /// naming what to change.
    pub fn connect_with(conn: &str, table: &str, opts: &PgOptions) -> StoreResult<Self> {
        let config = parse_config(conn, opts)?;
        let connect_timeout = *config
            .get_connect_timeout()
            .unwrap_or(&opts.connect_timeout);
        let mut conn = Conn::connect(&config, connect_timeout, answer_deadline(opts), "connect")?;
        let created = opts.created_column.as_deref();
        let info = inspect(&mut conn, table, &opts.key_column, opts.feed, created)?;
        let exists = prepare_exists(&mut conn, &info)?;
        let folding = crate::pg_fold::probe(&mut conn, &info)?;
        let fold_stmt = crate::pg_fold::prepare(&mut conn, &info)?;
        let feed = if opts.feed {
            Some(Arc::new(Mutex::new(Some(Feed::start(
                &config.clone().into(),
                &info.channel(),
                feed_bound(connect_timeout),
            )?))))
        } else {
            None
        };
        Ok(Self {
            conn,
            config,
            connect_timeout,
            table: info,
            exists,
            insert: None,
            feed,
            broken: false,
            statement_timeout: opts.statement_timeout,
            folding,
            fold_stmt,
            catch_up_every: opts.catch_up_every,
        })
    }

    /// How the table's unique index compares keys.
    pub fn key_match(&self) -> KeyMatch {
        self.table.key_match
    }

    /// Reconnects if the connection was lost (a restarted server), re-preparing the statements.
    pub(crate) fn ensure(&mut self) -> StoreResult<()> {
        if !self.broken && !self.conn.is_closed() {
            return Ok(());
        }
        let deadline = answer_deadline_of(self.statement_timeout);
        let mut conn = Conn::connect(&self.config, self.connect_timeout, deadline, "reconnect")?;
        let exists = prepare_exists(&mut conn, &self.table)?;
        let fold = crate::pg_fold::prepare(&mut conn, &self.table)?;
        (self.conn, self.exists, self.insert, self.fold_stmt) = (conn, exists, None, fold);
        self.broken = false;
        Ok(())
    }

    /// Notes a lost connection, so that the next call reconnects.
    pub(crate) fn note(&mut self, e: StoreError) -> StoreError {
        if e.kind == StoreErrorKind::Unavailable {
            self.broken = true;
        }
        e
    }

    /// A plain blocking client on the store's settings, for the deployment and benchmark helpers
    /// (bulk loads, sizes), which run no statement on the service's path.
    pub(crate) fn admin_client(&self, op: &'static str) -> StoreResult<postgres::Client> {
        let config: postgres::Config = self.config.clone().into();
        config.connect(postgres::NoTls).map_err(conn_err(op))
    }
}

/// How long a check or an insert waits for its answer: the statement timeout, then a second
/// for the server's cancellation to arrive; none without a statement timeout.
fn answer_deadline(opts: &PgOptions) -> Option<Duration> {
    answer_deadline_of(opts.statement_timeout)
}

/// How long starting the feed (connect, LISTEN) may take.
fn feed_bound(connect_timeout: Duration) -> Duration {
    connect_timeout + Duration::from_secs(1)
}

fn answer_deadline_of(statement_timeout: Duration) -> Option<Duration> {
    (!statement_timeout.is_zero()).then(|| statement_timeout + Duration::from_secs(1))
}

fn prepare_exists(conn: &mut Conn, t: &TableInfo) -> StoreResult<Statement> {
    let sql = format!("SELECT 1 FROM {} WHERE {} LIMIT 1", t.name, t.lookup());
    conn.prepare("prepare", &sql)
}

fn prepare_insert(conn: &mut Conn, t: &TableInfo) -> StoreResult<Statement> {
    // No conflict target: whichever unique index refuses the row (on the column or on an
    // expression) makes it a duplicate.
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ($1::text) ON CONFLICT DO NOTHING RETURNING 1",
        t.name, t.column
    );
    conn.prepare("prepare", &sql)
}

/// Drains the listener in `slot`; an empty slot (a restart that failed) is a lost feed.
fn drain_slot(slot: &Mutex<Option<Feed>>, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
    drain_feed(lock(slot).as_ref(), each)
}

/// Drains `feed`; none (a restart that failed) is a lost feed.
fn drain_feed(feed: Option<&Feed>, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
    match feed {
        Some(feed) => feed.drain(each),
        None => Err(StoreError::new(
            StoreErrorKind::FeedLost,
            "listen",
            "the feed is not running (its last restart failed)",
        )),
    }
}

/// A random non-zero token for [`Store::seal`].
fn random_token() -> i64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    (h.finish() >> 1).max(1) as i64
}

impl Store for PgStore {
    fn exists(&mut self, email: &str) -> StoreResult<bool> {
        self.ensure()?;
        let rows = self.conn.query("select", &self.exists, &[&email]);
        let rows = match rows {
            // A read is safe to retry: once, on a new connection (a restarted server, a
            // connection cut while idle). Not after a timeout, which would double the wait.
            Err(e) if e.kind == StoreErrorKind::Unavailable => {
                self.broken = true;
                self.ensure()?;
                let again = self.conn.query("select", &self.exists, &[&email]);
                again.map_err(|e| self.note(e))?
            }
            other => other?,
        };
        Ok(!rows.is_empty())
    }

    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        self.ensure()?;
        let insert = match &self.insert {
            Some(s) => s.clone(),
            None => {
                let prepared = prepare_insert(&mut self.conn, &self.table);
                let s = prepared.map_err(|e| self.note(e))?;
                self.insert = Some(s.clone());
                s
            }
        };
        let row = self.conn.query_opt("insert", &insert, &[&email]);
        let row = row.map_err(|e| self.note(e))?;
        Ok(match row {
            Some(_) => Insert::Inserted,
            None => Insert::Duplicate,
        })
    }

    fn scan_since(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> StoreResult<Mark> {
        self.ensure()?;
        let scanned = self.scan(since, each);
        scanned.map_err(|e| self.note(e))
    }

    fn check_mark(&mut self, mark: Mark) -> StoreResult<Option<String>> {
        self.ensure()?;
        let checked = self.check(mark);
        checked.map_err(|e| self.note(e))
    }

    fn seal(&mut self, mark: Mark) -> StoreResult<Mark> {
        let Mark::PgSnapshot { xmin, xmax, .. } = mark else {
            return Ok(mark);
        };
        self.ensure()?;
        let token = random_token();
        let done = self.conn.execute(
            "seal",
            "SELECT filter_gate.stamp($1::int8, $2::int8::oid)",
            &[&token, &self.table.oid],
        );
        done.map_err(|e| self.note(e))?;
        Ok(Mark::PgSnapshot {
            xmin,
            xmax,
            stamp: token as u64,
        })
    }

    fn drain_remote(&mut self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        match &self.feed {
            Some(slot) => drain_slot(slot, each),
            None => Ok(()),
        }
    }

    fn feed_tap(&self) -> Option<FeedTap> {
        let slot = Arc::clone(self.feed.as_ref()?);
        // Every check of every thread drains: one that finds another draining goes on (what it
        // would have drained is that thread's to add), instead of queueing on the lock.
        Some(FeedTap::new(move |each| match slot.try_lock() {
            Ok(feed) => drain_feed(feed.as_ref(), each),
            Err(TryLockError::Poisoned(p)) => drain_feed(p.into_inner().as_ref(), each),
            Err(TryLockError::WouldBlock) => Ok(()),
        }))
    }

    fn scan_recent(
        &mut self,
        within: Duration,
        each: &mut dyn FnMut(&str, Duration),
    ) -> StoreResult<()> {
        let t = &self.table;
        let Some((age, newer)) = t.recent(1) else {
            return Err(crate::store::no_time_column());
        };
        // What the index compares (the column itself under a unique index on it): the key's
        // fold, as `Store::scan_recent` says.
        let sql = format!(
            "SELECT {}::text, {age} FROM {} WHERE {newer}",
            t.matched_expr(),
            t.name
        );
        let ms = within.as_millis().min(i64::MAX as u128) as i64;
        let err = pg_err("recent");
        let mut on_row = |r: &tokio_postgres::Row| {
            let key: Option<&str> = r.try_get(0).map_err(&err)?;
            let age: Option<i64> = r.try_get(1).map_err(&err)?;
            if let Some(key) = key {
                each(key, Duration::from_millis(age.unwrap_or(0).max(0) as u64));
            }
            Ok(())
        };
        self.ensure()?;
        // Streamed without a deadline, as the scans.
        let read = self.conn.run("recent", false, |c| {
            stream_rows(c, "recent", sql, Some(ms), &mut on_row)
        });
        read.map(drop).map_err(|e| self.note(e))
    }

    fn registered_within(&mut self, email: &str, within: Duration) -> StoreResult<bool> {
        let t = &self.table;
        let Some((_, newer)) = t.recent(2) else {
            return Err(crate::store::no_time_column());
        };
        let sql = format!(
            "SELECT 1 FROM {} WHERE {} AND {newer} LIMIT 1",
            t.name,
            t.lookup()
        );
        let ms = within.as_millis().min(i64::MAX as u128) as i64;
        self.ensure()?;
        let rows = self.conn.query("recent", &sql, &[&email, &ms]);
        Ok(!rows.map_err(|e| self.note(e))?.is_empty())
    }

    fn matched(&mut self, stored: &str) -> StoreResult<String> {
        let Some(sql) = self.table.matched_query() else {
            return Ok(stored.to_owned());
        };
        self.ensure()?;
        let row = self.conn.query_one("matched", &sql, &[&stored]);
        let row = row.map_err(|e| self.note(e))?;
        row.try_get(0).map_err(pg_err("matched"))
    }

    fn repair_sql(&self, stored: &str, key: &str) -> String {
        self.table.repair_sql(stored, key)
    }

    fn folding(&self) -> Folding {
        self.folding.clone()
    }

    fn fold(&mut self, typed: &str) -> StoreResult<String> {
        self.fold_query(typed)
    }

    fn fold_pairs(&mut self, each: &mut dyn FnMut(&str, &str)) -> StoreResult<()> {
        self.pairs(each)
    }

    fn catch_up_every(&self) -> Option<Duration> {
        self.catch_up_every
    }

    fn settle_time(&self) -> Duration {
        // The server cancels a statement at its timeout; a second more for the network.
        self.statement_timeout + Duration::from_secs(1)
    }

    fn restart_feed(&mut self) -> StoreResult<()> {
        if let Some(slot) = &self.feed {
            // The old listener goes first; the slot stays empty (and its drains fail) until a
            // restart succeeds, however many attempts that takes.
            *lock(slot) = None;
            let feed = Feed::start(
                &self.config.clone().into(),
                &self.table.channel(),
                feed_bound(self.connect_timeout),
            )?;
            *lock(slot) = Some(feed);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
