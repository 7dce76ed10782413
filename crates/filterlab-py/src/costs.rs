//! `filterlab._filterlab._CallCost`: what one `key in f` of `ClassicBloom` costs, a part at a
//! time (issue 52), for the harness's Python section (bench-harness/python/bench.py
//! `call-costs`). Not a filter, and not in `__all__`.
//!
//! `ClassicBloom.__contains__` is, in order: the interpreter's `in` slot and PyO3's call (the
//! object borrowed, the argument bound); the key's bytes ([`keys::bytes`]: a `str`'s UTF-8
//! form, read in place); the filter's read lock ([`crate::busy::Locked::read`]); the key's
//! hash; the probe of the table. A `_CallCost` makes the same calls up to one part and answers
//! `False`, so that a scan of fresh keys through each, and through `ClassicBloom` itself, gives
//! each part's cost as the difference of two scans.

use crate::{err, keys};
use filterlab::Filter;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::hint::black_box;

/// The last part of `ClassicBloom`'s `in` that a `_CallCost` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// The call only: the key is not read.
    Call,
    /// The call and the key's bytes.
    Bytes,
    /// Those and the filter's read lock, taken and released.
    Lock,
    /// Those and the key's hash, under the lock.
    Hash,
}

impl Part {
    const ALL: [Part; 4] = [Part::Call, Part::Bytes, Part::Lock, Part::Hash];

    fn name(self) -> &'static str {
        match self {
            Part::Call => "call",
            Part::Bytes => "bytes",
            Part::Lock => "lock",
            Part::Hash => "hash",
        }
    }

    fn parse(name: &str) -> PyResult<Part> {
        Part::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Part::ALL.iter().map(|p| p.name()).collect();
                PyValueError::new_err(format!(
                    "unknown part {name:?}: one of {}",
                    names.join(", ")
                ))
            })
    }
}

/// `key in self` makes `ClassicBloom`'s calls up to `part` and answers `False`.
#[pyclass(frozen, module = "filterlab._filterlab", name = "_CallCost")]
pub struct CallCost {
    part: Part,
    /// A classic filter as `ClassicBloom` holds it: its lock and its hasher are the ones taken.
    inner: crate::busy::Locked<filterlab::ClassicBloom>,
}

#[pymethods]
impl CallCost {
    /// Makes `ClassicBloom(capacity, fpr)`'s calls up to `part`: `"call"`, `"bytes"`,
    /// `"lock"` or `"hash"`.
    #[new]
    #[pyo3(signature = (part, capacity = 1000, fpr = 0.01))]
    fn new(part: &str, capacity: u64, fpr: f64) -> PyResult<Self> {
        let part = Part::parse(part)?;
        let filter = filterlab::ClassicBloom::builder()
            .capacity(capacity)
            .fpr(fpr)
            .build()
            .map_err(err)?;
        Ok(CallCost {
            part,
            inner: crate::busy::Locked::new(filter),
        })
    }

    /// The part this object stops after.
    #[getter]
    fn part(&self) -> &'static str {
        self.part.name()
    }

    /// `False`, after `ClassicBloom`'s calls up to the part (a key that is neither `str` nor
    /// `bytes` is refused from `"bytes"` on, as `ClassicBloom` refuses it).
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        if self.part == Part::Call {
            return Ok(black_box(key).is_none());
        }
        let key = black_box(keys::bytes(key)?);
        match self.part {
            Part::Call | Part::Bytes => {}
            Part::Lock => self.inner.read(py, |f| {
                black_box(f);
            }),
            Part::Hash => self.inner.read(py, |f| {
                black_box(f.hasher().hash(key));
            }),
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::Part;

    #[test]
    fn every_part_is_named_back() {
        for part in Part::ALL {
            assert_eq!(Part::parse(part.name()).ok(), Some(part));
        }
        assert!(Part::parse("probe").is_err());
    }
}
