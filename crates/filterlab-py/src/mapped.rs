//! `filterlab.open(path, verify=False)`: a filter file opened in place ([`AnyFilter::open`]),
//! read-only. The file is mapped, so the open costs the same at any size, the process's memory
//! grows only by the pages its lookups touch, and every process that opens the file shares
//! those pages in the page cache. The class is frozen (every method takes `&self`) and the
//! filter is read-only, so any number of threads query one at once, batches with the GIL
//! released.

use crate::{err, keys, load_err};
use filterlab::any::Mapped;
use filterlab::{AnyFilter, Filter, FormatError};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// A filter opened in place by `filterlab.open`: read-only (no `add`), its tables the file's
/// pages, read from the disk as lookups touch them. It answers as `filterlab.load` of the same
/// file does.
#[pyclass(frozen, module = "filterlab._filterlab")]
pub struct MappedFilter {
    inner: Mapped,
    path: PathBuf,
}

/// The error of an open that failed: `OSError` (`FileNotFoundError`, ...) for a file that
/// cannot be opened; `FilterlabError` (a `ValueError`) for a file that cannot be used in
/// place, saying to load it, and for a damaged file.
fn open_err(path: &Path, e: std::io::Error) -> PyErr {
    match e.get_ref().and_then(|i| i.downcast_ref::<FormatError>()) {
        Some(FormatError::NotInPlace(_)) => err(format!(
            "{}: {} (filterlab.load(path) loads it)",
            path.display(),
            e
        )),
        Some(format) => load_err(path, format),
        None if e.kind() == std::io::ErrorKind::InvalidInput => err(e),
        // ENOMEM from mmap: the head was checked first, so the file is what it says it is.
        None if e.kind() == std::io::ErrorKind::OutOfMemory => {
            let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            // OSError(ENOMEM, message), as before, with the reason.
            pyo3::exceptions::PyOSError::new_err((
                12,
                format!(
                    "cannot map {} ({size} bytes) into this process's memory: {e}. Its head is a \
                 valid filter's; the system refused the mapping itself: the process's \
                 address-space limit (`ulimit -v`) or the kernel's mapping limits are below the \
                 file's size",
                    path.display()
                ),
            ))
        }
        None => e.into(),
    }
}

/// Opens a filter file in place, read-only: the file is mapped and the filter's tables are its
/// bytes, so nothing is copied. The open checks the head in O(1); `verify=True` also checks
/// the whole file's checksum (reading every byte) and raises `FilterlabError` on a damaged
/// file. Version 2 files of the variants whose tables are flat arrays open in place; a
/// version 1 file or another variant raises `FilterlabError`: load it with `filterlab.load`.
#[pyfunction]
#[pyo3(name = "open", signature = (path, verify = false))]
pub(crate) fn open_mapped(py: Python<'_>, path: PathBuf, verify: bool) -> PyResult<MappedFilter> {
    if crate::refusal::is_bloom_file(&path) {
        return Err(crate::refusal::bloom(crate::refusal::Source::File(&path)));
    }
    // The head first, with a load's checks, before anything is mapped: a crafted header on a
    // huge file is refused as such, not by the mapping's `ENOMEM`. The check maps a version 2
    // file whose head holds (the mapping is dropped: `AnyFilter::open` maps it again).
    let checked = py.allow_threads(|| {
        let file = filterlab::open_regular(&path)?;
        AnyFilter::read_or_map(&file).map(drop)
    });
    checked.map_err(|e| open_err(&path, e))?;
    let inner = py
        .allow_threads(|| AnyFilter::open(&path))
        .map_err(|e| open_err(&path, e))?;
    let this = MappedFilter { inner, path };
    if verify {
        this.verify(py)?;
    }
    Ok(this)
}

#[pymethods]
impl MappedFilter {
    /// Whether the key may be in the set (`False`: it certainly is not).
    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains(keys::bytes(key)?))
    }

    /// `[key in self for key in keys]`, computed with the GIL released.
    fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let (mut out, mut part) = (Vec::new(), Vec::new());
        let filter: &AnyFilter = &self.inner;
        keys::in_chunks(keys, |py, chunk| {
            py.allow_threads(|| filter.contains_batch(chunk, &mut part));
            out.extend_from_slice(&part);
            Ok(())
        })?;
        Ok(out)
    }

    /// `contains_many` for the keys `data[offsets[i]:offsets[i + 1]]`.
    fn contains_buffer(
        &self,
        py: Python<'_>,
        data: &[u8],
        offsets: Vec<u64>,
    ) -> PyResult<Vec<bool>> {
        let slices = keys::cut(data, &offsets)?;
        let mut out = Vec::new();
        let filter: &AnyFilter = &self.inner;
        py.allow_threads(|| filter.contains_batch(&slices, &mut out));
        Ok(out)
    }

    /// An upper bound of how many times the key was added, for a variant that counts copies
    /// (counting, cuckoo); `FilterlabError` for the others.
    fn count(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let hash = self.inner.hasher().hash(keys::bytes(key)?);
        self.inner.count_hash(hash).map_err(err)
    }

    /// Items added, saturated at `sys.maxsize`.
    fn __len__(&self) -> usize {
        self.inner.len().min(isize::MAX as u64) as usize
    }

    /// Bytes of the filter's tables (the file's pages they lie in, not memory of this process).
    #[getter]
    fn size_in_bytes(&self) -> usize {
        self.inner.size_in_bytes()
    }

    /// Items the filter was sized for.
    #[getter]
    fn capacity(&self) -> u64 {
        self.inner.capacity()
    }

    /// The variant's name (`"classic"`, ...).
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.variant().name()
    }

    /// The path the filter was opened from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The false-positive rate the formulas give (at the current load).
    fn expected_fpr(&self) -> f64 {
        self.inner.expected_fpr()
    }

    /// Checks the whole file's checksum (reads every byte, with the GIL released); raises
    /// `FilterlabError` for a file whose bytes changed since it was saved.
    fn verify(&self, py: Python<'_>) -> PyResult<()> {
        py.allow_threads(|| self.inner.verify())
            .map_err(|e| err(format!("{} failed verification: {e}", self.path.display())))
    }

    /// A mapped filter is a view of its file, not a value: pickling it raises `TypeError`.
    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(format!(
            "a MappedFilter (a view of the file {}) cannot be pickled: pickle a loaded filter \
             (filterlab.load(path)) instead, or pass the path and filterlab.open it again",
            self.path.display()
        )))
    }

    fn __repr__(&self) -> String {
        format!(
            "MappedFilter(name={:?}, path={:?}, len={}, size_in_bytes={})",
            self.name(),
            self.path.display().to_string(),
            self.inner.len(),
            self.inner.size_in_bytes()
        )
    }
}
