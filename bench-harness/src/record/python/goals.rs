//! The goals of issue 20, judged from the section's records with the harness's one
//! [`Bound`] / [`Verdict`] machinery: ratios of medians with a paired bootstrap interval over
//! the interleaved rounds ([`crate::record::verdict::ratio_interval`]), absolute figures with the
//! bootstrap interval of their median, and FP rates with their Wilson interval against the
//! binomial band of what the filter promises.

use super::{
    ContenderId, ContenderRow, GoalId, LoadCheck, Measured, Outcome, Promise, PythonReport, Scale,
    Timing,
};
use crate::measure::median;
use crate::record::conditions::{Api, Conditions, Terms, Timed};
use crate::record::verdict::ratio_interval;
use crate::record::{Bound, Metric, Verdict};
use crate::record::{Ratio, Role};
use anyhow::Result;

/// Sigmas of the binomial band around a promised rate.
pub const SIGMAS: f64 = 4.0;
/// The batch build goal is for this many keys.
pub const GOAL_KEYS: u64 = 10_000_000;
/// The file for the load goal: 1.2 GB.
pub const GOAL_FILE_BYTES: u64 = 1_200_000_000;

/// The figures of a [`ContenderRow`] (it has no bytes).
impl Metric {
    /// Its rounds in `r` (`None`: the library has no such call).
    #[must_use]
    pub fn of(self, r: &ContenderRow) -> Option<&[f64]> {
        match self {
            Metric::Negative => Some(&r.ns_negative),
            Metric::Positive => Some(&r.ns_positive),
            Metric::NegativeBatched => r.ns_negative_batched.as_deref(),
            Metric::PositiveBatched => r.ns_positive_batched.as_deref(),
            Metric::Build => r.build_seconds.as_deref(),
            Metric::BuildBatched => r.build_seconds_batched.as_deref(),
            Metric::Bytes => None,
        }
    }

    /// Its name in the tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Metric::Negative => "ns per negative `in`",
            Metric::Positive => "ns per positive `in`",
            Metric::NegativeBatched => "ns per negative key, contains_many",
            Metric::PositiveBatched => "ns per positive key, contains_many",
            Metric::Build => "build seconds, add",
            Metric::BuildBatched => "build seconds, add_many",
            Metric::Bytes => "bytes",
        }
    }
}

/// `in` over rbloom's `in`, on fresh str objects (issue 52; 1.0 before).
pub const IN_GOAL: f64 = 0.9;

/// The ratio goals against rbloom one key at a time: (goal, our figure, rbloom's, bound).
pub const RATIO_GOALS: [(GoalId, Metric, Metric, f64); 6] = [
    (
        GoalId::OneAtATimeNegative,
        Metric::Negative,
        Metric::Negative,
        IN_GOAL,
    ),
    (
        GoalId::OneAtATimePositive,
        Metric::Positive,
        Metric::Positive,
        IN_GOAL,
    ),
    (GoalId::OneAtATimeAdd, Metric::Build, Metric::Build, 1.0),
    (
        GoalId::BatchNegative,
        Metric::NegativeBatched,
        Metric::Negative,
        0.3,
    ),
    (
        GoalId::BatchPositive,
        Metric::PositiveBatched,
        Metric::Positive,
        0.3,
    ),
    (GoalId::BatchAdd, Metric::BuildBatched, Metric::Build, 0.3),
];

fn med(xs: &[f64]) -> f64 {
    median(&mut xs.to_vec())
}

fn goal(id: GoalId, measure: String, value: f64, interval: Option<(f64, f64)>) -> super::Goal {
    super::Goal {
        id,
        measure,
        value: value.is_finite().then_some(value),
        interval,
        bound: Bound::default(),
        verdict: Verdict::NotMeasured,
        note: String::new(),
    }
}

fn judged(mut g: super::Goal, bound: Bound) -> super::Goal {
    g.bound = bound;
    g.verdict = Verdict::of(bound, g.interval);
    g
}

/// The band a measured rate should lie in: promised ± [`SIGMAS`] binomial sigmas over the
/// probes (a requested rate is an upper bound only: from 0).
#[must_use]
pub fn fp_band(promised: f64, promise: Promise, probes: u64) -> Bound {
    let sigma = (promised * (1.0 - promised) / probes.max(1) as f64).sqrt();
    let hi = promised + SIGMAS * sigma;
    if promise.is_upper_bound() {
        Bound::Between(0.0, hi)
    } else {
        Bound::Between((promised - SIGMAS * sigma).max(0.0), hi)
    }
}

