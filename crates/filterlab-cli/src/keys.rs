//! Reading keys into a filter: one key a line (the format of [`filterlab::keylines`]),
//! repeats counted, memory bounded.
//!
//! Repeats are recognised exactly by a set of the keys' 128-bit hashes while it holds fewer
//! than [`Limits::tracked`] entries (its memory reserved fallibly); past that, a key the filter
//! already reports present is counted as a *maybe* duplicate (a repeat or a false positive)
//! and not inserted again, so the count of the set never grows without bound.

use crate::args::Keys;
use anyhow::{bail, Context, Result};
use filterlab::keylines::{KeyLines, LineCounts};
use filterlab::{AnyFilter, Filter};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Longest key accepted, in bytes (without the line ending).
pub const MAX_KEY_BYTES: usize = 64 << 10;

/// Distinct keys tracked exactly: 2^24, at most about 600 MiB of hash set.
pub const TRACKED_KEYS: usize = 1 << 24;

/// The bounds of one read.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Longest key, in bytes.
    pub key_bytes: usize,
    /// Distinct keys whose repeats are recognised exactly.
    pub tracked: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            key_bytes: MAX_KEY_BYTES,
            tracked: TRACKED_KEYS,
        }
    }
}

/// What a read counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Lines read, and what the line reader saw (empty lines, carriage returns, a BOM).
    pub lines: LineCounts,
    /// Lines that repeated a tracked key (not inserted again).
    pub duplicates: u64,
    /// Lines past the tracking limit that the filter already reported present: repeats or
    /// false positives (not inserted).
    pub maybe_duplicates: u64,
}

/// Opens a key file, or stdin for `-`; with the file's length when it has one. A FIFO or
/// pipe (`--keys <(zcat keys.gz)`) is read as it comes; a device is refused: `/dev/urandom`
/// never ends (its newlines make endless short keys) and `/dev/zero` has no line end.
///
/// # Errors
/// A file that cannot be opened, with its path; a device.
pub fn open(path: &Path) -> Result<(Box<dyn Read>, Option<u64>)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(std::io::stdin().lock()), None));
    }
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot open key file {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("cannot inspect key file {}", path.display()))?;
    if is_device(&meta) {
        bail!(
            "refusing to read keys from {}: it is a device, which may never end; give a key \
             file, or pipe what you mean into `--keys -` (such as `head -n 1000 {} | ...`)",
            path.display(),
            path.display()
        );
    }
    let len = meta.is_file().then_some(meta.len());
    Ok((Box::new(file), len))
}

#[cfg(unix)]
fn is_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    t.is_char_device() || t.is_block_device()
}

#[cfg(not(unix))]
fn is_device(_: &std::fs::Metadata) -> bool {
    false
}

