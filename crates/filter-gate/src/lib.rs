//! A sign-up gate: an approximate-membership filter in front of a users table, so that a sign-up
//! form stops asking the database about addresses it has certainly never seen.
//!
//! ```text
//!   is_taken(email) ── normalise ── filter: absent ──────────────► Available   (no query)
//!                                        └─ maybe ── database ──► Taken
//!                                                          └────► Available   (a false positive,
//!                                                                               counted)
//!   register(email) ── normalise ── INSERT (unique constraint decides) ── commit ── filter.insert
//! ```
//!
//! A Bloom-family filter has no false negatives, so "absent" is a proof and needs no query;
//! "maybe" costs one query, which the database answers exactly. With 95% of checked addresses
//! new and a 1% filter, about `5% + 0.95 × 1% = 5.95%` of checks reach the database.
//!
//! # What keeps it correct
//! * **The unique constraint is the arbiter.** `register` never trusts the filter: the INSERT
//!   decides, so a stale filter can never let a duplicate in.
//! * **Crash safety.** The key goes into the filter only *after* the commit. If the process dies
//!   in between, the row is in the table but not in the filter; at restart the gate streams the
//!   table (or loads its saved filter and catches up from the saved [`Mark`]), so the key is in
//!   the filter again before the first check. A test kills a child process at exactly that
//!   point. On PostgreSQL the mark is a transaction snapshot, not an id: ids are not commit
//!   order (see the `postgres` module).
//! * **An unknown outcome is not a "no".** When the connection breaks during a `register`, the
//!   row may have committed; that key is then checked in the database on every call until the
//!   database shows it or a later `register` settles it. At most [`DEFAULT_UNSETTLED_CAP`] such
//!   keys are kept ([`Gate::with_unsettled_cap`]); beyond that every check goes to the database
//!   until a catch-up has read every row those registrations could have committed.
//! * **A restored database is recognised.** A saved filter carries a token written to the
//!   database when it was saved; a database restored from an older backup lacks it, and
//!   [`Gate::open`] rebuilds ([`Rebuild::Stale`]).
//! * **The key is the index's.** Under a unique index on `lower(col)` or a citext column the
//!   key is the server's `lower()` of the address, in the index's collation ([`Gate::key`],
//!   [`Folding`]): a libc collation folds `İ` to `i` and a final `Σ` to `σ`, a Turkish one `I`
//!   to `ı`, and the gate follows, so two addresses have one key exactly when the index holds
//!   them equal. A non-deterministic collation, whose equality no key can follow, is refused
//!   at connect. Why that and the rest keep every Available true: the `trust` module.
//! * **Rows other code stored otherwise** are normalised when read (scans, the feed,
//!   [`Gate::observe`]). The database is asked the way its unique index compares (`lower(col) =
//!   lower($1)` under a `lower()` index, citext equality on citext, in the column's collation).
//!   A row that index does not find by its key (`Zed.Admin@Example.org` under a unique index
//!   on the column) is held as an alias: checks of its key ask the database for the
//!   stored form, and `register` makes no second account ([`Gate::unnormalised`]; beyond
//!   [`MAX_UNNORMALISED_ROWS`] such rows the gate answers an unconfirmed "maybe" with
//!   [`GateError::Unnormalised`], never Available). [`audit`] and `filterlab gate migrate` find
//!   them and name the SQL that fixes them.
//! * **Several instances.** On PostgreSQL, [`PgStore::connect_with_feed`] listens for the rows
//!   every other instance inserts (LISTEN/NOTIFY from the migration's trigger); the gate drains
//!   that feed before every check. If the feed breaks, every check goes to the database until
//!   the gate has restarted the feed and caught up, which it retries by itself (at most once a
//!   second) or on [`Gate::resync`]. Rows whose INSERT fires no trigger
//!   (`session_replication_role = replica`, a disabled trigger) and, without the feed, every
//!   other writer's rows reach the filter at the periodic catch-up
//!   ([`PgOptions::catch_up_every`], 10 s by default).
//! * **Read-only replicas.** [`Gate::replica`] starts a gate on the filter of a saved snapshot
//!   used read-only (the snapshot's filter starts on a page, so it can be mapped and shared by
//!   every process: `filterlab::gate::open_replica`), with a small [`Layered`] top filter for
//!   the rows added since its mark, read before the first answer. A snapshot whose mark does
//!   not describe the database is refused ([`SnapshotError::Stale`]).
//! * **No guesses.** With the database down, "absent" still answers `Available` (a proof), and
//!   "maybe" is an error ([`GateError::Store`]), never a guess. A failed filter insert (a full
//!   cuckoo table) marks the filter untrusted: every check then goes to the database.
//! * **Self-measured false positives.** See [`Gate::fpr_report`]: the measured rate, its Wilson
//!   interval, the filter's `expected_fpr()` and a warning when the filter is over-filled.
//!
//! ```
//! use filter_classic::ClassicBloom;
//! use filter_gate::{Availability, Gate, Registration, SqliteStore};
//!
//! let store = SqliteStore::open_in_memory("users")?;
//! let filter = ClassicBloom::builder().capacity(10_000).fpr(0.01).build()?;
//! let mut gate = Gate::rebuild(filter, store)?;
//! assert_eq!(gate.is_taken("ann@example.org")?, Availability::Available);
//! assert_eq!(gate.register(" Ann@Example.org ")?, Registration::Registered);
//! assert_eq!(gate.is_taken("ANN@example.org")?, Availability::Taken);
//! assert_eq!(gate.register("ann@example.org")?, Registration::AlreadyTaken);
//! assert!(gate.register("not-an-address").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The builder options [`Gate`] and [`SharedGate`] share, stamped into each from this one body
/// (the way fastbloom stamps its filter types). Each type supplies `unsettled_mut`, the set of
/// keys whose registration outcome is unknown.
macro_rules! gate_options {
    () => {
        /// The false-positive rate above which [`FprReport::over_target`](crate::FprReport::over_target)
        /// warns: the filter's design rate. Without it the gate compares with the filter's
        /// `expected_fpr()` at its current load.
        #[must_use]
        pub fn with_target_fpr(mut self, p: f64) -> Self {
            self.target_fpr = Some(p);
            self
        }

        /// At most `cap` keys whose registration outcome is unknown are tracked (default
        /// [`DEFAULT_UNSETTLED_CAP`](crate::DEFAULT_UNSETTLED_CAP)); beyond that, every check goes
        /// to the database until a catch-up has read every row those registrations could have
        /// committed (see [`Store::settle_time`](crate::Store::settle_time)). The gate retries
        /// that catch-up by itself, at most once a second.
        #[must_use]
        pub fn with_unsettled_cap(mut self, cap: usize) -> Self {
            self.unsettled_mut().set_cap(cap);
            self
        }
    };
}

