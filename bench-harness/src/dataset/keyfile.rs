//! A team's own key files (`--keys`, `--probes`), read and validated before anything is
//! measured.
//!
//! # Format
//!
//! UTF-8 text, one key per line, read by the key-line reader the `filterlab` command uses
//! ([`filterlab::keylines`]): a line ends in `\n` or `\r\n`; empty lines are skipped; a UTF-8
//! byte-order mark at the start is dropped; the key is every other byte of the line, spaces
//! included. Rejected, with the line number:
//! bytes that are not UTF-8 (the exact-set baseline and the articles' Python code take text),
//! and a carriage return anywhere else in a line (`\r\r\n`, a lone `\r` used as a line break).
//! Repeated keys are dropped (and counted); probes that are members or repeated are dropped.
//! At least [`MIN_KEYS`] distinct keys are needed.
//!
//! # Memory
//!
//! Files are streamed line by line into one contiguous [`KeySet`]; duplicates are found through
//! a set of 128-bit hashes, so a file is held once, plus 16 bytes (and the table's overhead) per
//! key, however large it is.

use crate::dataset::{Dataset, KeySet};
use anyhow::{bail, ensure, Context, Result};
use filterlab::keylines::KeyLines;
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_128;

/// The fewest distinct keys a run can measure: the growth scenario inserts 4x a capacity of at
/// least one key.
pub const MIN_KEYS: usize = 4;

/// What reading a file found besides its keys.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Dropped {
    /// Keys seen before in the same file.
    pub repeated: u64,
    /// Probes that are members.
    pub members: u64,
    /// Empty lines skipped.
    pub empty: u64,
}

/// Streams the keys of `path` into a [`KeySet`], at most `limit` of them, skipping any whose
/// 128-bit hash is in `exclude` or already read, and adds the hashes of the keys kept to
/// `seen`.
///
/// # Errors
/// A missing or unreadable file, or a line that breaks the format (see the module docs).
pub fn read(
    path: &Path,
    limit: usize,
    exclude: Option<&HashSet<u128>>,
    seen: &mut HashSet<u128>,
) -> Result<(KeySet, Dropped)> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("key file {} does not exist", path.display())
        }
        Err(e) => return Err(e).with_context(|| format!("opening key file {}", path.display())),
    };
    read_from(
        BufReader::with_capacity(1 << 20, file),
        limit,
        exclude,
        seen,
    )
    .with_context(|| format!("key file {}", path.display()))
}

/// [`read`] over any reader.
///
/// # Errors
/// As [`read`].
pub fn read_from(
    input: impl BufRead,
    limit: usize,
    exclude: Option<&HashSet<u128>>,
    seen: &mut HashSet<u128>,
) -> Result<(KeySet, Dropped)> {
    let mut keys = KeySet::default();
    let mut dropped = Dropped::default();
    let mut lines = KeyLines::new(input, usize::MAX);
    while keys.len() < limit {
        let Some((number, line)) = lines.next_key().context("reading")? else {
            break;
        };
        let key = key_of(line).with_context(|| format!("line {number}"))?;
        let h = xxh3_128(key);
        if exclude.is_some_and(|x| x.contains(&h)) {
            dropped.members += 1;
        } else if !seen.insert(h) {
            dropped.repeated += 1;
        } else {
            keys.push(key);
        }
    }
    dropped.empty = lines.counts().empty;
    Ok((keys, dropped))
}

/// The key (its line ending already removed by the reader), or why it breaks the format.
fn key_of(key: &[u8]) -> Result<&[u8]> {
    if let Some(at) = key.iter().position(|&b| b == b'\r') {
        bail!(
            "a carriage return at byte {} inside the key (a `\\r\\r\\n` ending or a lone `\\r` \
             line break); convert the file to one key per `\\n`-terminated line",
            at + 1
        );
    }
    if let Err(e) = std::str::from_utf8(key) {
        bail!(
            "not UTF-8 ({e}); keys must be text, because the exact-set baseline and the \
             articles' Python code compare strings"
        );
    }
    Ok(key)
}

/// The team's dataset: members from `keys` (at most `limit`), non-members from `probes` or, when
/// none are given, from `synthetic` (called with the member count). Everything is validated
/// here, before any measurement.
///
/// # Errors
/// A file breaking the format, fewer than [`MIN_KEYS`] members, or no probe left.
pub fn load(
    keys: &Path,
    probes: Option<&Path>,
    limit: usize,
    synthetic: impl FnOnce(usize) -> KeySet,
) -> Result<Dataset> {
    let mut member_hashes = HashSet::new();
    let (members, dropped) = read(keys, limit, None, &mut member_hashes)?;
    if dropped.repeated + dropped.empty > 0 {
        eprintln!(
            "note: dropped {} repeated keys and skipped {} empty lines from {}",
            dropped.repeated,
            dropped.empty,
            keys.display()
        );
    }
    ensure!(
        members.len() >= MIN_KEYS,
        "{} holds {} distinct keys; the harness needs at least {MIN_KEYS}",
        keys.display(),
        members.len()
    );
    let non_members = match probes {
        Some(p) => {
            let (probes, dropped) = read(p, limit, Some(&member_hashes), &mut HashSet::new())?;
            if dropped.repeated + dropped.members > 0 {
                eprintln!(
                    "note: dropped {} probes that are members and {} repeated ones from {}",
                    dropped.members,
                    dropped.repeated,
                    p.display()
                );
            }
            probes
        }
        None => synthetic(members.len())
            .iter()
            .filter(|k| !member_hashes.contains(&xxh3_128(k)))
            .collect(),
    };
    ensure!(
        !non_members.is_empty(),
        "no probes left that are not members"
    );
    Ok(Dataset {
        members,
        non_members,
    })
}

#[cfg(test)]
mod tests;
