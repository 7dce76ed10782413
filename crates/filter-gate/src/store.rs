//! The [`Store`] trait: the table of registered addresses, with a unique constraint that is the
//! final arbiter of every registration.

use std::fmt;

/// The id column's type: increasing with insertion, used as the high-water mark.
pub type RowId = i64;

/// The outcome of [`Store::insert`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The row was committed with this id.
    Inserted(RowId),
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

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            StoreErrorKind::Unavailable => "the database is unreachable",
            StoreErrorKind::Query => "the database refused the statement",
            StoreErrorKind::FeedLost => "the feed of other instances' registrations was lost",
            StoreErrorKind::BadTableName => "the table name is not a plain identifier",
        };
        write!(f, "{what} during {}: {}", self.op, self.message)
    }
}

impl std::error::Error for StoreError {}

/// A result of a store operation.
pub type StoreResult<T> = std::result::Result<T, StoreError>;

/// The table of registered, already-normalised addresses.
///
/// Implementations: [`crate::SqliteStore`] and [`crate::PgStore`]. A store must enforce
/// uniqueness itself (a unique index): the gate's filter may be stale, the constraint may not.
pub trait Store {
    /// Whether the address has a row.
    ///
    /// # Errors
    /// A database that is down or failing.
    fn exists(&mut self, email: &str) -> StoreResult<bool>;

    /// Inserts a row, committed when this returns `Ok(Insert::Inserted(_))`.
    ///
    /// # Errors
    /// A database that is down or failing (a duplicate is `Ok(Insert::Duplicate)`, not an error).
    fn insert(&mut self, email: &str) -> StoreResult<Insert>;

    /// Calls `each` on every row with an id above `after`, in id order, holding a bounded number
    /// of rows in memory at a time. Returns the highest id seen (or `after` if none).
    ///
    /// # Errors
    /// A database that is down or failing.
    fn scan_since(&mut self, after: RowId, each: &mut dyn FnMut(&str)) -> StoreResult<RowId>;

    /// Addresses registered through other gate instances since the last call, for stores shared
    /// by several application servers (PostgreSQL's LISTEN/NOTIFY). The default has none.
    ///
    /// # Errors
    /// [`StoreErrorKind::FeedLost`] when the feed broke: the caller must stop trusting its
    /// filter's "absent" answers until it catches up.
    fn drain_remote(&mut self, _each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        Ok(())
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
    fn scan_since(&mut self, after: RowId, each: &mut dyn FnMut(&str)) -> StoreResult<RowId> {
        (**self).scan_since(after, each)
    }
    fn drain_remote(&mut self, each: &mut dyn FnMut(&str)) -> StoreResult<()> {
        (**self).drain_remote(each)
    }
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
mod tests {
    use super::*;

    #[test]
    fn table_names_must_be_plain_identifiers() {
        assert!(check_table_name("users_2").is_ok());
        for bad in ["", "Users", "1users", "users; drop table x", "a\"b"] {
            assert!(check_table_name(bad).is_err(), "{bad:?} must be refused");
        }
    }
}
