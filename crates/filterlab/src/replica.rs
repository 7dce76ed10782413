//! [`open_replica`]: a read-only replica gate on a saved snapshot, its filter mapped in place.

use crate::any::{AnyFilter, Mapped};
use filter_core::{Filter, KeyHasher};
use filter_gate::{snapshot, Gate, GateError, Layered, SnapshotError, Store};
use std::path::Path;

/// A replica gate: the snapshot's filter mapped, `D` on top, over the store `S`.
pub type Replica<D, S> = Gate<Layered<Mapped, D>, S>;

/// A replica gate on the snapshot at `path` (written by `Gate::save` or `SharedGate::save`):
/// the snapshot's filter opened in place ([`AnyFilter::open_at`]: mapped read-only, its pages
/// shared with every process that maps the file, nothing copied), and a top filter that `top`
/// builds with the base's hasher for the rows added since the snapshot's mark, which the
/// replica reads before it returns ([`Gate::replica`]). Returns the gate and those rows' count.
///
/// The open checks the snapshot's header and the filter's head in O(1), as
/// [`AnyFilter::open`] does, and trusts the rest (see [`Mapped`]): `gate.filter().base()`
/// lends the filter, whose owner's `verify` is not reachable from there, so verify a snapshot
/// before serving from it where that matters (`AnyFilter::open_at(path, offset)?.verify()`).
/// Keep the snapshot file as saves leave it: replaced by rename, never rewritten in place.
///
/// Other writers' rows reach the replica through its store: with a PostgreSQL store opened
/// without the feed (`PgStore::connect`), only at its periodic catch-ups
/// (`PgOptions::catch_up_every`, 10 s by default), and with that set to `None`, never: open
/// the store with the feed (`PgStore::connect_with_feed`) or keep the period.
///
/// # Errors
/// [`GateError::Snapshot`] for a damaged header, a filter that cannot be opened in place (a
/// version 2 snapshot, whose filter is not on a page: save it again; a variant that does not
/// open in place: use `Gate::open`, which loads it), or a mark that does not describe the
/// database ([`SnapshotError::Stale`]); [`GateError::Filter`] when `top` fails or hashes
/// otherwise; a failing database.
pub fn open_replica<D: Filter, S: Store>(
    path: &Path,
    top: impl FnOnce(KeyHasher) -> filter_core::Result<D>,
    store: S,
) -> Result<(Replica<D, S>, u64), GateError> {
    let head = snapshot::read_head(path).map_err(GateError::Snapshot)?;
    let base = AnyFilter::open_at(path, head.filter_offset).map_err(|e| {
        let hint = if head.filter_offset % 4096 != 0 {
            " (a snapshot of an older version: save it again to open it in place)"
        } else {
            ""
        };
        GateError::Snapshot(SnapshotError::Io(std::io::Error::new(
            e.kind(),
            format!("{e}{hint}"),
        )))
    })?;
    let top = top(base.hasher()).map_err(GateError::Filter)?;
    Gate::replica(base, head.mark, top, store)
}
