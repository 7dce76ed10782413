//! `filterlab.Bloom`: rbloom's API (a set-like Bloom filter of any hashable Python object) on
//! filterlab's classic filter.
//!
//! As in rbloom, an object's key is what `hash_func` returns for it: Python's built-in `hash`
//! by default (fast, cached by `str`, but salted per process for `str` and `bytes`, so such a
//! filter cannot be saved), or any callable returning an integer in `[-2^127, 2^127)` (a
//! stable one, such as a SHA-256-based function, makes the filter savable). The integer's 128
//! bits are mixed (MurmurHash3's `fmix64` on each half, the high half mixed with the low) into
//! the classic filter's two hash halves, from which it derives its `k` positions; the bits
//! therefore differ from rbloom's, and files are this module's own.
//!
//! Sizing is rbloom's: `m = -n ln p / ln² 2` bits rounded down, then up to whole bytes, and
//! `k = (m / n) ln 2` rounded down (at least 1, at most 64), so `size_in_bits` and `repr`
//! agree with rbloom's for the same arguments.

use crate::err;
use filterlab::{ClassicBloom, Filter, Hash128, Persist};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};
use std::path::PathBuf;

/// The start of a saved `Bloom`: the filterlab file of its table follows (checksummed), keyed
/// by the hash function's integers rather than by bytes, so the CLI must not read it bare.
const MAGIC: &[u8; 16] = b"filterlab.Bloom\x01";

/// MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit over the output.
fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The filter's hash of an object whose `hash_func` gave `h`.
fn mixed(h: i128) -> Hash128 {
    let h = h as u128;
    let (lo, hi) = (h as u64, (h >> 64) as u64);
    Hash128 {
        lo: fmix64(lo),
        hi: fmix64(hi ^ lo.rotate_left(31) ^ 0x9e37_79b9_7f4a_7c15),
    }
}

/// Python's built-in `hash`, looked up once.
fn builtin_hash(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    static HASH: GILOnceCell<PyObject> = GILOnceCell::new();
    HASH.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("builtins")?.getattr("hash")?.unbind())
    })
    .map(|h| h.bind(py))
}

/// rbloom's shape for `n` items at rate `p`: `(m, k)`.
fn shape(n: u64, p: f64) -> PyResult<(u64, u32)> {
    if !(p > 0.0 && p < 1.0) {
        return Err(PyValueError::new_err(
            "false_positive_rate must be between 0 and 1",
        ));
    }
    if n == 0 {
        return Err(PyValueError::new_err(
            "expected_items must be greater than 0",
        ));
    }
    let ln2 = std::f64::consts::LN_2;
    let bits = -(n as f64) * p.ln() / (ln2 * ln2);
    let k = (bits / n as f64 * ln2) as u64;
    let m = ((bits as u64).max(1)).div_ceil(8) * 8;
    Ok((m, k.clamp(1, 64) as u32))
}

/// A Bloom filter of Python objects with rbloom's API (`rbloom.Bloom`'s methods, arguments and
/// errors), on filterlab's classic filter.
#[pyclass(module = "filterlab._filterlab", name = "Bloom")]
pub struct Bloom {
    inner: ClassicBloom,
    /// `None`: Python's built-in `hash`.
    hash_func: Option<PyObject>,
}

impl Bloom {
    fn key(&self, obj: &Bound<'_, PyAny>) -> PyResult<Hash128> {
        let h: i128 = match &self.hash_func {
            None => obj.hash()? as i128,
            Some(f) => f.bind(obj.py()).call1((obj,))?.extract().map_err(|_| {
                PyTypeError::new_err("hash_func must return an integer in [-2^127, 2^127)")
            })?,
        };
        Ok(mixed(h))
    }

    fn with_filter(&self, py: Python<'_>, inner: ClassicBloom) -> Self {
        Bloom {
            inner,
            hash_func: self.hash_func.as_ref().map(|f| f.clone_ref(py)),
        }
    }

    /// rbloom's compatibility rule: the same size, `k` and hash function (the same object).
    fn check(&self, other: &Self) -> PyResult<()> {
        if (self.inner.bits(), self.inner.hashes()) != (other.inner.bits(), other.inner.hashes()) {
            return Err(PyValueError::new_err(
                "size and max false positive rate must be the same for both filters",
            ));
        }
        let same = match (&self.hash_func, &other.hash_func) {
            (None, None) => true,
            (Some(a), Some(b)) => a.is(b),
            _ => false,
        };
        if same {
            Ok(())
        } else {
            Err(PyValueError::new_err(
                "Bloom filters must have the same hash function",
            ))
        }
    }

    /// An empty filter of this one's shape, hasher and `hash_func` (a fresh zeroed table: no
    /// copy of this one's bits).
    fn emptied(&self, py: Python<'_>) -> PyResult<Self> {
        let inner = ClassicBloom::builder()
            .capacity(self.inner.capacity())
            .fpr(self.inner.target_fpr())
            .bits(self.inner.bits())
            .hashes(self.inner.hashes())
            .hasher(self.inner.hasher())
            .build()
            .map_err(err)?;
        Ok(self.with_filter(py, inner))
    }

