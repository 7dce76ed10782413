//! Reading keys into a filter: one key a line (the format of [`filterlab::keylines`]),
//! repeats counted, memory bounded.
//!
//! The first [`Limits::tracked`] keys are read whole (their line numbers and 128-bit hashes,
//! 24 bytes a key, memory reserved fallibly): their repeats are found by sorting the hashes,
//! and the first copy of each key is inserted in line order, in batches ([`ordered`]). Keys
//! after them are inserted one at a time, their repeats recognised exactly by a set of the
//! hashes while it holds fewer than [`Limits::tracked`] entries; past that, a key the filter
//! already reports present is counted as a *maybe* duplicate (a repeat or a false positive)
//! and not inserted again, so the memory never grows without bound.

use crate::args::Keys;
use anyhow::{bail, Context, Result};
use filterlab::keylines::{KeyLines, LineCounts};
use filterlab::{AnyFilter, Filter, Hash128};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Longest key accepted, in bytes (without the line ending).
pub const MAX_KEY_BYTES: usize = 64 << 10;

/// Keys read whole at the start of a source, and distinct keys tracked exactly: 2^24. The
/// block takes 41 bytes a key while it is inserted (line and hash, a sort entry, a flag: at
/// most about 690 MiB); a source with more keys then holds a hash set of the block's distinct
/// hashes (about 34 bytes a key) beside it while the set is built.
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
/// argument numbers; an empty argument is refused before any key is used), or else the lines of its
/// `--keys` file or of stdin, streamed.
///
/// # Errors
/// As [`for_each_key`], with the source named.
pub fn for_each_source_key(
    keys: &Keys,
    mut each: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<LineCounts> {
    if !keys.keys.is_empty() {
        // Refused before any key is answered or applied: an empty argument is most often an
        // unset variable (`query f.bin "$KEY"`), and answering nothing for it would read as
        // "every key maybe present".
        if let Some(i) = keys.keys.iter().position(String::is_empty) {
            bail!(
                "key argument {} is empty: no key is the empty string; give the key, or read \
                 keys from a file or stdin (where an empty line is skipped and counted)",
                i + 1
            );
        }
        let mut counts = LineCounts::default();
        for (i, key) in keys.keys.iter().enumerate() {
            counts.lines += 1;
            each(i as u64 + 1, key.as_bytes())?;
        }
        return Ok(counts);
    }
    let path = keys.key_file.as_deref().unwrap_or(Path::new("-"));
    let (reader, _) = open(path)?;
    let name = source_name(path);
    for_each_key(
        BufReader::with_capacity(1 << 16, reader),
        MAX_KEY_BYTES,
        &name,
        each,
    )
}

/// The state of inserting keys one at a time past the first block: the tracked set of hashes
/// and the counts.
struct Inserter<'a> {
    filter: &'a mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    tracked: usize,
    seen: ordered::Tracked,
    counts: Counts,
}

impl<'a> Inserter<'a> {
    /// Inserts the first block of keys (`head`, at most `tracked` of them, in line order) at
    /// once ([`ordered::insert_distinct`]); when more follow (`more`), tracks its distinct
    /// hashes for the keys after it.
    fn start(
        filter: &'a mut AnyFilter,
        at: Option<filterlab::Timestamp>,
        tracked: usize,
        head: &[(u64, Hash128)],
        more: bool,
    ) -> Result<Inserter<'a>> {
        let mut counts = Counts::default();
        ordered::insert_distinct(filter, at, head, &mut counts)?;
        let mut seen = ordered::Tracked::default();
        if more {
            seen.try_reserve(head.len()).map_err(|_| {
                anyhow::anyhow!(
                    "no memory to track {} distinct keys for duplicates",
                    head.len()
                )
            })?;
            seen.extend(head.iter().map(|(_, h)| h.to_u128()));
        }
        Ok(Inserter {
            filter,
            at,
            tracked,
            seen,
            counts,
        })
    }

    /// Inserts the key of `line` whose hash is `h`, unless it repeats an earlier one.
    fn insert(&mut self, line: u64, h: Hash128) -> Result<()> {
        if self.seen.contains(&h.to_u128()) {
            self.counts.duplicates += 1;
            return Ok(());
        }
        if self.seen.len() < self.tracked {
            self.seen.try_reserve(1).map_err(|_| {
                anyhow::anyhow!(
                    "line {line}: no memory to track {} distinct keys for duplicates",
                    self.seen.len() + 1
                )
            })?;
            self.seen.insert(h.to_u128());
        } else if self.filter.contains_hash(h) {
            self.counts.maybe_duplicates += 1;
            return Ok(());
        }
        let inserted = match self.at {
            Some(t) => self.filter.insert_hash_at(h, t),
            None => self.filter.insert_hash(h),
        };
        inserted.with_context(|| ordered::full(line, self.filter.len()))
    }
}

