//! The static filters: one Python class per registry row built once from its whole key set
//! (binary fuse, ribbon). They take their keys in the constructor and then only answer queries.

use crate::keys;
use crate::{err, load_err, read_file};
use filterlab::{AnyFilter, Filter, FormatError, Params, Persist, Variant};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// A filter of the variant whose files `R` writes, built from the keys of `obj` at `fpr`.
fn built<R: TryFrom<AnyFilter> + Persist>(obj: &Bound<'_, PyAny>, fpr: f64) -> PyResult<R> {
    let variant = Variant::from_id(R::KIND.id()).ok_or_else(|| err("not a registry variant"))?;
    let hasher = filterlab::KeyHasher::default();
    let mut hashes = Vec::new();
    keys::in_chunks(obj, |chunk| {
        hashes.extend(chunk.iter().map(|k| hasher.hash(k)));
        Ok(())
    })?;
    let params = Params::new((hashes.len() as u64).max(1), fpr).hasher(hasher);
    let f = AnyFilter::build_from_hashes(variant, &params, &hashes).map_err(err)?;
    R::try_from(f).map_err(|_| err("the registry built another variant"))
}

/// Writes the Python class `$py` (Rust name `$name`) around the static filter `$rust`.
macro_rules! static_class {
    ($(#[$doc:meta])* $name:ident, $py:literal, $rust:ty) => {
        $(#[$doc])*
        #[pyclass(module = "filterlab._filterlab", name = $py)]
        pub struct $name {
            pub(crate) inner: $rust,
        }

        impl $name {
            /// Loads the variant's file bytes.
            pub(crate) fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
                <$rust>::from_bytes(bytes).map(|inner| Self { inner })
            }
        }

        #[pymethods]
        impl $name {
            /// Built once from every key of an iterable of `str` or `bytes`, at target rate
            /// `fpr`; it takes no later key.
            #[new]
            #[pyo3(signature = (keys, fpr = 0.01))]
            fn new(keys: &Bound<'_, PyAny>, fpr: f64) -> PyResult<Self> {
                Ok(Self { inner: built(keys, fpr)? })
            }

            /// Whether the key may be in the set (`False`: it certainly is not).
            fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                Ok(self.inner.contains(keys::key(key)?.as_bytes()))
            }

            /// `[key in self for key in keys]`, computed with the GIL released.
            fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
                let inner = &self.inner;
                let (mut out, mut part) = (Vec::new(), Vec::new());
                keys::in_chunks(keys, |chunk| {
                    inner.contains_batch(chunk, &mut part);
                    out.extend_from_slice(&part);
                    Ok(())
                })?;
                Ok(out)
            }

            /// Distinct keys of the set.
            fn __len__(&self) -> usize {
                usize::try_from(self.inner.len()).unwrap_or(usize::MAX)
            }

            /// Bytes of the filter's tables.
            #[getter]
            fn size_in_bytes(&self) -> usize {
                self.inner.size_in_bytes()
            }

            /// The variant's name.
            #[getter]
            fn name(&self) -> &'static str {
                self.inner.name()
            }

            /// The false-positive rate the formulas give.
            fn expected_fpr(&self) -> f64 {
                self.inner.expected_fpr()
            }

            /// The checksummed file bytes (the format the Rust crates and the CLI read).
            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.inner.to_bytes())
            }

            /// Loads the bytes of `to_bytes`; `FilterlabError` if they are not this variant's.
            #[staticmethod]
            fn from_bytes(data: &[u8]) -> PyResult<Self> {
                Self::decode(data).map_err(err)
            }

            /// Writes the filter's file.
            fn save(&self, path: PathBuf) -> PyResult<()> {
                Ok(self.inner.save(path)?)
            }

            /// Reads a file written by `save`, the Rust crates or the CLI.
            #[staticmethod]
            fn load(path: PathBuf) -> PyResult<Self> {
                let bytes = read_file(&path)?;
                Self::decode(&bytes).map_err(|e| load_err(&path, &e))
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
                let bytes = PyBytes::new(slf.py(), &slf.borrow().inner.to_bytes());
                Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
            }

            fn __repr__(&self) -> String {
                format!(
                    "{}(len={}, size_in_bytes={})",
                    $py,
                    self.inner.len(),
                    self.inner.size_in_bytes()
                )
            }
        }
    };
}

static_class!(
    /// The binary fuse filter with 8-bit fingerprints (Graf & Lemire 2022): about 9 bits per
    /// key at a rate of 2^-8, built once from the key set.
    StaticFuse8, "BinaryFuse8", filterlab::StaticFuse8
);

static_class!(
    /// The binary fuse filter with 16-bit fingerprints (Graf & Lemire 2022): about 18 bits per
    /// key at a rate of 2^-16, built once from the key set.
    StaticFuse16, "BinaryFuse16", filterlab::StaticFuse16
);

static_class!(
    /// The standard ribbon filter (Dillinger & Walzer 2021): any rate down to 2^-16 at a few
    /// percent over the lower bound, built once from the key set.
    StaticRibbon, "Ribbon", filterlab::StaticRibbon
);
