//! The one results model: the rows of `reports/results.json` ([`Record`]), everything a run
//! produced ([`Results`]), the conditions a figure ran under, and one [`Verdict`] against one
//! [`Bound`]. The schema of the rows is documented in `reports/README.md`, which the report
//! writer generates from [`SCHEMA`].

use crate::measure::Spread;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod by_cpu;
pub mod code;
pub mod conditions;
pub mod floor;
mod machine;
mod metric;
mod peers;
pub mod provenance;
pub mod python;
mod ratio;
mod results;
pub(crate) mod stored;
pub mod study;
pub mod verdict;

pub use machine::Machine;
pub use metric::Metric;
pub use peers::{HugePageRecord, PeerRecord, Side};
pub use ratio::{Ratio, Role};
pub use results::{DatasetInfo, Results, StageTime};
pub use verdict::{Bound, Verdict};

/// A rate as every report prints it, as a percentage: from 0.1% up to 4 decimals (1.0034%,
/// 0.3903%), below 0.1% to 3 significant digits (0.0463%, 0.00150%, 0.000360%), so that a
/// small measured rate keeps as many digits as a large one needs to be compared; below
/// 10^-7 (0.00001%) in scientific notation, still as a percentage (3.60e-10%). Zeros at the end
/// are left out only where the value is exactly the shorter number (a target such as 0.01%, a
/// count such as 150 in 10^7 = 0.0015%), so a rounded figure always shows its digits.
pub fn pct(p: f64) -> String {
    if p.is_nan() {
        return "–".into();
    }
    if p == 0.0 {
        return "0".into();
    }
    if !p.is_finite() {
        return format!("{p}");
    }
    let percent = p * 100.0;
    if p.abs() < 1e-7 {
        return format!("{percent:.2e}%");
    }
    let decimals = if p.abs() >= 1e-3 {
        4
    } else {
        // 3 significant digits: the first is at 10^floor(log10(x)).
        (2 - percent.abs().log10().floor() as i32).max(0) as usize
    };
    let digits = format!("{percent:.decimals$}");
    let trimmed = digits.trim_end_matches('0').trim_end_matches('.');
    let exact = trimmed
        .parse::<f64>()
        .is_ok_and(|t| ((t - percent) / percent).abs() < 1e-9);
    if exact || p.abs() >= 1e-3 {
        format!("{trimmed}%")
    } else {
        format!("{digits}%")
    }
}

/// Where the rows a checker recomputed (`again`) and the stored ones first differ, in words:
/// for the first pair `same` tells apart, `{name}: stored {value}, {source} give {value}` with
/// `show(row) = (name, value)`; else both counts (`{n} {what} stored, {source} give {m}`);
/// `None` where they agree.
pub fn first_mismatch<T>(
    again: &[T],
    stored: &[T],
    same: impl Fn(&T, &T) -> bool,
    (what, source): (&str, &str),
    show: impl Fn(&T) -> (String, String),
) -> Option<String> {
    if let Some((a, b)) = again.iter().zip(stored).find(|(a, b)| !same(a, b)) {
        let ((name, was), (_, now)) = (show(b), show(a));
        return Some(format!("{name}: stored {was}, {source} give {now}"));
    }
    (again.len() != stored.len()).then(|| {
        format!(
            "{} {what} stored, {source} give {}",
            stored.len(),
            again.len()
        )
    })
}

/// `{name}.json: {what} differ from {source} ({at})`, where `at` is what [`first_mismatch`]
/// finds with the same labels between the rows a checker recomputed (`again`) and the stored
/// ones; `None` where they agree.
pub fn differ<T>(
    name: &str,
    labels: (&str, &str),
    (again, stored): (&[T], &[T]),
    same: impl Fn(&T, &T) -> bool,
    show: impl Fn(&T) -> (String, String),
) -> Option<String> {
    let (what, source) = labels;
    first_mismatch(again, stored, same, labels, show)
        .map(|at| format!("{name}.json: {what} differ from {source} ({at})"))
}

/// Which part of the run a [`Record`] comes from.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// Every variant at n keys and each target rate.
    #[default]
    Matrix,
    /// Inserting up to 4x the declared capacity.
    Growth,
    /// Deleting and inserting a tenth per round.
    Churn,
    /// Lookup cost against filter size.
    SizeSweep,
    /// One thread against every core.
    Parallel,
    /// The second article's explicit filter at and past its design load.
    Users,
}

impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Scenario::Matrix => "matrix",
            Scenario::Growth => "growth",
            Scenario::Churn => "churn",
            Scenario::SizeSweep => "size_sweep",
            Scenario::Parallel => "parallel",
            Scenario::Users => "users",
        })
    }
}

/// One measurement: a (variant, n, target FP rate, scenario, step) point.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Record {
    /// `matrix`, `growth`, `churn`, `size_sweep`, `parallel` or `users`.
    pub scenario: Scenario,
    /// The variant's registry name (`classic`, `ribbon`, …).
    pub variant: String,
    /// Items in the filter when measured.
    pub n: u64,
    /// Items the filter was sized for.
    pub capacity: u64,
    /// The requested false-positive rate.
    pub target_fpr: f64,
    /// Realised parameters, human-readable.
    pub params: String,
    /// Realised parameters, typed: the registry's description of the built filter, from which
    /// `check` recomputes the theory through the registry's formulas (`None`: rows without a
    /// filter of ours).
    #[serde(default)]
    pub shape: Option<filterlab::any::Detail>,
    /// The variant's formula at the realised parameters and current load (`expected_fpr()`).
    pub theoretical_fpr: f64,
    /// The standard approximation `(1 - e^(-kn/m))^k` for Bloom-shaped variants.
    pub theoretical_fpr_approx: f64,
    /// The exact classic formula (Christensen et al. 2010), where defined.
    pub theoretical_fpr_exact: Option<f64>,
    /// False positives / probes.
    pub empirical_fpr: f64,
    /// False positives counted.
    pub false_positives: u64,
    /// Non-member probes.
    pub probes: u64,
    /// Wilson 95% interval of the empirical rate.
    pub fpr_ci_low: f64,
    /// Upper end of the interval.
    pub fpr_ci_high: f64,
    /// Whether the theoretical rate lies inside the interval.
    pub theory_in_ci: bool,
    /// Empirical / theoretical.
    pub measured_over_theory: f64,
    /// Members the filter reported absent (must be 0).
    pub false_negatives: u64,
    /// Table bytes.
    pub bytes: u64,
    /// Share of the table on transparent huge pages, measured for the table itself after its
    /// build (`Filter::huge_page_bytes`, from /proc/self/smaps) (`None`: not obtained).
    #[serde(default)]
    pub huge_page_coverage: Option<f64>,
    /// Bytes × 8 / n.
    pub bits_per_key: f64,
    /// `log2(1/target_fpr)`, the lower bound per key.
    pub lower_bound_bits_per_key: f64,
    /// bits_per_key / lower bound − 1.
    pub overhead_over_lower_bound: f64,
    /// bits_per_key / log2(1/empirical_fpr) − 1: the overhead for the rate actually achieved
    /// (a filter that over-delivers on its target reads as costly at the target only); `None`
    /// when no false positive was seen.
    #[serde(default)]
    pub overhead_at_achieved_fpr: Option<f64>,
    /// Nanoseconds per insert (construction, allocation and key bytes in, hashing included),
    /// one thread, over interleaved build rounds; for a static filter (built once from its
    /// whole key set) the build's nanoseconds per key, hashing included.
    pub ns_per_insert: Option<Spread>,
    /// Seconds to build the filter (the same rounds as `ns_per_insert`).
    pub build_seconds: Option<Spread>,
    /// Nanoseconds per lookup by positive share in percent (`"0"`, `"25"`, …), throughput mode,
    /// over interleaved rounds.
    pub ns_per_lookup: BTreeMap<String, Spread>,
    /// Nanoseconds per lookup through `contains_batch`, by positive share, same queries.
    pub ns_per_lookup_batched: BTreeMap<String, Spread>,
    /// Nanoseconds per insert through `insert_batch`, one thread, same rounds as `ns_per_insert`.
    pub ns_per_insert_batched: Option<Spread>,
    /// Single-query latency, median, timer overhead subtracted.
    pub latency_p50_ns: Option<f64>,
    /// Single-query latency, 99th percentile.
    pub latency_p99_ns: Option<f64>,
    /// Scenario step: growth checkpoint (items inserted) or churn round.
    pub step: Option<u64>,
    /// Inserts refused so far (cuckoo: table full).
    pub insert_failures: Option<u64>,
    /// Load factor at the first refused insert.
    pub first_failure_load: Option<f64>,
    /// Threads used (parallel scenario).
    pub threads: Option<usize>,
    /// Throughput with `threads` threads / throughput with one.
    pub parallel_speedup: Option<f64>,
}

