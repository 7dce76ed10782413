//! Rows that other code stored in a form the table's unique index does not find by the gate's
//! key, held as aliases of that key.
//!
//! Two ways such a row comes about:
//! * a unique index on the column itself, and an admin tool or an import that stores
//!   `Zed.Admin@Example.org`: the index compares the stored text, the gate looks up
//!   `zed.admin@example.org`;
//! * a unique index on `lower(column)` (or a citext column) under a libc collation, and a row
//!   holding `İ` or a final `Σ`: the server's `lower()` maps them to `i` and `σ`, the gate's
//!   Unicode lower case to `i̇` (an `i` and a combining dot) and `ς`.
//!
//! The filter still gets the row's key, and what the index compares when that is itself a key
//! (`i@x.org` for a stored `İ@x.org`), so its "absent" stays a proof. A "maybe", though, is
//! confirmed with [`Store::exists`], which compares the way the unique index does and does not
//! find such a row by its key: the gate would answer Available, and `register` would add a
//! second account that the index does not refuse. So a check of an aliased key also asks the
//! database for the stored forms, and `register` refuses the key while one of them is there. A
//! stored form the database no longer has (the row was deleted or rewritten) is forgotten at
//! that check.
//!
//! # The cap
//! At most [`MAX_UNNORMALISED_ROWS`] rows are held (a few MB at most). A row beyond it is still
//! in the filter, so "absent" stays a proof; but a "maybe" that the database does not confirm
//! can no longer be told from such a row. The gate answers it with
//! [`GateError::Unnormalised`], which names the SQL that fixes the table, instead of
//! Available, and `register` refuses it the same way, until it restarts on a fixed table.

use std::collections::HashMap;

use crate::store::{ScannedRow, Store, StoreResult};
use crate::{GateError, Normalizer};

/// The most rows a gate holds as aliases (see the module docs): 10,000 rows of at most two
/// 254-byte strings, about 5 MB at worst.
pub const MAX_UNNORMALISED_ROWS: usize = 10_000;

/// One row whose stored form the unique index does not find by its key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnnormalisedRow {
    /// The value stored in the key column.
    pub stored: String,
    /// What the unique index compares for it.
    pub matched: String,
    /// The gate's key for it (its normalised form).
    pub key: String,
    /// The SQL that stores it the way the gate looks it up ([`Store::repair_sql`]).
    pub repair: String,
}

/// What [`audit`] found in a table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Audit {
    /// Rows read.
    pub rows: u64,
    /// Rows whose stored form the unique index does not find by their key.
    pub unnormalised: u64,
    /// The first of them.
    pub example: Option<UnnormalisedRow>,
    /// Pairs of rows the unique index tells apart, one of them what a gate keyed by Unicode's
    /// lower case rather than the index's stored for an address the index folds onto the
    /// other (see [`Store::fold_pairs`]): second accounts.
    pub pairs: u64,
    /// The first such pair: (the second account, the row it duplicates).
    pub pair_example: Option<(String, String)>,
}

/// Reads the whole table and counts the rows whose stored form the unique index does not find
/// by their key, and the pairs of rows of [`Audit::pairs`] (what `filterlab gate migrate` reports; a running gate holds such
/// rows as aliases, see [`crate::Gate::unnormalised`]). Rows that are no valid address are
/// not counted: no key can equal them.
///
/// # Errors
/// A failing database.
pub fn audit<S: Store + ?Sized>(store: &mut S, normalizer: Normalizer) -> StoreResult<Audit> {
    let mut audit = Audit::default();
    let mut first: Option<(String, String, String)> = None;
    let folding = store.folding();
    store.scan_since(crate::Mark::Start, &mut |row| {
        audit.rows += 1;
        let Some(key) = folding.row_key(normalizer, row) else {
            return;
        };
        if key != row.matched {
            audit.unnormalised += 1;
            first.get_or_insert_with(|| (row.stored.into(), row.matched.into(), key.into_owned()));
        }
    })?;
    let (pairs, pair_example) = (&mut audit.pairs, &mut audit.pair_example);
    store.fold_pairs(&mut |second, first| {
        *pairs += 1;
        pair_example.get_or_insert_with(|| (second.to_owned(), first.to_owned()));
    })?;
    audit.example = first.map(|(stored, matched, key)| UnnormalisedRow {
        repair: store.repair_sql(&stored, &key),
        stored,
        matched,
        key,
    });
    Ok(audit)
}

