//! filterlab for Python: every filterlab variant as a Python class, built by maturin as one
//! stable-ABI (abi3, CPython 3.10+) extension module, `filterlab._filterlab`, re-exported by the
//! pure-Python package `filterlab` (python/filterlab/).
//!
//! - Keys are `str` (hashed as their UTF-8 bytes, so `"a"` and `b"a"` are the same key) or
//!   `bytes`. The batch methods (`add_many`, `contains_many`, `*_buffer`) hash and probe with the
//!   GIL released.
//! - The single-threaded classes (`ClassicBloom`, ..., `Bloom`, `GuavaBloomFilter`) hold their
//!   Rust filter behind a read-write lock (`busy::Locked`): many threads may query one at
//!   once, a write has it alone, and a call that meets another thread's batch waits for that
//!   chunk (with the GIL released) instead of raising. `AtomicClassicBloom` and
//!   `AtomicBlockedBloom` take any number of threads at once, with no lock.
//! - `save`, `load`, `to_bytes`, `from_bytes` and pickle go through the checksummed file format,
//!   the files the Rust crates and the `filterlab` CLI read and write. `filterlab.editing(path)`
//!   holds the CLI writers' lock from a load to its save, and every `save` over an existing
//!   file takes it for its write (module `editing`).
//! - Every error the Rust side reports is raised as `FilterlabError` (a `ValueError`) carrying
//!   the Rust message; a file that cannot be read or written raises the `OSError` of its cause.
#![deny(missing_docs)]

mod atomic;
mod bloom;
mod busy;
mod costs;
mod editing;
mod filters;
mod guava;
mod keys;
mod mapped;
mod parquet;
mod pybloom;
mod refusal;
mod statics;

use filterlab::format::mapped::FileBytes;
use filterlab::{format, AnyFilter, FormatError, Variant};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;
use std::path::PathBuf;

pyo3::create_exception!(
    filterlab,
    FilterlabError,
    pyo3::exceptions::PyValueError,
    "A filterlab operation was refused; the message is the Rust library's."
);

/// A filterlab error as the Python exception that carries its message.
pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    FilterlabError::new_err(e.to_string())
}

/// A filter's file read for a load: only a regular file (a FIFO without a writer would block
/// forever; refused without waiting), a header that declares more payload than its parameters
/// describe refused before the payload is read (a crafted header on a sparse file costs the
/// header); then a version 2 file mapped, for a load that reads each table from the file
/// straight into the filter's memory (peak: the filter, not the file and the filter), and a
/// version 1 file read whole, with no allocation past the file's size
/// ([`AnyFilter::read_or_map`]).
pub(crate) fn read_file(path: &std::path::Path) -> PyResult<FileBytes> {
    let file = filterlab::open_regular(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => err(e),
        _ => e.into(),
    })?;
    filterlab::AnyFilter::read_or_map(&file).map_err(|e| {
        match e.get_ref().and_then(|i| i.downcast_ref::<FormatError>()) {
            Some(format) => load_err(path, format),
            None => e.into(),
        }
    })
}

/// A format error with the path that produced it.
pub(crate) fn load_err(path: &std::path::Path, e: &FormatError) -> PyErr {
    err(format!(
        "{} is not a usable filterlab filter: {e}",
        path.display()
    ))
}

/// Calls `$callback! { rows }` with the rows of the registry that have a Python class: every
/// row but the sliding windows (capability `windowed`). Those are not in this package yet: a
/// window's constructor takes a window rather than a capacity, and a window counted in time
/// takes a time with every insert and query, which the shared class body
/// (`filters::filter_class!`) does not have. Their files load in Rust and the CLI;
/// `filterlab.load` refuses them with a `FilterlabError` naming the variant.
macro_rules! python_rows {
    (@go $cb:ident [$($kept:tt)*]) => {
        $cb! { $($kept)* }
    };
    (@go $cb:ident [$($kept:tt)*] $name:ident => $ty:ident [$($cap:ident),*] $(, $($rest:tt)*)?) => {
        python_rows!(@cap $cb [$($kept)*] ($name => $ty [$($cap),*]) [$($cap)*] $($($rest)*)?);
    };
    (@cap $cb:ident [$($kept:tt)*] ($($row:tt)*) [windowed $($c:ident)*] $($rest:tt)*) => {
        python_rows!(@go $cb [$($kept)*] $($rest)*);
    };
    (@cap $cb:ident [$($kept:tt)*] ($($row:tt)*) [$first:ident $($c:ident)*] $($rest:tt)*) => {
        python_rows!(@cap $cb [$($kept)*] ($($row)*) [$($c)*] $($rest)*);
    };
    (@cap $cb:ident [$($kept:tt)*] ($($row:tt)*) [] $($rest:tt)*) => {
        python_rows!(@go $cb [$($kept)* $($row)*,] $($rest)*);
    };
}

/// A filter of any variant as the Python class of the same name as its Rust type (one per
/// row of the registry with a class, [`python_rows`]).
macro_rules! any_to_python {
    ($($name:ident => $ty:ident [$($cap:ident),*]),+ $(,)?) => {
        fn any_to_python(py: Python<'_>, f: AnyFilter) -> Result<PyObject, AnyError> {
            let obj = match f {
                $(AnyFilter::$name(inner) => filters::$ty::wrap(inner).into_py_any(py),)+
                other => {
                    let msg = format!(
                        "{} filters are not supported by this package",
                        other.variant().name()
                    );
                    return Err(AnyError::Format(format::invalid(msg)));
                }
            };
            obj.map_err(AnyError::Py)
        }
    };
}
macro_rules! any_to_python_rows {
    ($($rows:tt)*) => { python_rows!(@go any_to_python [] $($rows)*); };
}
filterlab::for_each_variant!(any_to_python_rows);

