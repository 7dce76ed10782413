//! A replica gate: started from a saved snapshot whose filter is used read-only (opened in
//! place by the caller, e.g. `filterlab::any::AnyFilter::open_at`, its pages shared with every
//! process that maps the file), with a small owned filter on top for the rows added since
//! ([`Layered`]).
//!
//! It answers as any gate does, under the same rules: it catches up from the snapshot's mark
//! before its first answer, keeps learning rows (the feed, its own `register`s, catch-ups) into
//! the top filter, and when the top filter is full stops trusting its filter (every check then
//! asks the database) rather than answer Available for a row it could not learn. It cannot
//! save (its base is not its own to rewrite) and cannot rebuild: a snapshot whose mark does not
//! describe the database is refused ([`SnapshotError::Stale`]).

use std::ops::Deref;

use filter_core::Filter;

use crate::layered::Layered;
use crate::{Gate, GateError, Mark, SnapshotError, Store};

impl<B: Deref<Target: Filter>, D: Filter, S: Store> Gate<Layered<B, D>, S> {
    /// A replica on `base` (read through it, never written), the filter of a snapshot saved at `mark` (see
    /// [`crate::snapshot::read_head`]), with `top` (empty, with the base's hasher) for the rows
    /// added since: checks the mark against the store, then catches up. Returns the gate and
    /// the rows read since the mark.
    ///
    /// # Errors
    /// [`GateError::Filter`] when `top` hashes differently from `base`;
    /// [`GateError::Snapshot`] ([`SnapshotError::Stale`]) when the mark does not describe this
    /// database; a failing database.
    pub fn replica(base: B, mark: Mark, top: D, mut store: S) -> Result<(Self, u64), GateError> {
        let filter = Layered::new(base, top).map_err(GateError::Filter)?;
        if let Some(why) = store.check_mark(mark)? {
            return Err(GateError::Snapshot(SnapshotError::Stale(why)));
        }
        let mut gate = Self::at(filter, store, mark);
        let rows = gate.catch_up()?;
        Ok((gate, rows))
    }
}