    /// `other` as a `Bloom` of this shape: itself, or the objects of an iterable added to an
    /// empty filter of this shape.
    fn as_bloom(
        &self,
        other: &Bound<'_, PyAny>,
        f: impl FnOnce(&Bloom) -> PyResult<bool>,
    ) -> PyResult<bool> {
        if let Ok(o) = other.downcast::<Bloom>() {
            let o = crate::busy::read(o)?;
            self.check(&o)?;
            return f(&o);
        }
        let mut empty = self.emptied(other.py())?;
        for obj in other.try_iter()? {
            empty.add(&obj?)?;
        }
        f(&empty)
    }

    fn saved(&self) -> PyResult<Vec<u8>> {
        if self.hash_func.is_none() {
            return Err(PyValueError::new_err(
                "Cannot save a bloom filter that uses the built-in hash function",
            ));
        }
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.inner.to_bytes());
        Ok(out)
    }

    fn loaded(data: &[u8], hash_func: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !hash_func.is_callable() {
            return Err(PyTypeError::new_err("hash_func must be callable"));
        }
        if hash_func.is(builtin_hash(hash_func.py())?) {
            return Err(PyValueError::new_err(
                "Cannot load a bloom filter that uses the built-in hash function",
            ));
        }
        let Some(table) = data.strip_prefix(MAGIC.as_slice()) else {
            return Err(err(
                "not a saved filterlab.Bloom (its first 16 bytes differ)",
            ));
        };
        let inner = ClassicBloom::from_bytes(table).map_err(err)?;
        Ok(Bloom {
            inner,
            hash_func: Some(hash_func.clone().unbind()),
        })
    }
}

#[pymethods]
impl Bloom {
    #[new]
    #[pyo3(signature = (expected_items, false_positive_rate, hash_func = None))]
    fn new(
        expected_items: u64,
        false_positive_rate: f64,
        hash_func: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (m, k) = shape(expected_items, false_positive_rate)?;
        let hash_func = match hash_func {
            Some(f) if !f.is(builtin_hash(f.py())?) => {
                if !f.is_callable() {
                    return Err(PyTypeError::new_err("hash_func must be callable"));
                }
                Some(f.clone().unbind())
            }
            _ => None,
        };
        let inner = ClassicBloom::builder()
            .capacity(expected_items)
            .fpr(false_positive_rate)
            .bits(m)
            .hashes(k)
            .build()
            .map_err(err)?;
        Ok(Bloom { inner, hash_func })
    }

    /// Bits of the table.
    #[getter]
    fn size_in_bits(&self) -> u64 {
        self.inner.bits()
    }

