//! The unique-users scenario: count distinct users per (event type, day) over a stream of events
//! with Zipf-like repeats, four ways: an exact `HashSet`, a Bloom filter alone (undercounts by its
//! false positives), a filter plus confirmation in an exact set (the article's "100% exact"
//! design), and a HyperLogLog sketch (Cloudflare's `cardinality-estimator`, HyperLogLog++).
//! Each day starts from fresh structures (the daily reset).

use std::collections::HashSet;
use std::time::Instant;

use anyhow::Result;
use cardinality_estimator::CardinalityEstimator;
use filterlab::{ClassicBloom, CuckooFilter, Deletable, Filter};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// Event types.
pub const EVENT_TYPES: usize = 4;
/// Days in the stream.
pub const DAYS: usize = 3;

/// The way of counting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// A `HashSet<String>` of the day's user IDs per event type.
    ExactHashSet,
    /// A classic Bloom filter at 1% per (type, day), sized for the largest true daily count (as
    /// a team sizes it from yesterday's figure); "absent" counts.
    FilterAlone,
    /// The filter, and on "maybe" a look-up in an exact set of the IDs seen (the article).
    FilterPlusExact,
    /// HyperLogLog++ (precision 12).
    HyperLogLog,
}

/// One method's figures over the whole stream.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MethodResult {
    /// The method.
    pub method: Method,
    /// Sum over (type, day) of the counted uniques.
    pub counted: u64,
    /// Largest relative error over the (type, day) counts.
    pub max_rel_error: f64,
    /// Peak bytes held at once (the largest day, all types).
    pub peak_bytes: u64,
    /// Seconds for the whole stream.
    pub seconds: f64,
    /// Share of events that needed the exact set (filter + exact only).
    pub confirmed_share: Option<f64>,
}

/// The scenario's results.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UniqueResult {
    /// Events in the stream.
    pub events: u64,
    /// Size of the user population.
    pub users: u64,
    /// Sum over (type, day) of the true unique counts.
    pub true_uniques: u64,
    /// The largest true count of one (type, day).
    pub largest_count: u64,
    /// Bytes per ID of the exact HashSet at its largest (table + string heap).
    pub hashset_bytes_per_id: f64,
    /// `(IDs, total bytes)` of a `HashSet<String>` of that many user IDs, at the sizes asked for.
    pub hashset_bytes_at: Vec<(u64, u64)>,
    /// Bytes of a classic filter at 1% sized for `largest_count`, over the HashSet's bytes then.
    pub filter_to_hashset: f64,
    /// One row per method.
    pub methods: Vec<MethodResult>,
    /// The daily reset, timed on the largest (type, day).
    pub reset: ResetResult,
}

/// Two ways to start a new day with `ids` IDs in the filter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ResetResult {
    /// IDs in the filter at the end of the day.
    pub ids: u64,
    /// Seconds to drop the classic filter and allocate a fresh one.
    pub fresh_classic_s: f64,
    /// Seconds to delete every ID from a cuckoo filter (which needs the list of IDs: an exact
    /// set kept beside it).
    pub cuckoo_delete_s: f64,
    /// Items left in the cuckoo filter after the deletions (must be 0).
    pub cuckoo_left: u64,
}

/// Times the two resets for `n` IDs.
fn reset(n: u64) -> Result<ResetResult> {
    let ids: Vec<String> = (0..n).map(user_id).collect();
    let mut classic = ClassicBloom::builder()
        .capacity(n.max(1))
        .fpr(0.01)
        .build()?;
    let mut cuckoo = CuckooFilter::builder()
        .capacity(n.max(1))
        .fpr(0.01)
        .build()?;
    for id in &ids {
        classic.insert(id.as_bytes())?;
        cuckoo.insert(id.as_bytes())?;
    }
    let t = Instant::now();
    drop(std::hint::black_box(classic));
    let fresh = ClassicBloom::builder()
        .capacity(n.max(1))
        .fpr(0.01)
        .build()?;
    std::hint::black_box(&fresh);
    let fresh_classic_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for id in &ids {
        cuckoo.remove(id.as_bytes())?;
    }
    Ok(ResetResult {
        ids: n,
        fresh_classic_s,
        cuckoo_delete_s: t.elapsed().as_secs_f64(),
        cuckoo_left: cuckoo.len(),
    })
}

/// A user ID as an analytics system would see it: a bijective mix of the rank, in hex.
pub(crate) fn user_id(rank: u64) -> String {
    let mut z = rank.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    format!("u-{:016x}", z ^ (z >> 31))
}

/// The stream: `(day, event type, user id)`, in day order. Ranks follow a Zipf law of exponent 1
/// (density ∝ 1/rank: `users^u` for uniform `u`), event types are skewed 8:4:2:1.
pub fn events(n: usize, users: u64, seed: u64) -> Vec<(u8, u8, String)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let day = (i * DAYS / n.max(1)) as u8;
            let t = match rng.random_range(0..15u32) {
                0..8 => 0,
                8..12 => 1,
                12..14 => 2,
                _ => 3,
            };
            let u: f64 = rng.random();
            let rank = ((users as f64).powf(u) as u64)
                .saturating_sub(1)
                .min(users - 1);
            (day, t, user_id(rank))
        })
        .collect()
}

