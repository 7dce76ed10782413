//! The speed and memory targets: a typed table of ratios between two figures measured in the
//! same run, each with its numerator and denominator named, and a computed "same conditions?"
//! verdict that says what differs between the two sides when they are not alike.
//!
//! Contenders are named through [`Variant`] and [`PeerKind`], so a rename is a compile error, and a
//! lookup of a contender missing from the run is an error, never a silently dropped row.

use crate::filters::Variant;
use crate::measure::Spread;
use crate::record::PeerRecord;
use anyhow::{anyhow, Result};
use filterlab_peers::PeerKind;

mod goals;
pub mod growth;
pub mod headline;
pub mod hot;
pub mod interop;
pub mod mapped;
mod parallel;
pub mod window;

pub use goals::{goal_rows, GoalFigure, GOALS};
use parallel::parallel_rows;

use crate::record::conditions::{self, Api, OurHash, Timed};
pub use crate::record::conditions::{Conditions, Terms, FP_TOLERANCE};
pub use crate::record::{Bound, Metric, Ratio, Role, Verdict};

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

    /// The conditions `r`'s figure ran under.
    fn conditions(self, r: &PeerRecord) -> Conditions {
        let hash = match r.side {
            crate::record::Side::Filterlab => r.hash.map_or(conditions::OURS_HASH, OurHash::name),
            crate::record::Side::Python => conditions::PYTHON_HASH,
            crate::record::Side::Peer => PeerKind::ALL
                .iter()
                .find(|k| k.name() == r.name)
                .map_or("unknown", |&k| conditions::peer_hash(k)),
        };
        Conditions {
            api: if self.batched() {
                Api::Batched
            } else {
                Api::OneAtATime
            },
            achieved_fpr: Some(r.empirical_fpr),
            hash: hash.into(),
            threads: 1,
            huge_pages: r.huge_page_coverage,
            bytes: Some(r.bytes),
            timed: match self {
                Metric::Build | Metric::BuildBatched => Timed::AllocationAndInserts,
                Metric::Bytes => Timed::Bytes,
                _ => Timed::Lookups,
            },
            grown_from: None,
            keys: Some(r.n),
        }
    }

    fn peer_label(self) -> &'static str {
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
}

/// Who a target's denominator is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Against {
    /// The configurations of one peer crate; the one with the lower figure in this run is used,
    /// so that each peer is compared in its fastest configuration.
    Peers(&'static [PeerKind]),
    /// Another of our own variants (the cuckoo filter's two cache lines against the split-block
    /// filter's one).
    Ours(Variant),
}

/// Who a target's numerator is: one of our variants as the matrix builds it, or built again
/// with xxh3-64 (the hash twin of [`crate::stages::peers::HASH_TWINS`]), so that a row against
/// a peer hashing with xxh3-64 compares the filters, not the hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ours {
    /// The variant with the default hash (xxh3-128).
    Variant(Variant),
    /// The variant built with `HashKind::Xxh3_64` from the same keys.
    Hash64(Variant),
}

impl Ours {
    /// The name of its row in the comparison.
    #[must_use]
    pub fn name(self) -> String {
        match self {
            Ours::Variant(v) => v.name().into(),
            Ours::Hash64(v) => crate::stages::peers::hash_twin_name(v, OurHash::Xxh3_64),
        }
    }
}

/// One row of the targets table: ours (numerator) against `Against` (denominator).
pub type Target = (Ours, Metric, Against, Metric, Bound, Terms, Role);

