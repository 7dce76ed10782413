//! One writer at a time per filter file: `add` and `remove` hold an exclusive lock on the file
//! from the load to the rename of the new file over it; `build -o` over an existing file holds
//! it for its save. The lock is the library's (`filter_core::lock_for_writing`: `flock(2)` on
//! the file itself), the one Python's `filterlab.editing` and `save` take, so a CLI writer and
//! a Python writer of one file also run one after the other.

use anyhow::Result;
use std::path::Path;

/// An exclusive lock on the file a path names; released when dropped.
pub type Locked = filter_core::WriteLock;

/// Locks the filter file at `path` exclusively, waiting for another writer to finish
/// (`waiting` is called once before a wait). `None` when nothing is at `path`.
///
/// # Errors
/// Something other than a regular file at `path`, or an I/O error while opening or locking
/// it (the message names the path and the step).
pub fn exclusive(path: &Path, waiting: impl FnOnce()) -> Result<Option<Locked>> {
    let mut waiting = Some(waiting);
    let locked = filter_core::lock_for_writing(path, |file| {
        if let Some(w) = waiting.take() {
            w();
        }
        filter_core::wait_for_lock(file)
    });
    // The library's messages name the path and the step: no context repeats them.
    locked.map_err(|e| anyhow::anyhow!("{e}"))
}
