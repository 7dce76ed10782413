//! The speed and memory targets: a typed table of ratios between two figures measured in the
//! same run, each with its numerator and denominator named, and a computed "same conditions?"
//! verdict that says what differs between the two sides when they are not alike.
//!
//! Contenders are named through [`Kind`] and [`PeerKind`], so a rename is a compile error, and a
//! lookup of a contender missing from the run is an error, never a silently dropped row.

use crate::filters::Kind;
use crate::measure::Spread;
use crate::versus::PeerRecord;
use anyhow::{anyhow, Result};
use filterlab_peers::PeerKind;
use serde::{Deserialize, Serialize};

/// Achieved FP rates within this factor of each other count as "equal".
pub const FP_TOLERANCE: f64 = 1.25;

/// One target: `numerator / denominator` against a bound.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Ratio {
    /// What is compared, in words.
    pub what: String,
    /// The figure on top, named (`classic: ns per negative lookup, batched`).
    pub numerator: String,
    /// Its value.
    pub numerator_value: f64,
    /// The figure below, named.
    pub denominator: String,
    /// Its value.
    pub denominator_value: f64,
    /// numerator_value / denominator_value.
    pub ratio: f64,
    /// The bound the ratio must meet.
    pub bound: Bound,
    /// Whether it does (as written by the run; `check` recomputes it with [`Ratio::meets`]).
    pub met: bool,
    /// Whether both sides ran under the same conditions (same API mode, same thread count,
    /// achieved FP rates within [`FP_TOLERANCE`] of each other).
    pub same_conditions: bool,
    /// What differs, when they did not (empty otherwise).
    pub differences: String,
}

impl Ratio {
    /// Whether the ratio, recomputed from the two values, meets the bound: what `met` must say.
    #[must_use]
    pub fn meets(&self) -> bool {
        let ratio = self.numerator_value / self.denominator_value;
        ratio.is_finite() && self.bound.met(ratio)
    }

    /// Whether both values were measured (a contender or figure missing from the run is a row
    /// with NaN values, reported as not measured).
    #[must_use]
    pub fn measured(&self) -> bool {
        self.numerator_value.is_finite() && self.denominator_value.is_finite()
    }
}

/// A figure of a [`PeerRecord`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// ns per negative lookup, one at a time.
    Negative,
    /// ns per positive lookup, one at a time.
    Positive,
    /// ns per negative lookup, batched.
    NegativeBatched,
    /// ns per positive lookup, batched.
    PositiveBatched,
    /// Build seconds, one insert at a time.
    Build,
    /// Build seconds through `insert_batch`.
    BuildBatched,
    /// Table bytes.
    Bytes,
}

impl Metric {
    fn pick(self, r: &PeerRecord) -> Option<Spread> {
        match self {
            Metric::Negative => Some(r.ns_negative.clone()),
            Metric::Positive => Some(r.ns_positive.clone()),
            Metric::NegativeBatched => r.ns_negative_batched.clone(),
            Metric::PositiveBatched => r.ns_positive_batched.clone(),
            Metric::Build => Some(r.build_seconds.clone()),
            Metric::BuildBatched => r.build_seconds_batched.clone(),
            Metric::Bytes => Some(Spread::single(r.bytes as f64)),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Metric::Negative => "ns per negative lookup",
            Metric::Positive => "ns per positive lookup",
            Metric::NegativeBatched => "ns per negative lookup, batched",
            Metric::PositiveBatched => "ns per positive lookup, batched",
            Metric::Build => "build seconds",
            Metric::BuildBatched => "build seconds, batched",
            Metric::Bytes => "bytes",
        }
    }

    fn batched(self) -> bool {
        matches!(
            self,
            Metric::NegativeBatched | Metric::PositiveBatched | Metric::BuildBatched
        )
    }
}

/// Which way the bound goes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// ratio ≤ the value.
    AtMost(f64),
    /// ratio ≥ the value.
    AtLeast(f64),
    /// `lo` ≤ ratio ≤ `hi` (a parallel speed-up: at least a gain, at most the thread count).
    Between(f64, f64),
}

impl Default for Bound {
    fn default() -> Self {
        Bound::AtMost(1.0)
    }
}

