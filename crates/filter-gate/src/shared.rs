//! [`SharedGate`]: one gate for all of a server's threads. Checks and registrations take
//! `&self`; the filter is a lock-free one ([`SharedInsert`]: the atomic classic or split-block
//! Bloom filter), the database is reached through a connection pool (r2d2) of stores, and one
//! more store, behind a lock, holds the feed and runs catch-ups and saves.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use filter_core::concurrent::SharedInsert;
use filter_core::Persist;

use crate::gate::{choose, scan_into, Opened};
use crate::recent::Recent;
use crate::store::Insert;
use crate::unsettled::{Unsettled, DEFAULT_UNSETTLED_CAP};
use crate::{
    snapshot, Availability, FprReport, GateCounts, GateError, Mark, Normalizer, Registration,
    Route, Startup, Store, StoreError, StoreErrorKind, StoreResult,
};

/// How often a lost feed is retried.
const RESYNC_EVERY: Duration = Duration::from_secs(1);

/// Makes the pool's stores (r2d2's connection manager).
pub(crate) struct Maker<S> {
    make: Box<dyn Fn() -> StoreResult<S> + Send + Sync>,
}

impl<S: Store + Send + 'static> r2d2::ManageConnection for Maker<S> {
    type Connection = S;
    type Error = StoreError;

    fn connect(&self) -> StoreResult<S> {
        (self.make)()
    }
    // A store reconnects by itself after a lost connection, so a pooled one stays usable.
    fn is_valid(&self, _store: &mut S) -> StoreResult<()> {
        Ok(())
    }
    fn has_broken(&self, _store: &mut S) -> bool {
        false
    }
}

/// What the lock guards: the store with the feed, and how far it has read.
struct Control<S> {
    store: S,
    mark: Mark,
    last_resync: Option<Instant>,
}

#[derive(Default)]
struct Counters {
    checks: AtomicU64,
    filter_absent: AtomicU64,
    confirmed_taken: AtomicU64,
    false_positives: AtomicU64,
    bypassed: AtomicU64,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded state stays consistent at every step, so a panic elsewhere does not spoil it.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How a [`SharedGate`] reaches the database.
pub struct Stores<S> {
    /// The store that listens (for PostgreSQL, `PgStore::connect_with_feed`) and scans.
    pub control: S,
    /// Makes a store for the pool (for PostgreSQL, `PgStore::connect`, without the feed).
    pub make: Box<dyn Fn() -> StoreResult<S> + Send + Sync>,
    /// Stores in the pool: the most checks and registrations that reach the database at once.
    pub pool_size: u32,
    /// How long a call waits for a free store before it fails as unavailable.
    pub checkout_timeout: Duration,
}

/// One gate shared by a server's threads, with the same rules as [`crate::Gate`]. Checks and
/// registrations take `&self`; the filter is a lock-free one ([`SharedInsert`]: the atomic
/// classic or split-block Bloom filter), the database is reached through a pool (r2d2) of
/// stores, and one more store, behind a lock, holds the feed and runs catch-ups and saves.
pub struct SharedGate<F: SharedInsert, S: Store + Send + 'static> {
    filter: F,
    pool: r2d2::Pool<Maker<S>>,
    control: Mutex<Control<S>>,
    pub(crate) normalizer: Normalizer,
    pub(crate) unsettled: Mutex<Unsettled>,
    /// The "registered in the last T" window, when switched on.
    pub(crate) recent: Option<Mutex<Recent>>,
    feed_lost: AtomicBool,
    counts: Counters,
    target_fpr: Option<f64>,
}

impl<F: SharedInsert, S: Store + Send + 'static> std::fmt::Debug for SharedGate<F, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedGate")
            .field("filter", &self.filter.name())
            .field("pool", &self.pool.state().connections)
            .finish_non_exhaustive()
    }
}