    /// The function that turns an object into its integer key (`hash` by default).
    #[getter]
    fn hash_func<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.hash_func {
            Some(f) => Ok(f.bind(py).clone()),
            None => builtin_hash(py).cloned(),
        }
    }

    /// Distinct objects added, estimated from the bits set (Swamidass & Baldi 2007).
    #[getter]
    fn approx_items(&self) -> f64 {
        self.inner.estimate_distinct()
    }

    /// The false-positive rate of the table as it stands, `(X/m)^k` for `X` bits set.
    fn expected_fpr(&self) -> f64 {
        self.inner.realised_fpr()
    }

    #[pyo3(signature = (obj, /))]
    fn add(&mut self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        let h = self.key(obj)?;
        self.inner.insert_hash(h).map_err(err)
    }

    fn __contains__(&self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains_hash(self.key(obj)?))
    }

    fn __bool__(&self) -> bool {
        self.inner.fill_ratio() > 0.0
    }

    fn __repr__(&self) -> String {
        format!(
            "<Bloom size_in_bits={} approx_items={:.1}>",
            self.size_in_bits(),
            self.approx_items()
        )
    }

    fn clear(&mut self) {
        self.inner.clear();
    }

    fn copy(&self, py: Python<'_>) -> Self {
        self.with_filter(py, self.inner.clone())
    }

    fn __copy__(&self, py: Python<'_>) -> Self {
        self.copy(py)
    }

    fn __or__(&self, py: Python<'_>, other: PyRef<'_, Self>) -> PyResult<Self> {
        let mut out = self.copy(py);
        out.__ior__(other)?;
        Ok(out)
    }

    fn __and__(&self, py: Python<'_>, other: PyRef<'_, Self>) -> PyResult<Self> {
        let mut out = self.copy(py);
        out.__iand__(other)?;
        Ok(out)
    }

    fn __ior__(&mut self, other: PyRef<'_, Self>) -> PyResult<()> {
        self.check(&other)?;
        self.inner.union(&other.inner).map_err(err)
    }

    fn __iand__(&mut self, other: PyRef<'_, Self>) -> PyResult<()> {
        self.check(&other)?;
        self.inner.intersect(&other.inner).map_err(err)
    }

    /// Adds every object of each iterable, and every key of each `Bloom`.
    #[pyo3(signature = (*others))]
    fn update(slf: &Bound<'_, Self>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
        update(slf, others)
    }

    /// Keeps only what each other filter (or iterable's objects) also holds.
    #[pyo3(signature = (*others))]
    fn intersection_update(slf: &Bound<'_, Self>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
        intersection_update(slf, others)
    }

    /// A new filter: this one's keys and every other's.
    #[pyo3(signature = (*others))]
    fn union<'py>(
        slf: &Bound<'py, Self>,
        others: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, Self>> {
        let out = Bound::new(slf.py(), crate::busy::read(slf)?.copy(slf.py()))?;
        update(&out, others)?;
        Ok(out)
    }

    /// A new filter: the keys this one shares with every other.
    #[pyo3(signature = (*others))]
    fn intersection<'py>(
        slf: &Bound<'py, Self>,
        others: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, Self>> {
        let out = Bound::new(slf.py(), crate::busy::read(slf)?.copy(slf.py()))?;
        intersection_update(&out, others)?;
        Ok(out)
    }

    #[pyo3(signature = (other, /))]
    fn issubset(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.as_bloom(other, |o| self.inner.is_subset(&o.inner).map_err(err))
    }

    #[pyo3(signature = (other, /))]
    fn issuperset(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.as_bloom(other, |o| o.inner.is_subset(&self.inner).map_err(err))
    }

    fn __richcmp__(&self, other: PyRef<'_, Self>, op: CompareOp) -> PyResult<bool> {
        self.check(&other)?;
        let (a, b) = (&self.inner, &other.inner);
        // One pass over the table for <= and >=, two for the others.
        let le = || a.is_subset(b).map_err(err);
        let ge = || b.is_subset(a).map_err(err);
        Ok(match op {
            CompareOp::Le => le()?,
            CompareOp::Ge => ge()?,
            CompareOp::Eq => le()? && ge()?,
            CompareOp::Ne => !(le()? && ge()?),
            CompareOp::Lt => le()? && !ge()?,
            CompareOp::Gt => ge()? && !le()?,
        })
    }

    #[classattr]
    const __hash__: Option<PyObject> = None;

    /// The filter's bytes: a 16-byte marker, then its table as a checksummed filterlab file.
    fn save_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.saved()?))
    }

    /// Writes [`Self::save_bytes`] to `filepath` (a new file renamed into place).
    /// Holds the writers' lock of the file at `filepath` (the `filterlab` command's) for the
    /// write.
    fn save(&self, py: Python<'_>, filepath: PathBuf) -> PyResult<()> {
        let bytes = self.saved()?;
        crate::editing::saving(py, &filepath, || {
            filterlab::write_atomically(&filepath, &bytes).map_err(PyErr::from)
        })
    }

    /// A filter saved by `save_bytes`, keyed by `hash_func` (the one it was saved with).
    #[classmethod]
    fn load_bytes(
        _cls: &Bound<'_, PyType>,
        data: &[u8],
        hash_func: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        Self::loaded(data, hash_func)
    }

    /// A filter saved by `save`, keyed by `hash_func` (the one it was saved with).
    #[classmethod]
    fn load(
        _cls: &Bound<'_, PyType>,
        filepath: PathBuf,
        hash_func: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        // Only a regular file (a FIFO would block), read no further than its size, into
        // memory reserved fallibly.
        let file = filterlab::open_regular(&filepath)?;
        let size = file.metadata()?.len();
        let data = filterlab::read_limited(&file, size, size)?;
        Self::loaded(&data, hash_func)
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(f) = &self.hash_func {
            visit.call(f)?;
        }
        Ok(())
    }

    fn __clear__(&mut self) {
        self.hash_func = None;
    }
}

/// `slf |= other` for each other: a `Bloom`'s bits, or an iterable's objects added one by one
/// (the filter is borrowed only while each is added, so an iterable may query it). `slf`
/// itself among the others adds nothing, as in rbloom.
fn update(slf: &Bound<'_, Bloom>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
    for other in others.iter() {
        if other.is(slf) {
            continue;
        }
        if let Ok(o) = other.downcast::<Bloom>() {
            crate::busy::write(slf)?.__ior__(crate::busy::read(o)?)?;
        } else {
            for obj in other.try_iter()? {
                let obj = obj?;
                crate::busy::write(slf)?.add(&obj)?;
            }
        }
    }
    Ok(())
}

/// `slf &= other` for each other: a `Bloom`'s bits, or a filter of an iterable's objects.
fn intersection_update(slf: &Bound<'_, Bloom>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
    for other in others.iter() {
        if other.is(slf) {
            continue;
        }
        if let Ok(o) = other.downcast::<Bloom>() {
            crate::busy::write(slf)?.__iand__(crate::busy::read(o)?)?;
            continue;
        }
        let mut objects = crate::busy::read(slf)?.emptied(slf.py())?;
        for obj in other.try_iter()? {
            objects.add(&obj?)?;
        }
        let objects = Bound::new(slf.py(), objects)?;
        crate::busy::write(slf)?.__iand__(crate::busy::read(&objects)?)?;
    }
    Ok(())
}
