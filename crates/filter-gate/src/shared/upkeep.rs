//! How a [`SharedGate`] keeps its filter up with the table: the feed (drained through the
//! control store's tap, apart from the control lock), catch-ups (after a lost feed, when due,
//! and periodically), and feed payloads learnt outside a scan. Why that keeps every Available
//! true: the `trust` module.

use std::sync::atomic::Ordering;
use std::time::Instant;

use filter_core::concurrent::SharedInsert;

use super::{lock, Control, SharedGate};
use crate::trust::RESYNC_EVERY;
use crate::{GateError, Store};

impl<F: SharedInsert, S: Store + Send + 'static> SharedGate<F, S> {
    /// Drains the feed, and retries a lost one or a due catch-up. The drain goes through the
    /// tap, apart from the control lock, so a save or a catch-up in another thread does not
    /// delay it; a thread that finds another one draining, or holding the lock for a retry,
    /// goes on (a key committed elsewhere is then at most as late as that drain).
    pub(crate) fn apply_feed(&self) {
        if let Ok(mut c) = self.control.try_lock() {
            self.maintain(&mut c);
            let untapped = self.tap.is_none() && !self.feed_lost.load(Ordering::Acquire);
            if untapped
                && c.store
                    .drain_remote(&mut |raw| self.take(raw, None))
                    .is_err()
            {
                // Fallback: every check asks the database until the feed is restarted and a
                // catch-up has run (`maintain`).
                self.feed_lost.store(true, Ordering::Release);
            }
        }
        if let Some(tap) = &self.tap {
            if !self.feed_lost.load(Ordering::Acquire) {
                let mut unnormal = Vec::new();
                let fed = tap.drain(&mut |raw| self.take(raw, Some(&mut unnormal)));
                for raw in unnormal {
                    self.learn_payload(&raw);
                }
                if fed.is_err() {
                    // Fallback: as above, every check asks the database until `maintain` has
                    // restarted the feed and caught up.
                    self.feed_lost.store(true, Ordering::Release);
                }
            }
        }
    }

    /// A lost feed: restart it and catch up; a due catch-up (a row learnt without its
    /// comparison form, unknown registrations beyond the cap): run it, at most once a second;
    /// the periodic catch-up ([`Store::catch_up_every`]): run it when its period has passed.
    fn maintain(&self, c: &mut Control<S>) {
        let due = c.last_resync.is_none_or(|t| t.elapsed() >= RESYNC_EVERY);
        if self.feed_lost.load(Ordering::Acquire) {
            if due {
                c.last_resync = Some(Instant::now());
                // Fallback of a failed restart or catch-up: the feed stays lost, every check
                // asks the database, and the next check after a second tries again.
                if c.store.restart_feed().is_ok() && self.catch_up_locked(c).is_ok() {
                    self.feed_lost.store(false, Ordering::Release);
                }
            }
            return;
        }
        let behind = self.behind.load(Ordering::Acquire);
        let urgent = due && (behind || lock(&self.unsettled).due(c.store.settle_time()));
        let every = c.store.catch_up_every();
        if urgent || c.periodic.take(every) {
            c.last_resync = Some(Instant::now());
            if self.catch_up_locked(c).is_err() {
                // Fallback: the mark stays; a row learnt without its form keeps every check on
                // the database, and the periodic catch-up is tried again in a second (rows
                // written without the trigger stay unknown meanwhile: see the `trust` module).
                if let Some(e) = every {
                    c.periodic.failed(e);
                }
            }
        }
    }

    /// One feed payload (the stored form): its key into the filter, or, when the stored form
    /// is not its key or only the server can fold it, kept in `unnormal` to learn after the
    /// drain.
    fn take(&self, raw: &str, unnormal: Option<&mut Vec<String>>) {
        let key = match self.folding.local_key(self.normalizer, raw) {
            Ok(Some(key)) if key == raw => {
                self.add(&key);
                return;
            }
            Ok(key) => key,
            // A stored value that is no valid address can never equal a valid key.
            Err(_) => return,
        };
        match unnormal {
            Some(list) => list.push(raw.to_owned()),
            // Without a tap the drain holds the control store: no second store at hand, so a
            // catch-up (which reads what the index compares) learns the row; its key, when
            // known, goes in now.
            None => {
                if let Some(k) = key {
                    self.add(&k);
                }
                self.behind.store(true, Ordering::Release);
            }
        }
    }

    /// A feed payload `take` could not learn by itself: folded by the server, then learnt with
    /// what the index compares for it.
    fn learn_payload(&self, raw: &str) {
        let key = match self.key_cow(raw) {
            Ok(key) if key == raw => return self.add(raw),
            Ok(key) => key.into_owned(),
            // Fallback: the key is unknown (the server could not fold it), so no "absent" is
            // a proof until a catch-up, which reads the index's fold, has read the row.
            Err(GateError::Store(_)) => return self.behind.store(true, Ordering::Release),
            Err(_) => return,
        };
        match self.pooled() {
            Ok(mut s) => self.learn_stored(&mut *s, &key, raw),
            // Fallback: without a store the row's comparison form is unknown: its key goes
            // in, and a catch-up reads the row.
            Err(_) => {
                self.add(&key);
                self.behind.store(true, Ordering::Release);
            }
        }
    }
}