/// The measured rate of `r` with its Wilson 95% interval.
#[must_use]
pub fn measured_fpr(r: &ContenderRow) -> (f64, (f64, f64)) {
    let rate = r.false_positives as f64 / r.probes.max(1) as f64;
    (
        rate,
        filterlab::math::wilson_interval(r.false_positives, r.probes, 1.96),
    )
}

fn fp_goal(id: GoalId, r: &ContenderRow) -> super::Goal {
    let (rate, wilson) = measured_fpr(r);
    let what = match r.promise {
        Promise::Formula => "its formula at its load (expected_fpr())",
        Promise::Requested => "the error_rate it was given, as an upper bound",
        Promise::StageSum => "the sum of its stages' error rates, as an upper bound",
    };
    let mut g = goal(
        id,
        format!(
            "{}: measured FP ({} of {} probes) inside ±{SIGMAS} binomial sigmas of {what}, {}",
            r.id.label(),
            r.false_positives,
            r.probes,
            crate::record::pct(r.promised_fpr)
        ),
        rate,
        Some(wilson),
    );
    g.note = "interval: Wilson 95% of the measured rate".into();
    judged(g, fp_band(r.promised_fpr, r.promise, r.probes))
}

/// The two rows the ratio goals compare, ClassicBloom's and rbloom's at full size.
///
/// # Errors
/// A row missing, or the two measured at different sizes: a per-key figure is compared only
/// with one taken at the same size.
pub fn judged_pair(timing: &Timing) -> Result<(&ContenderRow, &ContenderRow)> {
    let ours = timing.row(ContenderId::FilterlabClassic, Scale::Full)?;
    let rbloom = timing.row(ContenderId::Rbloom, Scale::Full)?;
    anyhow::ensure!(
        ours.n == rbloom.n,
        "ClassicBloom at {} keys and rbloom at {}: a ratio compares figures taken at the same size",
        ours.n,
        rbloom.n
    );
    Ok((ours, rbloom))
}

/// Why the goals' loop stopped, for a goal it left undecided.
fn ended_by(timing: &Timing) -> String {
    let judged = timing
        .loops
        .iter()
        .find(|l| l.scale == Scale::Full && l.contenders.contains(&ContenderId::FilterlabClassic));
    match judged {
        Some(l) => format!(
            "undecided after {} rounds: {}",
            l.record.rounds,
            l.record.stop.word()
        ),
        None => String::new(),
    }
}

/// Every goal, from the timing rows and the load check.
///
/// # Errors
/// A contender the goals need is missing from the timing, or its two sides differ in size.
pub fn goals(
    timing: &Timing,
    load: &LoadCheck,
    rust: Option<&super::RustBatched>,
) -> Result<Vec<super::Goal>> {
    let (ours, rbloom) = judged_pair(timing)?;
    let mut out = Vec::new();
    for (id, mine, theirs, most) in RATIO_GOALS {
        let (a, b) = (mine.of(ours), theirs.of(rbloom));
        let fresh = match theirs {
            Metric::Negative | Metric::Positive => ", on fresh str objects",
            _ => "",
        };
        let measure = format!(
            "ClassicBloom {} / rbloom {}{fresh}",
            mine.label(),
            theirs.label()
        );
        let g = match (a, b) {
            (Some(a), Some(b)) => goal(id, measure, med(a) / med(b), ratio_interval(a, b)),
            _ => goal(id, measure, f64::NAN, None),
        };
        let mut g = judged(g, Bound::AtMost(most));
        if g.verdict == Verdict::Undecided {
            g.note = ended_by(timing);
        }
        out.push(g);
    }
    let build = Metric::BuildBatched.of(ours).unwrap_or_default();
    let mut g = goal(
        GoalId::BatchBuildSeconds,
        format!("ClassicBloom: {} keys built by add_many, seconds", ours.n),
        med(build),
        ratio_interval(build, &[1.0]).filter(|_| ours.n >= GOAL_KEYS),
    );
    if ours.n < GOAL_KEYS {
        g.note = format!(
            "not measured at the goal's size: this run has {} keys, the goal is for {GOAL_KEYS}",
            ours.n
        );
    }
    out.push(judged(g, Bound::AtMost(0.6)));
    for (id, figure) in [
        (GoalId::ContainsManyNegativeNs, Metric::NegativeBatched),
        (GoalId::ContainsManyPositiveNs, Metric::PositiveBatched),
    ] {
        let xs = figure.of(ours).unwrap_or_default();
        let g = goal(
            id,
            format!("ClassicBloom: {}", figure.label()),
            med(xs),
            ratio_interval(xs, &[1.0]),
        );
        out.push(judged(g, Bound::AtMost(40.0)));
    }
    out.extend(versus_rust(ours, rust));
    for id in ContenderId::ALL {
        if id.is_filterlab_class() {
            out.push(fp_goal(
                GoalId::FpInInterval(id),
                timing.row(id, Scale::Full)?,
            ));
        } else if id.is_drop_in() {
            // The drop-in's slow scalable filter is measured on the sample in the main job.
            out.push(fp_goal(
                GoalId::DropInFp(id),
                timing.row(id, id.main_scale())?,
            ));
        }
    }
    out.push(load_goal(load));
    Ok(out)
}

