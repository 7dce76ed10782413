//! pybloom_live's table, bit for bit: the layout behind `filterlab.pybloom_compat`, so that
//! files pybloom_live writes load here and files written here load in pybloom_live.
//!
//! pybloom_live (4.x) splits `num_slices × bits_per_slice` bits into one slice per hash. A key
//! (`str` as UTF-8, anything else as `str(key)` in UTF-8: [`KeyForm`]) is hashed once per
//! *salt*: salt `i`'s digest is `H(H(u32 i, little-endian))`, and the key's digest
//! is `H(salt || key)`. Each digest is cut into little-endian words (16-bit when a slice has
//! fewer than 2^15 bits, 32-bit below 2^31, else 64-bit), each word modulo `bits_per_slice`
//! indexes one slice, and as many salts are used as the slices need. `H` is the smallest
//! digest that covers every slice's word: xxh3-128 up to 128 bits in all, then SHA-1,
//! SHA-256, SHA-384, SHA-512. The bits are stored least-significant bit first
//! (bitarray's `endian='little'`): bit `b` is bit `b % 8` of byte `b / 8`.
//!
//! The word order is the machine's in pybloom_live (`struct.unpack` without `<`); this
//! module reads little-endian words, which is every platform pybloom_live's wheels exist for.

use crate::err;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The digest pybloom_live picks for a table (`make_hashfuncs`'s `hashfn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Digest {
    Xxh3_128,
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Digest {
    /// The smallest digest that holds `total_bits` bits of words.
    fn covering(total_bits: u64) -> Self {
        match total_bits {
            0..=128 => Self::Xxh3_128,
            129..=160 => Self::Sha1,
            161..=256 => Self::Sha256,
            257..=384 => Self::Sha384,
            _ => Self::Sha512,
        }
    }

    /// Bytes of one digest.
    fn size(self) -> usize {
        match self {
            Self::Xxh3_128 => 16,
            Self::Sha1 => 20,
            Self::Sha256 => 32,
            Self::Sha384 => 48,
            Self::Sha512 => 64,
        }
    }

    /// The `__name__` of the Python hash constructor pybloom_live uses.
    fn python_name(self) -> &'static str {
        match self {
            Self::Xxh3_128 => "xxh3_128",
            Self::Sha1 => "openssl_sha1",
            Self::Sha256 => "openssl_sha256",
            Self::Sha384 => "openssl_sha384",
            Self::Sha512 => "openssl_sha512",
        }
    }

    /// The digest of `prefix || key` into `out[..self.size()]` (xxh3-128 in its canonical,
    /// big-endian byte order, as Python's `xxhash` gives it).
    fn hash(self, prefix: &[u8], key: &[u8], out: &mut [u8; 64]) {
        fn two<D: sha2::Digest>(prefix: &[u8], key: &[u8], out: &mut [u8]) {
            let mut d = D::new();
            d.update(prefix);
            d.update(key);
            out.copy_from_slice(&d.finalize());
        }
        let n = self.size();
        match self {
            Self::Xxh3_128 => {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                h.update(prefix);
                h.update(key);
                out[..16].copy_from_slice(&h.digest128().to_be_bytes());
            }
            Self::Sha1 => two::<sha1::Sha1>(prefix, key, &mut out[..n]),
            Self::Sha256 => two::<sha2::Sha256>(prefix, key, &mut out[..n]),
            Self::Sha384 => two::<sha2::Sha384>(prefix, key, &mut out[..n]),
            Self::Sha512 => two::<sha2::Sha512>(prefix, key, &mut out[..n]),
        }
    }
}

/// Slices pybloom_live will lay out: `ceil(log2(1/p))` slices for `p` down to 2^-4096.
const MOST_SLICES: u64 = 4096;
/// Bits a table may hold (2^40 bits = 128 GiB): beyond it, a file's header is refused before
/// anything is allocated.
const MOST_BITS: u64 = 1 << 40;

