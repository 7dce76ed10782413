//! The typed records of the Python section and of the `python-peers` study: what
//! `bench-harness/python/bench.py` prints (parsed strictly: unknown fields, unknown contenders
//! and missing figures are errors) and what python.json and python-peers.json store.
//!
//! The main job times the fast contenders (the package's classes, its drop-in module, rbloom) at
//! the run's full size, and the slow ones (pure-Python filters inserting one key at a time:
//! minutes for 10M keys) on a stated [`Sample`], with ClassicBloom beside them at the sample's
//! size: a row's [`Scale`] says which, and a figure is compared only with one of the same size.
//! The study times the slow ones at the full size.

use crate::record::Machine;
pub mod costs;
pub mod goals;
pub mod peers;
mod timing;

use timing::sound;
pub use timing::{one_at_a_time, ContenderRow, RoundRow, Timing, TimingLoop};

use crate::record::{Bound, Verdict};
use anyhow::{ensure, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Every contender of the timing process, by the id the script prints.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum ContenderId {
    /// `filterlab.ClassicBloom`.
    #[default]
    FilterlabClassic,
    /// `filterlab.BlockedBloom`.
    FilterlabBlocked,
    /// `filterlab.CountingBloom`.
    FilterlabCounting,
    /// `filterlab.CuckooFilter`.
    FilterlabCuckoo,
    /// `filterlab.ScalableBloom`, grown from 1000 keys.
    FilterlabScalable,
    /// `filterlab.AtomicClassicBloom`.
    FilterlabAtomicClassic,
    /// `filterlab.AtomicBlockedBloom`.
    FilterlabAtomicBlocked,
    /// `rbloom.Bloom` (Rust-backed).
    Rbloom,
    /// `pybloom_live.BloomFilter`, through the articles' code.
    PybloomLiveBloom,
    /// `pybloom_live.ScalableBloomFilter`, grown from 1000 keys.
    PybloomLiveScalable,
    /// `bloom_filter2.BloomFilter`.
    BloomFilter2,
    /// The first article's own class (mmh3 + bitarray), verbatim.
    ArticlesClass,
    /// `filterlab.pybloom_compat.BloomFilter`, through the articles' code unchanged.
    CompatBloom,
    /// `filterlab.pybloom_compat.ScalableBloomFilter`, grown from 1000 keys.
    CompatScalable,
}

impl ContenderId {
    /// Every contender, in table order.
    pub const ALL: [ContenderId; 14] = [
        ContenderId::FilterlabClassic,
        ContenderId::FilterlabBlocked,
        ContenderId::FilterlabCounting,
        ContenderId::FilterlabCuckoo,
        ContenderId::FilterlabScalable,
        ContenderId::FilterlabAtomicClassic,
        ContenderId::FilterlabAtomicBlocked,
        ContenderId::CompatBloom,
        ContenderId::CompatScalable,
        ContenderId::Rbloom,
        ContenderId::PybloomLiveBloom,
        ContenderId::PybloomLiveScalable,
        ContenderId::BloomFilter2,
        ContenderId::ArticlesClass,
    ];

    /// Its name in the tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            ContenderId::FilterlabClassic => "filterlab ClassicBloom",
            ContenderId::FilterlabBlocked => "filterlab BlockedBloom",
            ContenderId::FilterlabCounting => "filterlab CountingBloom",
            ContenderId::FilterlabCuckoo => "filterlab CuckooFilter",
            ContenderId::FilterlabScalable => "filterlab ScalableBloom (from 1000)",
            ContenderId::FilterlabAtomicClassic => "filterlab AtomicClassicBloom",
            ContenderId::FilterlabAtomicBlocked => "filterlab AtomicBlockedBloom",
            ContenderId::Rbloom => "rbloom Bloom",
            ContenderId::PybloomLiveBloom => "pybloom_live BloomFilter (articles' code)",
            ContenderId::PybloomLiveScalable => "pybloom_live ScalableBloomFilter (from 1000)",
            ContenderId::BloomFilter2 => "bloom-filter2 BloomFilter",
            ContenderId::ArticlesClass => "the first article's class (mmh3 + bitarray)",
            ContenderId::CompatBloom => "pybloom_compat BloomFilter (articles' code, unchanged)",
            ContenderId::CompatScalable => "pybloom_compat ScalableBloomFilter (from 1000)",
        }
    }

    /// Whether it is one of the package's own classes (its FP is a goal of the issue).
    #[must_use]
    pub fn is_filterlab_class(self) -> bool {
        matches!(
            self,
            ContenderId::FilterlabClassic
                | ContenderId::FilterlabBlocked
                | ContenderId::FilterlabCounting
                | ContenderId::FilterlabCuckoo
                | ContenderId::FilterlabScalable
                | ContenderId::FilterlabAtomicClassic
                | ContenderId::FilterlabAtomicBlocked
        )
    }

    /// Whether it is the drop-in module.
    #[must_use]
    pub fn is_drop_in(self) -> bool {
        matches!(self, ContenderId::CompatBloom | ContenderId::CompatScalable)
    }

    /// Whether it takes minutes for 10M keys one at a time: the pure-Python filters, and the
    /// drop-in's scalable filter, whose every add hashes the key once per stage (pybloom_live's
    /// design, kept bit for bit). The main job measures it on the sample, the `python-peers`
    /// study at full size.
    #[must_use]
    pub fn is_slow(self) -> bool {
        matches!(
            self,
            ContenderId::PybloomLiveBloom
                | ContenderId::PybloomLiveScalable
                | ContenderId::BloomFilter2
                | ContenderId::ArticlesClass
                | ContenderId::CompatScalable
        )
    }

    /// The size the main job measures it at: the sample if it is slow, else full size.
    #[must_use]
    pub fn main_scale(self) -> Scale {
        if self.is_slow() {
            Scale::Sample
        } else {
            Scale::Full
        }
    }

    /// The hash its figures ran on.
    #[must_use]
    pub fn hash(self) -> &'static str {
        match self {
            ContenderId::Rbloom => goals::RBLOOM_HASH,
            ContenderId::PybloomLiveBloom | ContenderId::PybloomLiveScalable => {
                "hashlib or xxh128 by table size, salted (pybloom_live)"
            }
            ContenderId::BloomFilter2 => "bloom-filter2's own Python hash of the code points",
            ContenderId::ArticlesClass => crate::record::conditions::PYTHON_HASH,
            _ => crate::record::conditions::OURS_HASH,
        }
    }

    /// Its id as the script names it.
    #[must_use]
    pub fn script_name(self) -> &'static str {
        match self {
            ContenderId::FilterlabClassic => "filterlab_classic",
            ContenderId::FilterlabBlocked => "filterlab_blocked",
            ContenderId::FilterlabCounting => "filterlab_counting",
            ContenderId::FilterlabCuckoo => "filterlab_cuckoo",
            ContenderId::FilterlabScalable => "filterlab_scalable",
            ContenderId::FilterlabAtomicClassic => "filterlab_atomic_classic",
            ContenderId::FilterlabAtomicBlocked => "filterlab_atomic_blocked",
            ContenderId::Rbloom => "rbloom",
            ContenderId::PybloomLiveBloom => "pybloom_live_bloom",
            ContenderId::PybloomLiveScalable => "pybloom_live_scalable",
            ContenderId::BloomFilter2 => "bloom_filter2",
            ContenderId::ArticlesClass => "articles_class",
            ContenderId::CompatBloom => "compat_bloom",
            ContenderId::CompatScalable => "compat_scalable",
        }
    }
}

