//! The single-threaded filters: one Python class per variant, each owning its Rust filter.
//!
//! One macro, [`filter_class!`], writes what every class shares, single-threaded or shared
//! between threads (construction, keys, batches, sizes, files, pickle), and the methods of
//! each capability once (`union`, `remove` and `count`, `stages`); an invocation lists the
//! variant's capabilities and adds its own methods (`bits`, `resize`, `with_growth`). The
//! shared classes are in `atomic.rs`; python/filterlab/_filterlab.pyi mirrors this layout
//! with one private base class per shared part.

use crate::keys;
use crate::{err, load_err, read_file};
use filterlab::format::mapped::FileBytes;
use filterlab::{Deletable, Filter, FormatError, Growable, Persist};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// Writes the Python class `$name` around a Rust filter, in one of three forms:
///
/// * `$name, $rust, [capabilities] { extra methods }`: a single-threaded filter (`add` takes
///   `&mut self` and may fail), with `insert_if_absent`, `name`, the methods of each
///   capability listed (`unites`: `union`; `deletes`: `remove`, `count`; `grows`: `stages`,
///   `fpr_bound`) and the variant's own methods;
/// * `shared $name, $rust, $single`: a lock-free filter (`frozen`: every method takes `&self`,
///   so many Python threads add and query at once), whose file is `$single`'s;
/// * `static $name, $py, $rust`: a static filter (Python name `$py`), built once from its
///   whole key set by `statics::built` and then only queried.
///
/// All share one body (`@class`): queries, batches, sizes, files, pickle; the two that are
/// sized for a capacity and take keys later share `@sized` (construction, `capacity`).
macro_rules! filter_class {
    (@class [$($doc:tt)*] [$($attrs:tt)*] $cell:ident $name:ident, $rust:ty, { $($methods:tt)* }) => {
        $($doc)*
        #[pyclass($($attrs)* frozen, module = "filterlab._filterlab")]
        pub struct $name {
            pub(crate) inner: crate::busy::$cell<$rust>,
        }

        impl $name {
            /// The class around `inner`.
            pub(crate) fn wrap(inner: $rust) -> Self {
                Self { inner: crate::busy::$cell::new(inner) }
            }

            /// Loads the variant's file bytes.
            pub(crate) fn decode(bytes: &[u8]) -> Result<Self, FormatError> {
                <$rust>::from_bytes(bytes).map(Self::wrap)
            }

            /// Loads the variant's file as [`read_file`] read it.
            pub(crate) fn decode_file(file: &FileBytes) -> Result<Self, FormatError> {
                <$rust>::from_file_bytes(file).map(Self::wrap)
            }
        }

        #[pymethods]
        impl $name {
            /// Whether the key may be in the set (`False`: it certainly is not).
            fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                let key = keys::bytes(key)?;
                Ok(self.inner.read(py, |f| f.contains(key)))
            }

            /// `[key in self for key in keys]`, computed with the GIL released (the filter
            /// held for one chunk at a time).
            fn contains_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
                let (mut out, mut part) = (Vec::new(), Vec::new());
                keys::in_chunks(keys, |py, chunk| {
                    self.inner.read_released(py, |f| f.contains_batch(chunk, &mut part));
                    out.extend_from_slice(&part);
                    Ok(())
                })?;
                Ok(out)
            }

            /// Items added (a static filter: distinct keys of its set), saturated at
            /// `sys.maxsize`, the most `len()` can return (a file can declare up to 2^64 - 1).
            fn __len__(&self, py: Python<'_>) -> usize {
                let most = isize::MAX as u64;
                self.inner.read(py, |f| f.len().min(most) as usize)
            }

            /// Bytes of the filter's tables.
            #[getter]
            fn size_in_bytes(&self, py: Python<'_>) -> usize {
                self.inner.read(py, |f| f.size_in_bytes())
            }

            /// The false-positive rate the formulas give (at the current load).
            fn expected_fpr(&self, py: Python<'_>) -> f64 {
                self.inner.read(py, |f| f.expected_fpr())
            }

            /// The checksummed file bytes (the format the Rust crates and the CLI read; a
            /// shared filter writes its single-threaded variant's file).
            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, &self.inner.read(py, |f| f.to_bytes()))
            }

            /// Loads the bytes of `to_bytes` (a shared filter also loads its single-threaded
            /// variant's); `FilterlabError` if they are not this variant's.
            #[staticmethod]
            fn from_bytes(data: &[u8]) -> PyResult<Self> {
                let source = crate::refusal::Source::Bytes;
                if crate::refusal::is_bloom(data) {
                    return Err(crate::refusal::bloom(source));
                }
                Self::decode(data).map_err(|e| {
                    let wanted = <Self as pyo3::PyTypeInfo>::NAME;
                    crate::refusal::wrong_class(&e, wanted, source).unwrap_or_else(|| err(e))
                })
            }

            /// Writes the filter's file (a new file renamed over `path`), holding the writers'
            /// lock of the file at `path`, the `filterlab` command's.
            fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
                crate::editing::saving(py, &path, || {
                    Ok(self.inner.read(py, |f| f.save(&path))?)
                })
            }

            /// Reads a file written by `save`, the Rust crates or the CLI.
            #[staticmethod]
            fn load(path: PathBuf) -> PyResult<Self> {
                let source = crate::refusal::Source::File(&path);
                if crate::refusal::is_bloom_file(&path) {
                    return Err(crate::refusal::bloom(source));
                }
                Self::decode_file(&read_file(&path)?).map_err(|e| {
                    let wanted = <Self as pyo3::PyTypeInfo>::NAME;
                    crate::refusal::wrong_class(&e, wanted, source)
                        .unwrap_or_else(|| load_err(&path, &e))
                })
            }

            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
                let bytes = slf.get().to_bytes(slf.py());
                Ok((slf.get_type().getattr("from_bytes")?, (bytes,)))
            }

            $($methods)*
        }
    };

    (@sized [$($doc:tt)*] $cell:ident $name:ident, $rust:ty, $single:ty, $build:ident,
        { $($methods:tt)* }) => {
        filter_class!(@class [$($doc)*] [] $cell $name, $rust, {
            /// An empty filter sized for `capacity` items at false-positive rate `fpr`.
            #[new]
            #[pyo3(signature = (capacity, fpr = 0.01))]
            fn new(capacity: u64, fpr: f64) -> PyResult<Self> {
                let inner = <$single>::builder().capacity(capacity).fpr(fpr).$build().map_err(err)?;
                Ok(Self::wrap(inner))
            }

            /// `contains_many` for the keys `data[offsets[i]:offsets[i + 1]]`.
            fn contains_buffer(&self, py: Python<'_>, data: &[u8], offsets: Vec<u64>) -> PyResult<Vec<bool>> {
                let slices = keys::cut(data, &offsets)?;
                let mut out = Vec::new();
                self.inner.read_released(py, |f| f.contains_batch(&slices, &mut out));
                Ok(out)
            }

            /// Items the filter was sized for.
            #[getter]
            fn capacity(&self, py: Python<'_>) -> u64 {
                self.inner.read(py, |f| f.capacity())
            }

            fn __repr__(&self) -> String {
                // Never waits: a repr in a debugger must not hang on another thread's batch.
                let Some(f) = self.inner.peek() else {
                    return format!("{}(<in use by another thread>)", stringify!($name));
                };
                format!(
                    "{}(capacity={}, len={}, size_in_bytes={})",
                    stringify!($name),
                    f.capacity(),
                    f.len(),
                    f.size_in_bytes()
                )
            }

            $($methods)*
        });
    };

    ($(#[$doc:meta])* static $name:ident, $py:literal, $rust:ty) => {
        filter_class!(@class [$(#[$doc])*] [name = $py,] Free $name, $rust, {
            /// Built once from every key of an iterable of `str` or `bytes`, at target rate
            /// `fpr`; it takes no later key.
            #[new]
            #[pyo3(signature = (keys, fpr = 0.01))]
            fn new(keys: &Bound<'_, PyAny>, fpr: f64) -> PyResult<Self> {
                Ok(Self::wrap(crate::statics::built(keys, fpr)?))
            }

            /// The variant's name.
            #[getter]
            fn name(&self) -> &'static str {
                self.inner.get().name()
            }

            fn __repr__(&self) -> String {
                let f = self.inner.get();
                format!("{}(len={}, size_in_bytes={})", $py, f.len(), f.size_in_bytes())
            }
        });
    };

    ($(#[$doc:meta])* shared $name:ident, $rust:ty, $single:ty) => {
        filter_class!(@sized [$(#[$doc])*] Free $name, $rust, $single, build_atomic, {
            /// Adds a key (`str` or `bytes`); safe from any number of threads.
            fn add(&self, key: &Bound<'_, PyAny>) -> PyResult<()> {
                self.inner.get().insert(keys::bytes(key)?);
                Ok(())
            }

            /// Adds the key unless the filter already answers "maybe present"; returns whether
            /// it was added. Two threads adding one key at once may both be told `True` (the
            /// probe and the insert are two steps); the key is in the filter either way.
            fn insert_if_absent(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                let (key, f) = (keys::bytes(key)?, self.inner.get());
                if f.contains(key) {
                    return Ok(false);
                }
                f.insert(key);
                Ok(true)
            }

            /// Adds every key of an iterable of `str` or `bytes`, with the GIL released (once
            /// per chunk of 16,384 keys); a key of another type raises `TypeError`, the chunks
            /// before it stay added.
            fn add_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<()> {
                keys::in_chunks_released(keys, |chunk| {
                    chunk.iter().for_each(|k| self.inner.get().insert(k));
                    Ok(())
                })
            }

            /// Adds the keys `data[offsets[i]:offsets[i + 1]]`, with the GIL released.
            fn add_buffer(&self, py: Python<'_>, data: &[u8], offsets: Vec<u64>) -> PyResult<()> {
                let slices = keys::cut(data, &offsets)?;
                py.allow_threads(|| slices.iter().for_each(|k| self.inner.get().insert(k)));
                Ok(())
            }
        });
    };

    ($(#[$doc:meta])* $name:ident, $rust:ty, [$($cap:ident),*] { $($extra:tt)* }) => {
        filter_class!(@caps [$(#[$doc])*] $name, $rust, [] [$($cap)*] { $($extra)* });
    };

    // The capabilities, one at a time: each appends its methods to `$acc`.
    (@caps $doc:tt $name:ident, $rust:ty, [$($acc:tt)*] [unites $($cap:ident)*] $extra:tt) => {
        filter_class!(@caps $doc $name, $rust, [$($acc)*
            /// Adds every key of `other` (same capacity, rate and seed) to this filter; a
            /// counting filter adds its counts. `a.union(a)` unites `a` with a copy of itself.
            fn union(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
                self.inner.write_with(&other.inner, py, |f, o| f.union(o)).map_err(err)
            }
        ] [$($cap)*] $extra);
    };
    (@caps $doc:tt $name:ident, $rust:ty, [$($acc:tt)*] [deletes $($cap:ident)*] $extra:tt) => {
        filter_class!(@caps $doc $name, $rust, [$($acc)*
            /// Removes a key added before; `FilterlabError` if the filter proves it absent.
            fn remove(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
                let key = keys::bytes(key)?;
                self.inner.write(py, |f| f.remove(key)).map_err(err)
            }

            /// An upper bound of how many times the key was added (the copies of its
            /// fingerprint or remainder; a counting filter's smallest counter).
            fn count(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
                let key = keys::bytes(key)?;
                Ok(self.inner.read(py, |f| f.count(key)))
            }
        ] [$($cap)*] $extra);
    };
    (@caps $doc:tt $name:ident, $rust:ty, [$($acc:tt)*] [grows $($cap:ident)*] $extra:tt) => {
        filter_class!(@caps $doc $name, $rust, [$($acc)*
            /// Stages allocated so far.
            #[getter]
            fn stages(&self, py: Python<'_>) -> usize {
                self.inner.read(py, |f| f.stages())
            }

            /// The bound on the false-positive rate over every stage the filter may grow.
            fn fpr_bound(&self, py: Python<'_>) -> f64 {
                self.inner.read(py, |f| f.fpr_bound())
            }
        ] [$($cap)*] $extra);
    };
    (@caps [$($doc:tt)*] $name:ident, $rust:ty, [$($acc:tt)*] [] { $($extra:tt)* }) => {
        filter_class!(@sized [$($doc)*] Locked $name, $rust, $rust, build, {
            /// Adds a key (`str` or `bytes`).
            fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
                let key = keys::bytes(key)?;
                self.inner.write(py, |f| f.insert(key)).map_err(err)
            }

            /// Adds the key unless the filter already answers "maybe present"; returns whether
            /// it was added.
            fn insert_if_absent(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                let key = keys::bytes(key)?;
                self.inner.write(py, |f| f.insert_if_absent(key)).map_err(err)
            }

            /// Adds every key of an iterable of `str` or `bytes`, with the GIL released (once
            /// per chunk of 16,384 keys, the filter borrowed only then: a generator may query
            /// the filter it feeds, and sees the chunks before its own). On an error (a key of
            /// another type, a full cuckoo table) the keys before the chunk that failed stay
            /// added.
            fn add_many(&self, keys: &Bound<'_, PyAny>) -> PyResult<()> {
                keys::in_chunks(keys, |py, chunk| {
                    self.inner.write_released(py, |f| f.insert_batch(chunk)).map_err(err)
                })
            }

            /// Adds the keys `data[offsets[i]:offsets[i + 1]]` (n + 1 offsets for n keys),
            /// with the GIL released.
            fn add_buffer(&self, py: Python<'_>, data: &[u8], offsets: Vec<u64>) -> PyResult<()> {
                let slices = keys::cut(data, &offsets)?;
                self.inner.write_released(py, |f| f.insert_batch(&slices)).map_err(err)
            }

            /// The variant's name.
            #[getter]
            fn name(&self, py: Python<'_>) -> &'static str {
                self.inner.read(py, |f| f.name())
            }

            $($acc)*
            $($extra)*
        });
    };
}

pub(crate) use filter_class;

filter_class!(
    /// The classic Bloom filter (Bloom 1970): one bit array, k probes per key.
    ClassicBloom, filterlab::ClassicBloom, [unites] {
    /// Bits in the array (m).
    #[getter]
    fn bits(&self, py: Python<'_>) -> u64 {
        self.inner.read(py, |f| f.bits())
    }

    /// Probes per key (k).
    #[getter]
    fn hashes(&self, py: Python<'_>) -> u32 {
        self.inner.read(py, |f| f.hashes())
    }

    /// Distinct keys added, estimated from the bits set (Swamidass & Baldi 2007): a key added
    /// twice counts once, unlike `len()`, which counts every add.
    #[getter]
    fn approx_items(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.estimate_distinct())
    }

    /// The false-positive rate of the table as it stands, `(X/m)^k` for `X` bits set of `m`:
    /// duplicate adds do not raise it, unlike `expected_fpr()` (the formula at `len()`).
    fn realised_fpr(&self, py: Python<'_>) -> f64 {
        self.inner.read(py, |f| f.realised_fpr())
    }
});

filter_class!(
    /// The split-block Bloom filter (Putze et al. 2007): one cache line per key.
    BlockedBloom, filterlab::BlockedBloom, [unites] {}
);

filter_class!(
    /// The counting Bloom filter (Fan et al. 2000): counters instead of bits, so keys can be
    /// removed.
    CountingBloom, filterlab::CountingBloom, [unites, deletes] {}
);

filter_class!(
    /// The cuckoo filter (Fan et al. 2014): fingerprints in buckets; removal at about classic
    /// memory. An insert into a full table raises `FilterlabError` and changes nothing.
    CuckooFilter, filterlab::CuckooFilter, [deletes] {}
);

filter_class!(
    /// The vector quotient filter with overflow bits (Pandey et al. 2021; Breslow & Jayasena
    /// 2018): 64-byte blocks of 8-bit fingerprints, removal, and most lookups read one cache
    /// line. Rates below about 0.47% are refused (8-bit fingerprints go no lower). An insert
    /// into a full table raises `FilterlabError` and changes nothing.
    VectorQuotient, filterlab::VectorQuotient, [deletes] {}
);

filter_class!(
    /// The scalable Bloom filter (Almeida et al. 2007): stages added as it fills, each tighter,
    /// so the rate stays under `fpr` however many keys come. An `add` of a key it already
    /// reports present changes nothing (as the paper's and pybloom_live's insert): `len()`
    /// counts the keys added, and a stream of repeated events fills no stage.
    ScalableBloom, filterlab::ScalableBloom, [grows] {
    /// A scalable filter with the growth factor (each stage's capacity over the previous
    /// one's) and tightening ratio (each stage's rate over the previous one's) given;
    /// pybloom_live's modes are growth 2 and 4 at ratio 0.9.
    #[staticmethod]
    fn with_growth(capacity: u64, fpr: f64, growth: f64, tightening: f64) -> PyResult<Self> {
        let inner = filterlab::ScalableBloom::builder()
            .capacity(capacity)
            .fpr(fpr)
            .growth(growth)
            .tightening(tightening)
            .build()
            .map_err(err)?;
        Ok(Self::wrap(inner))
    }
});

filter_class!(
    /// The quotient filter (Bender et al. 2012; rank-and-select layout of Pandey et al. 2017):
    /// remainders in runs of home slots; removes keys, counts copies, resizes and merges.
    QuotientFilter, filterlab::QuotientFilter, [deletes] {
    /// Doubles the slots, moving one remainder bit into the quotient (no key is lost).
    fn resize(&self, py: Python<'_>) -> PyResult<()> {
        self.inner.write(py, |f| f.resize()).map_err(err)
    }

    /// Adds every key of `other` (same shape and seed), copies included. `q.merge(q)` merges
    /// `q` with a copy of itself (every count doubled).
    fn merge(&self, py: Python<'_>, other: &Self) -> PyResult<()> {
        self.inner.write_with(&other.inner, py, |f, o| f.merge(o)).map_err(err)
    }
});

filter_class!(
    /// The Aleph filter (Dayan, Bercea & Pagh 2024): one quotient table that doubles in place,
    /// fingerprints that shorten as it grows and widen for new keys; removes keys, and its
    /// rate stays under `fpr` however many keys come.
    AlephFilter, filterlab::AlephFilter, [deletes, grows] {
    /// An Aleph filter told the most keys it will hold (`max_n`): its table reaches that size
    /// after whole doublings with a static quotient filter's fingerprints (it still grows past).
    #[staticmethod]
    fn with_estimate(capacity: u64, fpr: f64, max_n: u64) -> PyResult<Self> {
        let inner = filterlab::AlephFilter::builder()
            .capacity(capacity)
            .fpr(fpr)
            .max_n(max_n)
            .build()
            .map_err(err)?;
        Ok(Self::wrap(inner))
    }

    /// How many times the table doubled.
    #[getter]
    fn expansions(&self, py: Python<'_>) -> u32 {
        self.inner.read(py, |f| f.expansions())
    }
});

filter_class!(
    /// The expandable cuckoo filter: cuckoo stages whose addresses nest, added as it fills;
    /// removes keys, counts copies, and its rate stays under `fpr` however many keys come.
    ExpandableCuckoo, filterlab::ExpandableCuckoo, [deletes, grows] {}
);

/// The static filters' classes, beside the others for the registry's generated code.
pub use crate::statics::{StaticFuse16, StaticFuse8, StaticRibbon};