/// How a table of `slices` slices of `per_slice` bits hashes a key.
#[derive(Clone)]
struct Hashing {
    slices: u64,
    per_slice: u64,
    word: usize,
    digest: Digest,
    salts: Vec<Vec<u8>>,
}

impl Hashing {
    fn new(slices: u64, per_slice: u64) -> Result<Self, String> {
        if !(1..=MOST_SLICES).contains(&slices) {
            return Err(format!(
                "num_slices must be 1 to {MOST_SLICES}, not {slices}"
            ));
        }
        if per_slice == 0 || slices.checked_mul(per_slice).is_none_or(|t| t > MOST_BITS) {
            return Err(format!(
                "{slices} slices of {per_slice} bits: a table holds 1 to 2^40 bits"
            ));
        }
        let word = match per_slice {
            p if p >= 1 << 31 => 8,
            p if p >= 1 << 15 => 4,
            _ => 2,
        };
        let digest = Digest::covering(8 * slices * word as u64);
        let per_digest = (digest.size() / word) as u64;
        let salts = (0..slices.div_ceil(per_digest))
            .map(|i| {
                let mut out = [0u8; 64];
                digest.hash(&(i as u32).to_le_bytes(), &[], &mut out);
                out[..digest.size()].to_vec()
            })
            .collect();
        Ok(Self {
            slices,
            per_slice,
            word,
            digest,
            salts,
        })
    }

    /// Bytes of the table's bits.
    fn table_bytes(&self) -> usize {
        // At most 2^37 (checked by `new`).
        (self.slices * self.per_slice).div_ceil(8) as usize
    }

    /// Calls `f` with the bit of each slice `key` sets, slice by slice, until `f` says stop.
    fn each_bit(&self, key: &[u8], mut f: impl FnMut(u64) -> bool) {
        let mut out = [0u8; 64];
        let mut slice = 0;
        for salt in &self.salts {
            self.digest.hash(salt, key, &mut out);
            for w in out[..self.digest.size()].chunks_exact(self.word) {
                let mut le = [0u8; 8];
                le[..self.word].copy_from_slice(w);
                let index = u64::from_le_bytes(le) % self.per_slice;
                if !f(slice * self.per_slice + index) {
                    return;
                }
                slice += 1;
                if slice == self.slices {
                    return;
                }
            }
        }
    }
}

/// Slices whose positions [`Table`] gathers on the stack before touching memory (more take a
/// heap vector): every position is known before the first load, so the loads overlap.
const STACK_SLICES: usize = 64;

/// The table: its hashing and its bits (huge-page advised where the table is large enough).
#[derive(Clone)]
struct Table {
    h: Hashing,
    bits: filterlab::Table<u8>,
}

impl Table {
    /// A table of `h`'s shape holding `data` (`None`: all zero); `data` must hold the
    /// table's bits in whole bytes.
    fn new(h: Hashing, data: Option<&[u8]>) -> Result<Self, String> {
        let bytes = h.table_bytes();
        if let Some(d) = data.filter(|d| d.len() != bytes) {
            return Err(format!(
                "Bit length mismatch! {} slices of {} bits take {bytes} bytes, the file holds {}",
                h.slices,
                h.per_slice,
                d.len()
            ));
        }
        let mut bits = filterlab::try_zeroed_table::<u8>(
            bytes,
            filterlab::MemoryCap::NONE,
            "pybloom_live table",
        )
        .map_err(|e| e.to_string())?;
        if let Some(d) = data {
            bits.copy_from_slice(d);
        }
        Ok(Self { h, bits })
    }