impl Bound {
    /// Whether `ratio` meets it.
    #[must_use]
    pub fn met(self, ratio: f64) -> bool {
        match self {
            Bound::AtMost(b) => ratio <= b,
            Bound::AtLeast(b) => ratio >= b,
            Bound::Between(lo, hi) => lo <= ratio && ratio <= hi,
        }
    }

    /// `≤ 0.7`, `≥ 15`, `1.3 to 2`.
    #[must_use]
    pub fn text(self) -> String {
        match self {
            Bound::AtMost(b) => format!("≤ {b}"),
            Bound::AtLeast(b) => format!("≥ {b}"),
            Bound::Between(lo, hi) => format!("{lo} to {hi}"),
        }
    }
}

/// Who a target's denominator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// The configurations of one peer crate; the one with the lower figure in this run is used,
    /// so that each peer is compared in its fastest configuration.
    Peers(&'static [PeerKind]),
    /// Another of our own variants (the cuckoo filter's two cache lines against the split-block
    /// filter's one).
    Ours(Kind),
}

/// What "the same conditions" means for a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Terms {
    /// Same API mode and achieved FP rates within [`FP_TOLERANCE`] of each other.
    AlikeFp,
    /// Same API mode, the numerator's achieved FP rate no higher than the denominator's and,
    /// when given, its table at most this share of the denominator's bytes: a numerator that
    /// holds the keys more precisely (and in fewer bytes) has no advantage, so a ratio met under
    /// these terms is a fair win.
    NoWorse {
        /// The numerator's bytes over the denominator's must not exceed this.
        bytes: Option<f64>,
    },
}

/// One row of the targets table: ours (numerator) against `Against` (denominator).
pub type Target = (Kind, Metric, Against, Metric, Bound, Terms);

/// The issue's targets. Speed rows compare time over time, so `AtMost(0.7)` means "at most 70%
/// of the peer's time". Issue 11 tightened the split-block rows (one at a time ≤ 0.6, batched
/// build ≤ 0.35), set the cuckoo build against cuckoofilter with a fast hasher at ≤ 1.0 (at no
/// higher FP in ≤ 0.8× its bytes), and added cuckoo against our split-block filter.
pub const TARGETS: &[Target] = {
    use Bound::AtMost as M;
    use Kind::{Blocked, Classic, Cuckoo, Scalable};
    use Metric::*;
    const FB: Against = Against::Peers(&[PeerKind::FastbloomFoldhash, PeerKind::FastbloomDefault]);
    const CF: Against = Against::Peers(&[PeerKind::Cuckoofilter, PeerKind::CuckoofilterXxh3]);
    const FUSE: Against = Against::Peers(&[PeerKind::BinaryFuse8]);
    const GB: Against = Against::Peers(&[PeerKind::GrowableBloom]);
    const BLOCKED: Against = Against::Ours(Blocked);
    const ALIKE: Terms = Terms::AlikeFp;
    const NO_WORSE: Terms = Terms::NoWorse { bytes: None };
    const CF_BUILD: Terms = Terms::NoWorse { bytes: Some(0.8) };
    &[
        (Classic, Negative, FB, Negative, M(1.0), ALIKE),
        (Classic, Positive, FB, Positive, M(1.0), ALIKE),
        (Classic, NegativeBatched, FB, Negative, M(0.7), ALIKE),
        (Classic, PositiveBatched, FB, Positive, M(0.7), ALIKE),
        (Classic, BuildBatched, FB, Build, M(0.5), ALIKE),
        (Blocked, Negative, FB, Negative, M(0.6), ALIKE),
        (Blocked, Positive, FB, Positive, M(0.6), ALIKE),
        (Blocked, NegativeBatched, FB, Negative, M(0.35), ALIKE),
        (Blocked, PositiveBatched, FB, Positive, M(0.35), ALIKE),
        (Blocked, NegativeBatched, FUSE, Negative, M(0.6), ALIKE),
        (Blocked, PositiveBatched, FUSE, Positive, M(0.6), ALIKE),
        (Blocked, BuildBatched, FB, Build, M(0.35), ALIKE),
        (Cuckoo, Negative, CF, Negative, M(0.3), ALIKE),
        (Cuckoo, Positive, CF, Positive, M(0.3), ALIKE),
        (Cuckoo, NegativeBatched, CF, Negative, M(0.15), ALIKE),
        (Cuckoo, PositiveBatched, CF, Positive, M(0.15), ALIKE),
        (Cuckoo, Build, CF, Build, M(1.0), CF_BUILD),
        (Cuckoo, BuildBatched, CF, Build, M(1.0), CF_BUILD),
        (Cuckoo, Bytes, CF, Bytes, M(0.8), ALIKE),
        (Cuckoo, Negative, BLOCKED, Negative, M(1.2), NO_WORSE),
        (Cuckoo, Positive, BLOCKED, Positive, M(1.2), NO_WORSE),
        (
            Cuckoo,
            NegativeBatched,
            BLOCKED,
            NegativeBatched,
            M(1.3),
            NO_WORSE,
        ),
        (
            Cuckoo,
            PositiveBatched,
            BLOCKED,
            PositiveBatched,
            M(1.3),
            NO_WORSE,
        ),
        (Scalable, Negative, GB, Negative, M(0.7), ALIKE),
        (Scalable, Positive, GB, Positive, M(0.7), ALIKE),
    ]
};