mod aliases;
mod email;
mod fold;
mod gate;
mod layered;
mod pg_admin;
mod pg_conn;
mod pg_feed;
mod pg_fold;
mod pg_scan;
mod pg_schema;
mod pool;
mod postgres;
mod recent;
mod replica;
#[cfg(feature = "service")]
pub mod service;
mod shared;
pub mod snapshot;
mod sqlite;
mod stats;
mod store;
mod trust;
mod unsettled;

pub use crate::postgres::{KeyMatch, PgOptions, PgStore, DEFAULT_CATCH_UP_EVERY, MIGRATION_SQL};
pub use aliases::{audit, Audit, UnnormalisedRow, MAX_UNNORMALISED_ROWS};
pub use email::{EmailError, Normalizer, MAX_EMAIL_BYTES};
pub use fold::Folding;
pub use gate::Gate;
pub use layered::Layered;
pub use pool::DEFAULT_POOL_SIZE;
pub use recent::{Recency, RecentWindow};
pub use shared::{SharedGate, Stores};
pub use snapshot::SnapshotError;
pub use sqlite::SqliteStore;
pub use stats::{FprReport, GateCounts, ALARM_Z, WILSON_Z};
pub use store::{
    FeedTap, Insert, Mark, RowId, ScannedRow, Store, StoreError, StoreErrorKind, StoreResult,
};
pub use unsettled::DEFAULT_UNSETTLED_CAP;

/// The answer to [`Gate::is_taken`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Availability {
    /// No account has this address.
    Available,
    /// An account has this address.
    Taken,
}