/// The two contenders the goals compare at full size, timed in adaptive interleaved rounds.
pub const JUDGED: [ContenderId; 2] = [ContenderId::FilterlabClassic, ContenderId::Rbloom];

/// The contenders of the `python-peers` study, at full size: the slow ones and ClassicBloom.
pub const STUDY: [ContenderId; 5] = [
    ContenderId::FilterlabClassic,
    ContenderId::PybloomLiveBloom,
    ContenderId::PybloomLiveScalable,
    ContenderId::BloomFilter2,
    ContenderId::ArticlesClass,
];

/// Where a row was measured.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// At the run's full size (the main job's n, 10M keys).
    #[default]
    Full,
    /// On the stated sample ([`Sample`]).
    Sample,
}

impl Scale {
    /// Its name in the script's commands.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Scale::Full => "full",
            Scale::Sample => "sample",
        }
    }
}

/// The rows of the main job's section: every fast contender at full size, every slow one on the
/// sample, and ClassicBloom on the sample beside them (what their figures are compared with).
#[must_use]
pub fn main_rows() -> Vec<(ContenderId, Scale)> {
    let mut rows: Vec<_> = ContenderId::ALL
        .iter()
        .map(|&id| (id, id.main_scale()))
        .collect();
    rows.push((ContenderId::FilterlabClassic, Scale::Sample));
    rows
}

/// The rows of the `python-peers` study: [`STUDY`] at full size.
#[must_use]
pub fn study_rows() -> Vec<(ContenderId, Scale)> {
    STUDY.iter().map(|&id| (id, Scale::Full)).collect()
}

/// A stated sample: keys built, and non-members probed (as many members are probed too).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// Keys inserted.
    pub keys: u64,
    /// Non-members probed.
    pub probes: u64,
}