/// The issue's targets. Speed rows compare time over time, so `AtMost(0.7)` means "at most 70%
/// of the peer's time". Like structures are compared: the classic filter against the classic
/// peers (bloomfilter, probabilistic-collections), the split-block filter against fastbloom (a
/// blocked filter with 512-bit blocks) and xorf's binary fuse filter, the cuckoo filter against
/// cuckoofilter. The classic filter against fastbloom stays as information, not as a target.
#[rustfmt::skip]
pub const TARGETS: &[Target] = {
    use Bound::AtMost as M;
    use Metric::*;
    use Role::{Information as INFO, Target as T};
    use Variant::{BinaryFuse16, BinaryFuse8, Blocked, Classic, Cuckoo, Quotient, Scalable, Vqf};
    use Ours::{Hash64 as H64, Variant as V};
    const FB: Against = Against::Peers(&[PeerKind::FastbloomFoldhash, PeerKind::FastbloomDefault]);
    const FB_XXH3: Against = Against::Peers(&[PeerKind::FastbloomXxh3]);
    const CLASSIC: Against =
        Against::Peers(&[PeerKind::Bloomfilter, PeerKind::ProbabilisticCollections]);
    const CF: Against = Against::Peers(&[PeerKind::Cuckoofilter, PeerKind::CuckoofilterXxh3]);
    const FUSE: Against = Against::Peers(&[PeerKind::BinaryFuse8]);
    const GB: Against = Against::Peers(&[PeerKind::GrowableBloom]);
    const FUSE16: Against = Against::Peers(&[PeerKind::BinaryFuse16]);
    const QF: Against = Against::Peers(&[PeerKind::Qfilter]);
    const BLOCKED: Against = Against::Ours(Blocked);
    const CUCKOO: Against = Against::Ours(Cuckoo);
    const ALIKE: Terms = Terms::AlikeFp;
    const NO_WORSE: Terms = Terms::NoWorse { bytes: None };
    const CF_BUILD: Terms = Terms::NoWorse { bytes: Some(0.8) };
    &[
        (V(Classic), Negative, CLASSIC, Negative, M(1.0), ALIKE, T),
        (V(Classic), Positive, CLASSIC, Positive, M(1.0), ALIKE, T),
        (V(Classic), NegativeBatched, CLASSIC, Negative, M(0.7), ALIKE, T),
        (V(Classic), PositiveBatched, CLASSIC, Positive, M(0.7), ALIKE, T),
        (V(Classic), BuildBatched, CLASSIC, Build, M(0.5), ALIKE, T),
        (V(Classic), Negative, FB, Negative, M(1.0), ALIKE, INFO),
        (V(Classic), Positive, FB, Positive, M(1.0), ALIKE, INFO),
        (V(Classic), NegativeBatched, FB, Negative, M(0.7), ALIKE, INFO),
        (V(Classic), PositiveBatched, FB, Positive, M(0.7), ALIKE, INFO),
        (V(Classic), BuildBatched, FB, Build, M(0.5), ALIKE, INFO),
        (V(Blocked), Negative, FB, Negative, M(0.6), ALIKE, T),
        (V(Blocked), Positive, FB, Positive, M(0.6), ALIKE, T),
        // Issue 38: the split-block filter against fastbloom with the same hash (both xxh3-64,
        // one call a key): the structures alone. The rows above keep each side's default hash.
        (H64(Blocked), Negative, FB_XXH3, Negative, M(0.7), ALIKE, T),
        (H64(Blocked), Positive, FB_XXH3, Positive, M(0.7), ALIKE, T),
        (V(Blocked), NegativeBatched, FB, Negative, M(0.35), ALIKE, T),
        (V(Blocked), PositiveBatched, FB, Positive, M(0.35), ALIKE, T),
        (V(Blocked), NegativeBatched, FUSE, Negative, M(0.6), ALIKE, T),
        (V(Blocked), PositiveBatched, FUSE, Positive, M(0.6), ALIKE, T),
        (V(Blocked), BuildBatched, FB, Build, M(0.35), ALIKE, T),
        (V(Cuckoo), Negative, CF, Negative, M(0.3), ALIKE, T),
        (V(Cuckoo), Positive, CF, Positive, M(0.3), ALIKE, T),
        (V(Cuckoo), NegativeBatched, CF, Negative, M(0.15), ALIKE, T),
        (V(Cuckoo), PositiveBatched, CF, Positive, M(0.15), ALIKE, T),
        (V(Cuckoo), Build, CF, Build, M(1.0), CF_BUILD, T),
        (V(Cuckoo), BuildBatched, CF, Build, M(1.0), CF_BUILD, T),
        (V(Cuckoo), Bytes, CF, Bytes, M(0.8), ALIKE, T),
        (V(Cuckoo), Negative, BLOCKED, Negative, M(1.2), NO_WORSE, T),
        (V(Cuckoo), Positive, BLOCKED, Positive, M(1.2), NO_WORSE, T),
        (V(Cuckoo), NegativeBatched, BLOCKED, NegativeBatched, M(1.3), NO_WORSE, T),
        (V(Cuckoo), PositiveBatched, BLOCKED, PositiveBatched, M(1.3), NO_WORSE, T),
        (V(Scalable), Negative, GB, Negative, M(0.7), ALIKE, T),
        (V(Scalable), Positive, GB, Positive, M(0.7), ALIKE, T),
        // Issue 19: our binary fuse filter at xorf's bits per key and lookup time, same run,
        // built with xorf's hash (xxh3-64) so that the rows compare like with like; the
        // default-hash (xxh3-128) filters stay beside them as information.
        (H64(BinaryFuse8), Negative, FUSE, Negative, M(1.0), ALIKE, T),
        (H64(BinaryFuse8), Positive, FUSE, Positive, M(1.0), ALIKE, T),
        (H64(BinaryFuse8), Bytes, FUSE, Bytes, M(1.0), ALIKE, T),
        (V(BinaryFuse8), Negative, FUSE, Negative, M(1.0), ALIKE, INFO),
        (V(BinaryFuse8), Positive, FUSE, Positive, M(1.0), ALIKE, INFO),
        (V(BinaryFuse8), Bytes, FUSE, Bytes, M(1.0), ALIKE, INFO),
        (H64(BinaryFuse16), Negative, FUSE16, Negative, M(1.0), ALIKE, INFO),
        (H64(BinaryFuse16), Positive, FUSE16, Positive, M(1.0), ALIKE, INFO),
        (H64(BinaryFuse16), Bytes, FUSE16, Bytes, M(1.0), ALIKE, INFO),
        (V(BinaryFuse16), Negative, FUSE16, Negative, M(1.0), ALIKE, INFO),
        (V(BinaryFuse16), Positive, FUSE16, Positive, M(1.0), ALIKE, INFO),
        (V(BinaryFuse16), Bytes, FUSE16, Bytes, M(1.0), ALIKE, INFO),
        // The quotient filter against qfilter (RSQF): lookups, build and memory; the twin at
        // qfilter's achieved rate repeats the lookups and memory at equal FP. Issue 52: lookups
        // at most 0.8, memory (bits per key at equal FP) at most 0.75.
        (V(Quotient), Negative, QF, Negative, M(0.8), ALIKE, T),
        (V(Quotient), Positive, QF, Positive, M(0.8), ALIKE, T),
        // Builds: ours through insert_batch (one pass from a sorted key set, issue 52) against
        // qfilter's insert a key at a time (it has no batch build); ours a key at a time beside
        // it, for information.
        (V(Quotient), BuildBatched, QF, Build, M(1.0), ALIKE, T),
        (V(Quotient), Build, QF, Build, M(1.0), ALIKE, INFO),
        (V(Quotient), Bytes, QF, Bytes, M(0.75), ALIKE, T),
        // Issue 52: the vector quotient filter, deletable with one-cache-line lookups, against
        // our split-block filter (lookups at most 1.25x) and our cuckoo filter (lookups at most
        // 0.75x, bytes at most 1.15x, builds to capacity no slower). Its 8-bit fingerprints
        // give about 0.25% where the cuckoo filter gives 0.74% at the 1% target: the rows ask
        // for its rate no worse, which makes the bytes row stricter than equal FP would.
        (V(Vqf), Negative, BLOCKED, Negative, M(1.25), NO_WORSE, T),
        (V(Vqf), NegativeBatched, BLOCKED, NegativeBatched, M(1.25), NO_WORSE, T),
        (V(Vqf), Negative, CUCKOO, Negative, M(0.75), NO_WORSE, T),
        (V(Vqf), NegativeBatched, CUCKOO, NegativeBatched, M(0.75), NO_WORSE, T),
        (V(Vqf), Positive, CUCKOO, Positive, M(0.75), NO_WORSE, INFO),
        (V(Vqf), PositiveBatched, CUCKOO, PositiveBatched, M(0.75), NO_WORSE, INFO),
        (V(Vqf), Bytes, CUCKOO, Bytes, M(1.15), NO_WORSE, T),
        (V(Vqf), Build, CUCKOO, Build, M(1.0), NO_WORSE, T),
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

/// One side of a ratio: its name, its timing and what it ran under.
pub struct Side {
    /// `classic: ns per negative lookup`.
    pub name: String,
    /// The figure over its rounds (`None`: not measured).
    pub figure: Option<Spread>,
    /// Its conditions.
    pub conditions: Conditions,
}

/// One ratio row from two sides; everything derived is computed by [`Ratio::recomputed`].
fn row(what: String, role: Role, (a, b): (Side, Side), bound: Bound, terms: Terms) -> Ratio {
    let value = |s: &Option<Spread>| s.as_ref().map_or(f64::NAN, |s| s.median);
    let samples = |s: &Option<Spread>| s.as_ref().map_or_else(Vec::new, |s| s.samples.clone());
    Ratio {
        what,
        role,
        numerator: a.name,
        numerator_value: value(&a.figure),
        numerator_samples: samples(&a.figure),
        denominator: b.name,
        denominator_value: value(&b.figure),
        denominator_samples: samples(&b.figure),
        bound,
        terms,
        numerator_conditions: a.conditions,
        denominator_conditions: b.conditions,
        ..Ratio::default()
    }
    .recomputed()
}

/// `r`'s `m` figure as a side.
fn side(r: &PeerRecord, m: Metric) -> Side {
    Side {
        name: format!("{}: {}", r.name, m.peer_label()),
        figure: m.pick(r),
        conditions: m.conditions(r),
    }
}

/// The row of a target comparing `a`'s `mo` figure with `b`'s `mt` figure.
///
/// # Errors
/// Either figure missing.
fn target_row(
    (a, mo): (&PeerRecord, Metric),
    (b, mt): (&PeerRecord, Metric),
    (bound, terms, role): (Bound, Terms, Role),
) -> Result<Ratio> {
    if mo.pick(a).is_none() || mt.pick(b).is_none() {
        return Err(anyhow!(
            "{} or {} has no {} figure",
            a.name,
            b.name,
            mo.peer_label()
        ));
    }
    let what = format!("{} vs {}: {}", a.name, b.name, mo.peer_label());
    Ok(row(what, role, (side(a, mo), side(b, mt)), bound, terms))
}

/// A row for a figure the run does not have: NaN values, not measured, with the reason.
fn not_measured(what: String, (num, den): (String, String), bound: Bound, why: String) -> Ratio {
    let blank = |name| Side {
        name,
        figure: None,
        conditions: Conditions::default(),
    };
    let mut r = row(
        what,
        Role::Target,
        (blank(num), blank(den)),
        bound,
        Terms::AlikeFp,
    );
    r.differences = why;
    r
}

/// Every row of [`TARGETS`], then the equal-footing memory rows (bits per key over the lower
/// bound at each side's achieved FP rate), the twins at equal FP, the absolute goals
/// ([`GOALS`]), the Python speed-ups and the parallel builds.
///
/// # Errors
/// A contender of [`TARGETS`] missing from `rows`.
pub fn ratios(
    rows: &[PeerRecord],
    builds: &[(String, Spread)],
    threads: usize,
) -> Result<Vec<Ratio>> {
    let mut out = Vec::new();
    for &(ours, mo, theirs, mt, bound, terms, role) in TARGETS {
        let a = find(rows, &ours.name())?;
        let b = denominator(rows, theirs, mt)?;
        out.push(target_row((a, mo), (b, mt), (bound, terms, role))?);
        if mo == Metric::Bytes {
            // Bytes at unequal FP rates compare unlike jobs; bits per key over log2(1/achieved
            // FP) puts both sides on the same footing. The rate's 95% upper bound: no false
            // positive is not a rate of zero. No probes: NaN, which is never met.
            let eff = |r: &PeerRecord| {
                let fp = (r.empirical_fpr * r.probes as f64).round() as u64;
                let v = crate::judge::claims::bits_over_bound(r.bits_per_key, fp, r.probes)
                    .unwrap_or(f64::NAN);
                Side {
                    name: format!("{}: bits/key over its lower bound", r.name),
                    figure: Some(Spread::single(v)),
                    conditions: Conditions {
                        achieved_fpr: None,
                        ..Metric::Bytes.conditions(r)
                    },
                }
            };
            let counts =
                |r: &PeerRecord| ((r.empirical_fpr * r.probes as f64).round() as u64, r.probes);
            let mut eq = row(
                format!(
                    "{} vs {}: bits per key / log2(1/achieved FP)",
                    a.name, b.name
                ),
                role,
                (eff(a), eff(b)),
                bound,
                Terms::Speedup,
            );
            eq.bound_counts = Some([counts(a), counts(b)]);
            out.push(eq.recomputed());
        }
    }
    out.extend(hot::near_rows(rows)?);
    out.extend(twin_rows(rows)?);
    out.extend(goals::goal_rows(rows)?);
    out.extend(python_rows(rows)?);
    out.extend(parallel_rows(builds, threads));
    Ok(out)
}

/// The lookup and memory targets again, with our variant rebuilt at the peer's achieved FP
/// rate ([`crate::stages::peers::TWINS`]): the comparison at equal FP. Rows whose twin is missing
/// (a run without peers) are an error like any missing contender.
fn twin_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    let mut out = Vec::new();
    for (kind, peer) in crate::stages::peers::TWINS {
        let twin = find(rows, &crate::stages::peers::twin_name(kind, peer))?;
        for &(ours, mo, theirs, mt, bound, terms, role) in TARGETS {
            let Against::Peers(theirs) = theirs else {
                continue;
            };
            if ours != Ours::Variant(kind) || matches!(mo, Metric::Build | Metric::BuildBatched) {
                continue;
            }
            let b = fastest(rows, theirs, mt)?;
            let what = format!(
                "{} vs {}: {}, at equal FP",
                twin.name,
                b.name,
                mo.peer_label()
            );
            if mo.pick(twin).is_none() || mt.pick(b).is_none() {
                let names = (side(twin, mo).name, side(b, mt).name);
                let why = format!("not measured: no {} figure", mo.peer_label());
                out.push(not_measured(what, names, bound, why));
                continue;
            }
            out.push(row(what, role, (side(twin, mo), side(b, mt)), bound, terms));
        }
    }
    Ok(out)
}

/// The classic filter against the articles' Python code. Their class runs on a sample
/// (`stages::peers::ARTICLE_SAMPLE`), so its figures are compared with our classic measured on
/// the same sample in the same rounds (`stages::peers::ARTICLE_TWIN`), never with the full-size
/// row. A run without the Python side (no python3) gives explicit not-measured rows, not none.
fn python_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    use crate::stages::peers::{ARTICLE_ROW, ARTICLE_TWIN};
    let py = find(rows, ARTICLE_ROW).ok();
    let c = py.map(|_| find(rows, ARTICLE_TWIN)).transpose()?;
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
            "speed-up of classic over the articles' Python: {}, on their sample",
            m.peer_label()
        );
        let names = (
            format!("{ARTICLE_ROW}: {}", py_metric.label()),
            format!("{ARTICLE_TWIN}: {}", m.peer_label()),
        );
        match (py, c) {
            (Some(py), Some(c)) if py_metric.pick(py).is_some() && m.pick(c).is_some() => {
                out.push(row(
                    what,
                    Role::Target,
                    (side(py, py_metric), side(c, m)),
                    bound,
                    Terms::AlikeFp,
                ));
            }
            (None, _) | (_, None) => out.push(not_measured(
                what,
                names,
                bound,
                "not measured: the articles' Python code did not run (python3 absent?)".into(),
            )),
            (Some(_), Some(_)) => out.push(not_measured(
                what,
                names,
                bound,
                format!("not measured: no {} figure", m.peer_label()),
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

#[cfg(test)]
mod tests;
