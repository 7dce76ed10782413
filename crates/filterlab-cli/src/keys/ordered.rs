//! Inserting a block of keys read whole: repeats found by sorting their hashes (not by a hash
//! set probed once a key, a cache miss each), then the first copy of every key inserted in the
//! order of the lines, a batch at a time ([`Filter::insert_hash_batch`], which prefetches).
//! The filter ends as inserting the lines one by one, skipping repeats, leaves it.

use super::Counts;
use anyhow::{Context, Result};
use filterlab::{AnyFilter, Filter, Hash128};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Keys a batch insert is given.
const CHUNK: usize = 4096;

/// Bits of an entry's position: [`first_occurrences`] takes at most `2^24` keys.
const POSITION_BITS: u32 = 24;

/// `keep[i]`: whether the hash of `keys[i]` (`(line, hash)`) is the first of its value. Each
/// key becomes one `u64`: the top 40 bits of its hash, then its position. The entries are put
/// in order of their top `B` bits (`2^B` about `len / 32`) by two stable counting passes of
/// `B/2` bits (a few hundred output streams each, which the caches keep), then each group of
/// one prefix is sorted; the entries of one 40-bit value are then in the order of the lines,
/// and every one after the first whose whole hash repeats an earlier one's is dropped.
///
/// # Panics
/// More than `2^24` keys (callers pass at most [`super::Limits::tracked`]).
#[must_use]
pub fn first_occurrences(keys: &[(u64, Hash128)]) -> Vec<bool> {
    let n = keys.len();
    assert!(n <= 1 << POSITION_BITS, "at most 2^24 keys at once");
    let mut keep = vec![true; n];
    let bits = (usize::BITS - (n / 32).max(1).leading_zeros()).min(2 * 12);
    let entries = keys
        .iter()
        .enumerate()
        .map(|(i, (_, h))| (h.hi >> POSITION_BITS << POSITION_BITS) | i as u64);
    let low = bits / 2;
    let mut once = vec![0u64; n];
    scatter(
        entries,
        &mut once,
        |e| (e >> (64 - bits)) as usize & ((1 << low) - 1),
        low,
    );
    let mut sorted = vec![0u64; n];
    scatter(
        once.iter().copied(),
        &mut sorted,
        |e| (e >> (64 - (bits - low))) as usize,
        bits - low,
    );
    drop(once);
    let hash = |e: u64| &keys[(e & ((1 << POSITION_BITS) - 1)) as usize].1;
    for group in sorted.chunk_by_mut(|a, b| a >> (64 - bits) == b >> (64 - bits)) {
        group.sort_unstable();
        // Only entries sharing 40 bits are looked at again (a repeat, almost always): the keys
        // are read at random places, so a distinct key must not touch them.
        for run in group.chunk_by(|a, b| a >> POSITION_BITS == b >> POSITION_BITS) {
            for (j, &e) in run.iter().enumerate().skip(1) {
                let h = hash(e);
                if run[..j].iter().any(|&f| hash(f) == h) {
                    keep[(e & ((1 << POSITION_BITS) - 1)) as usize] = false;
                }
            }
        }
    }
    keep
}

/// A stable counting sort of `entries` into `out` by `digit` (`bits` wide).
fn scatter(
    entries: impl Iterator<Item = u64> + Clone,
    out: &mut [u64],
    digit: impl Fn(u64) -> usize,
    bits: u32,
) {
    let mut next = vec![0usize; 1 << bits];
    for e in entries.clone() {
        next[digit(e)] += 1;
    }
    let mut sum = 0;
    for slot in &mut next {
        (*slot, sum) = (sum, sum + *slot);
    }
    for e in entries {
        let d = digit(e);
        out[next[d]] = e;
        next[d] += 1;
    }
}

/// A hasher for keys that are already uniform hashes: the set of tracked keys hashes each
/// 128-bit key hash by folding it, not by SipHash.
#[derive(Default)]
pub struct Folded(u64);

impl Hasher for Folded {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, v: u128) {
        self.0 = (v as u64) ^ (v >> 64) as u64;
    }
}

/// The set of tracked key hashes.
pub type Tracked = HashSet<u128, BuildHasherDefault<Folded>>;

/// Inserts the first copy of every key of `keys` (`(line, hash)` in line order) into `filter`,
/// at `at` for a window counted in time, counting the repeats in `counts`. Batched where the
/// filter's insert count tells which key of a batch failed (every key in one batch into an
/// empty filter that builds in one pass); one at a time for a window (timed
/// inserts) or a filter that skips keys it reports present.
///
/// # Errors
/// A full filter, with the line of the key it refused.
pub fn insert_distinct(
    filter: &mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    keys: &[(u64, Hash128)],
    counts: &mut Counts,
) -> Result<()> {
    let keep = first_occurrences(keys);
    let distinct = keep.iter().filter(|&&k| k).count();
    counts.duplicates += (keys.len() - distinct) as u64;
    let one_by_one = at.is_some() || filter.capabilities().skips_present;
    // A table built in one pass from a whole set takes every key in one call.
    let bulk = filter.capabilities().bulk_build && filter.is_empty();
    let per_call = if bulk { distinct.max(1) } else { CHUNK };
    let mut chunk: Vec<(u64, Hash128)> = Vec::with_capacity(per_call);
    let firsts = keys.iter().zip(&keep).filter(|(_, &k)| k).map(|(k, _)| *k);
    for key in firsts {
        chunk.push(key);
        if chunk.len() == per_call {
            insert_chunk(filter, at, &chunk, one_by_one)?;
            chunk.clear();
        }
    }
    insert_chunk(filter, at, &chunk, one_by_one)
}

/// Inserts `chunk` into `filter`, naming the line of the key refused.
fn insert_chunk(
    filter: &mut AnyFilter,
    at: Option<filterlab::Timestamp>,
    chunk: &[(u64, Hash128)],
    one_by_one: bool,
) -> Result<()> {
    if one_by_one {
        for &(line, h) in chunk {
            let inserted = match at {
                Some(t) => filter.insert_hash_at(h, t),
                None => filter.insert_hash(h),
            };
            inserted.with_context(|| full(line, filter.len()))?;
        }
        return Ok(());
    }
    let before = filter.len();
    let hashes: Vec<Hash128> = chunk.iter().map(|&(_, h)| h).collect();
    filter.insert_hash_batch(&hashes).with_context(|| {
        // The keys before the refused one are in: each counted once (no repeat is given).
        let done = filter.len().saturating_sub(before) as usize;
        full(chunk[done.min(chunk.len() - 1)].0, filter.len())
    })
}

/// The message of a full filter at `line`.
pub fn full(line: u64, len: u64) -> String {
    format!("line {line}: the filter is full after {len} keys; build it with a larger --n")
}

#[cfg(test)]
mod tests;
