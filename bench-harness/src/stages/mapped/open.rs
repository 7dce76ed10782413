//! Opening a saved filter: in place (with and without the whole-file checksum) against a plain
//! read of the file and a load, and the first lookup after an open, cold and warm, all in
//! interleaved rounds over one file.
//!
//! Each round runs, in this order: the file's pages dropped from the page cache
//! ([`evict`]) and the whole file read through 1 MiB buffers (the disk's read speed); dropped
//! again, an open and `verify` (the checksum at the disk's speed); dropped again, an open and
//! one lookup (cold: the lookup reads its page from the disk); the whole file read twice (the
//! first brings it into the cache, the second is timed); an open and one lookup of another key
//! (warm); an open alone; an open and `verify`; a load. The harness holds no
//! mapping of the file when it evicts it (a mapped page is not dropped), and [`crate::measure::sys::resident_share`]
//! records how much of the file was still cached right after, so that "cold" is checked rather
//! than assumed.

use crate::dataset::KeySet;
use anyhow::{Context, Result};
use filterlab::any::AnyFilter;
use filterlab::Filter;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

/// One file's open figures, one sample a round, in the order the rounds ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpenTimes {
    /// `AnyFilter::open`: map and the O(1) checks, milliseconds.
    pub open_ms: Vec<f64>,
    /// `AnyFilter::open` then `Mapped::verify` (every byte checksummed), milliseconds.
    pub verify_ms: Vec<f64>,
    /// The file read whole through a 1 MiB buffer (from the page cache), milliseconds.
    pub read_ms: Vec<f64>,
    /// `AnyFilter::load`, milliseconds.
    pub load_ms: Vec<f64>,
    /// The file read whole, its pages evicted first (from the disk), milliseconds.
    pub cold_read_ms: Vec<f64>,
    /// An open and `verify`, the file's pages evicted first, milliseconds.
    pub cold_verify_ms: Vec<f64>,
    /// An open and the first lookup, the file's pages evicted first, microseconds.
    pub cold_first_us: Vec<f64>,
    /// An open and the first lookup, the file cached, microseconds.
    pub warm_first_us: Vec<f64>,
    /// The share of the file's pages still in the page cache right after each eviction.
    pub resident_after_eviction: Vec<f64>,
}

/// The most of a file that may still be cached right after a drop for its runs to count as
/// cold (a file system that keeps its pages, such as tmpfs, keeps them all).
pub const COLD_RESIDENT: f64 = 0.05;

impl OpenTimes {
    /// Whether every drop left at most [`COLD_RESIDENT`] of the file cached: the cold runs were
    /// cold.
    #[must_use]
    pub fn was_cold(&self) -> bool {
        !self.resident_after_eviction.is_empty()
            && self
                .resident_after_eviction
                .iter()
                .all(|&s| s <= COLD_RESIDENT)
    }

    /// Why the cold runs do not count, in words (`None`: they were cold).
    #[must_use]
    pub fn not_cold(&self) -> Option<String> {
        let most = self
            .resident_after_eviction
            .iter()
            .copied()
            .fold(0.0, f64::max);
        (!self.was_cold()).then(|| {
            format!(
                "not measured: the page cache could not be dropped here ({:.0}% of the file \
                 still cached after a drop)",
                most * 100.0
            )
        })
    }
}

/// Asks the kernel to drop the file's cached pages (clean pages that no process maps are
/// dropped), after syncing it.
///
/// # Errors
/// The file cannot be opened or the advice is refused.
pub fn evict(path: &Path) -> Result<()> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    file.sync_all()?;
    crate::measure::sys::drop_cached(&file)
        .with_context(|| format!("dropping the cached pages of {}", path.display()))
}

/// Milliseconds `f` took.
fn millis<T>(f: impl FnOnce() -> Result<T>) -> Result<f64> {
    let t = Instant::now();
    black_box(f()?);
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Microseconds of an open and one lookup of `key` (which must be a member).
fn first_lookup(path: &Path, key: &[u8]) -> Result<f64> {
    let t = Instant::now();
    let mapped = AnyFilter::open(path)?;
    let hit = mapped.contains(black_box(key));
    let us = t.elapsed().as_secs_f64() * 1e6;
    anyhow::ensure!(hit, "the mapped filter lost a member on its first lookup");
    Ok(us)
}

/// Reads the file whole through a 1 MiB buffer; returns its length.
fn read_whole(path: &Path) -> Result<u64> {
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut total = 0u64;
    loop {
        match file.read(&mut buf)? {
            0 => return Ok(total),
            n => total += black_box(n) as u64,
        }
    }
}

/// `rounds` interleaved rounds over the file at `path`, whose filter holds `members[..n]`.
///
/// # Errors
/// An open, read, verification or load that fails, or a member not found.
pub fn measure(path: &Path, members: &KeySet, n: usize, rounds: usize) -> Result<OpenTimes> {
    let mut t = OpenTimes::default();
    anyhow::ensure!(n > 0 && n <= members.len(), "no members to look up");
    let verified = || {
        let m = AnyFilter::open(path)?;
        m.verify().context("verify")?;
        Ok(m)
    };
    for round in 0..rounds {
        evict(path)?;
        t.cold_read_ms.push(millis(|| read_whole(path))?);
        evict(path)?;
        t.cold_verify_ms.push(millis(verified)?);
        evict(path)?;
        {
            let m = AnyFilter::open(path)?;
            if let Some(share) = crate::measure::sys::resident_share(m.file_bytes()) {
                t.resident_after_eviction.push(share);
            }
        }
        t.cold_first_us
            .push(first_lookup(path, members.get((round * 7919) % n))?);
        // The first read brings the file into the page cache (from the disk: the drop above);
        // the second is timed, every page cached.
        read_whole(path)?;
        t.read_ms.push(millis(|| read_whole(path))?);
        t.warm_first_us
            .push(first_lookup(path, members.get((round * 7919 + 1) % n))?);
        t.open_ms.push(millis(|| Ok(AnyFilter::open(path)?))?);
        t.verify_ms.push(millis(verified)?);
        t.load_ms.push(millis(|| Ok(AnyFilter::load(path)?))?);
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use filterlab::any::{Params, Variant};

    #[test]
    fn a_mapping_read_through_is_resident_and_misaligned_bytes_are_refused() {
        let dir = std::env::temp_dir().join(format!("mapped-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        let mut f = AnyFilter::build(Variant::Blocked, &Params::new(100_000, 0.01)).unwrap();
        f.insert(b"a").unwrap();
        f.save(&path).unwrap();
        let m = AnyFilter::open(&path).unwrap();
        let sum: u64 = m.file_bytes().iter().map(|&b| u64::from(b)).sum();
        black_box(sum);
        assert_eq!(
            crate::measure::sys::resident_share(m.file_bytes()),
            Some(1.0)
        );
        assert_eq!(
            crate::measure::sys::resident_share(&m.file_bytes()[1..]),
            None
        );
        assert_eq!(crate::measure::sys::resident_share(&[]), None);
        drop(m);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
