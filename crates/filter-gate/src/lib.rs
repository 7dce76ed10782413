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
//!   table (or loads its saved filter and catches up on the rows above the saved high-water mark),
//!   so the key is in the filter again before the first check. A test kills a child process at
//!   exactly that point.
//! * **Several instances.** On PostgreSQL, [`PgStore::connect_with_feed`] listens for the rows
//!   every other instance inserts (LISTEN/NOTIFY from a trigger); the gate drains that feed
//!   before every check. If the feed breaks, every check goes to the database until
//!   [`Gate::resync`] succeeds.
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
//! assert!(matches!(gate.register(" Ann@Example.org ")?, Registration::Registered(_)));
//! assert_eq!(gate.is_taken("ANN@example.org")?, Availability::Taken);
//! assert_eq!(gate.register("ann@example.org")?, Registration::AlreadyTaken);
//! assert!(gate.register("not-an-address").is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod email;
mod postgres;
pub mod snapshot;
mod sqlite;
mod stats;
mod store;

use std::path::Path;

use filter_core::{Filter, Persist};

pub use crate::postgres::PgStore;
pub use email::{EmailError, Normalizer, MAX_EMAIL_BYTES};
pub use snapshot::SnapshotError;
pub use sqlite::SqliteStore;
pub use stats::{FprReport, GateCounts, WILSON_Z};
pub use store::{Insert, RowId, Store, StoreError, StoreErrorKind, StoreResult};

/// Ids below the high-water mark that a catch-up reads again. Ids are handed out at INSERT time
/// but rows commit in their own order, so a row can become visible after a scan already passed
/// its id; re-reading the last ids covers transactions that commit that late. (On PostgreSQL
/// with the feed on, the feed covers every committed row regardless.)
pub const CATCHUP_OVERLAP: RowId = 4096;

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
    /// The filter was not trusted (a failed insert, a lost feed): the database answered.
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
    /// The row was committed with this id.
    Registered(RowId),
    /// The unique constraint refused it: the address is taken.
    AlreadyTaken,
}

/// How the gate started (see [`Gate::open`]).
#[derive(Debug)]
pub enum Startup {
    /// The saved filter was loaded and `caught_up` rows read since its high-water mark.
    Loaded {
        /// Rows read during the catch-up (including the overlap window).
        caught_up: u64,
    },
    /// The filter was rebuilt by streaming `rows` rows of the table.
    Rebuilt {
        /// Rows streamed.
        rows: u64,
        /// Why the saved filter was not used (`None`: there was no file).
        damaged: Option<SnapshotError>,
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
}

impl std::fmt::Display for GateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Invalid(e) => write!(f, "invalid address: {e}"),
            Self::Store(e) => write!(f, "{e}"),
            Self::Filter(e) => write!(f, "filter: {e}"),
            Self::Snapshot(e) => write!(f, "{e}"),
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

/// A filter `F` in front of a store `S` (see the [crate docs](crate)).
#[derive(Debug)]
pub struct Gate<F: Filter, S: Store> {
    filter: F,
    store: S,
    normalizer: Normalizer,
    counts: GateCounts,
    target_fpr: Option<f64>,
    high_water: RowId,
    insert_failed: bool,
    feed_lost: bool,
}

impl<F: Filter, S: Store> Gate<F, S> {
    /// Builds the gate by streaming every row of the table into `filter` (bounded memory: the
    /// store hands over one row at a time). `filter` should be empty and sized for the table.
    ///
    /// # Errors
    /// A failing database.
    pub fn rebuild(filter: F, store: S) -> Result<Self, GateError> {
        let mut gate = Self::empty(filter, store);
        gate.catch_up()?;
        Ok(gate)
    }

    fn empty(filter: F, store: S) -> Self {
        Self {
            filter,
            store,
            normalizer: Normalizer::default(),
            counts: GateCounts::default(),
            target_fpr: None,
            high_water: 0,
            insert_failed: false,
            feed_lost: false,
        }
    }

