//! The limit, measured: the cost on this machine of one random cache-line read over a table of
//! a filter's size, dependent (a pointer chase) and independent (addresses known up front), and
//! of hashing the comparison's query keys. Records only; `judge::floor` sets the lookups against
//! it and `render` shows them.
//!
//! The read table is the filter's size rounded up to whole 64-byte lines, allocated by the
//! allocator without huge-page advice (4 KiB pages, like every table of the comparison), and
//! written in full before any read (a never-written page is the kernel's shared zero page, which
//! would make every read a cache hit).

use crate::dataset::KeySet;
use crate::measure::{self, Spread};
use crate::record::floor::{FloorReport, FloorTable, Hashing, LineReads, OurHash};
use anyhow::{ensure, Result};
use filterlab::KeyHasher;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::Instant;

/// u64 words in a 64-byte cache line.
const WORDS: usize = 8;

/// A table of whole lines whose first word holds the next line of one random cycle through
/// every line (Sattolo's shuffle), so that a chase from any line visits them all.
fn chase_table(lines: usize, seed: u64) -> Vec<u64> {
    let mut next: Vec<u64> = (0..lines as u64).collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for i in (1..lines).rev() {
        let j = rng.random_range(0..i);
        next.swap(i, j);
    }
    let mut table = vec![0u64; lines * WORDS];
    for (line, n) in next.iter().enumerate() {
        table[line * WORDS] = *n;
        // Every word written: no line may stay on the shared zero page.
        for w in 1..WORDS {
            table[line * WORDS + w] = n ^ w as u64;
        }
    }
    table
}

/// ns per read of `steps` reads, each at the line the previous one named.
#[inline(never)]
fn time_dependent(table: &[u64], steps: usize) -> f64 {
    let mut at = 0usize;
    let start = Instant::now();
    for _ in 0..steps {
        at = table[at * WORDS] as usize;
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(at);
    secs * 1e9 / steps.max(1) as f64
}

/// ns per read of the lines `lines` names, all addresses known before the first read.
#[inline(never)]
fn time_independent(table: &[u64], lines: &[u32]) -> f64 {
    let start = Instant::now();
    let mut sum = 0u64;
    for &l in lines {
        sum = sum.wrapping_add(table[l as usize * WORDS]);
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(sum);
    secs * 1e9 / lines.len().max(1) as f64
}

/// ns per key of hashing every key of `keys` with `hasher` (the filters' own hashing path).
#[inline(never)]
fn time_hashing(hasher: &KeyHasher, keys: &KeySet) -> f64 {
    let start = Instant::now();
    let mut acc = 0u64;
    for k in keys.iter() {
        let h = hasher.hash(black_box(k));
        acc ^= h.lo ^ h.hi;
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(acc);
    secs * 1e9 / keys.len().max(1) as f64
}

/// Floors at each table's size (`(table, its filter's bytes)`) and the hashing of `keys`, over
/// `rounds` rounds (reads and hashes interleaved within each). The independent reads go to the
/// lines the keys' xxh3-128 hashes pick, as a filter's would. The multiples are left empty for
/// `judge::floor`.
///
/// # Errors
/// No key, or a table of no bytes or of more lines than a u32 indexes.
pub fn measure(tables: &[(FloorTable, u64)], keys: &KeySet, rounds: usize) -> Result<FloorReport> {
    ensure!(!keys.is_empty(), "the floor stage needs query keys");
    let hasher = |h| KeyHasher::new(OurHash::kind(h), 0);
    let hashers = OurHash::ALL
        .iter()
        .map(|&h| hasher(h).map(|k| (h, k)))
        .collect::<Result<Vec<_>, _>>()?;
    let mut built = Vec::new();
    for (i, &(table, bytes)) in tables.iter().enumerate() {
        let lines = bytes.div_ceil(WORDS as u64 * 8) as usize;
        ensure!(
            lines > 0 && u32::try_from(lines).is_ok(),
            "the {} table of {bytes} bytes cannot be read as lines",
            table.name()
        );
        let picks: Vec<u32> = keys
            .iter()
            .map(|k| {
                let h = hashers[0].1.hash(k).lo;
                ((u128::from(h) * lines as u128) >> 64) as u32
            })
            .collect();
        built.push((table, bytes, chase_table(lines, 0xF100 + i as u64), picks));
    }
    let mut dep = vec![Vec::new(); built.len()];
    let mut ind = vec![Vec::new(); built.len()];
    let mut hashing = vec![Vec::new(); hashers.len()];
    for _ in 0..rounds.max(1) {
        for (i, (_, _, table, picks)) in built.iter().enumerate() {
            measure::settle_heap();
            dep[i].push(time_dependent(table, keys.len()));
            ind[i].push(time_independent(table, picks));
        }
        for (j, (_, h)) in hashers.iter().enumerate() {
            hashing[j].push(time_hashing(h, keys));
        }
    }
    let reads = built
        .iter()
        .zip(dep.iter_mut().zip(ind.iter_mut()))
        .map(|((table, bytes, t, _), (d, i))| LineReads {
            table: *table,
            bytes: *bytes,
            lines: (t.len() / WORDS) as u64,
            dependent: Spread::of(d),
            independent: Spread::of(i),
        })
        .collect();
    let hashing = hashers
        .iter()
        .zip(hashing.iter_mut())
        .map(|((h, _), v)| Hashing {
            hash: *h,
            ns: Spread::of(v),
        })
        .collect();
    Ok(FloorReport {
        queries: keys.len(),
        rounds: rounds.max(1),
        reads,
        hashing,
        multiples: Vec::new(),
    })
}

#[cfg(test)]
mod tests;
