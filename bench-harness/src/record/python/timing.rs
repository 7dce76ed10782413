//! The timing process's records: one row per contender and scale over its loop's interleaved
//! rounds, assembled from what the script prints after each round ([`RoundRow`]), and the loops
//! themselves (their policy, rounds and what ended them).

use super::{ContenderId, Promise, Sample, Scale};
use crate::measure::rounds::LoopRecord;
use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One contender at one scale over its loop's interleaved rounds (times in seconds or ns, each
/// round's figure in round order).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContenderRow {
    /// Which contender.
    pub id: ContenderId,
    /// At full size or on the sample.
    pub scale: Scale,
    /// What `promised_fpr` is.
    pub promise: Promise,
    /// The rate it was built for.
    pub target_fpr: f64,
    /// Keys inserted.
    pub n: u64,
    /// Non-member probes behind `false_positives`.
    pub probes: u64,
    /// Members probed behind `false_negatives`.
    pub positives: u64,
    /// Build seconds, one key at a time (allocation included), per round (`None`: built through
    /// the batch call only, see [`one_at_a_time`]).
    #[serde(default)]
    pub build_seconds: Option<Vec<f64>>,
    /// Build seconds through the library's batch call (`add_many`, rbloom's `update`).
    #[serde(default)]
    pub build_seconds_batched: Option<Vec<f64>>,
    /// ns per negative lookup, one at a time (`in`).
    pub ns_negative: Vec<f64>,
    /// ns per positive lookup, one at a time.
    pub ns_positive: Vec<f64>,
    /// ns per negative `in` on objects whose hash a first scan cached (shown, not judged;
    /// `None` in reports made before issue 52).
    #[serde(default)]
    pub ns_negative_reused: Option<Vec<f64>>,
    /// The same for positives.
    #[serde(default)]
    pub ns_positive_reused: Option<Vec<f64>>,
    /// ns per negative lookup through `contains_many`.
    #[serde(default)]
    pub ns_negative_batched: Option<Vec<f64>>,
    /// ns per positive lookup through `contains_many`.
    #[serde(default)]
    pub ns_positive_batched: Option<Vec<f64>>,
    /// Probes answered present (the first round's; every round builds the same filter).
    pub false_positives: u64,
    /// Members answered absent, the most of any round.
    pub false_negatives: u64,
    /// The structure's own bytes, as its API reports them.
    pub bytes: u64,
    /// The rate it promises (see `promise`).
    pub promised_fpr: f64,
}

/// One contender's figures of one round, as the script prints them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundRow {
    /// Which contender.
    pub id: ContenderId,
    /// What `promised_fpr` is.
    pub promise: Promise,
    /// The rate it was built for.
    pub target_fpr: f64,
    /// Keys inserted.
    pub n: u64,
    /// Non-members probed.
    pub probes: u64,
    /// Members probed.
    pub positives: u64,
    /// Build seconds, one key at a time (`None`: built through the batch call only).
    #[serde(default)]
    pub build_seconds: Option<f64>,
    /// Build seconds through the batch call, where the library has one.
    #[serde(default)]
    pub build_seconds_batched: Option<f64>,
    /// ns per negative `in`.
    pub ns_negative: f64,
    /// ns per positive `in`.
    pub ns_positive: f64,
    /// ns per negative `in` on the same objects again (their hashes cached).
    #[serde(default)]
    pub ns_negative_reused: Option<f64>,
    /// The same for positives.
    #[serde(default)]
    pub ns_positive_reused: Option<f64>,
    /// ns per negative key through `contains_many`.
    #[serde(default)]
    pub ns_negative_batched: Option<f64>,
    /// ns per positive key through `contains_many`.
    #[serde(default)]
    pub ns_positive_batched: Option<f64>,
    /// Probes answered present.
    pub false_positives: u64,
    /// Members answered absent.
    pub false_negatives: u64,
    /// The structure's own bytes.
    pub bytes: u64,
    /// The rate it promises.
    pub promised_fpr: f64,
}