    /// The key's bit positions, all computed before any is loaded: in `stack` when the slices
    /// fit, else in `heap`.
    fn positions<'a>(
        &self,
        key: &[u8],
        stack: &'a mut [u64; STACK_SLICES],
        heap: &'a mut Vec<u64>,
    ) -> &'a [u64] {
        let slices = self.h.slices as usize;
        let pos: &mut [u64] = if slices <= STACK_SLICES {
            &mut stack[..slices]
        } else {
            heap.resize(slices, 0);
            heap
        };
        let mut i = 0;
        self.h.each_bit(key, |b| {
            pos[i] = b;
            i += 1;
            true
        });
        pos
    }

    fn get(&self, bit: u64) -> bool {
        self.bits[(bit / 8) as usize] >> (bit % 8) & 1 == 1
    }

    /// Sets the key's bits; whether every one was set already.
    fn add(&mut self, key: &[u8]) -> bool {
        let (mut stack, mut heap) = ([0u64; STACK_SLICES], Vec::new());
        let pos = self.positions(key, &mut stack, &mut heap);
        // Every bit read before any is written, with no branch between the loads.
        let all = pos.iter().fold(true, |all, &b| all & self.get(b));
        for &b in pos {
            self.bits[(b / 8) as usize] |= 1 << (b % 8);
        }
        all
    }

    fn contains(&self, key: &[u8]) -> bool {
        let (mut stack, mut heap) = ([0u64; STACK_SLICES], Vec::new());
        let pos = self.positions(key, &mut stack, &mut heap);
        pos.iter().fold(true, |all, &b| all & self.get(b))
    }
}

/// How a key becomes the bytes pybloom_live hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyForm {
    /// pybloom_live 4.0.0, its PyPI release: a `str` in UTF-8, anything else (`bytes`
    /// included) as `str(key)` in UTF-8, so `b"a"` is the text `"b'a'"` and `42` is `"42"`.
    Release,
    /// The opt-in `raw_bytes=True` (pybloom_live's repository since): `bytes` as they are,
    /// the rest as [`KeyForm::Release`]. One `str()` call fewer per `bytes` key, but a file
    /// pybloom_live 4.0.0 filled with `bytes` keys answers them as absent.
    RawBytes,
}

impl KeyForm {
    fn new(raw_bytes: bool) -> Self {
        if raw_bytes {
            Self::RawBytes
        } else {
            Self::Release
        }
    }

    /// The key's bytes (`str`'s UTF-8 form read in place; a lone surrogate raises
    /// `UnicodeEncodeError`, as its `encode('utf-8')` does in pybloom_live).
    fn key<'py>(self, key: &Bound<'py, PyAny>) -> PyResult<crate::keys::Key<'py>> {
        let as_is = key.is_instance_of::<PyString>()
            || (self == Self::RawBytes && key.is_instance_of::<PyBytes>());
        if as_is {
            return crate::keys::key(key);
        }
        crate::keys::key(key.str()?.as_any())
    }
}

/// pybloom_live's hashing for a table's shape (private: `make_hashfuncs` of
/// `filterlab.pybloom_compat` is built on it).
#[pyclass(module = "filterlab._filterlab", name = "_SlicedHashes", frozen)]
pub struct SlicedHashes(Hashing, KeyForm);

#[pymethods]
impl SlicedHashes {
    #[new]
    #[pyo3(signature = (num_slices, bits_per_slice, raw_bytes = false))]
    fn new(num_slices: u64, bits_per_slice: u64, raw_bytes: bool) -> PyResult<Self> {
        let h = Hashing::new(num_slices, bits_per_slice).map_err(err)?;
        Ok(Self(h, KeyForm::new(raw_bytes)))
    }

    /// The bit index within each slice, slice by slice (pybloom_live's `make_hashes(key)`).
    fn indices(&self, key: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let mut out = Vec::with_capacity(self.0.slices as usize);
        let per_slice = self.0.per_slice;
        self.0.each_bit(self.1.key(key)?.as_bytes()?, |b| {
            out.push(b % per_slice);
            true
        });
        Ok(out)
    }