/// The row named `name`, or an error naming what is missing.
pub fn find<'a>(rows: &'a [PeerRecord], name: &str) -> Result<&'a PeerRecord> {
    rows.iter().find(|r| r.name == name).ok_or_else(|| {
        anyhow!("the targets table needs a row for {name:?}, and the run has none: was a contender renamed or left out?")
    })
}

/// The denominator's row: our variant, or the peer configuration with the lowest `metric`.
fn denominator(rows: &[PeerRecord], against: Against, metric: Metric) -> Result<&PeerRecord> {
    match against {
        Against::Peers(kinds) => fastest(rows, kinds, metric),
        Against::Ours(kind) => find(rows, kind.name()),
    }
}

/// The configuration in `kinds` with the lowest `metric` in this run; every one must be there.
fn fastest<'a>(
    rows: &'a [PeerRecord],
    kinds: &[PeerKind],
    metric: Metric,
) -> Result<&'a PeerRecord> {
    let mut best: Option<&PeerRecord> = None;
    for k in kinds {
        let r = find(rows, k.name())?;
        let value = |r: &PeerRecord| metric.pick(r).map_or(f64::INFINITY, |s| s.median);
        if best.is_none_or(|b| value(r) < value(b)) {
            best = Some(r);
        }
    }
    best.ok_or_else(|| anyhow!("a target names no peer"))
}

/// What differs between two sides (empty when nothing does).
fn differences(
    a: &PeerRecord,
    ma: Metric,
    b: &PeerRecord,
    mb: Metric,
    terms: Terms,
) -> Vec<String> {
    let mut d = Vec::new();
    if ma.batched() != mb.batched() {
        d.push(format!(
            "{} vs {}",
            if ma.batched() {
                "batched"
            } else {
                "one at a time"
            },
            if mb.batched() {
                "batched"
            } else {
                "one at a time"
            }
        ));
    }
    if let (Some(ha), Some(hb)) = (a.huge_page_coverage, b.huge_page_coverage) {
        if (ha - hb).abs() > 0.1 {
            d.push(format!(
                "huge pages on {:.0}% vs {:.0}% of the table",
                ha * 100.0,
                hb * 100.0
            ));
        }
    }
    let (fa, fb) = (a.empirical_fpr, b.empirical_fpr);
    let fp_ok = match terms {
        Terms::AlikeFp => fa > 0.0 && fb > 0.0 && (fa / fb).max(fb / fa) <= FP_TOLERANCE,
        Terms::NoWorse { .. } => fa <= fb,
    };
    if !fp_ok {
        d.push(format!(
            "achieved FP {:.3}% vs {:.3}%",
            fa * 100.0,
            fb * 100.0
        ));
    }
    if let Terms::NoWorse { bytes: Some(most) } = terms {
        let share = a.bytes as f64 / b.bytes as f64;
        if share.is_nan() || share > most {
            d.push(format!("{share:.2}× the bytes, above {most}×"));
        }
    }
    d
}