impl<F: SharedInsert, S: Store + Send + 'static> SharedGate<F, S> {
    fn new(filter: F, stores: Stores<S>, mark: Mark) -> Result<Self, GateError> {
        let pool = r2d2::Pool::builder()
            .max_size(stores.pool_size.max(1))
            .min_idle(Some(1))
            .connection_timeout(stores.checkout_timeout)
            .build(Maker { make: stores.make })
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "pool", e))?;
        Ok(Self {
            filter,
            pool,
            control: Mutex::new(Control {
                store: stores.control,
                mark,
                last_resync: None,
            }),
            normalizer: Normalizer::default(),
            unsettled: Mutex::new(Unsettled::new(DEFAULT_UNSETTLED_CAP)),
            recent: None,
            feed_lost: AtomicBool::new(false),
            counts: Counters::default(),
            target_fpr: None,
        })
    }

    /// Builds the gate by streaming the table into `filter` (empty, sized for the table).
    ///
    /// # Errors
    /// A failing database; [`GateError::Unnormalised`] rows.
    pub fn rebuild(filter: F, stores: Stores<S>) -> Result<Self, GateError> {
        let gate = Self::new(filter, stores, Mark::Start)?;
        gate.catch_up()?;
        Ok(gate)
    }

    gate_options!();

    /// The set of keys whose registration outcome is unknown (no lock: the gate is owned).
    fn unsettled_mut(&mut self) -> &mut Unsettled {
        self.unsettled
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn pooled(&self) -> StoreResult<r2d2::PooledConnection<Maker<S>>> {
        self.pool
            .get()
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, "pool", e))
    }

    /// Whether an account has this address.
    ///
    /// # Errors
    /// As [`crate::Gate::is_taken`].
    pub fn is_taken(&self, email: &str) -> Result<Availability, GateError> {
        self.check(email).map(Route::availability)
    }

    /// [`SharedGate::is_taken`], also saying how the answer was reached.
    ///
    /// # Errors
    /// As [`crate::Gate::is_taken`].
    pub fn check(&self, email: &str) -> Result<Route, GateError> {
        let key = self.normalizer.normalize_cow(email)?;
        self.apply_feed();
        let c = &self.counts;
        let unsettled = lock(&self.unsettled).contains(key.as_ref());
        if !self.filter_trusted() || unsettled {
            let taken = self.pooled()?.exists(&key)?;
            if taken && unsettled && lock(&self.unsettled).remove(key.as_ref()) {
                self.add(&key);
            }
            c.bypassed.fetch_add(1, Ordering::Relaxed);
            c.checks.fetch_add(1, Ordering::Relaxed);
            return Ok(Route::Bypassed(if taken {
                Availability::Taken
            } else {
                Availability::Available
            }));
        }
        let route = if !self.filter.contains(key.as_bytes()) {
            c.filter_absent.fetch_add(1, Ordering::Relaxed);
            Route::FilterAbsent
        } else if self.pooled()?.exists(&key)? {
            c.confirmed_taken.fetch_add(1, Ordering::Relaxed);
            Route::ConfirmedTaken
        } else {
            c.false_positives.fetch_add(1, Ordering::Relaxed);
            Route::FalsePositive
        };
        c.checks.fetch_add(1, Ordering::Relaxed);
        Ok(route)
    }

    /// Registers an address (see [`crate::Gate::register`]).
    ///
    /// # Errors
    /// As [`crate::Gate::register`].
    pub fn register(&self, email: &str) -> Result<Registration, GateError> {
        let key = self.normalizer.normalize_cow(email)?;
        let inserted = self.pooled().and_then(|mut s| s.insert(&key));
        match inserted {
            Ok(insert) => {
                self.settle(&key);
                Ok(match insert {
                    Insert::Inserted => Registration::Registered,
                    Insert::Duplicate => Registration::AlreadyTaken,
                })
            }
            Err(e) => {
                // A pool that hands out no store never reached the database.
                if e.outcome_unknown() && e.op != "pool" {
                    lock(&self.unsettled).add(&key);
                }
                Err(e.into())
            }
        }
    }

    /// Tells the gate that the caller's own SQL committed a row with this address (see
    /// [`crate::Gate::observe`]).
    ///
    /// # Errors
    /// [`GateError::Invalid`].
    pub fn observe(&self, email: &str) -> Result<(), GateError> {
        let key = self.normalizer.normalize_cow(email)?;
        self.settle(&key);
        Ok(())
    }

    fn settle(&self, key: &str) {
        lock(&self.unsettled).remove(key);
        self.add(key);
    }

    fn add(&self, key: &str) {
        self.filter.insert_shared(key.as_bytes());
        if let Some(r) = &self.recent {
            lock(r).note(key);
        }
    }

    /// Reads what the mark does not cover into the filter; returns the rows read.
    ///
    /// # Errors
    /// As [`crate::Gate::catch_up`].
    pub fn catch_up(&self) -> Result<u64, GateError> {
        let mut c = lock(&self.control);
        self.catch_up_locked(&mut c)
    }

    fn catch_up_locked(&self, c: &mut Control<S>) -> Result<u64, GateError> {
        let before = lock(&self.unsettled).before();
        let (mark, rows) = scan_into(&mut c.store, c.mark, self.normalizer, &mut |key| {
            self.settle(key);
        })?;
        c.mark = mark;
        let settle = c.store.settle_time();
        lock(&self.unsettled).caught_up(before, settle);
        Ok(rows)
    }

    /// Drains the feed, or retries a lost one. A thread that finds another one doing it goes
    /// on: a key committed elsewhere is at most as late as the feed itself is.
    /// Runs `f` on the control store (the one that scans), under its lock.
    pub(crate) fn with_control<T>(&self, f: impl FnOnce(&mut S) -> T) -> T {
        f(&mut lock(&self.control).store)
    }

    pub(crate) fn apply_feed(&self) {
        let Ok(mut c) = self.control.try_lock() else {
            return;
        };
        let due = c.last_resync.is_none_or(|t| t.elapsed() >= RESYNC_EVERY);
        if self.feed_lost.load(Ordering::Acquire) {
            if due {
                c.last_resync = Some(Instant::now());
                if c.store.restart_feed().is_ok() && self.catch_up_locked(&mut c).is_ok() {
                    self.feed_lost.store(false, Ordering::Release);
                }
            }
            return;
        }
        if due && lock(&self.unsettled).due(c.store.settle_time()) {
            c.last_resync = Some(Instant::now());
            let _ = self.catch_up_locked(&mut c);
        }
        let normalizer = self.normalizer;
        let fed = c.store.drain_remote(&mut |raw| {
            if let Ok(key) = normalizer.normalize_cow(raw) {
                self.add(&key);
            }
        });
        if fed.is_err() {
            self.feed_lost.store(true, Ordering::Release);
        }
    }

    /// Whether the filter's "absent" answers are trusted (false while the feed is lost, or
    /// after more unknown registrations than the cap allows).
    pub fn filter_trusted(&self) -> bool {
        !self.feed_lost.load(Ordering::Acquire) && !lock(&self.unsettled).overflowed()
    }

    /// Keys whose registration outcome is unknown.
    pub fn unsettled(&self) -> usize {
        lock(&self.unsettled).len()
    }

    /// The counters.
    pub fn counts(&self) -> GateCounts {
        let c = &self.counts;
        GateCounts {
            checks: c.checks.load(Ordering::Relaxed),
            filter_absent: c.filter_absent.load(Ordering::Relaxed),
            confirmed_taken: c.confirmed_taken.load(Ordering::Relaxed),
            false_positives: c.false_positives.load(Ordering::Relaxed),
            bypassed: c.bypassed.load(Ordering::Relaxed),
        }
    }

    /// The measured false-positive rate beside the filter's prediction.
    pub fn fpr_report(&self) -> FprReport {
        let expected = self.filter.expected_fpr();
        FprReport::new(
            &self.counts(),
            expected,
            self.target_fpr.unwrap_or(expected),
        )
    }

    /// The filter.
    pub fn filter(&self) -> &F {
        &self.filter
    }
}