/// The aliases of one gate.
#[derive(Debug, Default)]
pub(crate) struct Aliases {
    /// Key -> the stored forms of the rows it stands for.
    map: HashMap<String, Vec<String>>,
    /// Stored forms held, over every key.
    held: usize,
    /// Rows met beyond the cap.
    dropped: u64,
    /// The first of them: while set, a "maybe" the database does not confirm is refused.
    first_dropped: Option<(String, String, String)>,
}

impl Aliases {
    /// Whether there is nothing to look at (the common case, checked on every call).
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty() && self.first_dropped.is_none()
    }

    /// Rows held.
    pub(crate) fn len(&self) -> usize {
        self.held
    }

    /// Whether a row did not fit under the cap.
    pub(crate) fn overflowed(&self) -> bool {
        self.first_dropped.is_some()
    }

    /// Learns a row whose key is `key`: `add` gets the keys the filter must hold for it, and a
    /// row the unique index does not find by its key is held as an alias.
    pub(crate) fn learn(
        &mut self,
        normalizer: Normalizer,
        key: &str,
        row: ScannedRow<'_>,
        add: &mut dyn FnMut(&str),
    ) {
        add(key);
        if key == row.matched {
            return;
        }
        // What the index compares is a key of its own when it is in normal form (`i@x.org`
        // for a stored `İ@x.org`): a check of it must reach the database, which finds the row.
        if normalizer
            .normalize_cow(row.matched)
            .is_ok_and(|m| m == row.matched)
        {
            add(row.matched);
        }
        self.hold(key, row);
    }

    fn hold(&mut self, key: &str, row: ScannedRow<'_>) {
        // A catch-up re-reads rows (see the `postgres` module): hold each stored form once.
        if let Some(forms) = self.map.get(key) {
            if forms.iter().any(|s| s == row.stored) {
                return;
            }
        }
        if self.held >= MAX_UNNORMALISED_ROWS {
            self.dropped += 1;
            self.first_dropped
                .get_or_insert_with(|| (row.stored.into(), row.matched.into(), key.into()));
            return;
        }
        let forms = self.map.entry(key.to_owned()).or_default();
        forms.push(row.stored.to_owned());
        self.held += 1;
    }

    /// The stored forms `key` stands for (empty for most keys, without allocating).
    pub(crate) fn stored_forms(&self, key: &str) -> Vec<String> {
        if self.map.is_empty() {
            return Vec::new();
        }
        self.map.get(key).cloned().unwrap_or_default()
    }

    /// Forgets a stored form the database no longer has.
    pub(crate) fn forget(&mut self, key: &str, stored: &str) {
        if let Some(forms) = self.map.get_mut(key) {
            let before = forms.len();
            forms.retain(|s| s != stored);
            self.held -= before - forms.len();
            if forms.is_empty() {
                self.map.remove(key);
            }
        }
    }

    /// The error that stands for an unconfirmed "maybe" once a row did not fit: `repair`
    /// makes the SQL for the first such row.
    pub(crate) fn refusal(&self, repair: impl FnOnce(&str, &str) -> String) -> Option<GateError> {
        let (stored, matched, key) = self.first_dropped.clone()?;
        Some(GateError::Unnormalised {
            rows: self.held as u64 + self.dropped,
            fix: repair(&stored, &key),
            stored,
            matched,
            key,
        })
    }
}

/// Whether a row answers to `key`: the key itself, or one of the stored forms it stands for.
/// Every stored form is looked up (aliases are rare), so that `forget` gets each one the
/// database no longer has, even when the key itself is there (a row rewritten to its key).
pub(crate) fn confirm<S: Store + ?Sized>(
    store: &mut S,
    key: &str,
    forms: &[String],
    forget: &mut dyn FnMut(&str),
) -> StoreResult<bool> {
    let mut taken = store.exists(key)?;
    for f in forms {
        if store.exists(f)? {
            taken = true;
        } else {
            forget(f);
        }
    }
    Ok(taken)
}

#[cfg(test)]
mod tests;
