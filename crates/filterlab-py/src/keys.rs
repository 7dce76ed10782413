//! Keys from Python: `str` (its UTF-8 bytes) or `bytes`, one at a time, from an iterable, or
//! cut from one `bytes` buffer by offsets.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// One key: a `bytes` object, or a `str` whose UTF-8 form is read in place (CPython caches it
/// in the string object: no copy, and the slice stays valid while the GIL is released, the key
/// held here).
pub(crate) enum Key<'py> {
    Bytes(Bound<'py, PyBytes>),
    Str(Bound<'py, PyString>),
}

impl Key<'_> {
    /// The key's bytes (a `str`'s UTF-8 form, cached by CPython after the first call).
    pub(crate) fn as_bytes(&self) -> PyResult<&[u8]> {
        match self {
            Key::Bytes(b) => Ok(b.as_bytes()),
            Key::Str(s) => s.to_str().map(str::as_bytes),
        }
    }
}

/// The key `obj` (`str` or `bytes`); a `str` that has no UTF-8 form (a lone surrogate) raises
/// `UnicodeEncodeError` when its bytes are asked for ([`Key::as_bytes`]).
///
/// The exact types are tried first, by comparing the object's type: pyo3 0.23's `downcast`
/// to `PyBytes` calls `PyType_IsSubtype` for every object that is not exactly `bytes` (its
/// `PyBytes_Check` override is not the method `downcast` calls), which was a tenth of the
/// instructions of `key in filter` for a `str` key (callgrind). Subclasses of `str` and
/// `bytes` then take the general checks.
pub(crate) fn key<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Key<'py>> {
    if let Ok(s) = obj.downcast_exact::<PyString>() {
        return Ok(Key::Str(s.clone()));
    }
    if let Ok(b) = obj.downcast_exact::<PyBytes>() {
        return Ok(Key::Bytes(b.clone()));
    }
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(Key::Bytes(b.clone()));
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return Ok(Key::Str(s.clone()));
    }
    Err(not_a_key(obj))
}

/// [`key`] for an object the caller owns (an iterator's item): the key keeps that reference
/// instead of taking a new one and dropping the item's (two calls into the interpreter fewer
/// a key of a batch, under the limited API).
pub(crate) fn key_owned(obj: Bound<'_, PyAny>) -> PyResult<Key<'_>> {
    let obj = match obj.downcast_into_exact::<PyString>() {
        Ok(s) => return Ok(Key::Str(s)),
        Err(e) => e.into_inner(),
    };
    match obj.downcast_into_exact::<PyBytes>() {
        Ok(b) => Ok(Key::Bytes(b)),
        Err(e) => key(&e.into_inner()),
    }
}

/// The bytes of the one key `obj` (`str`: its UTF-8 form, read in place; `bytes`), borrowed
/// from `obj` for a call that holds it: [`key`] without a new reference to the object (two
/// calls into the interpreter fewer a key, under the limited API).
pub(crate) fn bytes<'a>(obj: &'a Bound<'_, PyAny>) -> PyResult<&'a [u8]> {
    if let Ok(s) = obj.downcast_exact::<PyString>() {
        return s.to_str().map(str::as_bytes);
    }
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(b.as_bytes());
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return s.to_str().map(str::as_bytes);
    }
    Err(not_a_key(obj))
}

/// The `TypeError` of an object that is neither `str` nor `bytes`.
fn not_a_key(obj: &Bound<'_, PyAny>) -> PyErr {
    let name = obj.get_type().name();
    match name {
        Ok(name) => PyTypeError::new_err(format!("a key must be str or bytes, not {name}")),
        Err(e) => e,
    }
}

/// Keys a batch holds at a time: the GIL is released once per chunk, and a batch of 10M `str`
/// keys never holds 10M encoded copies at once.
pub(crate) const CHUNK: usize = 16_384;

/// Calls `f` on the keys of an iterable of `str` or `bytes` (a list, a tuple, a generator, a
/// numpy array of `bytes_` or `str_`), [`CHUNK`] keys at a time, with the GIL held: `f` borrows
/// the filter and releases the GIL itself, so that no borrow spans the iterable's own code (a
/// generator may query the filter it feeds; it sees the keys of the chunks before its own).
/// Stops at the first error: the chunks before it were handed to `f`.
///
/// A bare `str` or `bytes` is refused: iterating it would give characters or integers, never
/// the key the caller meant.
pub(crate) fn in_chunks<'py>(
    obj: &Bound<'py, PyAny>,
    mut f: impl FnMut(Python<'py>, &[&[u8]]) -> PyResult<()>,
) -> PyResult<()> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "expected an iterable of keys, got a single str or bytes: wrap it in a list",
        ));
    }
    let py = obj.py();
    let mut iter = obj.try_iter()?;
    let mut held = Vec::with_capacity(CHUNK.min(obj.len().unwrap_or(CHUNK)));
    loop {
        held.clear();
        for item in iter.by_ref().take(CHUNK) {
            held.push(key_owned(item?)?);
        }
        if held.is_empty() {
            return Ok(());
        }
        let slices: Vec<&[u8]> = held.iter().map(Key::as_bytes).collect::<PyResult<_>>()?;
        f(py, &slices)?;
        if held.len() < CHUNK {
            return Ok(());
        }
    }
}

/// [`in_chunks`] for work that needs no borrow of a Python object: `f` runs with the GIL
/// released.
pub(crate) fn in_chunks_released(
    obj: &Bound<'_, PyAny>,
    mut f: impl FnMut(&[&[u8]]) -> filterlab::Result<()> + Send,
) -> PyResult<()> {
    in_chunks(obj, |py, chunk| {
        py.allow_threads(|| f(chunk)).map_err(crate::err)
    })
}

/// Keys cut from one buffer: key `i` is `data[offsets[i]..offsets[i + 1]]`, so `n` keys take
/// `n + 1` offsets (the first usually 0, the last `len(data)`).
pub(crate) fn cut<'a>(data: &'a [u8], offsets: &[u64]) -> PyResult<Vec<&'a [u8]>> {
    if offsets.is_empty() {
        return Err(crate::err(
            "offsets must hold n + 1 positions for n keys (at least one, usually 0)",
        ));
    }
    offsets
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let (start, end) = (w[0], w[1]);
            if start > end || end > data.len() as u64 {
                return Err(crate::err(format!(
                    "offsets[{i}]..offsets[{}] = {start}..{end} is not a range inside the \
                     {}-byte buffer: offsets must be non-decreasing and at most len(data)",
                    i + 1,
                    data.len()
                )));
            }
            Ok(&data[start as usize..end as usize])
        })
        .collect()
}