/// The load's peak over the file's size, at most: issue 39 tightened issue 20's 1.1 to 1.05
/// (no second copy of the table).
pub const LOAD_PEAK: f64 = 1.05;

fn load_goal(load: &LoadCheck) -> super::Goal {
    let measure =
        "filterlab.load of a saved ClassicBloom file, fresh process: peak memory / file size"
            .to_string();
    let Some(m) = &load.measured else {
        let mut g = goal(GoalId::LoadPeak, measure, f64::NAN, None);
        g.note = format!(
            "not measured: {}",
            load.smaller_because.as_deref().unwrap_or("no file made")
        );
        return judged(g, Bound::AtMost(LOAD_PEAK));
    };
    let ratio = m.peak_bytes as f64 / m.file_bytes.max(1) as f64;
    let at_size = m.file_bytes >= load.goal_bytes;
    let mut g = goal(
        GoalId::LoadPeak,
        measure,
        ratio,
        at_size.then_some((ratio, ratio)),
    );
    g.note = if at_size {
        format!(
            "a {:.2} GB file, one load (a point)",
            m.file_bytes as f64 / 1e9
        )
    } else {
        format!(
            "not measured at the goal's {:.1} GB: the run's largest file was {:.3} GB ({})",
            load.goal_bytes as f64 / 1e9,
            m.file_bytes as f64 / 1e9,
            load.smaller_because
                .as_deref()
                .unwrap_or("smaller by design")
        )
    };
    judged(g, Bound::AtMost(LOAD_PEAK))
}

/// Recomputes the goals of a stored section (what `check` compares with the stored ones).
///
/// # Errors
/// A contender the goals need is missing.
pub fn recomputed(m: &Measured) -> Result<Vec<super::Goal>> {
    goals(&m.timing, &m.load, m.rust.as_ref())
}

/// The bound of `contains_many` over the same filter's batched lookups in Rust (issue 52; 1.5
/// before).
pub const VERSUS_RUST: f64 = 1.3;

/// `contains_many` over the Rust filter's batched lookups, negatives and positives: what the
/// Python layer adds to a batch. The two sides ran in different processes and loops of one run
/// (the same filter shape, as many keys), so their rounds are resampled unpaired; a side the
/// run lacks, or a filter of another size, leaves the goal not measured.
fn versus_rust(ours: &ContenderRow, rust: Option<&super::RustBatched>) -> Vec<super::Goal> {
    let pairs = [
        (GoalId::VersusRustNegative, Metric::NegativeBatched),
        (GoalId::VersusRustPositive, Metric::PositiveBatched),
    ];
    pairs
        .into_iter()
        .map(|(id, figure)| {
            let theirs = rust.filter(|r| r.n == ours.n).map(|r| match id {
                GoalId::VersusRustNegative => r.negative.as_slice(),
                _ => r.positive.as_slice(),
            });
            let name = rust.map_or("classic", |r| r.filter.as_str());
            let measure = format!(
                "ClassicBloom {} / Rust {name}'s batched lookups (same run)",
                figure.label()
            );
            let g = match (figure.of(ours), theirs) {
                (Some(a), Some(b)) if !b.is_empty() => goal(
                    id,
                    measure,
                    med(a) / med(b),
                    crate::measure::bootstrap::unpaired_ratio_interval(a, b),
                ),
                _ => goal(id, measure, f64::NAN, None),
            };
            judged(g, Bound::AtMost(VERSUS_RUST))
        })
        .collect()
}

