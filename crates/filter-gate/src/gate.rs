//! [`Gate`]: the filter, the store, and the rules that keep every "Available" true.

use std::path::Path;

use filter_core::{Filter, Persist};

use crate::aliases::{self, Aliases};
use crate::recent::Recent;
use crate::store::{Insert, ScannedRow, StoreResult};
use crate::trust::Trust;

mod upkeep;
use crate::unsettled::{Unsettled, DEFAULT_UNSETTLED_CAP};
use crate::{
    snapshot, Availability, Folding, FprReport, GateCounts, GateError, Mark, Normalizer, Rebuild,
    Registration, Route, SnapshotError, Startup, Store,
};

/// A filter `F` in front of a store `S` (see the [crate docs](crate)).
#[derive(Debug)]
pub struct Gate<F: Filter, S: Store> {
    filter: F,
    pub(crate) store: S,
    pub(crate) normalizer: Normalizer,
    /// How the unique index folds, which the keys follow (see the `fold` module).
    pub(crate) folding: Folding,
    counts: GateCounts,
    target_fpr: Option<f64>,
    mark: Mark,
    /// The flags that withdraw the filter's "absent" (see the `trust` module: why every
    /// Available is true).
    trust: Trust,
    /// Rows the unique index does not find by their key (see the `aliases` module).
    pub(crate) aliases: Aliases,
    /// Keys whose `register` ended with the connection lost: maybe committed.
    pub(crate) unsettled: Unsettled,
    /// The "registered in the last T" window, when switched on.
    pub(crate) recent: Option<Recent>,
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

    /// A gate whose filter holds every row `mark` covers (nothing read yet for `Mark::Start`).
    pub(crate) fn at(filter: F, store: S, mark: Mark) -> Self {
        Self {
            mark,
            ..Self::empty(filter, store)
        }
    }

    pub(crate) fn empty(filter: F, store: S) -> Self {
        Self {
            filter,
            folding: store.folding(),
            store,
            normalizer: Normalizer::default(),
            counts: GateCounts::default(),
            target_fpr: None,
            mark: Mark::Start,
            trust: Trust::default(),
            aliases: Aliases::default(),
            unsettled: Unsettled::new(DEFAULT_UNSETTLED_CAP),
            recent: None,
        }
    }

    /// [`Gate::rebuild`] with `normalizer` instead of the default (trim, lower case): the rule
    /// applies to the rows the rebuild reads as much as to checks.
    ///
    /// # Errors
    /// As [`Gate::rebuild`].
    pub fn rebuild_with(filter: F, store: S, normalizer: Normalizer) -> Result<Self, GateError> {
        let mut gate = Self::empty(filter, store);
        gate.normalizer = normalizer;
        gate.catch_up()?;
        Ok(gate)
    }

    gate_options!();

    /// The set of keys whose registration outcome is unknown.
    fn unsettled_mut(&mut self) -> &mut Unsettled {
        &mut self.unsettled
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
        let key = self.key_cow(email)?;
        self.apply_feed();
        let forms = self.aliases.stored_forms(&key);
        if !self.filter_trusted() || self.unsettled.contains(key.as_ref()) || !forms.is_empty() {
            let taken = self.confirm(&key, &forms)?;
            if taken && self.unsettled.remove(key.as_ref()) {
                self.add(&key);
            }
            if !taken {
                self.refuse_unconfirmed(&key)?;
            }
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
            self.refuse_unconfirmed(&key)?;
            self.counts.false_positives += 1;
            Route::FalsePositive
        };
        self.counts.checks += 1;
        Ok(route)
    }

    /// Whether a row answers to `key` or to one of the stored forms it stands for.
    fn confirm(&mut self, key: &str, forms: &[String]) -> StoreResult<bool> {
        let aliases = &mut self.aliases;
        aliases::confirm(&mut self.store, key, forms, &mut |f| aliases.forget(key, f))
    }

