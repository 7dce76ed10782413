//! Reading a key file into a filter: one key a line, repeats counted, memory bounded.
//!
//! Repeats are recognised exactly by a set of the keys' 128-bit hashes while it holds fewer
//! than [`Limits::tracked`] entries (its memory reserved fallibly); past that, a key the filter
//! already reports present is counted as a *maybe* duplicate (a repeat or a false positive)
//! and not inserted again, so the count of the set never grows without bound.

use crate::store::AnyFilter;
use anyhow::{bail, Context, Result};
use std::collections::HashSet;
use std::io::{BufRead, Read};

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
    /// Lines read.
    pub lines: u64,
    /// Lines that repeated a tracked key (not inserted again).
    pub duplicates: u64,
    /// Lines past the tracking limit that the filter already reported present: repeats or
    /// false positives (not inserted).
    pub maybe_duplicates: u64,
    /// Empty lines skipped.
    pub empty: u64,
}

/// Calls `each` with every line's number and key (its line ending removed).
///
/// # Errors
/// A read error, a key longer than `key_bytes` (found without reading the rest of its line),
/// or the first error of `each`.
pub fn for_each_key(
    mut reader: impl BufRead,
    key_bytes: usize,
    mut each: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<u64> {
    let mut line = Vec::new();
    // A key, its "\r\n", and one byte more to tell a long line from a long key.
    let line_max = key_bytes as u64 + 3;
    let mut lines = 0;
    loop {
        line.clear();
        let read = (&mut reader).take(line_max).read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(lines);
        }
        lines += 1;
        let key = trim_newline(&line);
        if key.len() > key_bytes {
            bail!("line {lines}: a key longer than {key_bytes} bytes; keys are one per line");
        }
        each(lines, key)?;
    }
}

/// Inserts every line of `reader` into `filter`.
///
/// # Errors
/// As [`for_each_key`]; a set that cannot grow, or a full filter, with the line number.
pub fn insert_lines(
    reader: impl BufRead,
    filter: &mut AnyFilter,
    limits: Limits,
) -> Result<Counts> {
    let mut counts = Counts::default();
    let mut seen: HashSet<u128> = HashSet::new();
    counts.lines = for_each_key(reader, limits.key_bytes, |line, key| {
        if key.is_empty() {
            counts.empty += 1;
            return Ok(());
        }
        let h = filter.hash(key);
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
        filter.insert_hash(h).with_context(|| {
            format!(
                "line {line}: the filter is full after {} keys; build it with a larger --n",
                filter.len()
            )
        })
    })?;
    Ok(counts)
}

fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Variant;

    fn filter() -> AnyFilter {
        AnyFilter::build(Variant::Classic, 1000, 0.01).unwrap()
    }

    #[test]
    fn repeats_are_counted_exactly_while_tracked() {
        let mut f = filter();
        let input = b"a\nb\r\na\n\nb\nc";
        let c = insert_lines(&input[..], &mut f, Limits::default()).unwrap();
        let want = Counts {
            lines: 6,
            duplicates: 2,
            maybe_duplicates: 0,
            empty: 1,
        };
        assert_eq!(c, want);
        assert_eq!(f.len(), 3);
    }

    #[test]
    fn past_the_tracking_limit_repeats_are_maybe_duplicates() {
        let mut f = filter();
        let limits = Limits {
            key_bytes: 16,
            tracked: 2,
        };
        // a and b are tracked; c and d are not, and their repeats are caught by the filter.
        let input = b"a\nb\nc\nd\na\nc\nd\n";
        let c = insert_lines(&input[..], &mut f, limits).unwrap();
        assert_eq!((c.duplicates, c.maybe_duplicates), (1, 2));
        assert_eq!(f.len(), 4);
    }

    #[test]
    fn a_key_longer_than_the_limit_is_an_error_at_its_line() {
        let limits = Limits {
            key_bytes: 4,
            tracked: 8,
        };
        // Exactly the limit, with either line ending, is fine.
        let ok = insert_lines(&b"abcd\r\nabce\nabcf"[..], &mut filter(), limits).unwrap();
        assert_eq!(ok.lines, 3);
        let e = insert_lines(&b"abcd\nabcde\n"[..], &mut filter(), limits).unwrap_err();
        assert!(
            e.to_string().contains("line 2: a key longer than 4 bytes"),
            "{e}"
        );
        // An endless line stops at the limit instead of filling memory.
        let endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let e = insert_lines(endless, &mut filter(), limits).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
    }
}
