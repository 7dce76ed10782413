//! What each side of a ratio ran under, recorded with the ratio, and the differences computed
//! from those records (never a typed rule): API mode, achieved FP rate (within
//! [`FP_TOLERANCE`] both ways), hash function, threads, memory (the pages under the table, and
//! the bytes where a target bounds them), what the timer includes, and the keys the filter held
//! (a figure taken on a sample is compared only with one taken at the same size).

use filterlab_peers::PeerKind;
use serde::{Deserialize, Serialize};

/// Achieved FP rates within this factor of each other, both ways, count as "equal".
pub const FP_TOLERANCE: f64 = 1.25;

/// How the operations were issued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// One call per key.
    #[default]
    OneAtATime,
    /// Calls over slices of keys (`insert_batch`, `contains_batch`).
    Batched,
}

impl Api {
    fn word(self) -> &'static str {
        match self {
            Api::OneAtATime => "one at a time",
            Api::Batched => "batched",
        }
    }
}

/// What the timer includes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Timed {
    /// A scan of lookups over a built filter.
    #[default]
    Lookups,
    /// Construction (the table's allocation) and every insert into one table.
    AllocationAndInserts,
    /// The allocation of one full-size private table per thread, the inserts into them and
    /// their OR-merge.
    ShardsAndMerge,
    /// The inserts into one shared table allocated before the timer started.
    InsertsOnly,
    /// Not a time: the table's bytes.
    Bytes,
    /// Opening a saved filter: the file opened, mapped or read, and checked.
    Open,
    /// A whole process, from its spawn to its exit.
    Process,
    /// Not a time: the memory processes hold.
    Memory,
    /// One read of a key file (its bytes split into lines), then the allocation and every
    /// insert, batched.
    ReadAndBuild,
}

impl Timed {
    fn word(self) -> &'static str {
        match self {
            Timed::Lookups => "lookups",
            Timed::AllocationAndInserts => "allocation and inserts",
            Timed::ShardsAndMerge => "allocation of private full-size shards, inserts and OR-merge",
            Timed::InsertsOnly => "inserts into a shared table allocated untimed",
            Timed::Bytes => "bytes",
            Timed::Open => "opening a saved file",
            Timed::Process => "a whole process, its start included",
            Timed::Memory => "processes' memory",
            Timed::ReadAndBuild => "one read of the key file, then allocation and inserts",
        }
    }
}

/// One side's recorded conditions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Conditions {
    /// API mode.
    pub api: Api,
    /// Achieved FP rate, when the side measured one.
    pub achieved_fpr: Option<f64>,
    /// The hash function.
    pub hash: String,
    /// Threads the figure ran on.
    pub threads: usize,
    /// Share of the table on transparent huge pages, when known.
    pub huge_pages: Option<f64>,
    /// Table bytes.
    pub bytes: Option<u64>,
    /// What the timer includes.
    pub timed: Timed,
    /// The capacity the filter was declared with when it grew to its size (`None`: declared
    /// at its size, never grown). Growth is a condition: a filter grown from 1,000 keys to 10M
    /// holds stages a filter declared at 10M never makes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grown_from: Option<u64>,
    /// Keys the filter held when the figure was taken, where the side records them: a per-key
    /// cost changes with the table's size (the caches it fits in), so a contender measured on a
    /// sample is compared only with figures taken at the sample's size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<u64>,
}

/// What "the same conditions" allows on top of identical recorded conditions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Terms {
    /// Achieved FP rates within [`FP_TOLERANCE`] of each other, both ways.
    #[default]
    AlikeFp,
    /// The numerator's achieved FP no higher than the denominator's and, when given, its table at
    /// most this share of the denominator's bytes (a numerator that holds the keys more
    /// precisely in fewer bytes has no advantage).
    NoWorse {
        /// The numerator's bytes over the denominator's must not exceed this.
        bytes: Option<f64>,
    },
    /// A speed-up: the same filter on 1 and on N threads, so the threads differ by design.
    Speedup,
    /// One filter grown from a small declared capacity, against itself at another size or
    /// against a fixed goal: its FP rate and bytes differ by design; API, hash, threads and
    /// timer must not.
    Growth,
}

/// A hash function our filters are built with, as the harness records it: the floor's hashing
/// rows, and a comparison record of ours built with another than the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OurHash {
    /// XXH3, 128-bit: what every variant hashes with by default.
    Xxh3_128,
    /// XXH3, 64-bit: the opt-in fast hash (`filter_core::HashKind::Xxh3_64`), xorf's hash.
    Xxh3_64,
}

impl OurHash {
    /// Every hash, in table order.
    pub const ALL: [OurHash; 2] = [OurHash::Xxh3_128, OurHash::Xxh3_64];