/// Builds one ratio row from named figures.
#[allow(clippy::too_many_arguments)]
fn row(
    what: String,
    numerator: String,
    num: f64,
    denominator: String,
    den: f64,
    bound: Bound,
    diffs: Vec<String>,
) -> Ratio {
    let ratio = num / den;
    Ratio {
        what,
        numerator,
        numerator_value: num,
        denominator,
        denominator_value: den,
        ratio,
        bound,
        met: ratio.is_finite() && bound.met(ratio),
        same_conditions: diffs.is_empty(),
        differences: diffs.join("; "),
    }
}

/// Every row of [`TARGETS`], then the equal-footing memory rows (bits per key over the lower
/// bound at each side's achieved FP rate), the Python speed-ups and the parallel builds.
///
/// # Errors
/// A contender of [`TARGETS`] missing from `rows`.
pub fn ratios(
    rows: &[PeerRecord],
    builds: &[(String, Spread)],
    threads: usize,
) -> Result<Vec<Ratio>> {
    let mut out = Vec::new();
    for &(ours, mo, theirs, mt, bound, terms) in TARGETS {
        let a = find(rows, ours.name())?;
        let b = denominator(rows, theirs, mt)?;
        let (Some(x), Some(y)) = (mo.pick(a), mt.pick(b)) else {
            return Err(anyhow!(
                "{} or {} has no {} figure",
                a.name,
                b.name,
                mo.label()
            ));
        };
        out.push(row(
            format!("{} vs {}: {}", a.name, b.name, mo.label()),
            format!("{}: {}", a.name, mo.label()),
            x.median,
            format!("{}: {}", b.name, mt.label()),
            y.median,
            bound,
            differences(a, mo, b, mt, terms),
        ));
        if mo == Metric::Bytes {
            // Bytes at unequal FP rates compare unlike jobs; bits per key over log2(1/achieved
            // FP) puts both sides on the same footing.
            // The rate's 95% upper bound: no false positive is not a rate of zero. No probes:
            // NaN, which is never met.
            let eff = |r: &PeerRecord| {
                let fp = (r.empirical_fpr * r.probes as f64).round() as u64;
                crate::claims::bits_over_bound(r.bits_per_key, fp, r.probes).unwrap_or(f64::NAN)
            };
            out.push(row(
                format!(
                    "{} vs {}: bits per key / log2(1/achieved FP)",
                    a.name, b.name
                ),
                format!("{}: bits/key over its lower bound", a.name),
                eff(a),
                format!("{}: bits/key over its lower bound", b.name),
                eff(b),
                bound,
                Vec::new(),
            ));
        }
    }
    out.extend(twin_rows(rows)?);
    out.extend(python_rows(rows)?);
    out.extend(parallel_rows(builds, threads));
    Ok(out)
}

/// The lookup and memory targets again, with our variant rebuilt at the peer's achieved FP
/// rate ([`crate::versus::TWINS`]): the comparison at equal FP. Rows whose twin is missing
/// (a run without peers) are an error like any missing contender.
fn twin_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    let mut out = Vec::new();
    for (kind, peer) in crate::versus::TWINS {
        let twin = find(rows, &crate::versus::twin_name(kind, peer))?;
        for &(ours, mo, theirs, mt, bound, terms) in TARGETS {
            let Against::Peers(theirs) = theirs else {
                continue;
            };
            if ours != kind || matches!(mo, Metric::Build | Metric::BuildBatched) {
                continue;
            }
            let b = fastest(rows, theirs, mt)?;
            let what = format!("{} vs {}: {}, at equal FP", twin.name, b.name, mo.label());
            let (Some(x), Some(y)) = (mo.pick(twin), mt.pick(b)) else {
                out.push(not_measured(
                    what,
                    format!("{}: {}", twin.name, mo.label()),
                    format!("{}: {}", b.name, mt.label()),
                    bound,
                    format!("not measured: no {} figure", mo.label()),
                ));
                continue;
            };
            out.push(row(
                what,
                format!("{}: {}", twin.name, mo.label()),
                x.median,
                format!("{}: {}", b.name, mt.label()),
                y.median,
                bound,
                differences(twin, mo, b, mt, terms),
            ));
        }
    }
    Ok(out)
}

