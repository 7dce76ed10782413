//! One writer at a time per filter file, whatever the language of the writer: the `filterlab`
//! command's `add`, `remove` and `build -o`, and Python's `filterlab.editing` and `save`, take
//! this same lock. An editing writer holds it from the load to the rename of the new file over
//! the path; two writers then run one after the other, and the second edits what the first
//! saved: no key of either is lost.
//!
//! The lock is `flock(2)` on the filter file itself, not on a `FILE.lock` beside it: no lock
//! file is left next to every filter, and none can be removed by a user while it serialises
//! writers. A save replaces the file by a rename, so a writer that waited on the old file
//! wakes holding a lock on a file that the path no longer names; it compares the locked file
//! with the path (device and inode) and starts over on the new file when they differ. A lock
//! dies with its process: a killed writer never leaves the file locked. `flock` locks belong to
//! an open file, not to a process, so two threads of one process that each lock the file also
//! wait for each other.
//!
//! Readers take no lock: a save never writes into a file that readers open, it renames a
//! complete new file over the path, so a reader's open file is the old file or the new one,
//! whole.
//!
//! Where `flock` is missing (not Unix) the lock does nothing: writers are not serialised there.

use std::fs::File;
use std::io::{self, ErrorKind};
use std::path::{Path, PathBuf};

/// An exclusive lock on the filter file a path names ([`lock_for_writing`]); released when
/// dropped, or when the process ends however it ends.
#[derive(Debug)]
pub struct WriteLock {
    file: File,
    path: PathBuf,
}

impl WriteLock {
    /// The locked file, open for reading at its start: load from it, not from the path, so
    /// that what was locked is what is read.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// The path it was locked through.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Locks the filter file at `path` exclusively; `None` when nothing is at `path` (a writer
/// creating the file has nothing to lock). When another writer holds the lock, `wait` is
/// called with the file and must return once it holds the lock: [`wait_for_lock`], or the
/// caller's own loop over [`try_lock`] (one that can be interrupted, or that gives up).
///
/// # Errors
/// Something other than a regular file at `path` (`InvalidInput`, from
/// [`super::open_regular`]), or an I/O error opening, locking (`wait`'s included) or
/// inspecting the file: the message names the step and the path.
pub fn lock_for_writing(
    path: &Path,
    mut wait: impl FnMut(&File) -> io::Result<()>,
) -> io::Result<Option<WriteLock>> {
    loop {
        let file = match super::open_regular(path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) if e.kind() == ErrorKind::InvalidInput => return Err(e),
            Err(e) => return Err(step(e, "read", path)),
        };
        if !try_lock(&file).map_err(|e| step(e, "lock", path))? {
            wait(&file).map_err(|e| step(e, "lock", path))?;
        }
        if names(path, &file)? {
            return Ok(Some(WriteLock {
                file,
                path: path.to_path_buf(),
            }));
        }
        // Another writer replaced the file while this one waited: lock the new one.
    }
}

/// `e` as "cannot STEP PATH: e", its kind kept.
fn step(e: io::Error, step: &str, path: &Path) -> io::Error {
    io::Error::new(e.kind(), format!("cannot {step} {}: {e}", path.display()))
}

/// Whether `path` still names `file` (the same device and inode).
#[cfg(unix)]
fn names(path: &Path, file: &File) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let held = file.metadata().map_err(|e| step(e, "inspect", path))?;
    // Followed as the open followed it (a symlink is refused at the save, not looped on here).
    match std::fs::metadata(path) {
        Ok(now) => Ok(now.dev() == held.dev() && now.ino() == held.ino()),
        // Removed while this writer waited: the next open reports it missing.
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(step(e, "inspect", path)),
    }
}

#[cfg(not(unix))]
fn names(_: &Path, _: &File) -> io::Result<bool> {
    Ok(true)
}

/// Takes the writer's lock on `file` if it is free; `false` when another holder has it.
///
/// # Errors
/// The file system refuses `flock` (other than "held by another").
#[cfg(unix)]
pub fn try_lock(file: &File) -> io::Result<bool> {
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

/// Waits for the writer's lock on `file` (the calling thread blocks until it is free).
///
/// # Errors
/// The file system refuses `flock`.
#[cfg(unix)]
pub fn wait_for_lock(file: &File) -> io::Result<()> {
    use rustix::fs::{flock, FlockOperation};
    loop {
        match flock(file, FlockOperation::LockExclusive) {
            Err(rustix::io::Errno::INTR) => continue,
            other => return other.map_err(Into::into),
        }
    }
}

/// Takes the writer's lock (no lock exists here: always `true`).
///
/// # Errors
/// None.
#[cfg(not(unix))]
pub fn try_lock(_: &File) -> io::Result<bool> {
    Ok(true)
}

/// Waits for the writer's lock (no lock exists here: returns at once).
///
/// # Errors
/// None.
#[cfg(not(unix))]
pub fn wait_for_lock(_: &File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests;