    /// The `__name__` of the hash constructor pybloom_live uses for this shape.
    #[getter]
    fn hash_name(&self) -> &'static str {
        self.0.digest.python_name()
    }
}

/// pybloom_live's bit table (private: `filterlab.pybloom_compat` builds its classes on it).
#[pyclass(module = "filterlab._filterlab", name = "_SlicedTable")]
#[derive(Clone)]
pub struct SlicedTable(Table, KeyForm);

#[pymethods]
impl SlicedTable {
    /// An empty table of `num_slices` slices of `bits_per_slice` bits; `raw_bytes`: `bytes`
    /// keys hashed as they are, not as `str(key)` ([`KeyForm`]).
    #[new]
    #[pyo3(signature = (num_slices, bits_per_slice, raw_bytes = false))]
    fn new(num_slices: u64, bits_per_slice: u64, raw_bytes: bool) -> PyResult<Self> {
        let h = Hashing::new(num_slices, bits_per_slice).map_err(err)?;
        let t = Table::new(h, None).map_err(err)?;
        Ok(Self(t, KeyForm::new(raw_bytes)))
    }

    /// The table whose bits are `data` (bitarray's bytes, as pybloom_live's `tofile` writes
    /// them): refused, before anything is allocated, unless `data` holds exactly the table's
    /// bits rounded up to whole bytes.
    #[staticmethod]
    #[pyo3(signature = (num_slices, bits_per_slice, data, raw_bytes = false))]
    fn from_bits(
        num_slices: u64,
        bits_per_slice: u64,
        data: &[u8],
        raw_bytes: bool,
    ) -> PyResult<Self> {
        let h = Hashing::new(num_slices, bits_per_slice).map_err(err)?;
        let t = Table::new(h, Some(data)).map_err(err)?;
        Ok(Self(t, KeyForm::new(raw_bytes)))
    }

    /// Sets the key's bits; returns whether all of them were set already.
    fn add(&mut self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.add(self.1.key(key)?.as_bytes()?))
    }

    fn __contains__(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.0.contains(self.1.key(key)?.as_bytes()?))
    }

    /// Whether `bytes` keys are hashed as they are (`raw_bytes=True`).
    #[getter]
    fn raw_bytes(&self) -> bool {
        self.1 == KeyForm::RawBytes
    }

    /// The table's bits, as pybloom_live's `tofile` writes them.
    fn to_bits<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.bits)
    }

    /// Bits set.
    fn count_ones(&self) -> u64 {
        self.0.bits.iter().map(|b| u64::from(b.count_ones())).sum()
    }

    /// A new table with the bits of both.
    fn union(&self, other: &Self) -> PyResult<Self> {
        self.combine(other, |x, y| x | y)
    }

    /// A new table with the bits both have.
    fn intersection(&self, other: &Self) -> PyResult<Self> {
        self.combine(other, |x, y| x & y)
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }
}

impl SlicedTable {
    fn combine(&self, other: &Self, f: fn(u8, u8) -> u8) -> PyResult<Self> {
        let (a, b) = (&self.0.h, &other.0.h);
        if (a.slices, a.per_slice) != (b.slices, b.per_slice) {
            return Err(err("the tables differ in shape"));
        }
        if self.1 != other.1 {
            return Err(err(
                "the filters hash bytes keys differently (one was made with raw_bytes=True): \
                 their bits do not mean the same keys",
            ));
        }
        let mut t = self.0.clone();
        t.bits
            .iter_mut()
            .zip(&other.0.bits)
            .for_each(|(x, &y)| *x = f(*x, y));
        Ok(Self(t, self.1))
    }
}

/// xxh3-128 of `data` in Python `xxhash`'s byte order (big-endian): the digest behind the
/// compat module's `xxh3_128`, for callers of `make_hashfuncs`.
#[pyfunction]
pub fn xxh3_128_digest<'py>(py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &xxhash_rust::xxh3::xxh3_128(data).to_be_bytes())
}