    /// Its name in the tables (the conditions' hash names).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            OurHash::Xxh3_128 => "xxh3-128",
            OurHash::Xxh3_64 => "xxh3-64",
        }
    }

    /// filter-core's kind of the same hash.
    #[must_use]
    pub const fn kind(self) -> filterlab::HashKind {
        match self {
            OurHash::Xxh3_128 => filterlab::HashKind::Xxh3_128,
            OurHash::Xxh3_64 => filterlab::HashKind::Xxh3_64,
        }
    }
}

/// The hash function of our filters (filter-core's default), and of every record of ours that
/// names none.
pub const OURS_HASH: &str = OurHash::Xxh3_128.name();
/// The hash function of the articles' Python code.
pub const PYTHON_HASH: &str = "mmh3 32-bit, k seeded calls";

/// The hash function a peer configuration uses.
#[must_use]
pub fn peer_hash(kind: PeerKind) -> &'static str {
    match kind {
        PeerKind::FastbloomDefault => "SipHash-1-3",
        PeerKind::FastbloomFoldhash => "foldhash",
        PeerKind::FastbloomXxh3 => "xxh3-64",
        PeerKind::Bloomfilter => "SipHash-1-3, twice",
        PeerKind::Cuckoofilter => "SipHash-1-3",
        PeerKind::CuckoofilterXxh3 => "xxh3-64",
        PeerKind::GrowableBloom => "xxh3-64",
        PeerKind::ProbabilisticCollections => "SipHash-2-4, twice",
        PeerKind::BinaryFuse8 | PeerKind::BinaryFuse16 => "xxh3-64",
        PeerKind::Qfilter => "foldhash (quality)",
        PeerKind::HashSet => "SipHash-1-3",
        PeerKind::HashSetBytes => "foldhash",
    }
}

/// Every difference between the numerator's conditions `a` and the denominator's `b` under
/// `terms`, in words; empty when they are alike.
#[must_use]
pub fn differences(a: &Conditions, b: &Conditions, terms: Terms) -> Vec<String> {
    let mut d = Vec::new();
    if a.api != b.api {
        d.push(format!("{} vs {}", a.api.word(), b.api.word()));
    }
    if a.hash != b.hash {
        d.push(format!("hash {} vs {}", a.hash, b.hash));
    }
    if a.grown_from != b.grown_from {
        let word = |g: Option<u64>| {
            g.map_or_else(
                || "declared at its size".into(),
                |d| format!("grown from {d} keys"),
            )
        };
        d.push(format!("{} vs {}", word(a.grown_from), word(b.grown_from)));
    }
    if a.threads != b.threads && terms != Terms::Speedup {
        d.push(format!("{} vs {} threads", a.threads, b.threads));
    }
    // A speed-up times the whole job on each side (one table, or shards and their merge).
    if a.timed != b.timed && terms != Terms::Speedup {
        d.push(format!("timer: {} vs {}", a.timed.word(), b.timed.word()));
    }
    if let Some((ka, kb)) = keys_differ(a, b, terms) {
        d.push(format!("{ka} vs {kb} keys"));
    }
    if let (Some(ha), Some(hb)) = (a.huge_pages, b.huge_pages) {
        if (ha - hb).abs() > 0.1 {
            d.push(format!(
                "huge pages on {:.0}% vs {:.0}% of the table",
                ha * 100.0,
                hb * 100.0
            ));
        }
    }
    match (a.achieved_fpr, b.achieved_fpr, terms) {
        (_, _, Terms::Speedup | Terms::Growth) => {}
        (Some(fa), Some(fb), _) => {
            let ok = match terms {
                Terms::NoWorse { .. } => fa <= fb,
                _ => fa > 0.0 && fb > 0.0 && (fa / fb).max(fb / fa) <= FP_TOLERANCE,
            };
            if !ok {
                d.push(format!(
                    "achieved FP {} vs {}",
                    super::pct(fa),
                    super::pct(fb)
                ));
            }
        }
        _ => d.push("achieved FP not recorded on both sides".into()),
    }
    if let Terms::NoWorse { bytes: Some(most) } = terms {
        let share = match (a.bytes, b.bytes) {
            (Some(x), Some(y)) => x as f64 / y as f64,
            _ => f64::NAN,
        };
        if share.is_nan() || share > most {
            d.push(format!("{share:.2}× the bytes, above {most}×"));
        }
    }
    d
}

/// The two sides' key counts when both are recorded and differ, where the terms do not allow it
/// ([`Terms::Growth`] compares one filter at two sizes by design).
#[must_use]
pub fn keys_differ(a: &Conditions, b: &Conditions, terms: Terms) -> Option<(u64, u64)> {
    match (a.keys, b.keys) {
        (Some(ka), Some(kb)) if ka != kb && terms != Terms::Growth => Some((ka, kb)),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
