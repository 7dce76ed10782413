//! Filters in other ecosystems' formats, recognised by their bytes (issue 40): Guava's
//! `BloomFilter` as its `writeTo` wrote it. `info` describes one, with the count its set bits
//! imply and the rate at that count; `query` answers keys as Guava's `mightContain` does, the
//! keys hashed as `Funnels.byteArrayFunnel()` and `Funnels.stringFunnel(UTF_8)` hash them.

use anyhow::{Context, Result};
use filterlab::interop::guava::{GuavaBloom, Header, HEADER_LEN};
use filterlab::Filter;
use serde::Serialize;
use std::io::Read;
use std::path::Path;

/// A filter in a foreign format.
#[derive(Debug)]
pub enum Foreign {
    /// Guava's `BloomFilter` (`writeTo` / `readFrom`).
    Guava(GuavaBloom),
}

impl Foreign {
    /// Whether the key may be in the set, as its home library answers.
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Foreign::Guava(g) => g.contains(key),
        }
    }

    /// What it is, in messages: "a Guava BloomFilter (MURMUR128_MITZ_64)".
    pub fn describe(&self) -> String {
        match self {
            Foreign::Guava(g) => format!("a Guava BloomFilter ({})", g.strategy().name()),
        }
    }

    /// Its expected false-positive rate at its recorded or estimated count.
    pub fn expected_fpr(&self) -> f64 {
        match self {
            Foreign::Guava(g) => g.estimated_fpr(),
        }
    }
}

/// The foreign filter at `path` when its bytes are one: a valid Guava header whose declared
/// size is exactly the file's (a filterlab file opens with its magic `FLTRLAB`, never with a
/// Guava strategy ordinal 0 or 1). `None` for anything else, which the filterlab loader then
/// reads, naming what is wrong.
///
/// # Errors
/// Something other than a regular file at `path`, an I/O error, a file that has a Guava header
/// but not the size it declares (cut, or with bytes after it), or one that has both but cannot
/// be loaded (out of memory).
pub fn sniff(path: &Path) -> Result<Option<Foreign>> {
    let Some(mut file) = crate::file::open_regular(path)? else {
        return Ok(None);
    };
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let mut head = [0u8; HEADER_LEN];
    if file.read_exact(&mut head).is_err() {
        return Ok(None);
    }
    match Header::parse(&head) {
        Ok(h) if h.file_len() == len => {}
        // A filterlab file opens with its magic, never with a strategy ordinal, a k and a
        // count of longs Guava would write: this is a Guava file that lost or gained bytes.
        Ok(h) => {
            anyhow::bail!(
            "{} has a Guava BloomFilter's header ({}, k = {}, {} longs: {} bytes) but is {len} \
             bytes long: {}; copy it again from where Guava wrote it",
            path.display(),
            h.strategy.name(),
            h.hashes,
            h.words,
            h.file_len(),
            if len < h.file_len() { "cut short" } else { "with bytes after the filter" }
        )
        }
        Err(_) => return Ok(None),
    }
    let guava = GuavaBloom::load(path).with_context(|| {
        format!(
            "{} has a Guava BloomFilter's header but cannot be read",
            path.display()
        )
    })?;
    Ok(Some(Foreign::Guava(guava)))
}

/// What `info` shows of a Guava filter.
#[derive(Debug, Serialize)]
pub struct GuavaInfo {
    /// `"guava"`.
    pub format: &'static str,
    /// The strategy, by Guava's name.
    pub strategy: &'static str,
    /// Bits, `m`.
    pub bits: u64,
    /// Hash functions, `k`.
    pub hashes: u32,
    /// Bits set.
    pub bits_set: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// Items the set bits account for (Swamidass & Baldi 2007); a Guava file stores no count.
    pub estimated_items: f64,
    /// Its standard deviation over filters holding that many items.
    pub estimated_items_sd: f64,
    /// The false-positive rate at the estimated count (Guava's `expectedFpp()`).
    pub expected_fpr: f64,
    /// The count at which `k` is optimal, `m ln 2 / k`: about what the filter was sized for.
    pub capacity: u64,
    /// The hash function and seed (`Hashing.murmur3_128()`).
    pub hash: &'static str,
}

/// `info` of a foreign filter.
pub fn info(f: &Foreign) -> GuavaInfo {
    match f {
        Foreign::Guava(g) => GuavaInfo {
            format: "guava",
            strategy: g.strategy().name(),
            bits: g.bits(),
            hashes: g.hashes(),
            bits_set: g.ones(),
            file_bytes: g.header().file_len(),
            estimated_items: g.estimated_count(),
            estimated_items_sd: g.estimated_count_sd(),
            expected_fpr: g.estimated_fpr(),
            capacity: g.capacity(),
            hash: "murmur3-x64-128 seed 0",
        },
    }
}
