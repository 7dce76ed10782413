//! Lookups on a mapped filter against the same file loaded, in the same interleaved rounds:
//! one at a time and batched, on strangers (non-members) and on members; and every key of the
//! run asked of both, which must answer alike (and find every member).

use crate::dataset::KeySet;
use crate::measure::rounds::{LoopRecord, Policy};
use crate::measure::{time_batch_lookups, time_lookups};
use crate::record::conditions::Api;
use anyhow::Result;
use filterlab::any::{AnyFilter, Mapped};
use filterlab::Filter;
use serde::{Deserialize, Serialize};

/// Which keys a pass asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Keys {
    /// Keys never inserted.
    Strangers,
    /// Inserted keys.
    Members,
}

impl Keys {
    /// Both, strangers first.
    pub const ALL: [Keys; 2] = [Keys::Strangers, Keys::Members];

    /// In the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Keys::Strangers => "strangers",
            Keys::Members => "members",
        }
    }
}

/// One timed figure: ns per lookup in each round, loaded and mapped side by side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// One call a key, or batches.
    pub api: Api,
    /// Which keys.
    pub keys: Keys,
    /// The loaded filter's ns per lookup, a sample a round.
    pub loaded_ns: Vec<f64>,
    /// The mapped filter's, in the same rounds.
    pub mapped_ns: Vec<f64>,
}

/// The file's lookups.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LookupReport {
    /// Every figure, in [`Api`] × [`Keys`] order.
    pub pairs: Vec<Pair>,
    /// The loaded table's share on transparent huge pages (the mapped file's pages are the page
    /// cache's 4 KiB ones).
    pub loaded_huge_pages: Option<f64>,
    /// Keys asked of both filters (every member and as many strangers).
    pub checked: u64,
    /// Keys the two answered differently.
    pub disagreements: u64,
    /// Members either filter did not find.
    pub false_negatives: u64,
    /// Strangers asked of both.
    pub strangers: u64,
    /// Strangers the loaded filter answered present (false positives).
    pub false_positives: u64,
}

impl LookupReport {
    /// The measured FP rate of the file's filter (`None`: no stranger asked).
    #[must_use]
    pub fn fpr(&self) -> Option<f64> {
        (self.strangers > 0).then(|| self.false_positives as f64 / self.strangers as f64)
    }
}

/// What asking both filters every key found.
#[derive(Default)]
struct Agreement {
    checked: u64,
    differ: u64,
    missed: u64,
    strangers: u64,
    false_positives: u64,
}

/// The figures' order: every api, every kind of key.
fn order() -> impl Iterator<Item = (Api, Keys)> {
    [Api::OneAtATime, Api::Batched]
        .into_iter()
        .flat_map(|api| Keys::ALL.into_iter().map(move |k| (api, k)))
}

fn time(filter: &AnyFilter, api: Api, queries: &KeySet) -> f64 {
    match api {
        Api::OneAtATime => time_lookups(filter, queries),
        Api::Batched => time_batch_lookups(filter, queries, filterlab::BATCH),
    }
}

/// Asks both filters every member and as many strangers, in batches.
fn agreement(
    loaded: &AnyFilter,
    mapped: &AnyFilter,
    (members, strangers, n): Held<'_>,
) -> Agreement {
    let mut g = Agreement::default();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (set, are_members) in [(members, true), (strangers, false)] {
        let count = n.min(set.len());
        let keys: Vec<&[u8]> = (0..count).map(|i| set.get(i)).collect();
        for chunk in keys.chunks(filterlab::BATCH) {
            loaded.contains_batch(chunk, &mut a);
            mapped.contains_batch(chunk, &mut b);
            g.checked += chunk.len() as u64;
            g.differ += a.iter().zip(&b).filter(|(x, y)| x != y).count() as u64;
            if are_members {
                g.missed += a.iter().zip(&b).filter(|(x, y)| !**x || !**y).count() as u64;
            } else {
                g.strangers += chunk.len() as u64;
                g.false_positives += a.iter().filter(|&&x| x).count() as u64;
            }
        }
    }
    g
}

/// The keys the filter holds (`members[..n]`) and keys it never saw (`strangers`).
pub type Held<'a> = (&'a KeySet, &'a KeySet, usize);

/// The queries of a pass: `count` strangers or members, from a seeded generator.
pub struct Queries {
    /// Keys never inserted.
    pub strangers: KeySet,
    /// Inserted keys.
    pub members: KeySet,
}

impl Queries {
    fn of(&self, keys: Keys) -> &KeySet {
        match keys {
            Keys::Strangers => &self.strangers,
            Keys::Members => &self.members,
        }
    }
}

/// The lookups of `loaded` against `mapped` (the same file), rounds under `policy`; the loaded
/// filter's side goes first in even rounds, second in odd ones; then every held key and as many
/// strangers asked of both ([`Held`]).
pub fn measure(
    what: &str,
    loaded: &AnyFilter,
    mapped: &Mapped,
    queries: &Queries,
    held: Held<'_>,
    policy: Policy,
) -> Result<(LookupReport, LoopRecord)> {
    let mapped_filter: &AnyFilter = mapped;
    let figures: Vec<(Api, Keys)> = order().collect();
    let (series, record) = crate::measure::rounds::series(what, policy, figures.len() * 2, |s| {
        for (i, &(api, keys)) in figures.iter().enumerate() {
            let q = queries.of(keys);
            if s[2 * i].len() % 2 == 0 {
                s[2 * i].push(time(loaded, api, q));
                s[2 * i + 1].push(time(mapped_filter, api, q));
            } else {
                s[2 * i + 1].push(time(mapped_filter, api, q));
                s[2 * i].push(time(loaded, api, q));
            }
        }
    });
    let pairs = figures
        .iter()
        .enumerate()
        .map(|(i, &(api, keys))| Pair {
            api,
            keys,
            loaded_ns: series[2 * i].clone(),
            mapped_ns: series[2 * i + 1].clone(),
        })
        .collect();
    let g = agreement(loaded, mapped_filter, held);
    let report = LookupReport {
        pairs,
        loaded_huge_pages: crate::measure::table_huge_page_coverage(loaded),
        checked: g.checked,
        disagreements: g.differ,
        false_negatives: g.missed,
        strangers: g.strangers,
        false_positives: g.false_positives,
    };
    Ok((report, record))
}
