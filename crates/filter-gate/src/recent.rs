//! The gate's optional "registered in the last T" mode: a time-window filter
//! ([`filter_window::TimeWindow`], time-partitioned slices) in front of the store's
//! registration-time column.
//!
//! ```text
//!   registered_within(email) ── normalise ── window: absent ─────────► NotRecent  (no query)
//!                                                 └─ maybe ── database ──► Recent / NotRecent
//! ```
//!
//! The window filter holds every key registered in the last `T` that the gate knows of: the
//! rows the store reports younger than `T` when the mode is switched on
//! ([`Store::scan_recent`]), then every key the gate settles (its own registrations,
//! [`Gate::observe`], the feed, catch-ups), filed at the time the gate learns it, which is never
//! earlier than the row's own time: a key may stay longer than `T`, never shorter. So "absent"
//! is a proof, as in the main filter, and "maybe" is confirmed by the store
//! ([`Store::registered_within`]). While the main filter is not trusted (a lost feed, an
//! unknown registration) the database answers.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use filter_core::concurrent::SharedInsert;
use filter_core::Filter;
use filter_window::{InstantClock, TimeWindow};

use crate::shared::lock;
use crate::{Gate, GateError, SharedGate, Store, StoreError, StoreErrorKind};

/// How [`Gate::with_recent`] sizes its window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecentWindow {
    /// `T`: the question is "registered within the last `T`" (at least 7 ms).
    pub within: Duration,
    /// The most registrations in any `T` at the target rate.
    pub registrations: u64,
    /// The window filter's false-positive rate.
    pub fpr: f64,
}

/// The answer to [`Gate::registered_within`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recency {
    /// An account with this address was registered within the window.
    Recent,
    /// No account with this address was registered within the window.
    NotRecent,
}

/// The window filter and its clock (milliseconds).
#[derive(Debug)]
pub(crate) struct Recent {
    filter: TimeWindow,
    clock: InstantClock,
    within: Duration,
    /// A failed insert: the window filter's "absent" is no proof any more.
    failed: bool,
}

impl Recent {
    fn new(w: &RecentWindow) -> filter_core::Result<Self> {
        let ms = u64::try_from(w.within.as_millis()).unwrap_or(u64::MAX);
        let filter = TimeWindow::builder()
            .window(ms)
            .items_per_window(w.registrations)
            .fpr(w.fpr)
            .build()?;
        // The origin lies a window back, so that a row's age up to `T` maps to a tick.
        let now = Instant::now();
        let origin = now.checked_sub(w.within).unwrap_or(now);
        Ok(Self {
            filter,
            clock: InstantClock::with_origin(origin, Duration::from_millis(1))?,
            within: w.within,
            failed: false,
        })
    }

    /// Files `key` as registered `age` ago.
    fn note_aged(&mut self, key: &str, age: Duration) {
        let now = Instant::now();
        let at = self.clock.at(now.checked_sub(age).unwrap_or(now));
        if self.filter.insert_at(key.as_bytes(), at).is_err() {
            self.failed = true;
        }
    }

    /// Files `key` as registered now.
    pub(crate) fn note(&mut self, key: &str) {
        self.note_aged(key, Duration::ZERO);
    }

    fn maybe(&self, key: &str) -> bool {
        self.failed || self.filter.contains_at(key.as_bytes(), self.clock.now())
    }
}

impl<F: Filter, S: Store> Gate<F, S> {
    /// Switches on the "registered in the last `T`" mode ([`Gate::registered_within`]): reads
    /// the rows younger than `window.within` into a time-window filter. The store needs a
    /// registration-time column (PostgreSQL: [`crate::PgOptions::created_column`]).
    ///
    /// # Errors
    /// A window the filter cannot be built for; a store without a registration-time column
    /// ([`StoreErrorKind::Schema`]); a failing database.
    pub fn with_recent(mut self, window: RecentWindow) -> Result<Self, GateError> {
        let mut recent = Recent::new(&window)?;
        let (normalizer, folding) = (self.normalizer, &self.folding);
        self.store.scan_recent(window.within, &mut |stored, age| {
            if let Some(key) = folding.folded_key(normalizer, stored) {
                recent.note_aged(&key, age);
            }
        })?;
        self.recent = Some(recent);
        Ok(self)
    }

    /// Whether an account with this address was registered within the window of
    /// [`Gate::with_recent`]; "absent" in the window filter needs no query.
    ///
    /// # Errors
    /// [`GateError::Invalid`]; [`StoreErrorKind::Schema`] when the mode is off; a failing
    /// database when the window filter says "maybe" (or is not trusted).
    pub fn registered_within(&mut self, email: &str) -> Result<Recency, GateError> {
        let key = self.key_cow(email)?;
        self.apply_feed();
        let trusted = self.filter_trusted() && !self.unsettled.contains(&key);
        let recent = self.recent.as_ref().ok_or_else(mode_off)?;
        if trusted && !recent.maybe(&key) {
            return Ok(Recency::NotRecent);
        }
        let within = recent.within;
        // A row stored in a form its index does not find by the key is asked for as stored.
        let mut found = self.store.registered_within(&key, within)?;
        for stored in self.aliases.stored_forms(&key) {
            found = found || self.store.registered_within(&stored, within)?;
        }
        Ok(recency(found))
    }
}

fn mode_off() -> StoreError {
    let why = "the recent mode is off: call with_recent first";
    StoreError::new(StoreErrorKind::Schema, "recent", why)
}

fn recency(recent: bool) -> Recency {
    if recent {
        Recency::Recent
    } else {
        Recency::NotRecent
    }
}

impl<F: SharedInsert, S: Store + Send + 'static> SharedGate<F, S> {
    /// [`Gate::with_recent`] for the shared gate.
    ///
    /// # Errors
    /// As [`Gate::with_recent`].
    pub fn with_recent(mut self, window: RecentWindow) -> Result<Self, GateError> {
        let mut recent = Recent::new(&window)?;
        let (normalizer, folding) = (self.normalizer, self.folding.clone());
        self.with_control(|store| {
            store.scan_recent(window.within, &mut |stored, age| {
                if let Some(key) = folding.folded_key(normalizer, stored) {
                    recent.note_aged(&key, age);
                }
            })
        })?;
        self.recent = Some(Mutex::new(recent));
        Ok(self)
    }

    /// [`Gate::registered_within`] for the shared gate.
    ///
    /// # Errors
    /// As [`Gate::registered_within`].
    pub fn registered_within(&self, email: &str) -> Result<Recency, GateError> {
        let key = self.key_cow(email)?;
        self.apply_feed();
        let trusted = self.filter_trusted() && !lock(&self.unsettled).contains(&key);
        let recent = self.recent.as_ref().ok_or_else(mode_off)?;
        let within = {
            let r = lock(recent);
            if trusted && !r.maybe(&key) {
                return Ok(Recency::NotRecent);
            }
            r.within
        };
        let mut store = self.pooled()?;
        let mut found = store.registered_within(&key, within)?;
        for stored in self.stored_forms(&key) {
            found = found || store.registered_within(&stored, within)?;
        }
        Ok(recency(found))
    }
}
