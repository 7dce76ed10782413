//! How a [`Gate`] keeps its filter up with the table: catch-ups by the commit-order mark (at
//! start, at saves, periodically, after a lost feed), the feed of other instances' rows, and
//! rows learnt outside a scan. Why that keeps every Available true: the `trust` module.

use std::time::Instant;

use filter_core::Filter;

use super::{add_to, scan_into, Gate};
use crate::store::ScannedRow;
use crate::{GateError, Store};

impl<F: Filter, S: Store> Gate<F, S> {
    /// Learns a committed row whose stored form is not its key: what the unique index compares
    /// for it decides whether it is held as an alias. When the database cannot say, every check
    /// goes to the database until a catch-up has read the row.
    pub(super) fn learn_stored(&mut self, key: &str, stored: &str) {
        self.unsettled.remove(key);
        match self.store.matched(stored) {
            Ok(matched) => {
                let (filter, trust, recent) = (&mut self.filter, &mut self.trust, &mut self.recent);
                let row = ScannedRow {
                    stored,
                    matched: &matched,
                };
                self.aliases.learn(self.normalizer, key, row, &mut |k| {
                    add_to(filter, trust, k);
                    if let Some(r) = recent.as_mut() {
                        r.note(k);
                    }
                });
            }
            // Fallback: the comparison form is unknown; the key goes in, and every check asks
            // the database until a catch-up (which reads that form) has read the row.
            Err(_) => {
                self.add(key);
                self.trust.fall_behind();
            }
        }
    }

    /// Reads the rows the filter may lack (those not covered by its mark) into the filter;
    /// returns how many rows were read.
    ///
    /// # Errors
    /// A failing database (the mark then stays where it was).
    pub fn catch_up(&mut self) -> Result<u64, GateError> {
        let started = Instant::now();
        let (filter, trust, unsettled, recent, aliases) = (
            &mut self.filter,
            &mut self.trust,
            &mut self.unsettled,
            &mut self.recent,
            &mut self.aliases,
        );
        let normalizer = self.normalizer;
        let before = unsettled.before();
        let keys = (normalizer, &self.folding);
        let (mark, rows) = scan_into(&mut self.store, self.mark, keys, &mut |key, row| {
            unsettled.remove(key);
            aliases.learn(normalizer, key, row, &mut |k| {
                add_to(filter, trust, k);
                if let Some(r) = recent.as_mut() {
                    r.note(k);
                }
            });
        })?;
        self.mark = mark;
        let settle = self.store.settle_time();
        self.unsettled.caught_up(before, settle);
        self.trust.caught_up(started);
        Ok(rows)
    }

    /// After a lost feed ([`crate::StoreErrorKind::FeedLost`]): restarts it and catches up,
    /// after which the filter answers again. Returns the rows read. The gate also tries this by
    /// itself, at most once a second, while the feed is lost.
    ///
    /// # Errors
    /// A failing database; the gate keeps sending every check to the database.
    pub fn resync(&mut self) -> Result<u64, GateError> {
        self.store.restart_feed()?;
        let rows = self.catch_up()?;
        self.trust.feed_restored();
        Ok(rows)
    }

    /// Before every check: retries a lost feed, runs a due catch-up (a row learnt without its
    /// form, unknown registrations beyond the cap, the periodic one of
    /// [`Store::catch_up_every`]), and drains the feed.
    pub(crate) fn apply_feed(&mut self) {
        if self.trust.feed_lost() {
            if self.trust.take_retry() {
                // Fallback of a failed restart: the feed stays lost, every check asks the
                // database, and the next check after a second tries again.
                let _ = self.resync();
            }
            return;
        }
        let every = self.store.catch_up_every();
        let urgent = self.trust.behind() || self.unsettled.due(self.store.settle_time());
        let due = (urgent && self.trust.take_retry()) || self.trust.take_periodic(every);
        if due && self.catch_up().is_err() {
            // Fallback: the mark stays; a row learnt without its form keeps every check on the
            // database, and the periodic catch-up is tried again in a second. Rows that reach
            // the table without the trigger stay unknown meanwhile (the `trust` module says
            // so).
            if let Some(every) = every {
                self.trust.periodic_failed(every);
            }
        }
        self.drain();
    }

    /// Drains the feed: a payload is the stored form; one that is not its key, or whose key
    /// only the server can make, is learnt after the drain.
    fn drain(&mut self) {
        let (filter, trust, normalizer, recent) = (
            &mut self.filter,
            &mut self.trust,
            self.normalizer,
            &mut self.recent,
        );
        let folding = &self.folding;
        let mut unnormal = Vec::new();
        let fed = self
            .store
            .drain_remote(&mut |raw| match folding.local_key(normalizer, raw) {
                Ok(Some(key)) if key == raw => {
                    add_to(filter, trust, &key);
                    if let Some(r) = recent.as_mut() {
                        r.note(&key);
                    }
                }
                Ok(_) => unnormal.push(raw.to_owned()),
                // A stored value that is no valid address can never equal a valid key.
                Err(_) => {}
            });
        for raw in unnormal {
            match self.key_cow(&raw) {
                Ok(key) if key == raw => self.add(&raw),
                Ok(key) => {
                    let key = key.into_owned();
                    self.learn_stored(&key, &raw);
                }
                // Fallback: the server could not fold it, so its key is unknown: every check
                // asks the database until a catch-up (which reads the index's fold) has read
                // the row.
                Err(GateError::Store(_)) => self.trust.fall_behind(),
                Err(_) => {}
            }
        }
        if fed.is_err() {
            // Fallback: rows other instances commit may be missing: every check asks the
            // database until the feed is restarted and a catch-up has run.
            self.trust.lose_feed();
        }
    }
}