impl ContenderRow {
    /// The row that `round`, its first, opens at `scale`.
    #[must_use]
    pub fn first(round: &RoundRow, scale: Scale) -> ContenderRow {
        let one = |x: f64| vec![x];
        ContenderRow {
            id: round.id,
            scale,
            promise: round.promise,
            target_fpr: round.target_fpr,
            n: round.n,
            probes: round.probes,
            positives: round.positives,
            build_seconds: round.build_seconds.map(one),
            build_seconds_batched: round.build_seconds_batched.map(one),
            ns_negative: one(round.ns_negative),
            ns_positive: one(round.ns_positive),
            ns_negative_reused: round.ns_negative_reused.map(one),
            ns_positive_reused: round.ns_positive_reused.map(one),
            ns_negative_batched: round.ns_negative_batched.map(one),
            ns_positive_batched: round.ns_positive_batched.map(one),
            false_positives: round.false_positives,
            false_negatives: round.false_negatives,
            bytes: round.bytes,
            promised_fpr: round.promised_fpr,
        }
    }

    /// Adds a later round of the same contender, at the same size, with the same figures.
    ///
    /// # Errors
    /// Another contender, size or probe count, or a figure the first round did not have.
    pub fn push(&mut self, r: &RoundRow) -> Result<()> {
        ensure!(
            (r.id, r.n, r.probes, r.positives) == (self.id, self.n, self.probes, self.positives),
            "a round of {:?} at {} keys and {} probes added to {:?} at {} and {}",
            r.id,
            r.n,
            r.probes,
            self.id,
            self.n,
            self.probes
        );
        self.ns_negative.push(r.ns_negative);
        self.ns_positive.push(r.ns_positive);
        let optional = [
            (&mut self.build_seconds, r.build_seconds),
            (&mut self.build_seconds_batched, r.build_seconds_batched),
            (&mut self.ns_negative_batched, r.ns_negative_batched),
            (&mut self.ns_positive_batched, r.ns_positive_batched),
            (&mut self.ns_negative_reused, r.ns_negative_reused),
            (&mut self.ns_positive_reused, r.ns_positive_reused),
        ];
        for (xs, x) in optional {
            match (xs, x) {
                (Some(xs), Some(x)) => xs.push(x),
                (None, None) => {}
                _ => anyhow::bail!("{:?}: a figure in one round, not in another", r.id),
            }
        }
        self.false_negatives = self.false_negatives.max(r.false_negatives);
        Ok(())
    }

    /// Its rounds.
    #[must_use]
    pub fn rounds(&self) -> usize {
        self.ns_negative.len()
    }

    /// Every series of timings it has, each with its rounds.
    #[must_use]
    pub fn series(&self) -> Vec<&[f64]> {
        let optional = [
            &self.build_seconds,
            &self.build_seconds_batched,
            &self.ns_negative_batched,
            &self.ns_positive_batched,
        ];
        [&self.ns_negative, &self.ns_positive]
            .into_iter()
            .map(Vec::as_slice)
            .chain(optional.into_iter().flatten().map(Vec::as_slice))
            .collect()
    }
}

/// One timing loop: the contenders it ran at one scale, and how many rounds and why.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingLoop {
    /// Full size or the sample.
    pub scale: Scale,
    /// Its contenders, in the order each round ran them.
    pub contenders: Vec<ContenderId>,
    /// Its policy, rounds, seconds and what ended it.
    pub record: LoopRecord,
}

/// The timing process's records.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// CPython's version.
    pub python: String,
    /// Every module's distribution version.
    pub versions: BTreeMap<String, String>,
    /// Keys inserted at full size.
    pub n: u64,
    /// Non-members probed at full size.
    pub queries: u64,
    /// The sample of the slow contenders (`None`: every row at full size).
    pub sample: Option<Sample>,
    /// Every loop, in the order they ran.
    pub loops: Vec<TimingLoop>,
    /// Every row.
    pub contenders: Vec<ContenderRow>,
}

/// A series is rounds of positive finite figures.
pub(super) fn sound(what: &str, xs: &[f64]) -> Result<()> {
    ensure!(!xs.is_empty(), "{what}: no rounds");
    ensure!(
        xs.iter().all(|x| x.is_finite() && *x > 0.0),
        "{what}: a round is not a positive finite figure: {xs:?}"
    );
    Ok(())
}

