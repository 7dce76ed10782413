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

use crate::busy::Locked;
use crate::err;
use filterlab::{ClassicBloom, Filter, Hash128, Persist};
use pyo3::basic::CompareOp;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyBytes, PyTuple, PyType};
use pyo3::{PyTraverseError, PyVisit};
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// The start of a saved `Bloom`: the filterlab file of its table follows (checksummed), keyed
/// by the hash function's integers rather than by bytes, so the CLI must not read it bare.
pub(crate) const MAGIC: &[u8; 16] = b"filterlab.Bloom\x01";

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
/// errors), on filterlab's classic filter. The table is behind the single-threaded classes'
/// lock (`crate::busy::Locked`); an object's key is computed (`hash_func` called) before the
/// lock is taken, so a `hash_func` may use the filter, and another thread never finds it busy.
#[pyclass(module = "filterlab._filterlab", name = "Bloom", frozen)]
pub struct Bloom {
    inner: Locked<ClassicBloom>,
    /// `None`: Python's built-in `hash`. Behind a mutex only for the garbage collector's
    /// `__clear__`; read once per key.
    hash_func: Mutex<Option<PyObject>>,
}

impl Bloom {
    fn new_with(inner: ClassicBloom, hash_func: Option<PyObject>) -> Self {
        Bloom {
            inner: Locked::new(inner),
            hash_func: Mutex::new(hash_func),
        }
    }

    fn hash_func_ref(&self, py: Python<'_>) -> Option<PyObject> {
        let f = self
            .hash_func
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        f.as_ref().map(|f| f.clone_ref(py))
    }

    fn key(&self, obj: &Bound<'_, PyAny>) -> PyResult<Hash128> {
        let h: i128 = match self.hash_func_ref(obj.py()) {
            None => obj.hash()? as i128,
            Some(f) => f.bind(obj.py()).call1((obj,))?.extract().map_err(|_| {
                PyTypeError::new_err("hash_func must return an integer in [-2^127, 2^127)")
            })?,
        };
        Ok(mixed(h))
    }

    fn with_filter(&self, py: Python<'_>, inner: ClassicBloom) -> Self {
        Self::new_with(inner, self.hash_func_ref(py))
    }

    /// rbloom's compatibility rule: the same size, `k` and hash function (the same object).
    fn check(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        let shape = |b: &Self| b.inner.read(py, |f| (f.bits(), f.hashes()));
        if shape(self) != shape(other) {
            return Err(PyValueError::new_err(
                "size and max false positive rate must be the same for both filters",
            ));
        }
        let same = match (self.hash_func_ref(py), other.hash_func_ref(py)) {
            (None, None) => true,
            (Some(a), Some(b)) => a.is(&b),
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
        let built = self.inner.read(py, |f| {
            ClassicBloom::builder()
                .capacity(f.capacity())
                .fpr(f.target_fpr())
                .bits(f.bits())
                .hashes(f.hashes())
                .hasher(f.hasher())
                .build()
        });
        Ok(self.with_filter(py, built.map_err(err)?))
    }

    /// `other` as a `Bloom` of this shape: itself, or the objects of an iterable added to an
    /// empty filter of this shape.
    fn as_bloom(
        &self,
        other: &Bound<'_, PyAny>,
        f: impl FnOnce(&Bloom) -> PyResult<bool>,
    ) -> PyResult<bool> {
        if let Ok(o) = other.downcast::<Bloom>() {
            self.check(other.py(), o.get())?;
            return f(o.get());
        }
        let empty = self.emptied(other.py())?;
        for obj in other.try_iter()? {
            empty.add(&obj?)?;
        }
        f(&empty)
    }

    fn saved(&self, py: Python<'_>) -> PyResult<Vec<u8>> {
        if self.hash_func_ref(py).is_none() {
            return Err(PyValueError::new_err(
                "Cannot save a bloom filter that uses the built-in hash function",
            ));
        }
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.inner.read(py, |f| f.to_bytes()));
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
        Ok(Self::new_with(inner, Some(hash_func.clone().unbind())))
    }

    /// `|=` of another filter's table (checked compatible).
    fn unite(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.check(py, other)?;
        self.inner
            .write_with(&other.inner, py, |f, o| f.union(o))
            .map_err(err)
    }

    /// `&=` of another filter's table (checked compatible).
    fn intersect(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.check(py, other)?;
        self.inner
            .write_with(&other.inner, py, |f, o| f.intersect(o))
            .map_err(err)
    }

    /// Whether every key of `a` is in `b` (one pass over the tables).
    fn subset(py: Python<'_>, a: &Self, b: &Self) -> PyResult<bool> {
        a.inner
            .read_with(&b.inner, py, |a, b| a.is_subset(b))
            .map_err(err)
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
        Ok(Self::new_with(inner, hash_func))
    }

    /// Bits of the table.
    #[getter]
    fn size_in_bits(&self, py: Python<'_>) -> u64 {
        self.inner.read(py, |f| f.bits())
    }

