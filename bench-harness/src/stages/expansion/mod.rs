//! Growing from a small declared capacity to the run's n (10M in the full run) at 1%: every
//! registry row filled by inserts that grows or deletes (the expandable cuckoo filter, which
//! does both, first; the scalable Bloom filter grows but cannot delete; the counting, cuckoo and
//! quotient filters delete but cannot grow), the `qfilter` crate (a quotient filter
//! that resizes; its rate doubles at each resize, so it is declared with the run's n as its
//! maximum) and growable-bloom-filter. At every doubling of the keys: the FP rate on fresh
//! non-members (a window of probes no other checkpoint used) and bits per key; lookups timed at
//! 10k and at n in interleaved rounds, one at a time and (our variants) batched, with, in the
//! expandable filter's rounds, references that do not grow (our cuckoo filter and our
//! expandable filter, each declared for the keys it holds) so that the cost of a big table can
//! be told from the cost of growth; deletes and merges where the variant has them.
//!
//! The stage only measures: `judge::expansion` computes the goals and `render::expansion`
//! writes `expansion.json` and `expansion.md`.

mod cycle;
mod grown;
mod run;
mod timed;

pub use cycle::measure as measure_cycle;
pub use cycle::{points as cycle_points, Cycle, POINTS};
pub use grown::Grown;
pub use run::measure;

use crate::measure::Spread;
use crate::record::{Machine, Ratio};
use filterlab::Variant;
use serde::{Deserialize, Serialize};

/// Who grows: one of our variants, taken from the registry (every row filled by inserts that
/// grows or deletes: those that grow, and those a team needing deletions would otherwise pick,
/// which refuse inserts or lose their rate when the declared capacity is passed), or a peer.
/// Stored as its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Contender {
    /// One of ours, built through `filterlab::AnyFilter`.
    Ours(Variant),
    /// `qfilter::Filter::new_resizeable(declared, n, p)`.
    Qfilter,
    /// `growable_bloom_filter::GrowableBloom::new(p, declared)`.
    GrowableBloom,
    /// Our Aleph filter told the run's n as its growth estimate (`max_n`).
    AlephEstimate,
    /// Our quotient filter resized (doubled) whenever full, declared with the growth reserve
    /// that keeps the target through the doublings to n (as qfilter is told n).
    QuotientResize,
    /// The `aleph-filter` crate 0.1.0, given the fingerprint bits for the doublings to n.
    AlephCrate,
}

/// Our expandable filter: the variant whose goals issue 19 sets.
pub const EXPANDABLE: Contender = Contender::Ours(Variant::Expandable);
/// Our Aleph filter with no estimate: the variant whose goals issue 41 sets.
pub const ALEPH: Contender = Contender::Ours(Variant::Aleph);

impl Contender {
    /// Every contender, in table order: ours in registry order, then the peers.
    #[must_use]
    pub fn all() -> Vec<Contender> {
        let mut ours: Vec<Contender> = Variant::ALL
            .iter()
            .copied()
            .filter(|v| {
                let c = v.capabilities();
                !c.static_set && !c.windowed && (c.grows || c.deletes)
            })
            .map(Contender::Ours)
            .collect();
        // The issues' variants first.
        ours.sort_by_key(|c| (*c != EXPANDABLE, *c != ALEPH));
        ours.insert(2, Contender::AlephEstimate);
        ours.push(Contender::QuotientResize);
        ours.extend([
            Contender::Qfilter,
            Contender::AlephCrate,
            Contender::GrowableBloom,
        ]);
        ours
    }

    /// Its name in the tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Contender::Ours(v) => v.name(),
            Contender::Qfilter => "qfilter 0.3.1",
            Contender::GrowableBloom => "growable-bloom-filter 2.1.1",
            Contender::AlephEstimate => "aleph, told n",
            Contender::QuotientResize => "quotient, resized",
            Contender::AlephCrate => "aleph-filter 0.1.0",
        }
    }

    /// How it is built and what it does with more keys than declared.
    #[must_use]
    pub fn how(self) -> String {
        match self {
            Contender::Ours(v) => {
                let c = v.capabilities();
                let grows = if v == Variant::Aleph {
                    "grows by doubling its one table in place"
                } else if c.grows {
                    "grows by adding stages"
                } else {
                    "one table: past its capacity it refuses inserts or its rate climbs"
                };
                let deletes = if c.deletes { "deletes" } else { "no deletes" };
                format!(
                    "ours, {}; {grows}; {deletes}",
                    v.summary().trim_end_matches('.')
                )
            }
            Contender::Qfilter => {
                "new_resizeable(declared, n, p): doubles its table, giving up one \
                 remainder bit (its rate doubles) at each resize, to p at n; deletes, merges"
                    .into()
            }
            Contender::GrowableBloom => {
                "adds a 2x larger, 0.85x tighter Bloom stage; no deletes".into()
            }
            Contender::AlephEstimate => "ours, the Aleph filter built with max_n = n (the growth \
                estimate): its first table sized to reach n after whole doublings; deletes"
                .into(),
            Contender::QuotientResize => "ours, the quotient filter declared with the growth \
                reserve for the doublings to n (told n, as qfilter), resized whenever full; \
                deletes, merges"
                .into(),
            Contender::AlephCrate => "with_params(slots for the declared keys at 0.8, \
                fingerprint bits for p plus one per doubling to n): its own fixed-width Aleph; \
                its new(declared, p) runs out of bits after 7 doublings (FP near 75% at 1M keys \
                in a probe); memory (slots + 2q)·9 bytes, its layout (no method gives it); deletes"
                .into(),
        }
    }
}

