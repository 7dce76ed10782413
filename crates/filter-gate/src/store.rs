//! The [`Store`] trait: the table of registered addresses, with a unique constraint that is the
//! final arbiter of every registration.

use std::fmt;
use std::sync::Arc;

/// A row id (SQLite's `INTEGER PRIMARY KEY`).
pub type RowId = i64;

/// How far a store's scans have read: every row committed "before" the mark is in the filter.
///
/// The meaning belongs to the store. On SQLite (one writer at a time, so ids are commit order)
/// it is the highest id read. On PostgreSQL ids are *not* commit order (a transaction can hold
/// a low id and commit after many higher ones), so the mark is the scan's transaction snapshot:
/// every row visible in it was read, and every row that was not was written by a transaction
/// whose id is at least the snapshot's `xmin` (see the `postgres` module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mark {
    /// Nothing read yet: the next scan reads the whole table.
    #[default]
    Start,
    /// SQLite: every row with an id up to this one was read.
    RowId(RowId),
    /// PostgreSQL: every row visible in a snapshot whose `xmin` and `xmax` (64-bit transaction
    /// ids) were these was read; `stamp` is a token the store wrote for this mark when it was
    /// saved (0: none), so that a database restored from an older backup is recognised.
    PgSnapshot {
        /// The snapshot's oldest transaction still running.
        xmin: u64,
        /// The snapshot's first transaction id not yet assigned.
        xmax: u64,
        /// The token written by [`Store::seal`] (0 before saving).
        stamp: u64,
    },
}

/// The outcome of [`Store::insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The row was committed.
    Inserted,
    /// The unique constraint refused the row: the address was already there.
    Duplicate,
}

/// What went wrong in the database layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// The database cannot be reached (connection refused or lost).
    Unavailable,
    /// The database answered with an error (a failed statement, a bad schema).
    Query,
    /// The feed of rows inserted through other gate instances was lost: a local "absent"
    /// answer could be stale until [`crate::Gate::resync`] succeeds.
    FeedLost,
    /// The table's name is not a plain SQL identifier.
    BadTableName,
    /// The table does not fit the gate (a missing table or column, a key column that is not
    /// text, no unique index on the key, the migration not run); the message says which.
    Schema,
    /// A value of the wrong type (a parameter or a column that does not convert).
    Type,
    /// The statement ran past its timeout: either the server cancelled it (PostgreSQL 57014,
    /// rolled back), or no answer arrived in time (a half-open connection, a server that stopped
    /// answering; the store drops that connection). An insert's outcome is then unknown.
    Timeout,
}

/// A database error with the operation that failed.
#[derive(Debug)]
pub struct StoreError {
    /// The kind of failure.
    pub kind: StoreErrorKind,
    /// The operation (for example `"insert"`).
    pub op: &'static str,
    /// The driver's message.
    pub message: String,
}

impl StoreError {
    /// An error of `kind` during `op`.
    pub fn new(kind: StoreErrorKind, op: &'static str, message: impl fmt::Display) -> Self {
        Self {
            kind,
            op,
            message: message.to_string(),
        }
    }
}

impl StoreError {
    /// Whether a failed [`Store::insert`] may still have committed: the connection broke or the
    /// answer did not come in time.
    pub fn outcome_unknown(&self) -> bool {
        matches!(
            self.kind,
            StoreErrorKind::Unavailable | StoreErrorKind::Timeout
        )
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            StoreErrorKind::Unavailable => "the database is unreachable",
            StoreErrorKind::Query => "the database refused the statement",
            StoreErrorKind::FeedLost => "the feed of other instances' registrations was lost",
            StoreErrorKind::BadTableName => "the table name is not a plain identifier",
            StoreErrorKind::Schema => "the table does not fit the gate",
            StoreErrorKind::Type => "a value has the wrong type",
            StoreErrorKind::Timeout => "the statement ran past its timeout",
        };
        write!(f, "{what} during {}: {}", self.op, self.message)
    }
}

impl std::error::Error for StoreError {}

/// A result of a store operation.
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// One row read by a scan: the stored key, and the key as the store's uniqueness compares it
/// (the column itself, or for example `lower(email)` under a unique index on that expression).
#[derive(Clone, Copy, Debug)]
pub struct ScannedRow<'a> {
    /// The value stored in the key column.
    pub stored: &'a str,
    /// The value the store's unique index and [`Store::exists`] compare with a key.
    pub matched: &'a str,
}

/// The table of registered addresses.
///
/// Implementations: [`crate::SqliteStore`] and [`crate::PgStore`]. A store must enforce
/// uniqueness itself (a unique index): the gate's filter may be stale, the constraint may not.
/// [`Store::exists`] and the unique index compare a normalised key with the same expression
/// that [`ScannedRow::matched`] reports, which lets the gate tell, row by row, whether a stored
/// row is found by its normalised key; one that is not is held as an alias (see
/// [`crate::Gate::unnormalised`]).
pub trait Store {
    /// Whether a row matches the (normalised) key.
    ///
    /// # Errors
    /// A database that is down or failing.
    fn exists(&mut self, email: &str) -> StoreResult<bool>;

