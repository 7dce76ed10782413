//! What the course records: every row's repetitions, every setting and every verdict, written
//! to `course.json` beside `course.md`. The Markdown is rendered from this alone, and every
//! verdict in it can be recomputed from the counts ([`judge_doc`]), which is what
//! [`crate::check::course`] does.

use super::stats::{self, pooled, Count, Measured, ALPHA};
use crate::record::Verdict;
use serde::{Deserialize, Serialize};

/// Floats that may be NaN or infinite (a formula undefined at a point, a z over a zero error):
/// JSON has no such numbers, so they are written as the strings "NaN", "inf" and "-inf".
mod float {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Num(f64),
        Text(String),
    }

    fn to_repr(x: f64) -> Repr {
        if x.is_finite() {
            Repr::Num(x)
        } else if x.is_nan() {
            Repr::Text("NaN".into())
        } else if x > 0.0 {
            Repr::Text("inf".into())
        } else {
            Repr::Text("-inf".into())
        }
    }

    fn from_repr<E: serde::de::Error>(r: Repr) -> Result<f64, E> {
        match r {
            Repr::Num(x) => Ok(x),
            Repr::Text(t) => match t.as_str() {
                "NaN" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(E::custom(format!("not a number: {other:?}"))),
            },
        }
    }

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        from_repr(Repr::deserialize(d)?)
    }

    pub mod opt {
        use super::*;

        pub fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            x.map(to_repr).serialize(s)
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
            Option::<Repr>::deserialize(d)?.map(from_repr).transpose()
        }
    }
}

/// What a row's formula claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Claim {
    /// An estimate of the rate: judged two-sided.
    Estimate,
    /// An upper bound: broken only if the rate lies significantly above it.
    Upper,
    /// A lower bound: broken only if the rate lies significantly below it.
    Lower,
    /// No formula: the row shows a measurement only.
    None,
}

/// A verdict with the statistics it rests on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// The z of the measurement against the formula (positive: measured above).
    #[serde(with = "float")]
    pub z: f64,
    /// Holm-adjusted p-value over the row's table.
    #[serde(with = "float")]
    pub p_holm: f64,
    /// The verdict at [`ALPHA`]: met when the test does not reject the formula (or the bound),
    /// not met when it does, not measured when the numbers are not finite. The harness's one
    /// [`Verdict`]; which way a rejected estimate errs is the sign of `z` ([`Judged::text`]).
    pub verdict: Verdict,
}

impl Judged {
    /// Words for the report: `holds`, `underestimates`, `overestimates`, `bound kept`,
    /// `bound broken` or `not computable`, from the verdict, the claim and the sign of `z`.
    #[must_use]
    pub fn text(&self, claim: Claim) -> &'static str {
        match (self.verdict, claim) {
            (Verdict::Met, Claim::Estimate) => "holds",
            (Verdict::Met, _) => "bound kept",
            (Verdict::NotMet, Claim::Estimate) if self.z > 0.0 => "underestimates",
            (Verdict::NotMet, Claim::Estimate) => "overestimates",
            (Verdict::NotMet, _) => "bound broken",
            (Verdict::Undecided, _) => "undecided",
            (Verdict::NotMeasured, _) => "not computable",
        }
    }
}

/// A formula beside its repeated measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// What was measured.
    pub label: String,
    /// The formula's value, if the row has one.
    #[serde(with = "float::opt")]
    pub formula: Option<f64>,
    /// What the formula claims.
    pub claim: Claim,
    /// One count per independent repetition.
    pub reps: Vec<Count>,
    /// The verdict, filled in by [`judge_rows`].
    pub judged: Option<Judged>,
}

impl Row {
    fn with(
        label: impl Into<String>,
        formula: Option<f64>,
        claim: Claim,
        reps: Vec<Count>,
    ) -> Self {
        Row {
            label: label.into(),
            formula,
            claim,
            reps,
            judged: None,
        }
    }

    /// An estimate.
    pub fn new(label: impl Into<String>, formula: f64, reps: Vec<Count>) -> Self {
        Row::with(label, Some(formula), Claim::Estimate, reps)
    }

    /// An upper bound.
    pub fn upper(label: impl Into<String>, bound: f64, reps: Vec<Count>) -> Self {
        Row::with(label, Some(bound), Claim::Upper, reps)
    }

    /// A lower bound.
    pub fn lower(label: impl Into<String>, bound: f64, reps: Vec<Count>) -> Self {
        Row::with(label, Some(bound), Claim::Lower, reps)
    }

    /// A measurement only.
    pub fn measured(label: impl Into<String>, reps: Vec<Count>) -> Self {
        Row::with(label, None, Claim::None, reps)
    }

    /// The pooled measurement.
    pub fn pooled(&self) -> Measured {
        pooled(&self.reps)
    }

    /// The verdict, if judged.
    pub fn verdict(&self) -> Option<Verdict> {
        self.judged.map(|j| j.verdict)
    }

    /// The verdict in words ([`Judged::text`]), empty if not judged.
    pub fn verdict_text(&self) -> &'static str {
        self.judged.map_or("", |j| j.text(self.claim))
    }

    /// `(z, raw p)` of the row's claim, `None` without a formula.
    fn test(&self) -> Option<(f64, f64)> {
        let f = self.formula?;
        let z = stats::z_against(&self.reps, f);
        let p = match self.claim {
            Claim::Estimate => stats::p_two_sided(z),
            Claim::Upper => stats::p_upper(z),
            Claim::Lower => stats::p_upper(-z),
            Claim::None => return None,
        };
        Some((z, p))
    }
}