    /// The function that turns an object into its integer key (`hash` by default).
    #[getter]
    fn hash_func<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self.hash_func_ref(py) {
            Some(f) => Ok(f.into_bound(py)),
            None => builtin_hash(py).cloned(),
        }
    }

    /// Distinct objects added, estimated from the bits set (Swamidass & Baldi 2007).
    #[getter]
    fn approx_items(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.estimate_distinct())
    }

    /// The false-positive rate of the table as it stands, `(X/m)^k` for `X` bits set.
    fn expected_fpr(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.realised_fpr())
    }

    #[pyo3(signature = (obj, /))]
    fn add(&self, obj: &Bound<'_, PyAny>) -> PyResult<()> {
        // The key first (Python code may run in `hash_func`), then the table, locked.
        let h = self.key(obj)?;
        self.inner
            .write(obj.py(), |f| f.insert_hash(h))
            .map_err(err)
    }

    fn __contains__(&self, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
        let h = self.key(obj)?;
        Ok(self.inner.read(obj.py(), |f| f.contains_hash(h)))
    }

    fn __bool__(&self, py: Python<'_>) -> bool {
        self.inner.read(py, |f| f.fill_ratio() > 0.0)
    }

    fn __repr__(&self) -> String {
        let Some(f) = self.inner.peek() else {
            return "<Bloom in use by another thread>".into();
        };
        format!(
            "<Bloom size_in_bits={} approx_items={:.1}>",
            f.bits(),
            f.estimate_distinct()
        )
    }

    fn clear(&self, py: Python<'_>) {
        self.inner.write(py, |f| f.clear());
    }

    fn copy(&self, py: Python<'_>) -> Self {
        self.with_filter(py, self.inner.read(py, ClassicBloom::clone))
    }

    fn __copy__(&self, py: Python<'_>) -> Self {
        self.copy(py)
    }

    fn __or__(&self, py: Python<'_>, other: &Self) -> PyResult<Self> {
        let out = self.copy(py);
        out.unite(py, other)?;
        Ok(out)
    }

    fn __and__(&self, py: Python<'_>, other: &Self) -> PyResult<Self> {
        let out = self.copy(py);
        out.intersect(py, other)?;
        Ok(out)
    }

    fn __ior__(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.unite(py, other)
    }

    fn __iand__(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.intersect(py, other)
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
        let out = Bound::new(slf.py(), slf.get().copy(slf.py()))?;
        update(&out, others)?;
        Ok(out)
    }

    /// A new filter: the keys this one shares with every other.
    #[pyo3(signature = (*others))]
    fn intersection<'py>(
        slf: &Bound<'py, Self>,
        others: &Bound<'py, PyTuple>,
    ) -> PyResult<Bound<'py, Self>> {
        let out = Bound::new(slf.py(), slf.get().copy(slf.py()))?;
        intersection_update(&out, others)?;
        Ok(out)
    }

    #[pyo3(signature = (other, /))]
    fn issubset(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.as_bloom(other, |o| Self::subset(other.py(), self, o))
    }

    #[pyo3(signature = (other, /))]
    fn issuperset(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.as_bloom(other, |o| Self::subset(other.py(), o, self))
    }

    fn __richcmp__(&self, py: Python<'_>, other: &Self, op: CompareOp) -> PyResult<bool> {
        self.check(py, other)?;
        // One pass over the table for <= and >=, two for the others.
        let le = || Self::subset(py, self, other);
        let ge = || Self::subset(py, other, self);
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
        Ok(PyBytes::new(py, &self.saved(py)?))
    }

    /// Writes [`Self::save_bytes`] to `filepath` (a new file renamed into place), holding the
    /// writers' lock of the file at `filepath` (the `filterlab` command's) for the write.
    fn save(&self, py: Python<'_>, filepath: PathBuf) -> PyResult<()> {
        let bytes = self.saved(py)?;
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
        // Never blocks the collector: a mutex held elsewhere (a `key` lookup) skips the visit.
        if let Ok(f) = self.hash_func.try_lock() {
            if let Some(f) = f.as_ref() {
                visit.call(f)?;
            }
        }
        Ok(())
    }

    fn __clear__(&self) {
        let mut f = self
            .hash_func
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *f = None;
    }
}

/// `slf |= other` for each other: a `Bloom`'s bits, or an iterable's objects added one by one
/// (the table locked only while each is added, so an iterable may query it). `slf` itself
/// among the others adds nothing, as in rbloom.
fn update(slf: &Bound<'_, Bloom>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
    let (py, me) = (slf.py(), slf.get());
    for other in others.iter() {
        if other.is(slf) {
            continue;
        }
        if let Ok(o) = other.downcast::<Bloom>() {
            me.unite(py, o.get())?;
        } else {
            for obj in other.try_iter()? {
                me.add(&obj?)?;
            }
        }
    }
    Ok(())
}

/// `slf &= other` for each other: a `Bloom`'s bits, or a filter of an iterable's objects.
fn intersection_update(slf: &Bound<'_, Bloom>, others: &Bound<'_, PyTuple>) -> PyResult<()> {
    let (py, me) = (slf.py(), slf.get());
    for other in others.iter() {
        if other.is(slf) {
            continue;
        }
        if let Ok(o) = other.downcast::<Bloom>() {
            me.intersect(py, o.get())?;
            continue;
        }
        let objects = me.emptied(py)?;
        for obj in other.try_iter()? {
            objects.add(&obj?)?;
        }
        me.intersect(py, &objects)?;
    }
    Ok(())
}
