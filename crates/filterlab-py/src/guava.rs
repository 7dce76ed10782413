//! `filterlab.GuavaBloomFilter`: Guava's `com.google.common.hash.BloomFilter`, bit for bit
//! ([`GuavaBloom`]), and `filterlab.load` of a file Guava's `writeTo` wrote.
//!
//! Keys hash as Guava's `Funnels.stringFunnel(UTF_8)` (a `str`) and
//! `Funnels.byteArrayFunnel()` (`bytes`) hash them. A file written by `save` or `to_bytes` is
//! read by Guava's `BloomFilter.readFrom` with either funnel.

use crate::busy::Locked;
use crate::{err, keys};
use filterlab::interop::guava::{GuavaBloom, Header, Strategy, HEADER_LEN};
use filterlab::Filter;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// Guava's `BloomFilter`: `GuavaBloomFilter(expected_insertions, fpp, strategy="mitz64")`
/// sizes it as `BloomFilter.create(funnel, expected_insertions, fpp)` does. A loaded filter
/// has no recorded count (a Guava file stores none): `len()` and `estimated_count()` are
/// estimated from its set bits (Swamidass & Baldi 2007). Shared by threads as the
/// single-threaded classes are (`crate::busy::Locked`): a call that meets another thread's
/// batch waits for its chunk.
#[pyclass(module = "filterlab._filterlab", frozen)]
pub struct GuavaBloomFilter {
    inner: Locked<GuavaBloom>,
}

/// `"mitz64"` or `"mitz32"` (Guava's MURMUR128_MITZ_64 and MURMUR128_MITZ_32).
fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "mitz64" | "MURMUR128_MITZ_64" => Ok(Strategy::Murmur128Mitz64),
        "mitz32" | "MURMUR128_MITZ_32" => Ok(Strategy::Murmur128Mitz32),
        other => Err(err(format!(
            "unknown Guava strategy {other:?}: \"mitz64\" (BloomFilter.create's) or \"mitz32\""
        ))),
    }
}

/// Whether `data` is a whole Guava `writeTo` file: a valid header that declares exactly its
/// length (a filterlab file starts with its magic, never with strategy ordinal 0 or 1).
pub(crate) fn is_guava(data: &[u8]) -> bool {
    data.get(..HEADER_LEN)
        .and_then(|h| Header::parse(h).ok())
        .is_some_and(|h| h.file_len() == data.len() as u64)
}

/// The bytes of the file at `path` when it is a whole Guava file (its header read first, the
/// rest only then); `None` for anything else, which the filterlab loader then reads.
pub(crate) fn read_if_guava(path: &std::path::Path) -> PyResult<Option<Vec<u8>>> {
    use std::io::Read;
    let Ok(mut file) = filterlab::open_regular(path) else {
        return Ok(None);
    };
    let len = file.metadata()?.len();
    let mut head = [0u8; HEADER_LEN];
    if file.read_exact(&mut head).is_err() {
        return Ok(None);
    }
    match Header::parse(&head) {
        Ok(h) if h.file_len() == len => {}
        _ => return Ok(None),
    }
    let mut data = head.to_vec();
    file.read_to_end(&mut data)?;
    Ok(Some(data))
}

impl GuavaBloomFilter {
    fn wrap(inner: GuavaBloom) -> Self {
        Self {
            inner: Locked::new(inner),
        }
    }

    /// The filter of a whole Guava file's bytes.
    pub(crate) fn parse(data: &[u8]) -> PyResult<Self> {
        GuavaBloom::from_bytes(data)
            .map(Self::wrap)
            .map_err(|e| err(format!("not a usable Guava BloomFilter: {e}")))
    }
}

#[pymethods]
impl GuavaBloomFilter {
    #[new]
    #[pyo3(signature = (expected_insertions, fpp = 0.03, strategy = "mitz64"))]
    fn new(expected_insertions: u64, fpp: f64, strategy: &str) -> PyResult<Self> {
        let s = self::strategy(strategy)?;
        GuavaBloom::new(expected_insertions, fpp, s)
            .map(Self::wrap)
            .map_err(err)
    }

    /// Guava's `put`: adds the key.
    fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let key = keys::bytes(key)?;
        self.inner.write(py, |f| f.insert(key)).map_err(err)
    }

    /// Guava's `mightContain`.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let key = keys::bytes(key)?;
        Ok(self.inner.read(py, |f| f.contains(key)))
    }

    /// `[key in self for key in keys]`, computed with the GIL released (the filter held for
    /// one chunk at a time).
    fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let mut out = Vec::new();
        keys::in_chunks(keys, |py, chunk| {
            self.inner.read_released(py, |f| {
                out.extend(chunk.iter().map(|k| f.contains(k)));
            });
            Ok(())
        })?;
        Ok(out)
    }

    /// Items added through this object, plus a loaded filter's estimated count.
    fn __len__(&self, py: Python<'_>) -> usize {
        self.inner
            .read(py, |f| f.len().min(isize::MAX as u64) as usize)
    }

    /// The count the set bits imply (Guava's `approximateElementCount()`, without its
    /// rounding).
    fn estimated_count(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.estimated_count())
    }

    /// The standard deviation of that estimate over filters holding that many items.
    fn estimated_count_sd(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.estimated_count_sd())
    }

    /// The false-positive rate at the estimated count (Guava's `expectedFpp()`).
    fn expected_fpr(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.estimated_fpr())
    }

    /// Bits, `m`.
    #[getter]
    fn bits(&self, py: Python<'_>) -> u64 {
        self.inner.read(py, |f| f.bits())
    }

    /// Hash functions, `k`.
    #[getter]
    fn hashes(&self, py: Python<'_>) -> u32 {
        self.inner.read(py, |f| f.hashes())
    }

    /// Guava's name of the strategy.
    #[getter]
    fn strategy(&self, py: Python<'_>) -> &'static str {
        self.inner.read(py, |f| f.strategy().name())
    }

    /// The bytes of Guava's `writeTo`.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.read(py, |f| f.to_bytes()))
    }

    /// The filter of bytes Guava's `writeTo` wrote; `FilterlabError` for anything else.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        Self::parse(data)
    }

    /// Writes `writeTo`'s bytes to `path`, replacing it atomically, holding the writers' lock
    /// of the file at `path` (the `filterlab` command's).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        crate::editing::saving(py, &path, || {
            self.inner
                .read_released(py, |f| f.save(&path))
                .map_err(PyErr::from)
        })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(PyObject, (Bound<'py, PyBytes>,))> {
        let py = slf.py();
        let from_bytes = py.get_type::<Self>().getattr("from_bytes")?.unbind();
        Ok((from_bytes, (slf.get().to_bytes(py),)))
    }

    fn __repr__(&self) -> String {
        let Some(f) = self.inner.peek() else {
            return "GuavaBloomFilter(<in use by another thread>)".into();
        };
        format!(
            "GuavaBloomFilter(strategy={:?}, bits={}, hashes={}, estimated_count={:.0})",
            f.strategy().name(),
            f.bits(),
            f.hashes(),
            f.estimated_count()
        )
    }
}