impl Sample {
    /// This sample in a run of `n` keys and `probes` non-members: never more than either.
    #[must_use]
    pub fn within(self, n: u64, probes: u64) -> Sample {
        Sample {
            keys: self.keys.min(n),
            probes: self.probes.min(probes),
        }
    }
}

/// What a contender's `promised_fpr` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Promise {
    /// The filter's own formula at its load (`expected_fpr()`): the measured rate should lie
    /// near it, on either side.
    #[default]
    Formula,
    /// The rate the caller asked for (`error_rate`): the measured rate should not exceed it.
    Requested,
    /// The sum of its stages' rates (pybloom_live's scalable design, kept by the drop-in):
    /// the measured rate should not exceed it.
    StageSum,
}

impl Promise {
    /// Whether the promise is an upper bound only (a measured rate far below it keeps it).
    #[must_use]
    pub fn is_upper_bound(self) -> bool {
        matches!(self, Promise::Requested | Promise::StageSum)
    }
}

/// How a peak was measured (Linux /proc/self/status).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MemoryMethod {
    /// VmHWM after the action, the high-water mark reset to the current RSS before it
    /// (`/proc/self/clear_refs` 5), minus VmRSS before it.
    #[default]
    VmHwmReset,
    /// VmHWM after minus VmHWM before (the reset was refused): a lower bound.
    VmHwm,
}

/// The memory process's output for one contender.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryOut {
    /// Which contender.
    pub id: ContenderId,
    /// Peak bytes above the RSS before the build.
    pub peak_bytes: u64,
    /// How.
    pub method: MemoryMethod,
    /// The structure's own bytes.
    pub bytes: u64,
}

/// A peak of resident memory above the process's resident memory before the action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    /// Bytes.
    pub bytes: u64,
    /// How.
    pub method: MemoryMethod,
}

/// One contender's peak memory, built once in a fresh process on the sample (cheap for every
/// contender; at 10M keys it cost a build and a key load per contender).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeakRow {
    /// Which contender.
    pub id: ContenderId,
    /// Keys inserted.
    pub n: u64,
    /// The peak above the resident memory before the build.
    pub peak: Peak,
    /// The structure's own bytes, as its API reports them.
    pub bytes: u64,
}

/// The contenders of rbloom's published benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchId {
    /// rbloom, as its benchmark runs it (floats hashed by Python's `hash`).
    Rbloom,
    /// filterlab's classic filter, one key at a time, each float packed into 8 bytes.
    FilterlabClassic,
    /// filterlab's classic filter, `add_many` / `contains_many` over a numpy array.
    FilterlabClassicBatched,
}

impl BenchId {
    /// Its name in the tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            BenchId::Rbloom => "rbloom Bloom (add, then `in`)",
            BenchId::FilterlabClassic => {
                "filterlab ClassicBloom (add, then `in`, floats packed to 8 bytes)"
            }
            BenchId::FilterlabClassicBatched => {
                "filterlab ClassicBloom (add_many, then contains_many, numpy float64 as 8-byte keys)"
            }
        }
    }
}

/// One row of rbloom's benchmark.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchRow {
    /// Which.
    pub id: BenchId,
    /// Seconds per round (add all, then check all).
    pub seconds: Vec<f64>,
    /// Members answered absent, over every round.
    pub false_negatives: u64,
}

/// rbloom's published benchmark with filterlab added.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RbloomBench {
    /// Floats added and checked.
    pub n: u64,
    /// The rate every filter is built for.
    pub target_fpr: f64,
    /// Interleaved rounds.
    pub rounds: usize,
    /// Every contender.
    pub rows: Vec<BenchRow>,
}

/// A filter file loaded in a fresh process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadOut {
    /// The file's bytes.
    pub file_bytes: u64,
    /// Peak bytes above the RSS before `filterlab.load`.
    pub peak_bytes: u64,
    /// How.
    pub method: MemoryMethod,
    /// The loaded filter's table bytes.
    pub table_bytes: u64,
}

/// The load measurement, or why it was not made at the goal's size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoadCheck {
    /// The file size the goal names.
    pub goal_bytes: u64,
    /// The measurement on the largest file this run made (`None`: none made).
    pub measured: Option<LoadOut>,
    /// Why the file is smaller than the goal's, if it is.
    pub smaller_because: Option<String>,
}