fn set_bytes(s: &HashSet<String>) -> u64 {
    // hashbrown: one control byte and one slot per bucket; plus each string's heap buffer.
    let table = s.capacity() as u64 * (std::mem::size_of::<String>() as u64 + 1);
    table + s.iter().map(|x| x.capacity() as u64).sum::<u64>()
}

/// Counts per (type, day) for one method, with its peak bytes and confirmation count.
struct Tally {
    counts: Vec<u64>,
    peak: u64,
    confirmed: u64,
}

fn run_method(method: Method, ev: &[(u8, u8, String)], capacity: u64) -> Result<Tally> {
    let mut counts = vec![0u64; DAYS * EVENT_TYPES];
    let (mut peak, mut confirmed) = (0u64, 0u64);
    for day in 0..DAYS as u8 {
        let today = ev.iter().filter(|e| e.0 == day);
        let new_filter = || ClassicBloom::builder().capacity(capacity).fpr(0.01).build();
        let mut sets: Vec<HashSet<String>> = vec![HashSet::new(); EVENT_TYPES];
        let mut filters = (0..EVENT_TYPES)
            .map(|_| new_filter())
            .collect::<Result<Vec<_>, _>>()?;
        let mut hll: Vec<CardinalityEstimator<str>> = (0..EVENT_TYPES)
            .map(|_| CardinalityEstimator::new())
            .collect();
        for (_, t, id) in today {
            let (t, c) = (
                *t as usize,
                &mut counts[day as usize * EVENT_TYPES + *t as usize],
            );
            match method {
                Method::ExactHashSet => {
                    if sets[t].insert(id.clone()) {
                        *c += 1;
                    }
                }
                Method::FilterAlone => {
                    if !filters[t].contains(id.as_bytes()) {
                        filters[t].insert(id.as_bytes())?;
                        *c += 1;
                    }
                }
                Method::FilterPlusExact => {
                    let maybe = filters[t].contains(id.as_bytes());
                    confirmed += u64::from(maybe);
                    if !maybe || !sets[t].contains(id.as_str()) {
                        filters[t].insert(id.as_bytes())?;
                        sets[t].insert(id.clone());
                        *c += 1;
                    }
                }
                Method::HyperLogLog => hll[t].insert(id.as_str()),
            }
        }
        let bytes: u64 = match method {
            Method::ExactHashSet => sets.iter().map(set_bytes).sum(),
            Method::FilterAlone => filters.iter().map(|f| f.size_in_bytes() as u64).sum(),
            Method::FilterPlusExact => {
                sets.iter().map(set_bytes).sum::<u64>()
                    + filters
                        .iter()
                        .map(|f| f.size_in_bytes() as u64)
                        .sum::<u64>()
            }
            Method::HyperLogLog => {
                for (t, h) in hll.iter().enumerate() {
                    counts[day as usize * EVENT_TYPES + t] = h.estimate() as u64;
                }
                hll.iter().map(|h| h.size_of() as u64).sum()
            }
        };
        peak = peak.max(bytes);
    }
    Ok(Tally {
        counts,
        peak,
        confirmed,
    })
}

/// Runs the scenario.
///
/// # Errors
/// A filter that cannot be built.
pub fn run(n_events: usize, users: u64, seed: u64, set_sizes: &[u64]) -> Result<UniqueResult> {
    let ev = events(n_events, users.max(1), seed);
    let mut results = Vec::new();
    let mut truth = Vec::new();
    for method in [
        Method::ExactHashSet,
        Method::FilterAlone,
        Method::FilterPlusExact,
        Method::HyperLogLog,
    ] {
        let t = Instant::now();
        // The exact pass runs first; its largest count sizes the filters.
        let capacity = truth.iter().copied().max().unwrap_or(0).max(1);
        let tally = run_method(method, &ev, capacity)?;
        let seconds = t.elapsed().as_secs_f64();
        if method == Method::ExactHashSet {
            truth = tally.counts.clone();
        }
        let max_rel_error = tally
            .counts
            .iter()
            .zip(&truth)
            .map(|(&c, &x)| {
                if x == 0 {
                    0.0
                } else {
                    (c as f64 - x as f64).abs() / x as f64
                }
            })
            .fold(0.0, f64::max);
        results.push(MethodResult {
            method,
            counted: tally.counts.iter().sum(),
            max_rel_error,
            peak_bytes: tally.peak,
            seconds,
            confirmed_share: (method == Method::FilterPlusExact)
                .then(|| tally.confirmed as f64 / ev.len().max(1) as f64),
        });
    }
    let largest = truth.iter().copied().max().unwrap_or(0);
    // The HashSet's bytes per ID, and a filter sized for the same n, measured on one set.
    let one: HashSet<String> = (0..largest).map(user_id).collect();
    let per_id = set_bytes(&one) as f64 / largest.max(1) as f64;
    let filter = ClassicBloom::builder()
        .capacity(largest.max(1))
        .fpr(0.01)
        .build()?;
    let hashset_bytes_at = set_sizes
        .iter()
        .map(|&n| (n, set_bytes(&(0..n).map(user_id).collect())))
        .collect();
    Ok(UniqueResult {
        hashset_bytes_at,
        events: ev.len() as u64,
        users,
        true_uniques: truth.iter().sum(),
        largest_count: largest,
        hashset_bytes_per_id: per_id,
        filter_to_hashset: filter.size_in_bytes() as f64 / set_bytes(&one).max(1) as f64,
        methods: results,
        reset: reset(largest)?,
    })
}

#[cfg(test)]
mod tests;
