//! [`SharedGate`]: one gate for all of a server's threads. Checks and registrations take
//! `&self`; the filter is a lock-free one ([`SharedInsert`]: the atomic classic or split-block
//! Bloom filter), the database is reached through a connection pool (r2d2) of stores, and one
//! more store, behind a lock, holds the feed and runs catch-ups and saves.
//!
//! The feed is drained through the control store's [`FeedTap`], apart from that lock: a save or
//! a catch-up (which hold it for as long as they read the table and write the file) does not
//! hold back other instances' registrations.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use filter_core::concurrent::SharedInsert;
use filter_core::Persist;

use crate::aliases::{self, Aliases};
use crate::gate::{choose, scan_into, Opened};
use crate::pool::Maker;
pub use crate::pool::Stores;
use crate::recent::Recent;
use crate::store::{FeedTap, Insert, ScannedRow};
use crate::trust::Periodic;
use crate::unsettled::{Unsettled, DEFAULT_UNSETTLED_CAP};
use crate::{
    snapshot, Availability, Folding, FprReport, GateCounts, GateError, Mark, Normalizer,
    Registration, Route, Startup, Store, StoreError, StoreErrorKind, StoreResult,
};

/// What the lock guards: the store with the feed, and how far it has read.
struct Control<S> {
    store: S,
    mark: Mark,
    /// The last retry of a lost feed or of a due catch-up.
    last_resync: Option<Instant>,
    /// When the periodic catch-up ([`Store::catch_up_every`]) is due.
    periodic: Periodic,
}

#[derive(Default)]
struct Counters {
    checks: AtomicU64,
    filter_absent: AtomicU64,
    confirmed_taken: AtomicU64,
    false_positives: AtomicU64,
    bypassed: AtomicU64,
}