/// Judges every row of one table together (Holm over the rows with a formula).
pub fn judge_rows(rows: &mut [Row]) {
    let tests: Vec<Option<(f64, f64)>> = rows.iter().map(Row::test).collect();
    let raw: Vec<f64> = tests
        .iter()
        .map(|t| t.map_or(f64::NAN, |(_, p)| p))
        .collect();
    let adjusted = stats::holm(&raw);
    for ((row, test), p_holm) in rows.iter_mut().zip(tests).zip(adjusted) {
        row.judged = test.map(|(z, _)| {
            let rejected = p_holm < ALPHA;
            let verdict = match rejected {
                _ if z.is_nan() => Verdict::NotMeasured,
                false => Verdict::Met,
                true => Verdict::NotMet,
            };
            Judged { z, p_holm, verdict }
        });
    }
}

/// How a mistake compares with the right way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The mistake's rate is significantly higher.
    Worse,
    /// The mistake's rate is significantly lower.
    Lower,
    /// No significant difference.
    NoDifference,
    /// Counts missing.
    NotComputable,
}

/// The mistake's row against the right row of the same erratum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Index of the mistake's row.
    pub wrong: usize,
    /// Index of the right row.
    pub right: usize,
    /// The z of the difference (positive: the mistake measured higher).
    #[serde(with = "float")]
    pub z: f64,
    /// Holm-adjusted over every comparison of the errata.
    #[serde(with = "float")]
    pub p_holm: f64,
    /// The outcome at [`ALPHA`].
    pub outcome: Outcome,
}

impl Pair {
    /// Rows `wrong` and `right`, not yet judged.
    pub fn new(wrong: usize, right: usize) -> Self {
        Pair {
            wrong,
            right,
            z: f64::NAN,
            p_holm: f64::NAN,
            outcome: Outcome::NotComputable,
        }
    }
}

/// One formula or topic of the course.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// The papers.
    pub source: String,
    /// The worked example, numbers computed.
    pub example: String,
    /// Formula beside measurement.
    pub rows: Vec<Row>,
    /// What the run shows, computed from it.
    pub finding: String,
    /// Plot file stems (`fp_vs_bits` gives `fp_vs_bits.svg`).
    pub plots: Vec<String>,
    /// The numbers of the prose that come from a formula, with the formula: the check
    /// recomputes each and finds it in the prose (absent from courses written before them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<super::figures::Figure>,
}

/// One common mistake, shown by a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Erratum {
    /// Heading.
    pub title: String,
    /// The mistake, and what it should be expected to do.
    pub mistake: String,
    /// What was run.
    pub run: Vec<String>,
    /// Right and wrong, measured.
    pub rows: Vec<Row>,
    /// Which rows are compared.
    pub pairs: Vec<Pair>,
    /// What the run shows beyond the verdicts.
    pub finding: String,
}

/// The settings of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Keys per filter.
    pub n: usize,
    /// Non-member probes over all repetitions of a measurement.
    pub probes: usize,
    /// Independent repetitions per measurement.
    pub reps: usize,
    /// Independent small filters per point of the small-m section.
    pub small_filters: usize,
    /// Hash width of the 32-bit-hash stand-in.
    pub hash_bits: u32,
    /// Family-wise error rate of each table.
    pub alpha: f64,
    /// The commit the run was made from (as the harness records it).
    pub commit: String,
    /// When the run started (UTC, as the harness records it).
    #[serde(default)]
    pub date: String,
    /// Seconds the course took.
    pub seconds: f64,
}

/// The whole course.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CourseDoc {
    /// How it was run.
    pub settings: Settings,
    /// The formulas and topics.
    pub sections: Vec<Section>,
    /// The errata.
    pub errata: Vec<Erratum>,
    /// What a 64-bit hash costs at 10^9 and 10^10 keys (absent from courses written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash64: Option<super::hash64::Hash64Study>,
}

/// Judges every table and every erratum comparison of `doc`, in place.
pub fn judge_doc(doc: &mut CourseDoc) {
    for s in &mut doc.sections {
        judge_rows(&mut s.rows);
    }
    for e in &mut doc.errata {
        judge_rows(&mut e.rows);
    }
    // Every comparison of the errata is one family.
    let mut raw = Vec::new();
    for e in &mut doc.errata {
        for p in &mut e.pairs {
            let (w, r) = (e.rows.get(p.wrong), e.rows.get(p.right));
            p.z = match (w, r) {
                (Some(w), Some(r)) => stats::z_between(&w.reps, &r.reps),
                _ => f64::NAN,
            };
            raw.push(stats::p_two_sided(p.z));
        }
    }
    let adjusted = stats::holm(&raw);
    let mut it = adjusted.into_iter();
    for p in doc.errata.iter_mut().flat_map(|e| e.pairs.iter_mut()) {
        p.p_holm = it.next().unwrap_or(f64::NAN);
        p.outcome = if p.z.is_nan() {
            Outcome::NotComputable
        } else if p.p_holm >= ALPHA {
            Outcome::NoDifference
        } else if p.z > 0.0 {
            Outcome::Worse
        } else {
            Outcome::Lower
        };
    }
}

#[cfg(test)]
mod tests;
