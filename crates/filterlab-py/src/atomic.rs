//! The filters that many Python threads share: every method takes `&self`, and the batches
//! run with the GIL released, so threads add and query at once.

use crate::keys;
use crate::{err, load_err, read_file};
use filterlab::{Filter, Persist};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// Writes the Python class `$name` around the lock-free Rust filter `$rust`, whose file is
/// that of `$single` (either form loads the other's).
macro_rules! atomic_class {
    ($(#[$doc:meta])* $name:ident, $rust:ty, $single:ty, $builder:path) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "filterlab._filterlab")]
        pub struct $name {
            inner: $rust,
        }

        #[pymethods]
        impl $name {
            /// An empty filter sized for `capacity` items at false-positive rate `fpr`.
            #[new]
            #[pyo3(signature = (capacity, fpr = 0.01))]
            fn new(capacity: u64, fpr: f64) -> PyResult<Self> {
                let inner = $builder().capacity(capacity).fpr(fpr).build_atomic().map_err(err)?;
                Ok(Self { inner })
            }

            /// Adds a key (`str` or `bytes`); safe from any number of threads.
            fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
                self.inner.insert(keys::key(key)?.as_bytes());
                Ok(())
            }

            /// Whether the key may have been added.
            fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                Ok(self.inner.contains(keys::key(key)?.as_bytes()))
            }

            /// Adds every key of an iterable of `str` or `bytes`, with the GIL released (once
            /// per chunk of 16,384 keys); a key of another type raises `TypeError`, the chunks
            /// before it stay added.
            fn add_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<()> {
                keys::in_chunks(keys, |chunk| {
                    chunk.iter().for_each(|k| self.inner.insert(k));
                    Ok(())
                })
            }

            /// `[key in self for key in keys]`, computed with the GIL released.
            fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
                let (mut out, mut part) = (Vec::new(), Vec::new());
                keys::in_chunks(keys, |chunk| {
                    self.inner.contains_batch(chunk, &mut part);
                    out.extend_from_slice(&part);
                    Ok(())
                })?;
                Ok(out)
            }

            /// Adds the keys `data[offsets[i]:offsets[i + 1]]`, with the GIL released.
            fn add_buffer(&self, py: Python<'_>, data: &[u8], offsets: Vec<u64>) -> PyResult<()> {
                let slices = keys::cut(data, &offsets)?;
                py.allow_threads(|| slices.iter().for_each(|k| self.inner.insert(k)));
                Ok(())
            }

            /// `contains_many` for the keys `data[offsets[i]:offsets[i + 1]]`.
            fn contains_buffer(&self, py: Python<'_>, data: &[u8], offsets: Vec<u64>) -> PyResult<Vec<bool>> {
                let slices = keys::cut(data, &offsets)?;
                let mut out = Vec::new();
                py.allow_threads(|| self.inner.contains_batch(&slices, &mut out));
                Ok(out)
            }

            /// Items added.
            fn __len__(&self) -> usize {
                usize::try_from(self.inner.len()).unwrap_or(usize::MAX)
            }

            /// Items the filter was sized for.
            #[getter]
            fn capacity(&self) -> u64 {
                self.inner.capacity()
            }

            /// Bytes of the filter's tables.
            #[getter]
            fn size_in_bytes(&self) -> usize {
                self.inner.size_in_bytes()
            }

            /// The false-positive rate the formulas give at the current load.
            fn expected_fpr(&self) -> f64 {
                self.inner.expected_fpr()
            }

            /// The checksummed file bytes: the single-threaded variant's file.
            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.inner.to_bytes())
            }

            /// Loads the bytes of `to_bytes` (of this or of the single-threaded class).
            #[staticmethod]
            fn from_bytes(data: &[u8]) -> PyResult<Self> {
                <$rust>::from_bytes(data).map(|inner| Self { inner }).map_err(err)
            }

            /// Writes the filter's file.
            fn save(&self, path: PathBuf) -> PyResult<()> {
                Ok(self.inner.save(path)?)
            }

            /// Reads a file written by `save`, the Rust crates or the CLI.
            #[staticmethod]
            fn load(path: PathBuf) -> PyResult<Self> {
                let bytes = read_file(&path)?;
                <$rust>::from_bytes(&bytes)
                    .map(|inner| Self { inner })
                    .map_err(|e| load_err(&path, &e))
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
                let bytes = PyBytes::new(slf.py(), &slf.get().inner.to_bytes());
                Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
            }

            fn __repr__(&self) -> String {
                format!(
                    "{}(capacity={}, len={}, size_in_bytes={})",
                    stringify!($name),
                    self.inner.capacity(),
                    self.inner.len(),
                    self.inner.size_in_bytes()
                )
            }
        }
    };
}

atomic_class!(
    /// The classic Bloom filter with atomic words: shared by threads.
    AtomicClassicBloom,
    filterlab::AtomicClassicBloom,
    filterlab::ClassicBloom,
    filterlab::ClassicBloom::builder
);

atomic_class!(
    /// The split-block Bloom filter with atomic words: shared by threads.
    AtomicBlockedBloom,
    filterlab::AtomicBlockedBloom,
    filterlab::BlockedBloom,
    filterlab::BlockedBloom::builder
);