/// Inserts every key of `reader` (named `name` in messages) into `filter` (at `at` for a
/// window counted in time): the first [`Limits::tracked`] keys read whole and inserted at once
/// ([`ordered::insert_distinct`]), the rest one at a time against the set of the tracked ones.
///
/// # Errors
/// As [`for_each_key`]; no memory for the block or the set, or a full filter, with the line
/// number.
pub fn insert_lines(
    reader: impl BufRead,
    name: &str,
    filter: &mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    limits: Limits,
) -> Result<Counts> {
    let mut lines = KeyLines::new(reader, limits.key_bytes);
    let read = || format!("cannot read the keys of {name}");
    let hasher = filter.hasher();
    let mut head = Vec::new();
    while head.len() < limits.tracked {
        let Some((line, key)) = lines.next_key().with_context(read)? else {
            break;
        };
        hold(&mut head, line, name, "")?;
        head.push((line, hasher.hash(key)));
    }
    let more = head.len() >= limits.tracked;
    let mut state = Inserter::start(filter, at, limits.tracked, &head, more)?;
    drop(head);
    while let Some((line, key)) = lines.next_key().with_context(read)? {
        state.insert(line, hasher.hash(key))?;
    }
    Ok(Counts {
        lines: lines.counts(),
        ..state.counts
    })
}

/// Room for one more key's line and hash in `keys`.
fn hold(keys: &mut Vec<(u64, Hash128)>, line: u64, name: &str, advice: &str) -> Result<()> {
    keys.try_reserve(1).map_err(|_| {
        anyhow::anyhow!(
            "line {line}: no memory to hold the hashes of {} keys read from {name}{advice}",
            keys.len() + 1
        )
    })
}