/// The name of the Python class of a variant (`None`: a variant with no class here).
macro_rules! python_class {
    ($($name:ident => $ty:ident [$($cap:ident),*]),+ $(,)?) => {
        pub(crate) fn python_class(v: Variant) -> Option<&'static str> {
            match v {
                $(Variant::$name => Some(<filters::$ty as pyo3::PyTypeInfo>::NAME),)+
                #[allow(unreachable_patterns)]
                _ => None,
            }
        }
    };
}
macro_rules! python_class_rows {
    ($($rows:tt)*) => { python_rows!(@go python_class [] $($rows)*); };
}
filterlab::for_each_variant!(python_class_rows);

/// Adds the class of every variant of the registry that has one ([`python_rows`]) to the module.
macro_rules! add_variant_classes {
    ($($name:ident => $ty:ident [$($cap:ident),*]),+ $(,)?) => {
        fn add_variant_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_class::<filters::$ty>()?;)+
            Ok(())
        }
    };
}
macro_rules! add_variant_classes_rows {
    ($($rows:tt)*) => { python_rows!(@go add_variant_classes [] $($rows)*); };
}
filterlab::for_each_variant!(add_variant_classes_rows);

/// Why [`any_to_python()`] (or the load before it) failed.
enum AnyError {
    Format(FormatError),
    Py(PyErr),
}

impl From<FormatError> for AnyError {
    fn from(e: FormatError) -> Self {
        Self::Format(e)
    }
}

/// Loads a filter of any variant from the bytes of a filterlab file.
#[pyfunction]
fn from_bytes(py: Python<'_>, data: &[u8]) -> PyResult<PyObject> {
    if guava::is_guava(data) {
        return guava::GuavaBloomFilter::parse(data)?.into_py_any(py);
    }
    if refusal::is_bloom(data) {
        return Err(refusal::bloom(refusal::Source::Bytes));
    }
    let loaded = AnyFilter::from_bytes(data).map_err(AnyError::Format);
    loaded
        .and_then(|f| any_to_python(py, f))
        .map_err(|e| match e {
            AnyError::Format(e) => err(e),
            AnyError::Py(e) => e,
        })
}

/// Loads a filter of any variant from a file written by `save`, the Rust crates or the CLI
/// (a version 2 file with one copy of its tables in memory: [`read_file`]).
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<PyObject> {
    if let Some(filters) = parquet::read_if_parquet(&path)? {
        return filters.into_py_any(py);
    }
    if let Some(data) = guava::read_if_guava(&path)? {
        return guava::GuavaBloomFilter::parse(&data)
            .map_err(|_| {
                err(format!(
                    "{} has a Guava BloomFilter's header but cannot be read",
                    path.display()
                ))
            })?
            .into_py_any(py);
    }
    if refusal::is_bloom_file(&path) {
        return Err(refusal::bloom(refusal::Source::File(&path)));
    }
    let file = read_file(&path)?;
    let loaded = AnyFilter::from_file_bytes(&file).map_err(AnyError::Format);
    drop(file);
    loaded
        .and_then(|f| any_to_python(py, f))
        .map_err(|e| match e {
            AnyError::Format(e) => load_err(&path, &e),
            AnyError::Py(e) => e,
        })
}

/// The name of the variant stored in a filterlab file's bytes (`"classic"`, ...).
#[pyfunction]
fn peek_variant(data: &Bound<'_, PyBytes>) -> PyResult<&'static str> {
    Variant::peek(data.as_bytes())
        .map(Variant::name)
        .map_err(err)
}

/// The extension module.
#[pymodule]
fn _filterlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FilterlabError", m.py().get_type::<FilterlabError>())?;
    m.add(
        "FilterBusyError",
        m.py().get_type::<busy::FilterBusyError>(),
    )?;
    add_variant_classes(m)?;
    m.add_class::<atomic::AtomicClassicBloom>()?;
    m.add_class::<atomic::AtomicBlockedBloom>()?;
    m.add_class::<bloom::Bloom>()?;
    m.add_class::<editing::Editing>()?;
    m.add_class::<guava::GuavaBloomFilter>()?;
    m.add_class::<parquet::ParquetFilters>()?;
    // Measuring only (the harness's call costs): set, not added, so that it stays out of
    // `__all__`.
    m.setattr("_CallCost", m.py().get_type::<costs::CallCost>())?;
    m.add_function(wrap_pyfunction!(from_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(peek_variant, m)?)?;
    m.add_class::<mapped::MappedFilter>()?;
    // Set, not added: kept out of `__all__`, so that `from filterlab import *` does not hide
    // the built-in `open`; the package imports it by name (python/filterlab/__init__.py).
    m.setattr("open", wrap_pyfunction!(mapped::open_mapped, m)?)?;
    // pybloom_live's layout, private to `filterlab.pybloom_compat`: set, not added, so that
    // they stay out of `__all__`.
    m.setattr("_SlicedHashes", m.py().get_type::<pybloom::SlicedHashes>())?;
    m.setattr("_SlicedTable", m.py().get_type::<pybloom::SlicedTable>())?;
    m.setattr(
        "_xxh3_128_digest",
        wrap_pyfunction!(pybloom::xxh3_128_digest, m)?,
    )?;
    Ok(())
}