/// Field-by-field documentation of [`Record`], written into `reports/README.md`.
pub const SCHEMA: &[(&str, &str)] = &[
    ("scenario", "`matrix`, `growth`, `churn`, `size_sweep`, `parallel` or `users` (the second article's m = 9,585,059, k = 7 filter at and past its design load)"),
    ("variant", "the variant's registry name (`filterlab::any::Variant`: `classic`, `counting`, `scalable`, `cuckoo`, `blocked`, `quotient`, `binary-fuse8`, …)"),
    ("n", "items in the filter when measured"),
    ("capacity", "items the filter was sized for"),
    ("target_fpr", "the requested false-positive rate"),
    ("params", "realised parameters (m, k / fingerprint bits, buckets, load / stages)"),
    ("shape", "realised parameters, typed: the registry's `filterlab::any::Detail` of the built filter (`{kind: classic, m, k}`, `{kind: cuckoo, fingerprint_bits, buckets, slots, load}`, `{kind: fuse, fingerprint_bits, slots, segment_length}`, …; a growing filter with its `stages`); `check` recomputes theoretical_fpr from it through the registry's formulas; null for rows without a filter of ours"),
    ("theoretical_fpr", "the variant's formula at the realised parameters and load (`expected_fpr()`)"),
    ("theoretical_fpr_approx", "`(1 - e^(-kn/m))^k` for Bloom-shaped variants; the formula itself otherwise"),
    ("theoretical_fpr_exact", "exact classic rate (Christensen et al. 2010) where defined, else null"),
    ("empirical_fpr", "false_positives / probes over non-members never inserted"),
    ("false_positives, probes", "the counts behind empirical_fpr"),
    ("fpr_ci_low, fpr_ci_high", "Wilson 95% interval of empirical_fpr"),
    ("theory_in_ci", "whether theoretical_fpr lies inside that interval"),
    ("measured_over_theory", "empirical_fpr / theoretical_fpr"),
    ("false_negatives", "members reported absent; any non-zero value fails the run"),
    ("bytes, bits_per_key", "table bytes and bytes × 8 / n"),
    ("huge_page_coverage", "share of the table on transparent huge pages: ours measured for the table itself (AnonHugePages of its own mapping in /proc/self/smaps), the peers' from the process's AnonHugePages growth around their build; null: not obtained"),
    ("lower_bound_bits_per_key", "log2(1 / target_fpr)"),
    ("overhead_over_lower_bound", "bits_per_key / lower bound − 1"),
    ("overhead_at_achieved_fpr", "bits_per_key / log2(1 / empirical_fpr) − 1: the overhead for the rate achieved (null without a false positive)"),
    ("ns_per_insert, build_seconds", "one-thread build: construction, allocation and every insert from key bytes, hashing included; for a static filter (built once from its whole key set) the build from the key bytes, per key; `{median, min, max, rounds}` over interleaved build rounds"),
    ("ns_per_lookup", "map from positive share in percent to ns per lookup, shuffled queries, `{median, min, max, rounds}` over interleaved rounds"),
    ("ns_per_lookup_batched, ns_per_insert_batched", "the same through `contains_batch` / `insert_batch` (hash a block of keys, prefetch, probe); no batched insert for a static filter"),
    ("latency_p50_ns, latency_p99_ns", "single-query latency from a sample, timer overhead subtracted"),
    ("step", "growth: items inserted at the checkpoint; churn: round number"),
    ("insert_failures, first_failure_load", "refused inserts so far and the load factor at the first one"),
    ("threads, parallel_speedup", "parallel scenario: threads used and throughput over one thread (its records hold only identity, size and these timings)"),
];

#[cfg(test)]
mod tests;
