//! Refusals that say what a file (or a byte string) is and which call reads it, in Python's
//! names: a saved `filterlab.Bloom` is not "bad magic bytes", and a file of another variant
//! names its Python class and `filterlab.load`, not a variant id and a Rust type.

use crate::err;
use filterlab::{FormatError, Variant};
use pyo3::prelude::*;
use std::io::Read;
use std::path::Path;

/// Where the refused bytes came from, for the call the message advises.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// A file at this path (`load`).
    File(&'a Path),
    /// A byte string (`from_bytes`).
    Bytes,
}

impl Source<'_> {
    fn what(self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Bytes => "the data".into(),
        }
    }
}

/// Whether `head` begins as a saved `filterlab.Bloom` does.
pub(crate) fn is_bloom(head: &[u8]) -> bool {
    head.starts_with(crate::bloom::MAGIC)
}

/// Whether the file at `path` begins as a saved `filterlab.Bloom` (`false` when it cannot be
/// read: the loader then reports why).
pub(crate) fn is_bloom_file(path: &Path) -> bool {
    let mut head = [0u8; 16];
    filterlab::open_regular(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| is_bloom(&head))
}

/// The refusal of a saved `filterlab.Bloom` where a filterlab filter was expected.
pub(crate) fn bloom(source: Source<'_>) -> PyErr {
    let call = match source {
        Source::File(_) => "filterlab.Bloom.load(path, hash_func)",
        Source::Bytes => "filterlab.Bloom.load_bytes(data, hash_func)",
    };
    err(format!(
        "{} is a saved filterlab.Bloom (rbloom's API, its keys made by a hash_func), not a \
         filterlab filter file: load it with {call}, giving the hash function it was saved with",
        source.what()
    ))
}

/// The refusal of a filter of another variant than the class `wanted` loads, naming the
/// class that loads it and `filterlab.load`; `None` for any other error.
pub(crate) fn wrong_class(e: &FormatError, wanted: &str, source: Source<'_>) -> Option<PyErr> {
    let FormatError::WrongVariant { found_id, .. } = e else {
        return None;
    };
    let (one, any) = match source {
        Source::File(_) => ("load(path)", "filterlab.load(path)"),
        Source::Bytes => ("from_bytes(data)", "filterlab.from_bytes(data)"),
    };
    let what = source.what();
    let found = Variant::from_id(*found_id);
    Some(err(match found.map(|v| (v, crate::python_class(v))) {
        Some((v, Some(class))) => format!(
            "{what} holds a {class} (a {} filter), not a {wanted}: load it with \
             filterlab.{class}.{one}, or with {any}, which takes any variant",
            v.name()
        ),
        Some((v, None)) => format!(
            "{what} holds a {} filter, not a {wanted}, and this package has no class for it \
             ({any} says why); the filterlab command and the Rust crates read it",
            v.name()
        ),
        None => format!("{what} is not a {wanted}: {e}"),
    }))
}
