//! Keys from Python: `str` (its UTF-8 bytes) or `bytes`, one at a time, from an iterable, or
//! cut from one `bytes` buffer by offsets.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// The bytes of one key, held by a Python `bytes` object (the key itself, or its UTF-8
/// encoding), so that the slice stays valid while the GIL is released.
pub(crate) fn key<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    if let Ok(b) = obj.downcast::<PyBytes>() {
        return Ok(b.clone());
    }
    if let Ok(s) = obj.downcast::<PyString>() {
        return s.encode_utf8();
    }
    Err(PyTypeError::new_err(format!(
        "a key must be str or bytes, not {}",
        obj.get_type().name()?
    )))
}

/// Many keys, each held as in [`key`].
pub(crate) struct Keys<'py> {
    held: Vec<Bound<'py, PyBytes>>,
}

impl<'py> Keys<'py> {
    /// The keys of an iterable of `str` or `bytes` (a list, a tuple, a generator, a numpy array
    /// of `bytes_` or `str_`). A bare `str` or `bytes` is refused: iterating it would give
    /// characters or integers, never the key the caller meant.
    pub(crate) fn collect(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(
                "expected an iterable of keys, got a single str or bytes: wrap it in a list",
            ));
        }
        let mut held = Vec::with_capacity(obj.len().unwrap_or(0));
        for item in obj.try_iter()? {
            held.push(key(&item?)?);
        }
        Ok(Self { held })
    }

    /// The keys' bytes, borrowed from the objects that hold them.
    pub(crate) fn slices(&self) -> Vec<&[u8]> {
        self.held.iter().map(|b| b.as_bytes()).collect()
    }
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
