//! Measuring: timed scans, interleaved rounds, latency samples, parallel counts.
//!
//! Absolute times on a shared 2-core machine swing between runs, so every comparison in the
//! reports is made between figures taken in the same run, as medians of interleaved rounds.

use crate::dataset::KeySet;
use filterlab::Filter;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;

/// A lookup mix: the share of the queries that are members.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mix {
    /// Every query a non-member.
    None,
    /// A quarter members.
    Quarter,
    /// Half members.
    Half,
    /// Three quarters members.
    ThreeQuarters,
    /// Every query a member.
    All,
}

impl Mix {
    /// The matrix's mixes.
    pub const ALL: [Mix; 5] = [
        Mix::None,
        Mix::Quarter,
        Mix::Half,
        Mix::ThreeQuarters,
        Mix::All,
    ];
    /// The size sweep's mixes.
    pub const SWEEP: [Mix; 3] = [Mix::None, Mix::Half, Mix::All];

    /// Members among the queries, in percent.
    pub fn percent(self) -> u32 {
        match self {
            Mix::None => 0,
            Mix::Quarter => 25,
            Mix::Half => 50,
            Mix::ThreeQuarters => 75,
            Mix::All => 100,
        }
    }

    /// The key of this mix in results.json's `ns_per_lookup` maps.
    pub fn key(self) -> &'static str {
        match self {
            Mix::None => "0",
            Mix::Quarter => "25",
            Mix::Half => "50",
            Mix::ThreeQuarters => "75",
            Mix::All => "100",
        }
    }
}

/// A timing taken in several rounds: its median, and the lowest and highest round, so that
/// every table and plot can show how much the figure moved within the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Median over the rounds.
    pub median: f64,
    /// Fastest round.
    pub min: f64,
    /// Slowest round.
    pub max: f64,
    /// Rounds behind the figure (1: a single sample, min = max = median).
    pub rounds: usize,
    /// Every round's figure, in the order the rounds ran (so that two figures timed in the
    /// same interleaved rounds can be paired: [`bootstrap::ratio_interval`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<f64>,
}

impl Spread {
    /// The spread of `samples` (reordered); `NaN`s everywhere, 0 rounds, for none.
    pub fn of(samples: &mut [f64]) -> Self {
        let in_order = samples.to_vec();
        let median = median(samples);
        Self {
            median,
            min: samples.first().copied().unwrap_or(f64::NAN),
            max: samples.last().copied().unwrap_or(f64::NAN),
            rounds: samples.len(),
            samples: in_order,
        }
    }

    /// One sample, stated as such (`rounds = 1`).
    pub fn single(v: f64) -> Self {
        Self {
            median: v,
            min: v,
            max: v,
            rounds: 1,
            samples: vec![v],
        }
    }

    /// Every figure multiplied by `k` (a unit change: seconds to ns per key, ...).
    #[must_use]
    pub fn scaled(&self, k: f64) -> Self {
        Self {
            median: self.median * k,
            min: self.min * k,
            max: self.max * k,
            rounds: self.rounds,
            samples: self.samples.iter().map(|v| v * k).collect(),
        }
    }

    /// `(min, max)`, as a chart's error bar.
    pub fn range(&self) -> (f64, f64) {
        (self.min, self.max)
    }

    /// Whether every figure is finite, 0 < min ≤ median ≤ max, and at least one round was
    /// taken (nothing measurable takes no time: 0 is a clock that was not read).
    pub fn is_sound(&self) -> bool {
        self.rounds > 0
            && self.min > 0.0
            && [self.median, self.min, self.max]
                .iter()
                .all(|v| v.is_finite())
            && self.min <= self.median
            && self.median <= self.max
    }
}

impl std::fmt::Display for Spread {
    /// `median (min–max)` with one decimal, the median alone for a single sample, `–` for
    /// none.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let prec = f.precision().unwrap_or(1);
        if self.rounds == 0 {
            f.write_str("–")
        } else if self.rounds == 1 {
            write!(f, "{:.prec$}", self.median)
        } else {
            write!(
                f,
                "{:.prec$} ({:.prec$}–{:.prec$})",
                self.median, self.min, self.max
            )
        }
    }
}

/// Median of `v` (which is reordered). `NaN` for an empty slice.
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// The `q`-quantile (0..=1) of sorted data, nearest rank.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `count` queries of which `percent`% are members (drawn from `members[..member_limit]`) and the
/// rest non-members, shuffled, from a seeded generator.
///
/// The queries are copied into one contiguous [`KeySet`], as a request handler has its key at
/// hand: reading a query must not cost a cache miss of its own, or every filter would look alike.
pub fn query_mix(
    members: &KeySet,
    member_limit: usize,
    probes: &KeySet,
    percent: u32,
    count: usize,
    seed: u64,
) -> KeySet {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ u64::from(percent) << 32);
    let positives = count * percent as usize / 100;
    let mut q: Vec<&[u8]> = Vec::with_capacity(count);
    for _ in 0..positives {
        q.push(members.get(rng.random_range(0..member_limit)));
    }
    for _ in positives..count {
        q.push(probes.get(rng.random_range(0..probes.len())));
    }
    q.shuffle(&mut rng);
    q.into_iter().collect()
}