crate::record::stored::stored_by_name!(Contender, name, Contender::all(), "growth contender");

/// One contender at one checkpoint of its growth.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Who.
    pub contender: Contender,
    /// Keys it holds (accepted inserts).
    pub n: u64,
    /// Fresh non-members answered present.
    pub false_positives: u64,
    /// Fresh non-members probed.
    pub probes: u64,
    /// The structure's bytes.
    pub bytes: u64,
    /// Inserts refused so far (a full table).
    pub refused: u64,
    /// Keys it holds answered absent (every key inserted so far is looked up).
    pub false_negatives: u64,
}

impl Checkpoint {
    /// Bytes × 8 / n.
    #[must_use]
    pub fn bits_per_key(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.n.max(1) as f64
    }

    /// False positives / probes.
    #[must_use]
    pub fn fpr(&self) -> f64 {
        self.false_positives as f64 / self.probes.max(1) as f64
    }
}

/// Lookup times of one contender grown to `small_n` and to `large_n`, timed in the same
/// interleaved rounds (the two filters' order alternating from round to round).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lookups {
    /// Who.
    pub contender: Contender,
    /// Keys in the small filter.
    pub small_n: u64,
    /// Keys in the large one.
    pub large_n: u64,
    /// Bytes of the small filter.
    pub small_bytes: u64,
    /// Bytes of the large one.
    pub large_bytes: u64,
    /// ns per non-member lookup, small filter.
    pub negative_small: Spread,
    /// ns per non-member lookup, large filter.
    pub negative_large: Spread,
    /// ns per member lookup, small filter.
    pub positive_small: Spread,
    /// ns per member lookup, large filter.
    pub positive_large: Spread,
    /// The same queries through the batch API, in the same rounds.
    pub batched: Outcome<Batched>,
}

/// ns per lookup through `contains_batch` ([`filterlab::BATCH`] keys a call, the fastest
/// configuration, in which peers are compared), timed in the same interleaved rounds as the
/// one-at-a-time lookups of [`Lookups`], on the same queries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Batched {
    /// Non-members, small filter.
    pub negative_small: Spread,
    /// Non-members, large filter.
    pub negative_large: Spread,
    /// Members, small filter.
    pub positive_small: Spread,
    /// Members, large filter.
    pub positive_large: Spread,
}

/// Deleting every tenth key held, then looking up the rest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deletes {
    /// Keys held before.
    pub held: u64,
    /// Removals asked.
    pub asked: u64,
    /// Removals refused (the filter said the key was absent).
    pub refused: u64,
    /// Keys not deleted answered absent (must be 0).
    pub false_negatives: u64,
    /// Keys not deleted, looked up.
    pub remaining: u64,
    /// Deleted keys still answered present (a false positive or another key's fingerprint).
    pub deleted_still_present: u64,
}

/// Two filters grown from the declared capacity on the two halves of a key set, merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merge {
    /// Keys in each half.
    pub halves: (u64, u64),
    /// Keys of either half answered absent by the merged filter (must be 0).
    pub false_negatives: u64,
    /// Fresh non-members answered present by the merged filter.
    pub false_positives: u64,
    /// Fresh non-members probed.
    pub probes: u64,
    /// The merged filter's bytes.
    pub bytes: u64,
}

/// Measured, or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome<T> {
    /// Measured.
    Measured(T),
    /// The variant has no such operation, or could not reach the size.
    Unsupported {
        /// Why.
        why: String,
    },
}

impl<T> Outcome<T> {
    /// The measurement, if any.
    pub fn measured(&self) -> Option<&T> {
        match self {
            Outcome::Measured(t) => Some(t),
            Outcome::Unsupported { .. } => None,
        }
    }
}

/// What a contender did besides growing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Who.
    pub contender: Contender,
    /// Keys held when the first insert was refused (`None`: none was).
    pub first_refusal: Option<u64>,
    /// Lookups at the small and the large size.
    pub lookups: Outcome<Lookups>,
    /// Deletes after growing.
    pub deletes: Outcome<Deletes>,
    /// A merge of two grown filters.
    pub merge: Outcome<Merge>,
    /// Filters that do not grow, timed in the same interleaved rounds as this contender's
    /// lookups (the expandable filter's only; empty for the others and in older reports).
    #[serde(default)]
    pub references: Vec<Reference>,
}