    /// Uses `normalizer` instead of the default (trim, lower case).
    #[must_use]
    pub fn with_normalizer(mut self, normalizer: Normalizer) -> Self {
        self.normalizer = normalizer;
        self
    }

    /// The false-positive rate above which [`FprReport::over_target`] warns: the filter's design
    /// rate. Without it the gate compares with the filter's `expected_fpr()` at its current load.
    #[must_use]
    pub fn with_target_fpr(mut self, p: f64) -> Self {
        self.target_fpr = Some(p);
        self
    }

    /// Whether an account has this address.
    ///
    /// # Errors
    /// [`GateError::Invalid`] for a bad address; [`GateError::Store`] when the filter says
    /// "maybe" (or cannot be trusted) and the database cannot answer.
    pub fn is_taken(&mut self, email: &str) -> Result<Availability, GateError> {
        self.check(email).map(Route::availability)
    }

    /// [`Gate::is_taken`], also saying how the answer was reached.
    ///
    /// # Errors
    /// As [`Gate::is_taken`].
    pub fn check(&mut self, email: &str) -> Result<Route, GateError> {
        let key = self.normalizer.normalize_cow(email)?;
        self.apply_feed();
        if !self.filter_trusted() {
            let taken = self.store.exists(&key)?;
            self.counts.checks += 1;
            self.counts.bypassed += 1;
            return Ok(Route::Bypassed(if taken {
                Availability::Taken
            } else {
                Availability::Available
            }));
        }
        let route = if !self.filter.contains(key.as_bytes()) {
            self.counts.filter_absent += 1;
            Route::FilterAbsent
        } else if self.store.exists(&key)? {
            self.counts.confirmed_taken += 1;
            Route::ConfirmedTaken
        } else {
            self.counts.false_positives += 1;
            Route::FalsePositive
        };
        self.counts.checks += 1;
        Ok(route)
    }

    /// Registers an address: the INSERT (and its unique constraint) decides; the key goes into
    /// the filter after the commit.
    ///
    /// # Errors
    /// [`GateError::Invalid`] (nothing stored); [`GateError::Store`] (nothing committed, unless
    /// the connection broke during the commit itself: the next check asks the database).
    pub fn register(&mut self, email: &str) -> Result<Registration, GateError> {
        self.register_observed(email, |_| {})
    }

    /// [`Gate::register`], calling `after_commit` with the new row's id between the commit and
    /// the filter insert (an audit hook, and the point the crash-safety test kills a process).
    ///
    /// # Errors
    /// As [`Gate::register`].
    pub fn register_observed(
        &mut self,
        email: &str,
        after_commit: impl FnOnce(RowId),
    ) -> Result<Registration, GateError> {
        let key = self.normalizer.normalize_cow(email)?;
        match self.store.insert(&key)? {
            Insert::Duplicate => {
                // The filter may be stale (another instance registered it): learn it now.
                self.add(&key);
                Ok(Registration::AlreadyTaken)
            }
            Insert::Inserted(id) => {
                after_commit(id);
                self.add(&key);
                Ok(Registration::Registered(id))
            }
        }
    }

    /// Reads the rows above the high-water mark (minus [`CATCHUP_OVERLAP`]) into the filter;
    /// returns how many rows were read.
    ///
    /// # Errors
    /// A failing database.
    pub fn catch_up(&mut self) -> Result<u64, GateError> {
        let from = (self.high_water - CATCHUP_OVERLAP).max(0);
        let mut rows = 0u64;
        let (filter, failed) = (&mut self.filter, &mut self.insert_failed);
        let high = self.store.scan_since(from, &mut |e| {
            rows += 1;
            add_to(filter, failed, e);
        })?;
        self.high_water = self.high_water.max(high);
        Ok(rows)
    }

