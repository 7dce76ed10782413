//! The typed records of the Python section: what `bench-harness/python/bench.py` prints (parsed
//! strictly: unknown fields, unknown contenders and missing figures are errors) and what
//! python.json stores.

use crate::record::Machine;
pub mod goals;

use crate::record::{Bound, Verdict};
use anyhow::{ensure, Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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

/// One contender over the timing process's interleaved rounds (times in seconds or ns, each
/// round's figure in round order).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContenderRow {
    /// Which contender.
    pub id: ContenderId,
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
    /// Build seconds, one key at a time (allocation included), per round.
    pub build_seconds: Vec<f64>,
    /// Build seconds through the library's batch call (`add_many`, rbloom's `update`).
    #[serde(default)]
    pub build_seconds_batched: Option<Vec<f64>>,
    /// ns per negative lookup, one at a time (`in`).
    pub ns_negative: Vec<f64>,
    /// ns per positive lookup, one at a time.
    pub ns_positive: Vec<f64>,
    /// ns per negative lookup through `contains_many`.
    #[serde(default)]
    pub ns_negative_batched: Option<Vec<f64>>,
    /// ns per positive lookup through `contains_many`.
    #[serde(default)]
    pub ns_positive_batched: Option<Vec<f64>>,
    /// Probes answered present.
    pub false_positives: u64,
    /// Members answered absent.
    pub false_negatives: u64,
    /// The structure's own bytes, as its API reports them.
    pub bytes: u64,
    /// The rate it promises (see `promise`).
    pub promised_fpr: f64,
    /// Its peak memory while built, from a fresh process (filled in by the harness).
    #[serde(default)]
    pub peak: Option<Peak>,
}

/// A peak of resident memory above the process's resident memory before the action.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    /// Bytes.
    pub bytes: u64,
    /// How.
    pub method: MemoryMethod,
}

/// The timing process's output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// CPython's version.
    pub python: String,
    /// Every module's distribution version.
    pub versions: BTreeMap<String, String>,
    /// Keys inserted.
    pub n: u64,
    /// Interleaved rounds.
    pub rounds: usize,
    /// Every contender.
    pub contenders: Vec<ContenderRow>,
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
    /// Keys inserted.
    pub n: u64,
    /// Non-member probes (and positives probed).
    pub queries: u64,
    /// Interleaved rounds.
    pub rounds: usize,
    /// The key files, one key per line.
    pub members_file: String,
    /// The probe file.
    pub probes_file: String,
}

/// Everything measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// The timing process (peaks filled in from the memory processes).
    pub timing: Timing,
    /// rbloom's benchmark.
    pub rbloom_bench: Option<RbloomBench>,
    /// The file load.
    pub load: LoadCheck,
    /// The goals, as the run judged them (`check` recomputes them).
    pub goals: Vec<Goal>,
}

/// Measured, or skipped with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The section ran.
    Measured(Box<Measured>),
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

fn sound(what: &str, xs: &[f64]) -> Result<()> {
    ensure!(!xs.is_empty(), "{what}: no rounds");
    ensure!(
        xs.iter().all(|x| x.is_finite() && *x > 0.0),
        "{what}: a round is not a positive finite figure: {xs:?}"
    );
    Ok(())
}

impl Timing {
    /// Checks what serde cannot: every contender once, every figure a positive finite number,
    /// as many rounds as announced, counts within their probes, no false negative in a class
    /// of the package.
    ///
    /// # Errors
    /// The first problem, named with its contender.
    pub fn validate(&self) -> Result<()> {
        for id in ContenderId::ALL {
            let count = self.contenders.iter().filter(|c| c.id == id).count();
            ensure!(count == 1, "the Python timing has {count} rows of {id:?}");
        }
        for c in &self.contenders {
            let name = format!("{:?}", c.id);
            let builds = [Some(&c.build_seconds), c.build_seconds_batched.as_ref()];
            for xs in builds.into_iter().flatten() {
                sound(&name, xs)?;
            }
            let scans = [
                Some(&c.ns_negative),
                Some(&c.ns_positive),
                c.ns_negative_batched.as_ref(),
                c.ns_positive_batched.as_ref(),
            ];
            for xs in scans.into_iter().flatten() {
                sound(&name, xs)?;
                ensure!(
                    xs.len() == self.rounds,
                    "{name}: {} lookup rounds of {}",
                    xs.len(),
                    self.rounds
                );
            }
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
        }
        Ok(())
    }

    /// The row of `id`.
    ///
    /// # Errors
    /// None in the run: the goals need it.
    pub fn row(&self, id: ContenderId) -> Result<&ContenderRow> {
        self.contenders
            .iter()
            .find(|c| c.id == id)
            .with_context(|| format!("the Python timing has no row of {id:?}"))
    }
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

/// A contender whose first build took longer (pybloom_live's scalable filter and bloom-filter2
/// at 10M take minutes) is not built again in a fresh process for its peak memory: the row
/// says "not measured" and the full run stays within its time.
pub const MEMORY_SKIP_BUILD_SECONDS: f64 = 60.0;
