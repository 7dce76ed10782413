//! Why every Available is true: the one place that says it, and the flags of a [`Gate`]
//! that withdraw the filter's "absent" when it cannot be a proof.
//!
//! # The invariant
//! A gate never answers Available for an address that the table's unique index would refuse.
//! It answers Available by three routes ([`crate::Route`]), each under a condition:
//!
//! * **`FilterAbsent`**: the filter does not hold the address's key, the filter is trusted
//!   ([`Trust::trusted`], and no more unknown registrations than the cap), the key is not one
//!   whose registration outcome is unknown, and no row is held as its alias. The filter holds
//!   the key of every row the index would match it with, because:
//!   1. *the key is the index's* (the `fold` module): two addresses have one key exactly when
//!      the index holds them equal; an index whose equality no key can follow (a
//!      non-deterministic collation) is refused at connect;
//!   2. *every row that can reach the table reaches the filter*: the gate's own `register`
//!      (after the commit; an unknown outcome makes the key unsettled), the caller's own SQL
//!      (`observe`, or `may_have_committed` for an unknown outcome), other instances through
//!      the feed, and everything else through a catch-up by the commit-order mark (at start,
//!      at every save, and periodically: [`crate::Store::catch_up_every`]), which reads every
//!      row its mark does not cover, whatever wrote it: rows written with the notify trigger
//!      off (`session_replication_role = replica`, a disabled trigger) reach the filter within
//!      that period and only by it;
//!   3. *a row the index does not find by its key* (stored by other code as something else) is
//!      held as an alias (the `aliases` module), whose checks ask the database;
//!   4. *whenever one of these fails*, a flag here or the unsettled set withdraws the filter:
//!      a failed filter insert ([`Trust::insert_failed`]), a lost feed ([`Trust::lose_feed`]),
//!      a row learnt without its key or comparison form ([`Trust::fall_behind`]).
//! * **`FalsePositive`** and **`Bypassed(Available)`**: the database, asked the way the unique
//!   index compares (`Store::exists`, and every stored form an alias holds), found no row.
//!   Beyond the cap of aliases such an answer is an error instead ([`GateError::Unnormalised`]).
//!
//! What the feed cannot see: rows whose INSERT fires no trigger (see above), and every row while
//! the feed is lost. A gate without the feed (or a replica opened without it) sees other
//! writers only at its catch-ups: with [`crate::PgOptions::catch_up_every`] `None` and no feed,
//! never until its next save or restart.
//!
//! Every error a gate swallows says, where it is swallowed, what stands in for it: a flag
//! here (every check then asks the database), a key left unsettled, or a retry.
//!
//! [`Gate`]: crate::Gate
//! [`GateError::Unnormalised`]: crate::GateError::Unnormalised

use std::time::{Duration, Instant};

/// How often a gate retries a lost feed or a due catch-up by itself.
pub(crate) const RESYNC_EVERY: Duration = Duration::from_secs(1);

/// The flags that withdraw a [`crate::Gate`]'s filter, and when it last read the table.
#[derive(Debug, Default)]
pub(crate) struct Trust {
    /// A filter insert failed (a full table): the filter lacks a key for good.
    insert_failed: bool,
    /// The feed broke: rows other instances committed since may be missing, until a restart
    /// of the feed and a catch-up.
    feed_lost: bool,
    /// A row was learnt outside a scan without its key or comparison form: the filter may
    /// lack its key until a catch-up.
    behind: bool,
    /// The last retry of a lost feed or of a due catch-up.
    last_retry: Option<Instant>,
    /// When the periodic catch-up is due.
    periodic: Periodic,
}

impl Trust {
    /// Whether the filter's "absent" may answer (the unsettled set has its own cap).
    pub(crate) fn trusted(&self) -> bool {
        !self.insert_failed && !self.feed_lost && !self.behind
    }

    /// Whether a filter insert failed.
    pub(crate) fn insert_failed(&self) -> bool {
        self.insert_failed
    }

    /// A filter insert failed: the filter is never trusted again (until a rebuild).
    pub(crate) fn fail_insert(&mut self) {
        self.insert_failed = true;
    }

    /// The feed broke.
    pub(crate) fn lose_feed(&mut self) {
        self.feed_lost = true;
    }

    /// Whether the feed is lost.
    pub(crate) fn feed_lost(&self) -> bool {
        self.feed_lost
    }

    /// A row was learnt without its key or comparison form.
    pub(crate) fn fall_behind(&mut self) {
        self.behind = true;
    }

    /// Whether a row is waiting for a catch-up.
    pub(crate) fn behind(&self) -> bool {
        self.behind
    }

    /// Whether a retry is due (at most one each [`RESYNC_EVERY`]); notes it when it is.
    pub(crate) fn take_retry(&mut self) -> bool {
        let due = self.last_retry.is_none_or(|t| t.elapsed() >= RESYNC_EVERY);
        if due {
            self.last_retry = Some(Instant::now());
        }
        due
    }

    /// Whether the periodic catch-up is due (see [`Periodic`]); notes its start when it is.
    pub(crate) fn take_periodic(&mut self, every: Option<Duration>) -> bool {
        self.periodic.take(every)
    }

    /// A catch-up that started at `started` succeeded: it read every row committed before it,
    /// a row learnt without its form included.
    pub(crate) fn caught_up(&mut self, started: Instant) {
        self.periodic.done(started);
        self.behind = false;
    }

    /// The feed was restarted and a catch-up after it succeeded.
    pub(crate) fn feed_restored(&mut self) {
        self.feed_lost = false;
    }

    /// A periodic catch-up failed (see [`Periodic::failed`]).
    pub(crate) fn periodic_failed(&mut self, every: Duration) {
        self.periodic.failed(every);
    }
}

/// A catch-up's period is stretched to this many times the last catch-up's duration, so that
/// catch-ups take at most 1/50 of the time (2%) on a large table: each reads the whole table on
/// the server (no index on `xmin`), about 0.2 s at 1M rows.
pub(crate) const STRETCH: u32 = 50;

/// When the periodic catch-up ([`crate::Store::catch_up_every`]) is due: `every` after the
/// start of the last one, or [`STRETCH`] times its duration when that is longer.
#[derive(Debug, Default)]
pub(crate) struct Periodic {
    /// The start of the last catch-up.
    last: Option<Instant>,
    /// How long it took.
    took: Duration,
}

impl Periodic {
    /// Whether the periodic catch-up is due; notes its start when it is.
    pub(crate) fn take(&mut self, every: Option<Duration>) -> bool {
        let Some(every) = every else { return false };
        let period = every.max(self.took.saturating_mul(STRETCH));
        let due = self.last.is_none_or(|t| t.elapsed() >= period);
        if due {
            self.last = Some(Instant::now());
        }
        due
    }

    /// A catch-up that started at `started` has just succeeded. A whole-table read (at start)
    /// counts too: it sends every row, so the first period after it is the longer, which keeps
    /// a large table's first incremental scan (about 2 s at 10M rows, inside a check) out of
    /// the minutes after a start.
    pub(crate) fn done(&mut self, started: Instant) {
        self.last = Some(started);
        self.took = started.elapsed();
    }

    /// A periodic catch-up failed: it is due again after [`RESYNC_EVERY`], not a whole period
    /// (rows written without the trigger stay unknown meanwhile).
    pub(crate) fn failed(&mut self, every: Duration) {
        let period = every.max(self.took.saturating_mul(STRETCH));
        let retry = Instant::now().checked_sub(period.saturating_sub(RESYNC_EVERY));
        self.last = retry.or(self.last);
    }
}

#[cfg(test)]
mod tests;