/// Times one pass of `contains` over `queries`, one key at a time: nanoseconds per query.
#[inline(never)]
pub fn time_lookups<F: Filter>(filter: &F, queries: &KeySet) -> f64 {
    let start = Instant::now();
    let mut hits = 0usize;
    for q in queries.iter() {
        hits += usize::from(filter.contains(black_box(q)));
    }
    black_box(hits);
    start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64
}

/// ns per lookup of `queries` in a peer, one at a time (the peers' twin of [`time_lookups`]).
#[inline(never)]
pub fn time_peer_lookups(peer: &filterlab_peers::Peer, queries: &KeySet) -> f64 {
    let start = Instant::now();
    let hits = queries
        .iter()
        .filter(|q| peer.contains(black_box(q)))
        .count();
    black_box(hits);
    start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64
}

/// Times one pass of `contains_batch` over `queries` in batches of `batch` keys: nanoseconds per query. The key slices are gathered per batch inside the timed
/// loop, as a caller holding a `KeySet` would.
#[inline(never)]
pub fn time_batch_lookups<F: Filter>(filter: &F, queries: &KeySet, batch: usize) -> f64 {
    let mut refs: Vec<&[u8]> = Vec::with_capacity(batch);
    let mut out = Vec::with_capacity(batch);
    let start = Instant::now();
    let mut hits = 0usize;
    let mut i = 0;
    while i < queries.len() {
        let end = (i + batch).min(queries.len());
        refs.clear();
        refs.extend((i..end).map(|j| queries.get(j)));
        filter.contains_batch(black_box(&refs), &mut out);
        hits += out.iter().filter(|&&b| b).count();
        i = end;
    }
    black_box(hits);
    start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64
}

/// Inserts `keys[range]` one at a time, returning seconds taken (failed inserts are counted in
/// the second value, not retried).
#[inline(never)]
pub fn time_inserts<F: Filter>(
    filter: &mut F,
    keys: &KeySet,
    range: std::ops::Range<usize>,
) -> (f64, u64) {
    let start = Instant::now();
    let mut failures = 0;
    for i in range {
        if filter.insert(keys.get(i)).is_err() {
            failures += 1;
        }
    }
    (start.elapsed().as_secs_f64(), failures)
}

/// Inserts `keys[range]` through `insert_batch`, [`filterlab::BATCH`] keys a call: seconds taken.
///
/// # Errors
/// A refused insert.
#[inline(never)]
pub fn time_batch_inserts<F: Filter>(
    filter: &mut F,
    keys: &KeySet,
    range: std::ops::Range<usize>,
) -> anyhow::Result<f64> {
    time_inserts_by(filter, keys, range, filterlab::BATCH)
}

/// Inserts `keys[range]` through one `insert_batch` of them all, as a variant that builds from
/// a whole key set in one pass takes them
/// ([`Capabilities::bulk_build`](filterlab::Capabilities::bulk_build)): seconds taken, the
/// list of the keys' slices included.
///
/// # Errors
/// A refused insert.
#[inline(never)]
pub fn time_bulk_build<F: Filter>(
    filter: &mut F,
    keys: &KeySet,
    range: std::ops::Range<usize>,
) -> anyhow::Result<f64> {
    let whole = range.len().max(1);
    time_inserts_by(filter, keys, range, whole)
}

/// Inserts `keys[range]` through `insert_batch`, `per_call` keys a call: seconds taken.
fn time_inserts_by<F: Filter>(
    filter: &mut F,
    keys: &KeySet,
    range: std::ops::Range<usize>,
    per_call: usize,
) -> anyhow::Result<f64> {
    let start = Instant::now();
    let mut refs: Vec<&[u8]> = Vec::with_capacity(per_call.min(range.len()));
    let mut i = range.start;
    while i < range.end {
        let end = (i + per_call).min(range.end);
        refs.clear();
        refs.extend((i..end).map(|j| keys.get(j)));
        filter
            .insert_batch(&refs)
            .map_err(|e| anyhow::anyhow!("{}: batch insert refused: {e}", filter.name()))?;
        i = end;
    }
    Ok(start.elapsed().as_secs_f64())
}