impl Timing {
    /// Keys and probes a row at `scale` must have.
    ///
    /// # Errors
    /// A sampled row in a timing without a sample.
    pub fn size(&self, scale: Scale) -> Result<Sample> {
        match (scale, self.sample) {
            (Scale::Full, _) => Ok(Sample {
                keys: self.n,
                probes: self.queries,
            }),
            (Scale::Sample, Some(s)) => Ok(s),
            (Scale::Sample, None) => anyhow::bail!("a sampled row, and the timing has no sample"),
        }
    }

    /// Checks what serde cannot: exactly the `expected` rows (contender and scale), each of the
    /// size its scale says and in one loop of its scale, as many rounds in every series as its
    /// loop ran, every figure a positive finite number, counts within their probes, no false
    /// negative in a class of the package.
    ///
    /// # Errors
    /// The first problem, named with its contender.
    pub fn validate(&self, expected: &[(ContenderId, Scale)]) -> Result<()> {
        for &(id, scale) in expected {
            let count = self
                .contenders
                .iter()
                .filter(|c| (c.id, c.scale) == (id, scale))
                .count();
            ensure!(
                count == 1,
                "the Python timing has {count} rows of {id:?} at {scale:?} size"
            );
        }
        for c in &self.contenders {
            let name = format!("{:?} ({:?})", c.id, c.scale);
            ensure!(
                expected.contains(&(c.id, c.scale)),
                "{name}: a row this run does not measure at that size"
            );
            let size = self.size(c.scale)?;
            ensure!(
                (c.n, c.probes) == (size.keys, size.probes) && c.positives == size.probes.min(size.keys),
                "{name}: {} keys, {} probes and {} positives, not its scale's {} keys and {} probes",
                c.n,
                c.probes,
                c.positives,
                size.keys,
                size.probes
            );
            let looped: Vec<&TimingLoop> = self
                .loops
                .iter()
                .filter(|l| l.scale == c.scale && l.contenders.contains(&c.id))
                .collect();
            ensure!(
                looped.len() == 1,
                "{name}: in {} loops, not one",
                looped.len()
            );
            let rounds = looped[0].record.rounds;
            for xs in c.series() {
                sound(&name, xs)?;
                ensure!(
                    xs.len() == rounds,
                    "{name}: {} rounds of {rounds}",
                    xs.len()
                );
            }
            ensure!(
                c.build_seconds.is_some() || !one_at_a_time(c.id, c.scale),
                "{name}: no build one key at a time, and its figures are compared"
            );
            ensure!(
                c.build_seconds.is_some() || c.build_seconds_batched.is_some(),
                "{name}: no build at all"
            );
            counts(&name, c)?;
        }
        Ok(())
    }

    /// The row of `id` at `scale`.
    ///
    /// # Errors
    /// None in the run: the goals need it.
    pub fn row(&self, id: ContenderId, scale: Scale) -> Result<&ContenderRow> {
        self.contenders
            .iter()
            .find(|c| (c.id, c.scale) == (id, scale))
            .with_context(|| format!("the Python timing has no row of {id:?} at {scale:?} size"))
    }
}

/// Whether the row of `id` at `scale` must time a build one key at a time: every row but those
/// of the package's classes measured once at full size for their FP goals, which are built by
/// `add_many` alone (ClassicBloom's one-at-a-time build at full size is the goals'; a pure-Python
/// filter and the drop-in module have no batch call).
#[must_use]
pub fn one_at_a_time(id: ContenderId, scale: Scale) -> bool {
    scale == Scale::Sample || super::JUDGED.contains(&id) || !id.is_filterlab_class()
}

/// Counts within their trials, a promise that is a rate, no false negative of the package.
fn counts(name: &str, c: &ContenderRow) -> Result<()> {
    ensure!(
        c.probes > 0 && c.false_positives <= c.probes,
        "{name}: {} false positives of {} probes",
        c.false_positives,
        c.probes
    );
    ensure!(
        c.positives > 0 && c.false_negatives <= c.positives,
        "{name}: {} false negatives of {} positives",
        c.false_negatives,
        c.positives
    );
    ensure!(
        c.promised_fpr > 0.0 && c.promised_fpr < 1.0,
        "{name}: promised rate {}",
        c.promised_fpr
    );
    ensure!(
        !(c.id.is_filterlab_class() || c.id.is_drop_in()) || c.false_negatives == 0,
        "{name}: {} false negatives: the package is broken",
        c.false_negatives
    );
    Ok(())
}
