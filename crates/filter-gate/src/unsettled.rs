//! Keys whose registration outcome is unknown (the connection broke during `register`: the row
//! may have committed), held up to a cap.
//!
//! # The policy beyond the cap
//! A tracked key is checked in the database until the database shows it (or a catch-up reads
//! it, or a later `register` settles it). A key that does not fit is not tracked; instead the
//! whole filter stops being trusted (every check goes to the database, as with a lost feed)
//! until a catch-up reads every row committed since the mark. That catch-up must start after
//! every dropped registration has ended on the server too, so it counts only if it started at
//! least [`crate::Store::settle_time`] after the last dropped key (the store's statement
//! timeout: a statement the server still runs after the client gave up is cancelled by then).
//! The gates retry such a catch-up by themselves, at most once a second.

use std::collections::HashSet;
use std::time::{Duration, Instant};

/// The default cap: 10,000 keys of at most 254 bytes, about 3 MB at worst.
pub const DEFAULT_UNSETTLED_CAP: usize = 10_000;

/// The set, its cap, and whether a key was dropped.
#[derive(Debug)]
pub(crate) struct Unsettled {
    keys: HashSet<String>,
    cap: usize,
    /// Bumped at every dropped key, so that a catch-up that ran meanwhile does not count.
    dropped: u64,
    /// When the last key was dropped, while the filter is not trusted because of it.
    overflow: Option<Instant>,
}

/// What a catch-up must know of the set when it starts (see [`Unsettled::caught_up`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Before {
    dropped: u64,
    at: Instant,
}

impl Unsettled {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            keys: HashSet::new(),
            cap,
            dropped: 0,
            overflow: None,
        }
    }

    pub(crate) fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn contains(&self, key: &str) -> bool {
        !self.keys.is_empty() && self.keys.contains(key)
    }

    /// Tracks `key`, or beyond the cap, stops trusting the filter.
    pub(crate) fn add(&mut self, key: &str) {
        if self.keys.contains(key) {
            return;
        }
        if self.keys.len() < self.cap {
            self.keys.insert(key.to_owned());
        } else {
            self.dropped += 1;
            self.overflow = Some(Instant::now());
        }
    }

    /// A registration of a key that could not be made (the server could not fold the address):
    /// as a key beyond the cap, the filter is not trusted until a catch-up that started a
    /// settle time after now.
    pub(crate) fn add_unknown(&mut self) {
        self.dropped += 1;
        self.overflow = Some(Instant::now());
    }

    /// Forgets `key` (seen committed); whether it was tracked.
    pub(crate) fn remove(&mut self, key: &str) -> bool {
        !self.keys.is_empty() && self.keys.remove(key)
    }

    /// Whether a dropped key keeps the filter from being trusted.
    pub(crate) fn overflowed(&self) -> bool {
        self.overflow.is_some()
    }

    /// Whether a catch-up started now would restore trust (see the module docs).
    pub(crate) fn due(&self, settle: Duration) -> bool {
        self.overflow.is_some_and(|t| t.elapsed() >= settle)
    }

    /// Taken when a catch-up starts.
    pub(crate) fn before(&self) -> Before {
        Before {
            dropped: self.dropped,
            at: Instant::now(),
        }
    }

    /// After a successful catch-up that started at `before`: trust comes back if no key was
    /// dropped since it started and it started `settle` after the last dropped key.
    pub(crate) fn caught_up(&mut self, before: Before, settle: Duration) {
        if let Some(t) = self.overflow {
            if before.dropped == self.dropped && before.at >= t + settle {
                self.overflow = None;
            }
        }
    }
}

#[cfg(test)]
mod tests;