    /// Beyond the cap of held rows, a "maybe" the database does not confirm may be such a row
    /// that was not held: an error, never Available (see the `aliases` module).
    fn refuse_unconfirmed(&self, key: &str) -> Result<(), GateError> {
        let maybe = self.trust.insert_failed() || self.filter.contains(key.as_bytes());
        if !self.aliases.overflowed() || !maybe {
            return Ok(());
        }
        let store = &self.store;
        match self
            .aliases
            .refusal(|stored, k| store.repair_sql(stored, k))
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Registers an address: the INSERT (and its unique constraint) decides; the key goes into
    /// the filter after the commit.
    ///
    /// # Errors
    /// [`GateError::Invalid`] (nothing stored); [`GateError::Store`]: nothing committed, except
    /// when the connection broke or the answer did not come ([`StoreError::outcome_unknown`]),
    /// where the row may have committed: every check of that key then asks the database until
    /// it is settled.
    ///
    /// [`StoreError::outcome_unknown`]: crate::StoreError::outcome_unknown
    pub fn register(&mut self, email: &str) -> Result<Registration, GateError> {
        self.register_observed(email, || {})
    }

    /// [`Gate::register`], calling `after_commit` between the commit and the filter insert (an
    /// audit hook, and the point the crash-safety test kills a process).
    ///
    /// # Errors
    /// As [`Gate::register`].
    pub fn register_observed(
        &mut self,
        email: &str,
        after_commit: impl FnOnce(),
    ) -> Result<Registration, GateError> {
        let key = self.key_cow(email)?;
        let forms = self.aliases.stored_forms(&key);
        if !forms.is_empty() || self.aliases.overflowed() {
            // The unique index would not refuse a second account for a row it does not find by
            // its key: ask first.
            if self.confirm(&key, &forms)? {
                self.settle(&key);
                return Ok(Registration::AlreadyTaken);
            }
            self.refuse_unconfirmed(&key)?;
        }
        match self.store.insert(&key) {
            Ok(Insert::Duplicate) => {
                // The filter may be stale (another instance registered it): learn it now.
                self.settle(&key);
                Ok(Registration::AlreadyTaken)
            }
            Ok(Insert::Inserted) => {
                after_commit();
                self.settle(&key);
                Ok(Registration::Registered)
            }
            Err(e) => {
                if e.outcome_unknown() {
                    self.unsettled.add(&key);
                }
                Err(e.into())
            }
        }
    }

    /// Tells the gate that a row with this address was committed by the caller's own SQL (a
    /// table with other NOT NULL columns, an insert inside a larger transaction). Call it after
    /// the commit with the value the SQL stored, which should be the [`Normalizer`]'s output
    /// (`gate.normalizer().normalize(email)`): a row stored otherwise is one the unique index
    /// may not find by its key (see [`Gate::unnormalised`]), which costs a query to find out.
    /// A crash before the call is covered by the catch-up at the next start, and other
    /// instances learn the row through the feed. When the commit's outcome is unknown (the
    /// connection broke), call [`Gate::may_have_committed`] instead.
    ///
    /// # Errors
    /// [`GateError::Invalid`] for an address that is not valid.
    pub fn observe(&mut self, email: &str) -> Result<(), GateError> {
        let key = match self.key_cow(email) {
            Ok(key) => key,
            // Fallback: the server could not fold the address, so its key is unknown: every
            // check asks the database until a catch-up (which reads the index's fold) has read
            // the committed row.
            Err(GateError::Store(_)) => {
                self.trust.fall_behind();
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        if key == email {
            self.settle(&key);
            return Ok(());
        }
        // Stored as given, or as the key? Only a row stored as given needs an alias.
        match self.store.exists(email) {
            Ok(true) => self.learn_stored(&key, email),
            Ok(false) => self.settle(&key),
            // Fallback: whether the row is stored as given is unknown; its key goes in, and
            // every check asks the database until a catch-up has read the row.
            Err(_) => {
                self.settle(&key);
                self.trust.fall_behind();
            }
        }
        Ok(())
    }

    /// Tells the gate that the caller's own SQL may have committed a row with this address: the
    /// outcome is unknown (the connection broke during or after the COMMIT, a timeout, any
    /// error whose cause is not a refusal by the database). Call it on every such error of the
    /// own-INSERT path of [`Gate::observe`]: the key then goes to the database on every check
    /// until the database shows it, as after a broken [`Gate::register`] (the same cap,
    /// [`Gate::with_unsettled_cap`], and the same bound on how late such a statement may still
    /// commit: [`Store::settle_time`], the store's statement timeout, which the caller's own
    /// statements should share). Without it the gate would answer Available for a committed
    /// row until the feed or a catch-up brings the row in.
    ///
    /// # Errors
    /// [`GateError::Invalid`] for an address that is not valid.
    pub fn may_have_committed(&mut self, email: &str) -> Result<(), GateError> {
        match self.key_cow(email) {
            Ok(key) => self.unsettled.add(&key),
            // Fallback: the key is unknown (the server could not fold it): every check asks
            // the database until a catch-up that started a settle time after now.
            Err(GateError::Store(_)) => self.unsettled.add_unknown(),
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// The normalisation the gate applies before folding (see [`Gate::key`] for the form to
    /// store).
    pub fn normalizer(&self) -> Normalizer {
        self.normalizer
    }

    /// The key of `email`: what the gate looks up, what its own SQL stores, and what the own-
    /// INSERT path of [`Gate::observe`] should store. It is the address trimmed, validated and
    /// folded the way the table's unique index folds it (see [`Folding`]: under a `lower()`
    /// index or citext the server's `lower()`, not Unicode's), so that two addresses have one
    /// key exactly when the index holds them equal. An ASCII address is folded locally; any
    /// other one costs one query under such an index.
    ///
    /// # Errors
    /// [`GateError::Invalid`] for an address that is not valid; [`GateError::Store`] when the
    /// server must fold it and cannot.
    pub fn key(&mut self, email: &str) -> Result<String, GateError> {
        self.key_cow(email).map(std::borrow::Cow::into_owned)
    }

    pub(crate) fn key_cow<'a>(
        &mut self,
        email: &'a str,
    ) -> Result<std::borrow::Cow<'a, str>, GateError> {
        let store = &mut self.store;
        self.folding
            .key(self.normalizer, email, |typed| store.fold(typed))
    }

    /// Rows the table's unique index does not find by their normalised key (stored by other
    /// code: `Zed.Admin@Example.org` under a unique index on the column, or an `İ` under a
    /// libc `lower()`), held as aliases: a check of such a key asks the database for the stored
    /// form, and `register` makes no second account for it. See the `aliases` module docs for
    /// the cap, and `filterlab gate migrate` (or [`crate::audit`]) for finding and fixing them.
    pub fn unnormalised(&self) -> usize {
        self.aliases.len()
    }

    /// Whether the filter's "absent" answers are trusted: false after a failed filter insert, a
    /// lost feed, more unknown registrations than [`Gate::with_unsettled_cap`] allows, or a row
    /// learnt outside a scan whose comparison form the database could not give (until a
    /// catch-up), when every check goes to the database.
    pub fn filter_trusted(&self) -> bool {
        self.trust.trusted() && !self.unsettled.overflowed()
    }

    /// Keys whose registration outcome is unknown (the connection broke during `register`):
    /// each check of one of them asks the database.
    pub fn unsettled(&self) -> usize {
        self.unsettled.len()
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

    /// The store (for its own queries; the gate does not see what is done through it).
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// How far the filter has read the table.
    pub fn mark(&self) -> Mark {
        self.mark
    }

    fn settle(&mut self, key: &str) {
        self.unsettled.remove(key);
        self.add(key);
    }

    fn add(&mut self, key: &str) {
        add_to(&mut self.filter, &mut self.trust, key);
        if let Some(r) = &mut self.recent {
            r.note(key);
        }
    }
}

/// Scans what `since` does not cover, calling `each` with each row's normalised key and the
/// row (whose `matched` may differ from the key: see the `aliases` module); returns the new
/// mark and the rows read.
pub(crate) fn scan_into<S: Store + ?Sized>(
    store: &mut S,
    since: Mark,
    (normalizer, folding): (Normalizer, &Folding),
    each: &mut dyn FnMut(&str, ScannedRow<'_>),
) -> StoreResult<(Mark, u64)> {
    let mut rows = 0u64;
    let mark = store.scan_since(since, &mut |row: ScannedRow<'_>| {
        rows += 1;
        // A stored value that is no valid address can never equal a valid key.
        if let Some(key) = folding.row_key(normalizer, row) {
            each(&key, row);
        }
    })?;
    Ok((mark, rows))
}

/// Inserts `key` unless the filter already answers "maybe" for it, so that replays (catch-up,
/// the feed echoing our own inserts) do not fill counting or cuckoo tables.
fn add_to<F: Filter>(filter: &mut F, trust: &mut Trust, key: &str) {
    if filter.insert_if_absent(key.as_bytes()).is_err() {
        // Fallback: the filter lacks this key, so it answers nothing more (every check asks
        // the database).
        trust.fail_insert();
    }
}

impl<F: Filter + Persist, S: Store> Gate<F, S> {
    /// Catches up, then saves the filter and its mark atomically (see [`snapshot`]), the mark
    /// sealed by the store so that a restored database is recognised at the next
    /// [`Gate::open`].
    ///
    /// # Errors
    /// A failing database; I/O errors (the previous file is then unchanged).
    pub fn save(&mut self, path: &Path) -> Result<(), GateError> {
        self.catch_up()?;
        let sealed = self.store.seal(self.mark)?;
        self.mark = sealed;
        snapshot::save(&self.filter, sealed, path)?;
        Ok(())
    }

    /// Starts a gate: loads the saved filter at `path` and catches up on the rows added since,
    /// or rebuilds from the table into `fresh()` when the file is missing or damaged, was saved
    /// at another size than `fresh()` has (a new capacity or rate), or its mark does not
    /// describe this database (see [`Rebuild`]).
    ///
    /// # Errors
    /// A failing database, or `fresh` failing.
    pub fn open(
        path: &Path,
        mut store: S,
        fresh: impl FnOnce() -> filter_core::Result<F>,
    ) -> Result<(Self, Startup), GateError> {
        let (fresh, reason) = match choose(path, &mut store, fresh()?)? {
            Opened::Load(filter, mark) => {
                let mut gate = Self::at(filter, store, mark);
                let caught_up = gate.catch_up()?;
                return Ok((gate, Startup::Loaded { caught_up }));
            }
            Opened::Rebuild(fresh, reason) => (fresh, reason),
        };
        let mut gate = Self::empty(fresh, store);
        let rows = gate.catch_up()?;
        Ok((gate, Startup::Rebuilt { rows, reason }))
    }
}

/// What [`Gate::open`] found at `path`.
pub(crate) enum Opened<F> {
    /// A saved filter to catch up from its mark.
    Load(F, Mark),
    /// The fresh filter to rebuild into, and why.
    Rebuild(F, Rebuild),
}

/// Loads the saved filter at `path` if it is usable with `store` at the size of `fresh`.
pub(crate) fn choose<F: Filter + Persist, S: Store + ?Sized>(
    path: &Path,
    store: &mut S,
    fresh: F,
) -> Result<Opened<F>, GateError> {
    let reason = match snapshot::load::<F>(path) {
        Ok((filter, mark)) => {
            let saved = (filter.capacity(), filter.size_in_bytes());
            let wanted = (fresh.capacity(), fresh.size_in_bytes());
            if saved != wanted {
                Rebuild::Resized { saved, wanted }
            } else if let Some(why) = store.check_mark(mark)? {
                Rebuild::Stale(why)
            } else {
                return Ok(Opened::Load(filter, mark));
            }
        }
        Err(SnapshotError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Rebuild::NoFile,
        Err(e) => Rebuild::Damaged(e),
    };
    Ok(Opened::Rebuild(fresh, reason))
}
