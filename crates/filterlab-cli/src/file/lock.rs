//! One writer at a time per filter file. `add` and `remove` hold an exclusive lock on the file
//! from the load to the rename of the new file over it; `build -o` over an existing file holds
//! it for its save. Two writers are then run one after the other, and the second edits what
//! the first saved: no key of either is lost.
//!
//! The lock is `flock(2)` on the filter file itself, not on a `FILE.lock` beside it: no lock
//! file is left next to every filter, and none can be removed by a user while it serialises
//! writers. A save replaces the file by a rename, so a writer that waited on the old file
//! wakes holding a lock on a file that the path no longer names; it compares the locked file
//! with the path (device and inode) and starts over on the new file when they differ. A lock
//! dies with its process: a killed writer never leaves the file locked.
//!
//! Readers (`info`, `query`, `explain`) take no lock: a save never writes into a file that
//! readers open, it renames a complete new file over the path, so a reader's open file is the
//! old file or the new one, whole.
//!
//! Where `flock` is missing (not Unix) the lock does nothing: writers are not serialised there.

use anyhow::{Context, Result};
use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// An exclusive lock on the file a path names; released when dropped.
#[derive(Debug)]
pub struct Locked {
    file: File,
    path: PathBuf,
}

impl Locked {
    /// The locked file, open for reading at its start.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The path it was locked through.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks the filter file at `path` exclusively, waiting for another writer to finish
/// (`waiting` is called once before a wait). `None` when nothing is at `path`.
///
/// # Errors
/// Something other than a regular file at `path` (see [`super::open_regular`]), or an I/O
/// error while locking.
pub fn exclusive(path: &Path, waiting: impl FnOnce()) -> Result<Option<Locked>> {
    let mut waiting = Some(waiting);
    loop {
        let file = match super::open_regular(path)? {
            Some(f) => f,
            None => return Ok(None),
        };
        if !try_lock(&file).with_context(|| format!("cannot lock {}", path.display()))? {
            if let Some(w) = waiting.take() {
                w();
            }
            lock(&file).with_context(|| format!("cannot lock {}", path.display()))?;
        }
        if names(path, &file)? {
            return Ok(Some(Locked {
                file,
                path: path.to_path_buf(),
            }));
        }
        // Another writer replaced the file while this one waited: lock the new one.
    }
}

/// Whether `path` still names `file` (the same device and inode).
#[cfg(unix)]
fn names(path: &Path, file: &File) -> Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file
        .metadata()
        .with_context(|| format!("cannot inspect {}", path.display()))?;
    // Followed as the open followed it (a symlink is refused at the save, not looped on here).
    match std::fs::metadata(path) {
        Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
        // Removed while this writer waited: the next open reports it missing.
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e).with_context(|| format!("cannot inspect {}", path.display())),
    }
}

#[cfg(not(unix))]
fn names(_: &Path, _: &File) -> Result<bool> {
    Ok(true)
}

/// Takes the lock if it is free; `false` when another process holds it.
#[cfg(unix)]
fn try_lock(file: &File) -> std::io::Result<bool> {
    use rustix::fs::{flock, FlockOperation};
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Waits for the lock.
#[cfg(unix)]
fn lock(file: &File) -> std::io::Result<()> {
    use rustix::fs::{flock, FlockOperation};
    loop {
        match flock(file, FlockOperation::LockExclusive) {
            Err(rustix::io::Errno::INTR) => continue,
            other => return other.map_err(Into::into),
        }
    }
}

#[cfg(not(unix))]
fn try_lock(_: &File) -> std::io::Result<bool> {
    Ok(true)
}

#[cfg(not(unix))]
fn lock(_: &File) -> std::io::Result<()> {
    Ok(())
}