/// A reference that does not grow, timed beside the expandable pair so that a reader can tell
/// the cost of a big table (the memory hierarchy) from the cost of growth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceKind {
    /// Our plain cuckoo filter declared for each size and filled with that many keys.
    FixedCuckoo,
    /// Our expandable filter declared for each size (one stage: it never grows).
    DeclaredExpandable,
    /// Our quotient filter declared for each size, timed beside the Aleph filter.
    FixedQuotient,
    /// qfilter grown from the declared capacity as its contender is, timed in the Aleph
    /// filter's rounds (issue 52: lookups judged against it in the same rounds).
    GrownQfilter,
    /// The aleph-filter crate grown from the declared capacity, in the Aleph filter's rounds.
    GrownAlephCrate,
}

impl ReferenceKind {
    /// Every reference, in table order.
    pub const ALL: [ReferenceKind; 5] = [
        ReferenceKind::FixedCuckoo,
        ReferenceKind::DeclaredExpandable,
        ReferenceKind::FixedQuotient,
        ReferenceKind::GrownQfilter,
        ReferenceKind::GrownAlephCrate,
    ];

    /// The references timed in `who`'s rounds.
    #[must_use]
    pub fn of(who: Contender) -> &'static [ReferenceKind] {
        match who {
            EXPANDABLE => &[
                ReferenceKind::FixedCuckoo,
                ReferenceKind::DeclaredExpandable,
            ],
            ALEPH => &[
                ReferenceKind::FixedQuotient,
                ReferenceKind::GrownQfilter,
                ReferenceKind::GrownAlephCrate,
            ],
            Contender::AlephEstimate => &[ReferenceKind::FixedQuotient],
            _ => &[],
        }
    }

    /// Whether it is grown from the declared capacity (a peer in the Aleph filter's rounds)
    /// rather than declared for the keys it holds.
    #[must_use]
    pub fn grows(self) -> bool {
        matches!(
            self,
            ReferenceKind::GrownQfilter | ReferenceKind::GrownAlephCrate
        )
    }

    /// The filter built.
    #[must_use]
    pub fn contender(self) -> Contender {
        match self {
            ReferenceKind::FixedCuckoo => Contender::Ours(Variant::Cuckoo),
            ReferenceKind::DeclaredExpandable => EXPANDABLE,
            ReferenceKind::FixedQuotient => Contender::Ours(Variant::Quotient),
            ReferenceKind::GrownQfilter => Contender::Qfilter,
            ReferenceKind::GrownAlephCrate => Contender::AlephCrate,
        }
    }

    /// Its label in the tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ReferenceKind::FixedCuckoo => "cuckoo, fixed size (reference: no growth)",
            ReferenceKind::DeclaredExpandable => {
                "expandable, declared at each size (reference: no growth)"
            }
            ReferenceKind::FixedQuotient => {
                "quotient, declared at each size (reference: no growth)"
            }
            ReferenceKind::GrownQfilter => "qfilter 0.3.1, grown (peer in aleph's rounds)",
            ReferenceKind::GrownAlephCrate => "aleph-filter 0.1.0, grown (peer in aleph's rounds)",
        }
    }
}

/// Lookups of one reference at the small and the large size (each filter declared for the keys
/// it holds), or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    /// Which.
    pub kind: ReferenceKind,
    /// Its lookups, timed in the expandable pair's rounds on the same queries.
    pub lookups: Outcome<Lookups>,
}

/// The sizes and rounds of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The capacity every contender is declared with.
    pub declared: u64,
    /// The target rate.
    pub target_fpr: f64,
    /// Keys grown to.
    pub n: u64,
    /// The checkpoints: the declared capacity doubled until n, and n.
    pub checkpoints: Vec<u64>,
    /// Fresh non-members probed at each checkpoint.
    pub probes: u64,
    /// Keys of the small filter timed against the large one.
    pub small_n: u64,
    /// Queries of each timed pass.
    pub queries: u64,
    /// Interleaved timing rounds.
    pub rounds: usize,
    /// Keys of the merge (both halves).
    pub merge_keys: u64,
}

/// expansion.json: everything the stage measured and the goals judged from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExpansionReport {
    /// Where and how (the commit included).
    pub machine: Machine,
    /// Sizes and rounds.
    pub settings: Settings,
    /// Every contender at every checkpoint it reached.
    pub checkpoints: Vec<Checkpoint>,
    /// Refusals, lookups, deletes and merges.
    pub summaries: Vec<Summary>,
    /// The Aleph filter over its last complete doubling cycle below n (`None`: it doubled
    /// fewer than twice, and in reports made before issue 52).
    #[serde(default)]
    pub cycle: Option<Cycle>,
    /// The goals as rows of the targets table (`judge::expansion` computes them; `check`
    /// recomputes them and finds them in results.json's targets).
    pub goals: Vec<Ratio>,
}

/// The checkpoints from `declared` to `n`: every doubling, and `n` itself.
#[must_use]
pub fn checkpoints(declared: u64, n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut c = declared.max(1);
    while c < n {
        out.push(c);
        c = c.saturating_mul(2);
    }
    out.push(n);
    out
}

#[cfg(test)]
pub(crate) mod tests;