mod upkeep;

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // The guarded state stays consistent at every step, so a panic elsewhere does not spoil it.
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
    /// How the unique index folds (see [`crate::Gate::key`]).
    pub(crate) folding: Folding,
    pub(crate) unsettled: Mutex<Unsettled>,
    /// Rows the unique index does not find by their key (see the `aliases` module), and
    /// whether there ever were any (read without the lock on every call).
    aliases: Mutex<Aliases>,
    aliased: AtomicBool,
    /// The control store's feed, drained apart from the control lock.
    tap: Option<FeedTap>,
    /// The "registered in the last T" window, when switched on.
    pub(crate) recent: Option<Mutex<Recent>>,
    feed_lost: AtomicBool,
    /// A row learnt outside a scan whose comparison form could not be read (see
    /// [`crate::Gate::filter_trusted`]).
    behind: AtomicBool,
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
            tap: stores.control.feed_tap(),
            folding: stores.control.folding(),
            control: Mutex::new(Control {
                store: stores.control,
                mark,
                last_resync: None,
                periodic: Periodic::default(),
            }),
            normalizer: Normalizer::default(),
            unsettled: Mutex::new(Unsettled::new(DEFAULT_UNSETTLED_CAP)),
            aliases: Mutex::new(Aliases::default()),
            aliased: AtomicBool::new(false),
            recent: None,
            feed_lost: AtomicBool::new(false),
            behind: AtomicBool::new(false),
            counts: Counters::default(),
            target_fpr: None,
        })
    }

    /// Builds the gate by streaming the table into `filter` (empty, sized for the table).
    ///
    /// # Errors
    /// A failing database.
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
        let key = self.key_cow(email)?;
        self.apply_feed();
        let c = &self.counts;
        let unsettled = lock(&self.unsettled).contains(key.as_ref());
        let forms = self.stored_forms(&key);
        if !self.filter_trusted() || unsettled || !forms.is_empty() {
            let taken = self.confirm(&key, &forms)?;
            if taken && unsettled && lock(&self.unsettled).remove(key.as_ref()) {
                self.add(&key);
            }
            if !taken {
                self.refuse_unconfirmed(&key)?;
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
            self.refuse_unconfirmed(&key)?;
            c.false_positives.fetch_add(1, Ordering::Relaxed);
            Route::FalsePositive
        };
        c.checks.fetch_add(1, Ordering::Relaxed);
        Ok(route)
    }

    /// The stored forms `key` stands for (see the `aliases` module); no lock while there are
    /// none.
    pub(crate) fn stored_forms(&self, key: &str) -> Vec<String> {
        if !self.aliased.load(Ordering::Acquire) {
            return Vec::new();
        }
        lock(&self.aliases).stored_forms(key)
    }

    /// Whether a row answers to `key` or to one of the stored forms it stands for.
    fn confirm(&self, key: &str, forms: &[String]) -> StoreResult<bool> {
        let mut store = self.pooled()?;
        let forget = &mut |f: &str| lock(&self.aliases).forget(key, f);
        aliases::confirm(&mut *store, key, forms, forget)
    }

    /// See [`crate::Gate`]'s: beyond the cap of held rows, an unconfirmed "maybe" is an error.
    fn refuse_unconfirmed(&self, key: &str) -> Result<(), GateError> {
        if !self.aliased.load(Ordering::Acquire) || !self.filter.contains(key.as_bytes()) {
            return Ok(());
        }
        let refusal = lock(&self.aliases).refusal(|stored, k| {
            self.pooled()
                .map(|s| s.repair_sql(stored, k))
                .unwrap_or_else(|_| format!("store the row {stored:?} as {k:?}"))
        });
        refusal.map_or(Ok(()), Err)
    }

    /// Learns rows through `f` under the aliases' lock, noting when the first alias appears.
    fn with_aliases<T>(&self, f: impl FnOnce(&mut Aliases) -> T) -> T {
        let mut a = lock(&self.aliases);
        let out = f(&mut a);
        if !a.is_empty() {
            self.aliased.store(true, Ordering::Release);
        }
        out
    }

    /// Learns a committed row whose stored form is not its key, asking `store` what the unique
    /// index compares for it (see [`crate::Gate`]'s `learn_stored`).
    fn learn_stored<T: Store + ?Sized>(&self, store: &mut T, key: &str, stored: &str) {
        lock(&self.unsettled).remove(key);
        match store.matched(stored) {
            Ok(matched) => {
                let row = ScannedRow {
                    stored,
                    matched: &matched,
                };
                self.with_aliases(|a| a.learn(self.normalizer, key, row, &mut |k| self.add(k)));
            }
            // Fallback: the comparison form is unknown; the key goes in, and every check asks
            // the database until a catch-up (which reads that form) has read the row.
            Err(_) => {
                self.add(key);
                self.behind.store(true, Ordering::Release);
            }
        }
    }

    /// Registers an address (see [`crate::Gate::register`]).
    ///
    /// # Errors
    /// As [`crate::Gate::register`].
    pub fn register(&self, email: &str) -> Result<Registration, GateError> {
        let key = self.key_cow(email)?;
        if self.aliased.load(Ordering::Acquire) {
            // The unique index would not refuse a second account for a row it does not find
            // by its key: ask first.
            let forms = self.stored_forms(&key);
            if !forms.is_empty() || lock(&self.aliases).overflowed() {
                if self.confirm(&key, &forms)? {
                    self.settle(&key);
                    return Ok(Registration::AlreadyTaken);
                }
                self.refuse_unconfirmed(&key)?;
            }
        }
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

    /// Tells the gate that the caller's own SQL committed a row with this address, as stored
    /// (see [`crate::Gate::observe`]).
    ///
    /// # Errors
    /// [`GateError::Invalid`].
    pub fn observe(&self, email: &str) -> Result<(), GateError> {
        let key = match self.key_cow(email) {
            Ok(key) => key,
            // Fallback: as `Gate::observe`'s: the key is unknown, a catch-up reads the row.
            Err(GateError::Store(_)) => {
                self.behind.store(true, Ordering::Release);
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if key == email {
            self.settle(&key);
            return Ok(());
        }
        // Fallback without a store: whether the row is stored as given is unknown; its key
        // goes in, and every check asks the database until a catch-up has read the row.
        let Ok(mut store) = self.pooled() else {
            self.settle(&key);
            self.behind.store(true, Ordering::Release);
            return Ok(());
        };
        match store.exists(email) {
            Ok(true) => self.learn_stored(&mut *store, &key, email),
            Ok(false) => self.settle(&key),
            // Fallback: whether the row is stored as given is unknown; its key goes in, and
            // every check asks the database until a catch-up has read the row.
            Err(_) => {
                self.settle(&key);
                self.behind.store(true, Ordering::Release);
            }
        }
        Ok(())
    }

    /// Tells the gate that the caller's own SQL may have committed a row with this address
    /// (see [`crate::Gate::may_have_committed`]).
    ///
    /// # Errors
    /// [`GateError::Invalid`].
    pub fn may_have_committed(&self, email: &str) -> Result<(), GateError> {
        match self.key_cow(email) {
            Ok(key) => lock(&self.unsettled).add(&key),
            // Fallback: as `Gate::may_have_committed`'s.
            Err(GateError::Store(_)) => lock(&self.unsettled).add_unknown(),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The normalisation the gate applies (see [`crate::Gate::normalizer`]).
    pub fn normalizer(&self) -> Normalizer {
        self.normalizer
    }

    /// The key of `email` (see [`crate::Gate::key`]): what the gate looks up and stores.
    ///
    /// # Errors
    /// As [`crate::Gate::key`].
    pub fn key(&self, email: &str) -> Result<String, GateError> {
        self.key_cow(email).map(std::borrow::Cow::into_owned)
    }

    pub(crate) fn key_cow<'a>(
        &self,
        email: &'a str,
    ) -> Result<std::borrow::Cow<'a, str>, GateError> {
        self.folding
            .key(self.normalizer, email, |typed| self.pooled()?.fold(typed))
    }

    /// Rows held as aliases (see [`crate::Gate::unnormalised`]).
    pub fn unnormalised(&self) -> usize {
        lock(&self.aliases).len()
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
        let started = Instant::now();
        // A row learnt without its form before now is read by this catch-up; one learnt while
        // it runs sets the flag again and waits for the next.
        let was_behind = self.behind.swap(false, Ordering::AcqRel);
        let caught = self.catch_up_scan(c);
        match &caught {
            Ok(_) => c.periodic.done(started),
            Err(_) if was_behind => self.behind.store(true, Ordering::Release),
            Err(_) => {}
        }
        caught
    }

    fn catch_up_scan(&self, c: &mut Control<S>) -> Result<u64, GateError> {
        let before = lock(&self.unsettled).before();
        let normalizer = self.normalizer;
        let keys = (normalizer, &self.folding);
        let (mark, rows) = scan_into(&mut c.store, c.mark, keys, &mut |key, row| {
            lock(&self.unsettled).remove(key);
            if key == row.matched {
                self.add(key);
            } else {
                self.with_aliases(|a| a.learn(normalizer, key, row, &mut |k| self.add(k)));
            }
        })?;
        c.mark = mark;
        let settle = c.store.settle_time();
        lock(&self.unsettled).caught_up(before, settle);
        Ok(rows)
    }

    /// Runs `f` on the control store (the one that scans), under its lock.
    pub(crate) fn with_control<T>(&self, f: impl FnOnce(&mut S) -> T) -> T {
        f(&mut lock(&self.control).store)
    }

    /// Whether the filter's "absent" answers are trusted (see [`crate::Gate::filter_trusted`]).
    pub fn filter_trusted(&self) -> bool {
        !self.feed_lost.load(Ordering::Acquire)
            && !self.behind.load(Ordering::Acquire)
            && !lock(&self.unsettled).overflowed()
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
