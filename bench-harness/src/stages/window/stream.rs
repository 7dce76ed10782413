//! The stream and its checkpoints, and the timing rounds.

use super::designs::Windowed;
use super::{Checkpoint, Settings};
use crate::measure::Spread;
use anyhow::Result;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::Instant;

/// Keys inserted per call while streaming.
const CHUNK: usize = 4096;
/// Where the timing rounds' fresh non-members start (far past the stream's).
const TIMING_NEGATIVES: u64 = 1 << 40;

/// The `i`-th key of the stream (`member`) or the `i`-th fresh non-member: 8 bytes, a bijection
/// of `i` (splitmix64's finaliser) with the top bit of its input telling the two apart, so the
/// two sets never meet and no key repeats.
#[must_use]
pub fn key(member: bool, i: u64, seed: u64) -> [u8; 8] {
    let top = if member { 0 } else { 1 << 63 };
    let mut z = (i ^ (seed >> 1)) & !(1 << 63) | top;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)).to_le_bytes()
}

/// Inserts members `range` into `filter`, [`CHUNK`] a call.
fn insert_range(filter: &mut dyn Windowed, range: std::ops::Range<u64>, seed: u64) -> Result<()> {
    let mut keys: Vec<[u8; 8]> = Vec::with_capacity(CHUNK);
    let mut i = range.start;
    while i < range.end {
        let end = (i + CHUNK as u64).min(range.end);
        keys.clear();
        keys.extend((i..end).map(|j| key(true, j, seed)));
        let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
        filter.insert_batch(&refs)?;
        i = end;
    }
    Ok(())
}

/// `count` ages spread evenly from `first` to `first + span - 1`.
fn ages(first: u64, span: u64, count: u64) -> impl Iterator<Item = u64> {
    let steps = count.max(2) - 1;
    (0..count).map(move |j| first + j * (span - 1) / steps)
}

/// One checkpoint after `inserted` inserts; `negative` is the next fresh non-member.
fn checkpoint(
    filter: &dyn Windowed,
    inserted: u64,
    horizon: u64,
    s: &Settings,
    negative: &mut u64,
) -> Checkpoint {
    let fp = (*negative..*negative + s.fp_queries)
        .filter(|&j| filter.contains(&key(false, j, s.seed)))
        .count() as u64;
    *negative += s.fp_queries;
    let member = |age: u64| key(true, inserted - age, s.seed);
    let in_window: Vec<u64> = ages(1, s.window, s.samples)
        .filter(|&a| a <= inserted)
        .collect();
    let lost = in_window
        .iter()
        .filter(|&&a| !filter.contains(&member(a)))
        .count() as u64;
    let aged: Vec<u64> = ages(horizon + 1, s.window, s.samples)
        .filter(|&a| a <= inserted)
        .collect();
    let aged_maybe = aged
        .iter()
        .filter(|&&a| filter.contains(&member(a)))
        .count() as u64;
    Checkpoint {
        inserted,
        false_positives: fp,
        probes: s.fp_queries,
        model: filter.model(),
        in_window: in_window.len() as u64,
        false_negatives: lost,
        aged: aged.len() as u64,
        aged_maybe,
        bytes: filter.bytes(),
    }
}

/// Streams `(windows + 1) · window` members into `filter`, with a checkpoint every
/// `window / checkpoints_per_window` inserts from the end of the first window on.
///
/// # Errors
/// An insert refused.
pub fn stream(filter: &mut dyn Windowed, s: &Settings, horizon: u64) -> Result<Vec<Checkpoint>> {
    let total = s.window * (s.windows + 1);
    let every = (s.window / s.checkpoints_per_window.max(1)).max(1);
    let (mut inserted, mut next, mut negative) = (0, s.window, 0);
    let mut out = Vec::new();
    while inserted < total {
        let upto = next.min(total);
        insert_range(filter, inserted..upto, s.seed)?;
        inserted = upto;
        if inserted == next {
            out.push(checkpoint(filter, inserted, horizon, s, &mut negative));
            next += every;
        }
    }
    Ok(out)
}

/// ns per insert of `keys` through `insert_batch`, [`filterlab::BATCH`] keys a call.
#[inline(never)]
fn time_inserts(filter: &mut dyn Windowed, keys: &[[u8; 8]]) -> Result<f64> {
    let mut refs: Vec<&[u8]> = Vec::with_capacity(filterlab::BATCH);
    let start = Instant::now();
    for chunk in keys.chunks(filterlab::BATCH) {
        refs.clear();
        refs.extend(chunk.iter().map(|k| k.as_slice()));
        filter.insert_batch(black_box(&refs))?;
    }
    Ok(start.elapsed().as_nanos() as f64 / keys.len().max(1) as f64)
}

/// ns per lookup of `queries`, one at a time.
#[inline(never)]
fn time_lookups(filter: &dyn Windowed, queries: &[[u8; 8]]) -> f64 {
    let start = Instant::now();
    let hits = queries
        .iter()
        .filter(|q| filter.contains(black_box(q.as_slice())))
        .count();
    black_box(hits);
    start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64
}

/// Half in-window members (ages 1 to `window`), half fresh non-members, shuffled.
fn lookup_queries(s: &Settings, inserted: u64, round: usize) -> Vec<[u8; 8]> {
    let half = s.timed_lookups / 2;
    let first_negative = TIMING_NEGATIVES + round as u64 * half;
    let mut q: Vec<[u8; 8]> = ages(1, s.window.min(inserted), half)
        .map(|a| key(true, inserted - a, s.seed))
        .chain((first_negative..first_negative + half).map(|j| key(false, j, s.seed)))
        .collect();
    q.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(
        s.seed ^ round as u64,
    ));
    q
}

/// Interleaved rounds over every filter (the order rotated each round): batched inserts of the
/// stream's next members, then lookups. `(insert ns, lookup ns)` per filter.
///
/// # Errors
/// An insert refused.
pub fn time_rounds(
    filters: &mut [Box<dyn Windowed>],
    s: &Settings,
) -> Result<Vec<(Spread, Spread)>> {
    let n = filters.len();
    let mut ins = vec![Vec::new(); n];
    let mut look = vec![Vec::new(); n];
    let mut inserted = s.window * (s.windows + 1);
    for round in 0..s.rounds {
        let keys: Vec<[u8; 8]> = (inserted..inserted + s.timed_inserts)
            .map(|j| key(true, j, s.seed))
            .collect();
        for i in (0..n).map(|i| (i + round) % n) {
            ins[i].push(time_inserts(filters[i].as_mut(), &keys)?);
        }
        inserted += s.timed_inserts;
        let queries = lookup_queries(s, inserted, round);
        for i in (0..n).map(|i| (i + round) % n) {
            look[i].push(time_lookups(filters[i].as_ref(), &queries));
        }
    }
    Ok(ins
        .iter_mut()
        .zip(look.iter_mut())
        .map(|(a, b)| (Spread::of(a), Spread::of(b)))
        .collect())
}