/// Settles the allocator before a timed build, so that a build does not pay for what the
/// previous contender freed. glibc's malloc keeps freed small chunks in fast bins and merges them
/// all at the next request of 1 KiB or more: after `HashSet<String>` (10M strings) was dropped,
/// the next build that made such a request (the classic filter's batched build, through its
/// 4 KiB key buffer) took 2.2 s instead of 0.37 s, and the 10-M-chunk merge was timed as its own.
/// A 4 KiB request here makes the merge happen now, outside every clock.
pub fn settle_heap() {
    std::hint::black_box(Vec::<u8>::with_capacity(4096));
}

/// `AnonHugePages` of this process in kB (from /proc/self/smaps_rollup); `None` where the
/// kernel does not report it.
pub fn anon_huge_pages_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = s.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `build` and returns its result with the share of `bytes(result)` that the process's
/// huge-page total grew by meanwhile: the huge-page coverage of the table it allocated (the
/// builds are single-threaded and nothing else allocates meanwhile). `None`: not obtained.
pub fn with_huge_page_coverage<T>(
    build: impl FnOnce() -> anyhow::Result<T>,
    bytes: impl Fn(&T) -> usize,
) -> anyhow::Result<(T, Option<f64>)> {
    let before = anon_huge_pages_kb();
    let out = build()?;
    let after = anon_huge_pages_kb();
    let size = bytes(&out).max(1) as f64;
    let coverage = after
        .zip(before)
        .map(|(a, b)| (a.saturating_sub(b) as f64 * 1024.0 / size).min(1.0));
    Ok((out, coverage))
}

/// Share of one of our filters' tables on huge pages, measured for those very tables
/// ([`Filter::huge_page_bytes`]); `None`: not obtained.
pub fn table_huge_page_coverage<F: Filter>(filter: &F) -> Option<f64> {
    let bytes = filter.size_in_bytes().max(1) as f64;
    filter
        .huge_page_bytes()
        .map(|h| (h as f64 / bytes).min(1.0))
}

/// Median cost of reading the clock twice, subtracted from single-query latencies.
pub fn timer_overhead_ns() -> f64 {
    let mut v: Vec<f64> = (0..10_001)
        .map(|_| {
            let t = Instant::now();
            black_box(());
            t.elapsed().as_nanos() as f64
        })
        .collect();
    median(&mut v)
}

/// Single-query latencies over the first `sample` queries: (p50, p99) in ns, timer overhead
/// subtracted.
pub fn latency_percentiles<F: Filter>(
    filter: &F,
    queries: &KeySet,
    sample: usize,
    overhead: f64,
) -> (f64, f64) {
    let mut lat: Vec<f64> = queries
        .iter()
        .take(sample)
        .map(|q| {
            let t = Instant::now();
            black_box(filter.contains(black_box(q)));
            (t.elapsed().as_nanos() as f64 - overhead).max(0.0)
        })
        .collect();
    lat.sort_by(f64::total_cmp);
    (quantile(&lat, 0.50), quantile(&lat, 0.99))
}

/// How many of `keys[range]` the filter reports present, counted on all cores through
/// `contains_batch` (the same answers as `contains`, with the next keys' memory prefetched:
/// several times faster on tables beyond the caches; not timed).
pub fn count_present<F: Filter + Sync>(
    filter: &F,
    keys: &KeySet,
    range: std::ops::Range<usize>,
) -> u64 {
    const CHUNK: usize = 4096;
    let starts: Vec<usize> = range.clone().step_by(CHUNK).collect();
    starts
        .into_par_iter()
        .map(|start| {
            let refs: Vec<&[u8]> = (start..(start + CHUNK).min(range.end))
                .map(|i| keys.get(i))
                .collect();
            let mut out = Vec::with_capacity(refs.len());
            filter.contains_batch(&refs, &mut out);
            out.iter().filter(|&&present| present).count() as u64
        })
        .sum()
}

/// Lookup throughput with `threads` threads sharing one filter: nanoseconds per query (wall
/// time divided by queries).
pub fn time_parallel_lookups<F: Filter + Sync>(
    filter: &F,
    queries: &KeySet,
    pool: &rayon::ThreadPool,
) -> f64 {
    let threads = pool.current_num_threads().max(1);
    let chunk = queries.len().div_ceil(threads);
    let start = Instant::now();
    let hits: usize = pool.install(|| {
        (0..threads)
            .into_par_iter()
            .map(|t| {
                (t * chunk..((t + 1) * chunk).min(queries.len()))
                    .filter(|&i| filter.contains(black_box(queries.get(i))))
                    .count()
            })
            .sum()
    });
    black_box(hits);
    start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64
}

pub mod binary;
pub mod bootstrap;
pub mod calibration;
pub mod memory;
pub mod rounds;
#[allow(unsafe_code)] // The harness's one module with unsafe code; see its header.
pub mod sys;

pub use memory::{peak_rss, PeakRss};

#[cfg(test)]
mod tests;