/// Inserts the keys of a source read whole ([`Buffered`]) into `filter`, as [`insert_lines`]
/// inserts them as they are read.
///
/// # Errors
/// As [`insert_lines`].
pub fn insert_buffered(
    buffered: &Buffered,
    filter: &mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    limits: Limits,
) -> Result<Counts> {
    let (head, rest) = buffered
        .keys
        .split_at(buffered.keys.len().min(limits.tracked));
    let mut state = Inserter::start(filter, at, limits.tracked, head, !rest.is_empty())?;
    for &(line, h) in rest {
        state.insert(line, h)?;
    }
    Ok(Counts {
        lines: buffered.lines,
        ..state.counts
    })
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

/// The distinct hashes of a source read whole ([`Buffered`]), for a filter built once from its
/// whole key set, with the counts [`hash_lines`] gives.
pub fn distinct_hashes(buffered: Buffered) -> (Vec<Hash128>, Counts) {
    let mut hashes: Vec<Hash128> = buffered.keys.into_iter().map(|(_, h)| h).collect();
    hashes.sort_unstable_by_key(|h| h.to_u128());
    let before = hashes.len();
    hashes.dedup();
    let counts = Counts {
        lines: buffered.lines,
        duplicates: (before - hashes.len()) as u64,
        maybe_duplicates: 0,
    };
    (hashes, counts)
}

/// A key source read whole, once: each key's line number and hash, in the order of the lines
/// (repeats included), and what the line reader counted. A pipe or FIFO cannot be read twice,
/// so its keys are counted this way instead of by a first pass (16 bytes of hash and 8 of line
/// number a key).
#[derive(Debug, Default)]
pub struct Buffered {
    /// `(line, hash)` of every non-empty line.
    pub keys: Vec<(u64, Hash128)>,
    /// What the line reader counted.
    pub lines: LineCounts,
}

/// The keys of a source, counted for `build` without `--n`.
#[derive(Debug)]
pub enum Counted {
    /// A regular file of more than [`TRACKED_KEYS`] keys: its non-empty lines, counted by a
    /// first pass (it is read again to insert them, in bounded memory).
    File(u64),
    /// Stdin, a pipe, a FIFO or a smaller file: read once, whole ([`Buffered`]); its count is
    /// `keys.len()`.
    Buffered(Buffered),
}

/// The non-empty lines of a key source (repeats included), the capacity `build` uses without
/// `--n`. A regular file of at most [`TRACKED_KEYS`] keys is read once, its keys' hashes (by
/// `hash`) held for the build; a longer one is counted, and read again by the build. Any
/// other source (stdin, `/dev/stdin`, `<(cmd)`, a FIFO), which cannot be read twice, is read
/// once and held whole.
///
/// # Errors
/// A source that cannot be read, no memory for the hashes, or one that holds no keys.
pub fn count_or_buffer(path: &Path, hash: impl Fn(&[u8]) -> Hash128) -> Result<Counted> {
    let (reader, len) = open(path)?;
    let name = source_name(path);
    let reader = BufReader::with_capacity(1 << 16, reader);
    let counted = if len.is_some() {
        hold_or_count(reader, &name, hash, TRACKED_KEYS)?
    } else {
        Counted::Buffered(buffer(reader, &name, hash)?)
    };
    let n = match &counted {
        Counted::File(n) => *n,
        Counted::Buffered(b) => b.keys.len() as u64,
    };
    anyhow::ensure!(n > 0, "{name} holds no keys");
    Ok(counted)
}

/// The keys of `reader` held whole when there are at most `most` of them, else counted.
fn hold_or_count(
    reader: impl BufRead,
    name: &str,
    hash: impl Fn(&[u8]) -> Hash128,
    most: usize,
) -> Result<Counted> {
    let mut lines = KeyLines::new(reader, MAX_KEY_BYTES);
    let read = || format!("cannot read the keys of {name}");
    let (mut keys, mut n) = (Vec::new(), 0u64);
    while let Some((line, key)) = lines.next_key().with_context(read)? {
        n += 1;
        if n <= most as u64 {
            hold(&mut keys, line, name, "")?;
            keys.push((line, hash(key)));
        } else if !keys.is_empty() {
            keys = Vec::new();
        }
    }
    Ok(match n <= most as u64 {
        true => Counted::Buffered(Buffered {
            keys,
            lines: lines.counts(),
        }),
        false => Counted::File(n),
    })
}

/// Reads every key of `reader` (named `name`) into a [`Buffered`], hashed by `hash`.
///
/// # Errors
/// As [`for_each_key`]; no memory for the hashes (with the advice to give `--n`).
pub fn buffer(
    reader: impl BufRead,
    name: &str,
    hash: impl Fn(&[u8]) -> Hash128,
) -> Result<Buffered> {
    let mut keys = Vec::new();
    let lines = for_each_key(reader, MAX_KEY_BYTES, name, |line, key| {
        let advice = ", which cannot be read twice to count them; give --n to insert them as \
                      they come";
        hold(&mut keys, line, name, advice)?;
        keys.push((line, hash(key)));
        Ok(())
    })?;
    Ok(Buffered { keys, lines })
}

/// A key source as messages name it: `stdin` for `-`, else its path.
pub fn source_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "stdin".to_string()
    } else {
        path.display().to_string()
    }
}

/// What a build does when its key source yielded no key: a filter of no keys answers "absent"
/// for every key, so one saved in silence turns every later query into a false negative (a
/// pipe read a second time, a command in `<(...)` that failed). Refused when keys were expected
/// (the capacity was to be counted from them, or under `--strict`); with `--n`, an empty
/// filter to fill with `add` later is built, with a warning (printed, and returned for the
/// result). `None` when some key was read.
///
/// # Errors
/// No non-empty line was read, and keys were `expected` or `out` is strict.
pub fn no_keys(
    lines: &LineCounts,
    name: &str,
    expected: bool,
    out: crate::output::Out,
) -> Result<Option<String>> {
    if lines.lines > lines.empty {
        return Ok(None);
    }
    let what = format!(
        "{name} yielded no keys ({} lines, {} of them empty)",
        lines.lines, lines.empty
    );
    if expected || out.strict {
        let why = if expected { "" } else { " (--strict)" };
        bail!(
            "{what}; nothing was saved{why}: a filter built from no keys answers \"absent\" for \
             every key. Check the command or file that feeds --keys"
        );
    }
    let message = format!(
        "{what}: the filter is empty and answers \"absent\" for every key until keys are added"
    );
    out.warn(&message);
    Ok(Some(message))
}

mod ordered;
#[cfg(test)]
mod tests;
