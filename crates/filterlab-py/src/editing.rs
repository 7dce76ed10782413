//! The writers' lock of a filter file, from Python: the lock the `filterlab` command's `add`,
//! `remove` and `build -o` take (`filter_core::lock_for_writing`, `flock(2)` on the file).
//!
//! - `with filterlab.editing(path) as f:` takes the lock, loads the file it locked, hands the
//!   filter to the block and, when the block ends without an exception, saves it over `path`
//!   before letting go: a load-modify-save from Python and a CLI `add` of the same file run one
//!   after the other, and neither loses a key. On an exception nothing is saved.
//! - Every `save` of an existing file takes the lock for its write (a `save` inside an
//!   `editing` block of the same file, on the thread that holds it, uses the lock held).
//!
//! A writer waits for the lock with the GIL released, a few milliseconds at a time, checking
//! for signals in between, so Ctrl-C interrupts a wait (`KeyboardInterrupt`).

use filter_core::WriteLock;
use filterlab::AnyFilter;
use pyo3::prelude::*;
use pyo3::types::PyType;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Duration;

/// A file as the lock knows it: device and inode (the path may name another file later).
type FileId = (u64, u64);

/// The files this process's `editing` blocks hold, with the thread that holds each: a `save`
/// of one of them on that thread writes under the held lock instead of waiting for itself.
static HELD: Mutex<Vec<(FileId, ThreadId)>> = Mutex::new(Vec::new());

#[cfg(unix)]
fn file_id(meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<FileId> {
    None
}

fn held() -> std::sync::MutexGuard<'static, Vec<(FileId, ThreadId)>> {
    HELD.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether the calling thread holds the lock of the file `path` names.
fn held_here(path: &Path) -> bool {
    let Some(id) = std::fs::metadata(path).ok().as_ref().and_then(file_id) else {
        return false;
    };
    let me = std::thread::current().id();
    held().iter().any(|&(f, t)| f == id && t == me)
}

/// The lock of the file at `path` (`None`: nothing there), waited for with the GIL released;
/// its errors are `OSError`s but for something other than a regular file at `path`, which
/// `refused` turns into the caller's exception.
fn lock(
    py: Python<'_>,
    path: &Path,
    refused: fn(io::Error) -> PyErr,
) -> PyResult<Option<WriteLock>> {
    let mut interrupted = None;
    let locked = filter_core::lock_for_writing(path, |file| {
        let mut pause = Duration::from_millis(1);
        loop {
            if filter_core::try_lock(file)? {
                return Ok(());
            }
            py.allow_threads(|| std::thread::sleep(pause));
            if let Err(e) = py.check_signals() {
                interrupted = Some(e);
                return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
            }
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    });
    match (locked, interrupted) {
        (_, Some(e)) => Err(e),
        (Ok(l), None) => Ok(l),
        (Err(e), None) if e.kind() == io::ErrorKind::InvalidInput => Err(refused(e)),
        (Err(e), None) => Err(e.into()),
    }
}

/// Runs `write` (a save over `path`) holding the writers' lock of the file at `path`, unless
/// nothing is there yet or the calling thread holds it already (an `editing` block).
pub(crate) fn saving<T>(
    py: Python<'_>,
    path: &Path,
    write: impl FnOnce() -> PyResult<T>,
) -> PyResult<T> {
    if held_here(path) {
        return write();
    }
    // As the save's own refusal of something other than a regular file: an `OSError`.
    let lock = lock(py, path, PyErr::from)?;
    let out = write();
    drop(lock);
    out
}

/// `with filterlab.editing(path) as f:` holds the writers' lock of the filter file at `path`
/// from its load to its save: `f` is the filter `filterlab.load(path)` would give; when the
/// block ends without an exception `f` is saved over `path`, then the lock is released. The
/// `filterlab` command's writers (`add`, `remove`, `build -o`) take the same lock.
#[pyclass(module = "filterlab._filterlab", name = "editing")]
pub struct Editing {
    path: PathBuf,
    held: Option<(WriteLock, Option<FileId>, PyObject)>,
}

#[pymethods]
impl Editing {
    /// A block that will edit the filter file at `path` (nothing is locked before `with`).
    #[new]
    fn new(path: PathBuf) -> Self {
        Self { path, held: None }
    }

    /// Takes the lock (waiting for another writer, interruptible) and loads the file it locked.
    fn __enter__(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        if self.held.is_some() {
            return Err(crate::err("this editing block is already entered"));
        }
        let path = &self.path;
        // As `filterlab.load`'s refusal: a `FilterlabError`.
        let lock = lock(py, path, crate::err)?.ok_or_else(|| {
            pyo3::exceptions::PyFileNotFoundError::new_err(format!(
                "cannot edit {}: no such file (save a filter there first)",
                path.display()
            ))
        })?;
        let filter = load_locked(py, &lock)?;
        let id = lock.file().metadata().ok().as_ref().and_then(file_id);
        if let Some(id) = id {
            held().push((id, std::thread::current().id()));
        }
        let out = filter.clone_ref(py);
        self.held = Some((lock, id, filter));
        Ok(out)
    }

    /// Saves the filter unless the block raised (`exc_type` given), then releases the lock;
    /// never swallows the block's exception.
    #[pyo3(signature = (exc_type, exc_value = None, traceback = None))]
    fn __exit__(
        &mut self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyType>>,
        exc_value: Option<&Bound<'_, PyAny>>,
        traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let _ = (exc_value, traceback);
        let Some((lock, id, filter)) = self.held.take() else {
            return Ok(false);
        };
        if let Some(id) = id {
            // The block may end on another thread than it began: the save is this thread's.
            let mut h = held();
            if let Some(entry) = h.iter_mut().find(|(f, _)| *f == id) {
                entry.1 = std::thread::current().id();
            }
        }
        let saved = match exc_type {
            None => filter.call_method1(py, "save", (&self.path,)).map(drop),
            Some(_) => Ok(()),
        };
        if let Some(id) = id {
            let mut h = held();
            if let Some(i) = h.iter().position(|(f, _)| *f == id) {
                h.swap_remove(i);
            }
        }
        drop(lock);
        saved.map(|()| false)
    }

    fn __repr__(&self) -> String {
        let state = if self.held.is_some() {
            "held"
        } else {
            "not held"
        };
        format!("filterlab.editing({:?}, lock {state})", self.path)
    }
}

/// The filter in the locked file, as `filterlab.load` gives it.
fn load_locked(py: Python<'_>, lock: &WriteLock) -> PyResult<PyObject> {
    // The path names the locked file (checked when it was locked).
    if crate::refusal::is_bloom_file(lock.path()) {
        return Err(crate::refusal::bloom(crate::refusal::Source::File(
            lock.path(),
        )));
    }
    let bytes = AnyFilter::read_or_map(lock.file()).map_err(|e| {
        match e
            .get_ref()
            .and_then(|i| i.downcast_ref::<filterlab::FormatError>())
        {
            Some(format) => crate::load_err(lock.path(), format),
            None => e.into(),
        }
    })?;
    let loaded = AnyFilter::from_file_bytes(&bytes);
    drop(bytes);
    let filter = loaded.map_err(|e| crate::load_err(lock.path(), &e))?;
    crate::any_to_python(py, filter).map_err(|e| match e {
        crate::AnyError::Format(e) => crate::load_err(lock.path(), &e),
        crate::AnyError::Py(e) => e,
    })
}