/// How a check was answered (see [`Gate::check`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The filter proved the address absent: no database query.
    FilterAbsent,
    /// The filter said "maybe" and the database confirmed the row.
    ConfirmedTaken,
    /// The filter said "maybe" and the database found nothing: a false positive.
    FalsePositive,
    /// The filter was not trusted for this key (a failed insert, a lost feed, a registration
    /// whose outcome is unknown): the database answered.
    Bypassed(Availability),
}

impl Route {
    /// The answer this route gives.
    pub fn availability(self) -> Availability {
        match self {
            Self::FilterAbsent | Self::FalsePositive => Availability::Available,
            Self::ConfirmedTaken => Availability::Taken,
            Self::Bypassed(a) => a,
        }
    }
}

/// The answer to [`Gate::register`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Registration {
    /// The row was committed.
    Registered,
    /// The unique constraint refused it: the address is taken.
    AlreadyTaken,
}

/// Why [`Gate::open`] rebuilt the filter instead of loading the saved one.
#[derive(Debug)]
pub enum Rebuild {
    /// There was no saved file.
    NoFile,
    /// The file was damaged.
    Damaged(SnapshotError),
    /// The saved filter has another size than the one asked for (a new capacity or rate).
    Resized {
        /// Capacity and bytes of the saved filter.
        saved: (u64, usize),
        /// Capacity and bytes of the filter asked for.
        wanted: (u64, usize),
    },
    /// The saved mark does not describe this database (restored from an older backup, another
    /// database, too old): the store's reason.
    Stale(String),
}

/// How the gate started (see [`Gate::open`]).
#[derive(Debug)]
pub enum Startup {
    /// The saved filter was loaded and `caught_up` rows read since its mark.
    Loaded {
        /// Rows read during the catch-up.
        caught_up: u64,
    },
    /// The filter was rebuilt by streaming `rows` rows of the table.
    Rebuilt {
        /// Rows streamed.
        rows: u64,
        /// Why the saved filter was not used.
        reason: Rebuild,
    },
}

/// Everything that can go wrong in a gate operation.
#[derive(Debug)]
pub enum GateError {
    /// The address is not valid; nothing was stored.
    Invalid(EmailError),
    /// The database is down or failing; the answer is unknown (never guessed).
    Store(StoreError),
    /// The filter could not be built.
    Filter(filter_core::Error),
    /// The saved filter could not be written.
    Snapshot(SnapshotError),
    /// More stored rows than [`MAX_UNNORMALISED_ROWS`] whose normalised key the table's
    /// unique index would not find (see [`Gate::unnormalised`]): a "maybe" the database does not
    /// confirm may be one of those the gate could not hold, so it is refused rather than
    /// answered Available, until the table is fixed and the gate restarted.
    Unnormalised {
        /// How many such rows the gate met.
        rows: u64,
        /// The first one it could not hold, as stored.
        stored: String,
        /// What the unique index compares for it.
        matched: String,
        /// Its normalised key.
        key: String,
        /// The SQL that fixes it (see [`Store::repair_sql`]).
        fix: String,
    },
}

impl std::fmt::Display for GateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid(e) => write!(f, "invalid address: {e}"),
            Self::Store(e) => write!(f, "{e}"),
            Self::Filter(e) => write!(f, "filter: {e}"),
            Self::Snapshot(e) => write!(f, "{e}"),
            Self::Unnormalised {
                rows,
                stored,
                matched,
                key,
                fix,
            } => write!(
                f,
                "{rows} stored rows are not found by their normalised key, more than the \
                 {MAX_UNNORMALISED_ROWS} the gate holds (for example {stored:?}: the unique index \
                 compares {matched:?}, the gate looks up {key:?}); fix them, then restart the \
                 gate: {fix}"
            ),
        }
    }
}

impl std::error::Error for GateError {}

impl From<EmailError> for GateError {
    fn from(e: EmailError) -> Self {
        Self::Invalid(e)
    }
}
impl From<StoreError> for GateError {
    fn from(e: StoreError) -> Self {
        Self::Store(e)
    }
}
impl From<filter_core::Error> for GateError {
    fn from(e: filter_core::Error) -> Self {
        Self::Filter(e)
    }
}
impl From<SnapshotError> for GateError {
    fn from(e: SnapshotError) -> Self {
        Self::Snapshot(e)
    }
}

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