    /// Inserts a row, committed when this returns `Ok(Insert::Inserted)`.
    ///
    /// # Errors
    /// A database that is down or failing (a duplicate is `Ok(Insert::Duplicate)`, not an
    /// error). After [`StoreErrorKind::Unavailable`] or [`StoreErrorKind::Timeout`] the outcome
    /// is unknown: the connection may have broken after the commit.
    fn insert(&mut self, email: &str) -> StoreResult<Insert>;

    /// Calls `each` on every row not covered by `since` (every row for [`Mark::Start`]),
    /// holding a bounded number of rows in memory at a time, and returns the mark covering
    /// every row read.
    ///
    /// # Errors
    /// A database that is down or failing.
    fn scan_since(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> StoreResult<Mark>;

    /// Whether a mark saved earlier still describes this database: `Some(reason)` when it does
    /// not (a database restored from an older backup, another database, a mark too old to
    /// catch up from), and the gate must rebuild. The default accepts every mark.
    ///
    /// # Errors
    /// A database that is down or failing.
    fn check_mark(&mut self, _mark: Mark) -> StoreResult<Option<String>> {
        Ok(None)
    }

    /// Makes `mark` recognisable later by [`Store::check_mark`] (PostgreSQL writes a random
    /// token), before the mark is saved to a file. The default returns it unchanged.
    ///
    /// # Errors
    /// A database that is down or failing.
    fn seal(&mut self, mark: Mark) -> StoreResult<Mark> {
        Ok(mark)
    }

    /// Addresses registered through other gate instances since the last call, for stores shared
    /// by several application servers (PostgreSQL's LISTEN/NOTIFY). The default has none.
    ///
    /// # Errors
    /// [`StoreErrorKind::FeedLost`] when the feed broke: the caller must stop trusting its
    /// filter's "absent" answers until it catches up.
    fn drain_remote(&mut self, _each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        Ok(())
    }

    /// A handle that drains the same feed as [`Store::drain_remote`] without the store, so that
    /// a [`crate::SharedGate`] keeps learning other instances' rows while this store is busy
    /// (a catch-up, a save). The default: none.
    fn feed_tap(&self) -> Option<FeedTap> {
        None
    }

    /// Restarts a lost feed (a no-op without one).
    ///
    /// # Errors
    /// The database cannot be reached.
    fn restart_feed(&mut self) -> StoreResult<()> {
        Ok(())
    }

    /// Calls `each` with the stored key (under [`crate::Folding::Server`], what the unique
    /// index compares for it) and the age of every row registered within `within` (a store
    /// with a registration-time column; see [`crate::Gate::with_recent`]).
    ///
    /// # Errors
    /// [`StoreErrorKind::Schema`] for a store without one (the default); a failing database.
    fn scan_recent(
        &mut self,
        _within: std::time::Duration,
        _each: &mut dyn FnMut(&str, std::time::Duration),
    ) -> StoreResult<()> {
        Err(no_time_column())
    }

    /// Whether a row matching the (normalised) key was registered within `within`.
    ///
    /// # Errors
    /// As [`Store::scan_recent`].
    fn registered_within(
        &mut self,
        _email: &str,
        _within: std::time::Duration,
    ) -> StoreResult<bool> {
        Err(no_time_column())
    }

    /// What the unique index compares for a row holding `stored` (the [`ScannedRow::matched`]
    /// of such a row), for a row the gate learns of outside a scan (the feed, `observe`) whose
    /// stored form is not the gate's key. The default: `stored` itself (a unique index on the
    /// column).
    ///
    /// # Errors
    /// A database that is down or failing.
    fn matched(&mut self, stored: &str) -> StoreResult<String> {
        Ok(stored.to_owned())
    }

    /// The SQL that stores the row holding `stored` as the gate's `key`, the way the gate looks
    /// it up (for [`crate::GateError::Unnormalised`] and `filterlab gate migrate`).
    fn repair_sql(&self, stored: &str, key: &str) -> String {
        format!("store the row {stored:?} as {key:?}")
    }

    /// How the unique index folds case, which the gate's keys follow (see [`crate::Folding`]).
    /// The default: the index compares the stored key itself ([`crate::Folding::Unicode`]).
    fn folding(&self) -> crate::Folding {
        crate::Folding::Unicode
    }

    /// What the unique index compares for the (trimmed) address `typed`: the server's fold, for
    /// an address that [`Store::folding`]'s table cannot fold. The default: Unicode's lower
    /// case.
    ///
    /// # Errors
    /// A database that is down or failing, or that folds `typed` to a text it folds otherwise
    /// again (no key would then be the index's).
    fn fold(&mut self, typed: &str) -> StoreResult<String> {
        Ok(typed.to_lowercase())
    }

    /// Calls `each(second, first)` for pairs of rows that the unique index tells apart although
    /// the index folds the first's upper case (composed) to the second's key: `i̇lse@…` (an `i`
    /// and a combining dot) beside `ilse@…` under a libc `lower()`, `ας@…` beside `ασ@…`. They
    /// are the second accounts that a gate keyed by Unicode's lower case, not the index's, let
    /// in (`filterlab gate migrate` reports them). The default: none.
    ///
    /// # Errors
    /// A failing database.
    fn fold_pairs(&mut self, _each: &mut dyn FnMut(&str, &str)) -> StoreResult<()> {
        Ok(())
    }

    /// How often a gate on this store reads the rows its mark does not cover, whatever the
    /// feed says: rows that reach the table without the notify trigger (`session_replication_role
    /// = replica`, disabled triggers) are found within this period. The default: never (a
    /// store every writer of which the gate sees).
    fn catch_up_every(&self) -> Option<std::time::Duration> {
        None
    }

    /// How long after a failed [`Store::insert`] the row can still commit on the server (an
    /// INSERT it still runs after the client gave up): a catch-up started later reads it. The
    /// default is zero (an embedded database has ended the statement when the call returns).
    fn settle_time(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}

/// A boxed store is a store (for choosing SQLite or PostgreSQL at run time).
impl<S: Store + ?Sized> Store for Box<S> {
    fn exists(&mut self, email: &str) -> StoreResult<bool> {
        (**self).exists(email)
    }
    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        (**self).insert(email)
    }
    fn scan_since(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> StoreResult<Mark> {
        (**self).scan_since(since, each)
    }
    fn check_mark(&mut self, mark: Mark) -> StoreResult<Option<String>> {
        (**self).check_mark(mark)
    }
    fn seal(&mut self, mark: Mark) -> StoreResult<Mark> {
        (**self).seal(mark)
    }
    fn drain_remote(&mut self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        (**self).drain_remote(each)
    }
    fn restart_feed(&mut self) -> StoreResult<()> {
        (**self).restart_feed()
    }
    fn feed_tap(&self) -> Option<FeedTap> {
        (**self).feed_tap()
    }
    fn settle_time(&self) -> std::time::Duration {
        (**self).settle_time()
    }
    fn matched(&mut self, stored: &str) -> StoreResult<String> {
        (**self).matched(stored)
    }
    fn repair_sql(&self, stored: &str, key: &str) -> String {
        (**self).repair_sql(stored, key)
    }
    fn folding(&self) -> crate::Folding {
        (**self).folding()
    }
    fn fold(&mut self, typed: &str) -> StoreResult<String> {
        (**self).fold(typed)
    }
    fn fold_pairs(&mut self, each: &mut dyn FnMut(&str, &str)) -> StoreResult<()> {
        (**self).fold_pairs(each)
    }
    fn catch_up_every(&self) -> Option<std::time::Duration> {
        (**self).catch_up_every()
    }
    fn scan_recent(
        &mut self,
        within: std::time::Duration,
        each: &mut dyn FnMut(&str, std::time::Duration),
    ) -> StoreResult<()> {
        (**self).scan_recent(within, each)
    }
    fn registered_within(&mut self, email: &str, within: std::time::Duration) -> StoreResult<bool> {
        (**self).registered_within(email, within)
    }
}

/// The drain of a store's feed, apart from the store (see [`Store::feed_tap`]).
type Drain = dyn Fn(&mut dyn FnMut(&str)) -> StoreResult<()> + Send + Sync;

/// A handle on a store's feed of other instances' rows (see [`Store::feed_tap`]).
#[derive(Clone)]
pub struct FeedTap(Arc<Drain>);

impl FeedTap {
    /// A tap that drains with `drain`, which calls its argument on every key received since
    /// the last drain and fails as [`Store::drain_remote`] does.
    pub fn new(
        drain: impl Fn(&mut dyn FnMut(&str)) -> StoreResult<()> + Send + Sync + 'static,
    ) -> Self {
        Self(Arc::new(drain))
    }

    /// Calls `each` on every key received since the last drain (through this tap or the
    /// store).
    ///
    /// # Errors
    /// As [`Store::drain_remote`].
    pub fn drain(&self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        (self.0)(each)
    }
}

impl fmt::Debug for FeedTap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FeedTap")
    }
}

/// `s` as an SQL string literal (quotes doubled; standard-conforming strings).
pub(crate) fn sql_literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

pub(crate) fn no_time_column() -> StoreError {
    StoreError::new(
        StoreErrorKind::Schema,
        "recent",
        "the store has no registration-time column (PostgreSQL: PgOptions::created_column)",
    )
}

/// Checks that `name` is a plain lower-case SQL identifier (it is spliced into statements).
pub(crate) fn check_table_name(name: &str) -> StoreResult<()> {
    let ok = !name.is_empty()
        && name.len() <= 48
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(StoreError::new(
            StoreErrorKind::BadTableName,
            "open",
            format!("{name:?}: use [a-z_][a-z0-9_]*, at most 48 characters"),
        ))
    }
}

#[cfg(test)]
mod tests;