/// Calls `each` with every non-empty key of `reader` (named `name` in messages) and its line
/// number.
///
/// # Errors
/// A read error or a key longer than `key_bytes`, as "cannot read the keys of NAME: ...";
/// the first error of `each`, as it is (a full filter is not a reading problem).
pub fn for_each_key(
    reader: impl BufRead,
    key_bytes: usize,
    name: &str,
    mut each: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<LineCounts> {
    let mut lines = KeyLines::new(reader, key_bytes);
    let read = || format!("cannot read the keys of {name}");
    while let Some((line, key)) = lines.next_key().with_context(read)? {
        each(line, key)?;
    }
    Ok(lines.counts())
}

/// Calls `each` with every key of a command's key source: its arguments (line numbers are
/// argument numbers; an empty argument is skipped and counted), or else the lines of its
/// `--keys` file or of stdin, streamed.
///
/// # Errors
/// As [`for_each_key`], with the source named.
pub fn for_each_source_key(
    keys: &Keys,
    mut each: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<LineCounts> {
    if !keys.keys.is_empty() {
        let mut counts = LineCounts::default();
        for (i, key) in keys.keys.iter().enumerate() {
            counts.lines += 1;
            if key.is_empty() {
                counts.empty += 1;
            } else {
                each(i as u64 + 1, key.as_bytes())?;
            }
        }
        return Ok(counts);
    }
    let path = keys.key_file.as_deref().unwrap_or(Path::new("-"));
    let (reader, _) = open(path)?;
    let name = if path.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        path.display().to_string()
    };
    for_each_key(
        BufReader::with_capacity(1 << 16, reader),
        MAX_KEY_BYTES,
        &name,
        each,
    )
}

/// Inserts every key of `reader` (named `name` in messages) into `filter` (at `at` for a
/// window counted in time).
///
/// # Errors
/// As [`for_each_key`]; a set that cannot grow, or a full filter, with the line number.
pub fn insert_lines(
    reader: impl BufRead,
    name: &str,
    filter: &mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    limits: Limits,
) -> Result<Counts> {
    let mut counts = Counts::default();
    let mut seen: HashSet<u128> = HashSet::new();
    counts.lines = for_each_key(reader, limits.key_bytes, name, |line, key| {
        let h = filter.hasher().hash(key);
        if seen.contains(&h.to_u128()) {
            counts.duplicates += 1;
            return Ok(());
        }
        if seen.len() < limits.tracked {
            seen.try_reserve(1).map_err(|_| {
                anyhow::anyhow!(
                    "line {line}: no memory to track {} distinct keys for duplicates",
                    seen.len() + 1
                )
            })?;
            seen.insert(h.to_u128());
        } else if filter.contains_hash(h) {
            counts.maybe_duplicates += 1;
            return Ok(());
        }
        let inserted = match at {
            Some(t) => filter.insert_hash_at(h, t),
            None => filter.insert_hash(h),
        };
        inserted.with_context(|| {
            format!(
                "line {line}: the filter is full after {} keys; build it with a larger --n",
                filter.len()
            )
        })
    })?;
    Ok(counts)
}

/// The distinct key hashes of `reader`'s lines (named `name` in messages; by `hasher`), for a filter built once from its
/// whole key set; every repeat is counted exactly, as all hashes are held anyway.
///
/// # Errors
/// A line that cannot be read or is too long; no memory for the hashes.
pub fn hash_lines(
    reader: impl BufRead,
    name: &str,
    hash: impl Fn(&[u8]) -> filterlab::Hash128,
    limits: Limits,
) -> Result<(Vec<filterlab::Hash128>, Counts)> {
    let mut counts = Counts::default();
    let mut hashes = Vec::new();
    counts.lines = for_each_key(reader, limits.key_bytes, name, |line, key| {
        hashes.try_reserve(1).map_err(|_| {
            anyhow::anyhow!(
                "line {line}: no memory to hold {} key hashes",
                hashes.len() + 1
            )
        })?;
        hashes.push(hash(key));
        Ok(())
    })?;
    hashes.sort_unstable_by_key(|h| h.to_u128());
    let before = hashes.len();
    hashes.dedup();
    counts.duplicates = (before - hashes.len()) as u64;
    Ok((hashes, counts))
}

/// The non-empty lines of a key file (repeats included): the capacity `build` uses without
/// `--n`.
///
/// # Errors
/// Stdin (it cannot be read twice), or a file that cannot be read.
pub fn count_keys(path: &Path) -> Result<u64> {
    anyhow::ensure!(
        path.as_os_str() != "-",
        "--n is needed when the keys come from stdin (they cannot be counted first)"
    );
    let (reader, _) = open(path)?;
    let mut n = 0u64;
    let name = path.display().to_string();
    for_each_key(
        BufReader::with_capacity(1 << 16, reader),
        MAX_KEY_BYTES,
        &name,
        |_, _| {
            n += 1;
            Ok(())
        },
    )?;
    anyhow::ensure!(n > 0, "{} holds no keys", path.display());
    Ok(n)
}

#[cfg(test)]
mod tests;