    /// After a lost feed ([`StoreErrorKind::FeedLost`]): restarts it and catches up, after which
    /// the filter answers again. Returns the rows read.
    ///
    /// # Errors
    /// A failing database; the gate keeps sending every check to the database.
    pub fn resync(&mut self) -> Result<u64, GateError>
    where
        S: Resync,
    {
        self.store.restart_feed()?;
        let rows = self.catch_up()?;
        self.feed_lost = false;
        Ok(rows)
    }

    /// Whether the filter's "absent" answers are trusted: false after a failed filter insert or
    /// a lost feed, when every check goes to the database.
    pub fn filter_trusted(&self) -> bool {
        !self.insert_failed && !self.feed_lost
    }

    /// The counters.
    pub fn counts(&self) -> GateCounts {
        self.counts
    }

    /// The measured false-positive rate, its interval, the filter's prediction and the target.
    pub fn fpr_report(&self) -> FprReport {
        let expected = self.filter.expected_fpr();
        FprReport::new(&self.counts, expected, self.target_fpr.unwrap_or(expected))
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        &self.filter
    }

    /// The store.
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// The highest row id the filter is known to contain every row up to.
    pub fn high_water(&self) -> RowId {
        self.high_water
    }

    fn add(&mut self, key: &str) {
        add_to(&mut self.filter, &mut self.insert_failed, key);
    }

    fn apply_feed(&mut self) {
        let (filter, failed) = (&mut self.filter, &mut self.insert_failed);
        if self
            .store
            .drain_remote(&mut |e| add_to(filter, failed, e))
            .is_err()
        {
            self.feed_lost = true;
        }
    }
}

/// Inserts `key` unless the filter already answers "maybe" for it, so that replays (catch-up
/// overlap, the feed echoing our own inserts) do not fill counting or cuckoo tables.
/// (Switch to `insert_if_absent` once filter-core has it.)
fn add_to<F: Filter>(filter: &mut F, failed: &mut bool, key: &str) {
    if !filter.contains(key.as_bytes()) && filter.insert(key.as_bytes()).is_err() {
        *failed = true;
    }
}

/// Stores whose cross-instance feed can be restarted ([`Gate::resync`]).
pub trait Resync: Store {
    /// Restarts the feed.
    ///
    /// # Errors
    /// The database cannot be reached.
    fn restart_feed(&mut self) -> StoreResult<()>;
}

impl Resync for PgStore {
    fn restart_feed(&mut self) -> StoreResult<()> {
        PgStore::restart_feed(self)
    }
}

impl Resync for SqliteStore {
    fn restart_feed(&mut self) -> StoreResult<()> {
        Ok(())
    }
}

impl<F: Filter + Persist, S: Store> Gate<F, S> {
    /// Saves the filter and its high-water mark atomically (see [`snapshot`]).
    ///
    /// # Errors
    /// I/O errors; the previous file is then unchanged.
    pub fn save(&self, path: &Path) -> Result<(), GateError> {
        snapshot::save(&self.filter, self.high_water, path)?;
        Ok(())
    }

    /// Starts a gate: loads the saved filter at `path` and catches up on the rows added since,
    /// or, when the file is missing or damaged, rebuilds from the table into `fresh()`.
    ///
    /// # Errors
    /// A failing database, or `fresh` failing.
    pub fn open(
        path: &Path,
        store: S,
        fresh: impl FnOnce() -> filter_core::Result<F>,
    ) -> Result<(Self, Startup), GateError> {
        let damaged = match snapshot::load::<F>(path) {
            Ok((filter, high_water)) => {
                let mut gate = Self::empty(filter, store);
                gate.high_water = high_water;
                let caught_up = gate.catch_up()?;
                return Ok((gate, Startup::Loaded { caught_up }));
            }
            Err(SnapshotError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => Some(e),
        };
        let mut gate = Self::empty(fresh()?, store);
        let rows = gate.catch_up()?;
        Ok((gate, Startup::Rebuilt { rows, damaged }))
    }
}