impl<F: SharedInsert + Persist, S: Store + Send + 'static> SharedGate<F, S> {
    /// Catches up and saves (see [`crate::Gate::save`]); checks go on meanwhile.
    ///
    /// # Errors
    /// As [`crate::Gate::save`].
    pub fn save(&self, path: &Path) -> Result<(), GateError> {
        let mut c = lock(&self.control);
        self.catch_up_locked(&mut c)?;
        let mark = c.mark;
        let sealed = c.store.seal(mark)?;
        c.mark = sealed;
        snapshot::save(&self.filter, sealed, path)?;
        Ok(())
    }

    /// Starts from the saved filter or rebuilds (see [`crate::Gate::open`]).
    ///
    /// # Errors
    /// As [`crate::Gate::open`].
    pub fn open(
        path: &Path,
        mut stores: Stores<S>,
        fresh: impl FnOnce() -> filter_core::Result<F>,
    ) -> Result<(Self, Startup), GateError> {
        match choose(path, &mut stores.control, fresh()?)? {
            Opened::Load(filter, mark) => {
                let gate = Self::new(filter, stores, mark)?;
                let caught_up = gate.catch_up()?;
                Ok((gate, Startup::Loaded { caught_up }))
            }
            Opened::Rebuild(fresh, reason) => {
                let gate = Self::new(fresh, stores, Mark::Start)?;
                let rows = gate.catch_up()?;
                Ok((gate, Startup::Rebuilt { rows, reason }))
            }
        }
    }
}