/// Which goal of issue 20 a row judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GoalId {
    /// ClassicBloom `in` over rbloom `in`, negatives.
    OneAtATimeNegative,
    /// The same, positives.
    OneAtATimePositive,
    /// ClassicBloom's build by `add` over rbloom's by `add`.
    OneAtATimeAdd,
    /// `contains_many` over rbloom's `in`, negatives.
    BatchNegative,
    /// The same, positives.
    BatchPositive,
    /// `add_many` over rbloom's `add`.
    BatchAdd,
    /// 10M e-mails built by `add_many`, seconds.
    BatchBuildSeconds,
    /// `contains_many`, ns per negative key.
    ContainsManyNegativeNs,
    /// `contains_many`, ns per positive key.
    ContainsManyPositiveNs,
    /// `contains_many` over the Rust filter's batched lookups (same run), negatives.
    VersusRustNegative,
    /// The same, positives.
    VersusRustPositive,
    /// A package class's measured FP inside its promise's interval.
    FpInInterval(ContenderId),
    /// The articles' code on the drop-in: its measured FP inside its promise's interval.
    DropInFp(ContenderId),
    /// Loading a 1.2 GB filter file: peak over the file's size.
    LoadPeak,
}

/// One goal, judged: its value, interval, bound and verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    /// Which goal.
    pub id: GoalId,
    /// What is measured, in words.
    pub measure: String,
    /// The value (a ratio of medians, a median, a rate); `None`: not measured.
    pub value: Option<f64>,
    /// Its 95% interval (bootstrap over rounds, or Wilson for a rate); `None`: not measured.
    pub interval: Option<(f64, f64)>,
    /// The bound.
    pub bound: Bound,
    /// The interval against the bound.
    pub verdict: Verdict,
    /// What the reader should know (why not measured, the file's size).
    pub note: String,
}

/// What the section's run settled on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Keys inserted at full size.
    pub n: u64,
    /// Non-member probes at full size (and positives probed).
    pub queries: u64,
    /// The slow contenders' sample (`None`: every row at full size, the study).
    pub sample: Option<Sample>,
    /// The key files, one key per line.
    pub members_file: String,
    /// The probe file.
    pub probes_file: String,
}

/// Everything measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The timing process.
    pub timing: Timing,
    /// Each contender's peak memory on the sample, a fresh process each.
    pub peaks: Vec<PeakRow>,
    /// rbloom's benchmark.
    pub rbloom_bench: Option<RbloomBench>,
    /// The file load.
    pub load: LoadCheck,
    /// Where one `in` of ClassicBloom goes, a part at a time (`None`: a run before it).
    #[serde(default)]
    pub call_costs: Option<costs::CallCosts>,
    /// The same filter's batched lookups in Rust, from the comparison of the same run: what
    /// `contains_many` is held to within a multiple of (`None`: the run had no such row).
    #[serde(default)]
    pub rust: Option<RustBatched>,
    /// The goals, as the run judged them (`check` recomputes them).
    pub goals: Vec<Goal>,
}

/// A Rust filter's batched lookups, ns per key over its rounds, as the comparison timed them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RustBatched {
    /// The comparison's row (`classic`).
    pub filter: String,
    /// Keys it held.
    pub n: u64,
    /// ns per negative key, one figure a round.
    pub negative: Vec<f64>,
    /// ns per positive key, one figure a round.
    pub positive: Vec<f64>,
}

/// Measured (`M`: the section's or the study's measurements), or skipped with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome<M = Measured> {
    /// The section ran.
    Measured(Box<M>),
    /// It could not (no venv, no python3, a module missing).
    Skipped {
        /// Why.
        reason: String,
    },
}

/// python.json.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PythonReport {
    /// Where and how (the commit included).
    pub machine: Machine,
    /// Sizes and rounds.
    pub settings: Settings,
    /// What happened.
    pub outcome: Outcome,
}

/// Parses one JSON object of the script, naming `what` in the error.
///
/// # Errors
/// Malformed JSON, an unknown field or contender, a missing figure.
pub fn parse<T: DeserializeOwned>(what: &str, text: &[u8]) -> Result<T> {
    serde_json::from_slice(text).with_context(|| {
        let shown = String::from_utf8_lossy(&text[..text.len().min(200)]).into_owned();
        format!("parsing the Python {what} output ({shown:?})")
    })
}

impl RbloomBench {
    /// Every contender once with sound rounds.
    ///
    /// # Errors
    /// The first problem.
    pub fn validate(&self) -> Result<()> {
        for id in [
            BenchId::Rbloom,
            BenchId::FilterlabClassic,
            BenchId::FilterlabClassicBatched,
        ] {
            let row = self.rows.iter().filter(|r| r.id == id).count();
            ensure!(row == 1, "rbloom's benchmark has {row} rows of {id:?}");
        }
        for r in &self.rows {
            sound(&format!("{:?}", r.id), &r.seconds)?;
            ensure!(
                r.id == BenchId::Rbloom || r.false_negatives == 0,
                "rbloom's benchmark: {:?} missed {} members: the package is broken",
                r.id,
                r.false_negatives
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
