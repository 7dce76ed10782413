//! How an address becomes the gate's key: folded the way the table's unique index folds it.
//!
//! The gate keeps one promise: it never answers Available for an address that the unique index
//! would refuse. Under a unique index on `lower(email)` (or a citext column) the index compares
//! the *server's* `lower()`, not Unicode's: a libc collation maps `İ` to `i` and a final `Σ` to
//! `σ` (Unicode: `i̇`, `ς`), a Turkish ICU collation maps `I` to `ı`, the `C` collation folds
//! ASCII only. A gate that folded with Unicode's lower case looked `İLSE@example.com` up as
//! `i̇lse@…`, found nothing beside a stored `ilse@…`, answered Available, and `register` stored
//! `i̇lse@…`, which the index accepted: a second account. So the key is what the index compares
//! for the address as typed ([`Folding::Server`]): the server's own `lower()`, in the index's
//! collation, read once at connect for every ASCII character (checked against the server on the
//! whole ASCII string too, so that no context rule is assumed away) and asked of the server for
//! any other address (one query, [`crate::Store::fold`]). Under a unique index on the column
//! itself the index compares the stored text, which is the gate's key: Unicode's lower case is
//! then as good as any ([`Folding::Unicode`]).

use std::borrow::Cow;

use crate::email::unicode_lower;
use crate::store::{ScannedRow, StoreResult};
use crate::{GateError, Normalizer};

/// How a store's unique index folds case, which the gate's key must follow (see
/// [`crate::Store::folding`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folding {
    /// The index compares the stored key itself: the gate's key is Unicode's lower case.
    Unicode,
    /// The index compares the server's `lower()`: an ASCII address folds through `ascii` (the
    /// server's lower case of each ASCII character, read at connect; `None` where it is not
    /// one character that folds to itself again), any other one through
    /// [`crate::Store::fold`], a query.
    Server {
        /// The server's lower case of each ASCII character.
        ascii: Box<[Option<char>; 128]>,
    },
}

impl Folding {
    /// The key of `raw` when it can be made without the server: `Ok(None)` when the server
    /// must fold it ([`crate::Store::fold`] on the trimmed address, then
    /// [`Normalizer::finish`]).
    pub(crate) fn local_key<'a>(
        &self,
        n: Normalizer,
        raw: &'a str,
    ) -> Result<Option<Cow<'a, str>>, GateError> {
        let s = n.trimmed(raw)?;
        let folded = match self {
            Self::Unicode => unicode_lower(s),
            Self::Server { ascii } => match ascii_fold(ascii, s) {
                Some(f) => f,
                None => return Ok(None),
            },
        };
        Ok(Some(n.finish(folded)?))
    }

    /// The key of `raw`, asking `server` (the store's [`crate::Store::fold`]) when it must.
    ///
    /// # Errors
    /// [`GateError::Invalid`] for a bad address (before any query); [`GateError::Store`] when
    /// the server must fold it and cannot.
    pub(crate) fn key<'a>(
        &self,
        n: Normalizer,
        raw: &'a str,
        server: impl FnOnce(&str) -> StoreResult<String>,
    ) -> Result<Cow<'a, str>, GateError> {
        if let Some(key) = self.local_key(n, raw)? {
            return Ok(key);
        }
        let folded = server(n.trimmed(raw)?)?;
        Ok(n.finish(Cow::Owned(folded))?)
    }

    /// The key of a scanned row, `None` for a stored value that is no valid address. Under
    /// [`Folding::Server`] the row's `matched` is the server's fold of the stored value (the
    /// index's expression), and trimming commutes with `lower()` (white space is neither cased
    /// nor case-ignorable), so no query is needed.
    pub(crate) fn row_key<'a>(&self, n: Normalizer, row: ScannedRow<'a>) -> Option<Cow<'a, str>> {
        match self {
            Self::Unicode => n.normalize_cow(row.stored).ok(),
            Self::Server { .. } => {
                n.trimmed(row.stored).ok()?;
                n.finish(Cow::Borrowed(row.matched.trim())).ok()
            }
        }
    }

    /// The key of a value the store already folded (the index's expression of a stored row:
    /// [`crate::Store::scan_recent`] under [`Folding::Server`]).
    pub(crate) fn folded_key<'a>(&self, n: Normalizer, folded: &'a str) -> Option<Cow<'a, str>> {
        match self {
            Self::Unicode => n.normalize_cow(folded).ok(),
            Self::Server { .. } => {
                let s = n.trimmed(folded).ok()?;
                n.finish(Cow::Borrowed(s)).ok()
            }
        }
    }
}

/// `s` folded through the server's ASCII table; `None` when `s` is not ASCII or has a
/// character the table cannot fold.
fn ascii_fold<'a>(ascii: &[Option<char>; 128], s: &'a str) -> Option<Cow<'a, str>> {
    if !s.is_ascii() {
        return None;
    }
    let mut same = true;
    for b in s.bytes() {
        let c = ascii[usize::from(b)]?;
        same &= c == char::from(b);
    }
    if same {
        return Some(Cow::Borrowed(s));
    }
    s.bytes()
        .map(|b| ascii[usize::from(b)])
        .collect::<Option<String>>()
        .map(Cow::Owned)
}

/// The ASCII table of a server folding that is Unicode's (the default libc and ICU root
/// collations): for the tests of this module.
#[cfg(test)]
pub(crate) fn standard_ascii() -> Box<[Option<char>; 128]> {
    let mut t = Box::new([None; 128]);
    for (i, slot) in t.iter_mut().enumerate() {
        *slot = Some(char::from(i as u8).to_ascii_lowercase());
    }
    t
}

#[cfg(test)]
mod tests;