/// The conditions `r`'s figure `f` ran under, its keys among them.
#[must_use]
pub fn conditions(r: &ContenderRow, f: Metric) -> Conditions {
    Conditions {
        api: if f.batched() {
            Api::Batched
        } else {
            Api::OneAtATime
        },
        achieved_fpr: Some(measured_fpr(r).0),
        hash: r.id.hash().into(),
        threads: 1,
        huge_pages: None,
        bytes: Some(r.bytes),
        timed: if matches!(f, Metric::Build | Metric::BuildBatched) {
            Timed::AllocationAndInserts
        } else {
            Timed::Lookups
        },
        grown_from: None,
        keys: Some(r.n),
    }
}

/// The ratio goals as rows of the harness's targets table (README.md), with the conditions
/// of each side: `check` recomputes them like every other target.
///
/// # Errors
/// A contender missing from the timing, or the two sides at different sizes.
pub fn target_ratios(timing: &Timing) -> Result<Vec<Ratio>> {
    let (ours, rbloom) = judged_pair(timing)?;
    let mut out = Vec::new();
    for (_, mine, theirs, most) in RATIO_GOALS {
        let (Some(a), Some(b)) = (mine.of(ours), theirs.of(rbloom)) else {
            continue;
        };
        out.push(
            Ratio {
                what: format!(
                    "Python: ClassicBloom vs rbloom: {} / {}",
                    mine.label(),
                    theirs.label()
                ),
                role: Role::Target,
                numerator: format!("filterlab ClassicBloom (Python): {}", mine.label()),
                numerator_value: med(a),
                numerator_samples: a.to_vec(),
                denominator: format!("rbloom Bloom: {}", theirs.label()),
                denominator_value: med(b),
                denominator_samples: b.to_vec(),
                bound: Bound::AtMost(most),
                terms: Terms::AlikeFp,
                numerator_conditions: conditions(ours, mine),
                denominator_conditions: conditions(rbloom, theirs),
                ..Ratio::default()
            }
            .recomputed(),
        );
    }
    Ok(out)
}

/// rbloom's hash of a `str` key: Python's own `hash()` (SipHash-1-3 on CPython 3.11+).
pub const RBLOOM_HASH: &str = "Python hash() (SipHash-1-3)";

/// `check`'s part: the goals recomputed from the records and the page re-rendered; problems
/// in words.
#[must_use]
pub fn check_report(r: &PythonReport) -> Vec<String> {
    let mut p = Vec::new();
    if let Outcome::Measured(m) = &r.outcome {
        if let Err(e) = m.timing.validate(&super::main_rows()) {
            p.push(format!("python.json: {e:#}"));
        }
        if m.timing.sample != r.settings.sample || m.timing.n != r.settings.n {
            p.push(format!(
                "python.json: the timing ran {} keys and the sample {:?}, the settings say {} and {:?}",
                m.timing.n, m.timing.sample, r.settings.n, r.settings.sample
            ));
        }
        p.extend(peak_problems(m));
        match recomputed(m) {
            Ok(again) => {
                let rows = (again.as_slice(), m.goals.as_slice());
                let labels = ("goals", "the records");
                p.extend(crate::record::differ(
                    "python",
                    labels,
                    rows,
                    PartialEq::eq,
                    |g| (format!("{:?}", g.id), format!("{:?}", g.verdict)),
                ));
            }
            Err(e) => p.push(format!("python.json: {e:#}")),
        }
    }
    p
}

/// Every contender's peak once, each on the sample's keys.
fn peak_problems(m: &Measured) -> Vec<String> {
    let keys = m.timing.sample.map(|s| s.keys);
    let mut p = Vec::new();
    for id in ContenderId::ALL {
        let rows: Vec<_> = m.peaks.iter().filter(|r| r.id == id).collect();
        match rows.as_slice() {
            [r] if Some(r.n) == keys => {}
            [r] => p.push(format!(
                "python.json: the peak of {id:?} was taken at {} keys, not the sample's {keys:?}",
                r.n
            )),
            _ => p.push(format!("python.json: {} peaks of {id:?}", rows.len())),
        }
    }
    p
}