/// A row for a figure the run does not have: NaN values, never met, not the same conditions.
fn not_measured(
    what: String,
    numerator: String,
    denominator: String,
    bound: Bound,
    why: String,
) -> Ratio {
    let mut r = row(
        what,
        numerator,
        f64::NAN,
        denominator,
        f64::NAN,
        bound,
        vec![why],
    );
    r.same_conditions = false;
    r
}

/// The classic filter against the articles' Python code. A run without the Python side (no
/// python3) gives explicit not-measured rows, not none.
fn python_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    let c = find(rows, Kind::Classic.name())?;
    let py = find(rows, "articles' Python").ok();
    let mut out = Vec::new();
    for m in [
        Metric::Negative,
        Metric::Positive,
        Metric::NegativeBatched,
        Metric::PositiveBatched,
        Metric::Build,
        Metric::BuildBatched,
    ] {
        let py_metric = if m.batched() { unbatched(m) } else { m };
        let bound = Bound::AtLeast(if matches!(m, Metric::Build | Metric::BuildBatched) {
            20.0
        } else {
            15.0
        });
        let what = format!(
            "speed-up of classic over the articles' Python: {}",
            m.label()
        );
        let (num, den) = (
            format!("articles' Python: {}", py_metric.label()),
            format!("classic: {}", m.label()),
        );
        match (py, py.and_then(|py| py_metric.pick(py)), m.pick(c)) {
            (Some(py), Some(p), Some(x)) => out.push(row(
                what,
                num,
                p.median,
                den,
                x.median,
                bound,
                differences(py, py_metric, c, m, Terms::AlikeFp),
            )),
            (None, ..) => out.push(not_measured(
                what,
                num,
                den,
                bound,
                "not measured: the articles' Python code did not run (python3 absent?)".into(),
            )),
            _ => out.push(not_measured(
                what,
                num,
                den,
                bound,
                format!("not measured: no {} figure", m.label()),
            )),
        }
    }
    Ok(out)
}

fn unbatched(m: Metric) -> Metric {
    match m {
        Metric::NegativeBatched => Metric::Negative,
        Metric::PositiveBatched => Metric::Positive,
        Metric::BuildBatched => Metric::Build,
        other => other,
    }
}

/// Parallel-build rows: speed-up over the batched single-thread build (flagged when above the
/// thread count, which no honest parallel speed-up can be), and sharded against fastbloom's
/// `AtomicBloomFilter` on the same threads.
fn parallel_rows(builds: &[(String, Spread)], threads: usize) -> Vec<Ratio> {
    use crate::versus::Build;
    let b = |id: Build| {
        let name = id.name(threads);
        let t = builds
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.median);
        (name, t)
    };
    // A build missing from the run is a not-measured row, not a dropped one.
    let pair =
        |what: String, (num, x): (String, Option<f64>), (den, y): (String, Option<f64>), bound| {
            let (num, den) = (format!("{num} (s)"), format!("{den} (s)"));
            match (x, y) {
                (Some(x), Some(y)) => row(what, num, x, den, y, bound, Vec::new()),
                _ => not_measured(
                    what,
                    num,
                    den,
                    bound,
                    "not measured: a build is missing from the run".into(),
                ),
            }
        };
    let mut out = Vec::new();
    for kind in [Kind::Classic, Kind::Blocked] {
        let k = kind.name();
        let mut r = pair(
            format!("{k}: parallel build speed-up over one thread"),
            b(Build::Batched(kind)),
            b(Build::Sharded(kind)),
            Bound::Between(1.3, threads as f64),
        );
        if r.ratio > threads as f64 {
            r.same_conditions = false;
            r.differences =
                format!("speed-up above the {threads} threads: a timing artefact, not a result");
        }
        out.push(r);
        out.push(pair(
            format!("{k} sharded build vs fastbloom AtomicBloomFilter, same threads"),
            b(Build::Sharded(kind)),
            b(Build::FastbloomAtomic),
            Bound::AtMost(1.0),
        ));
    }
    out
}

#[cfg(test)]
#[path = "targets_tests.rs"]
mod tests;
