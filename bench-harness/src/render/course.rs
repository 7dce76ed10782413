//! The course as Markdown, rendered from a [`CourseDoc`] alone (so `check` can re-render it),
//! and the course's files (`course.json`, `course.md`, the plots):
//! one section per formula or topic, then the errata. Only formatting: every number and verdict
//! comes from the document.

use crate::judge::course::judge_course;
use crate::plan::Output;
use crate::record::pct;
use crate::record::Verdict;
use crate::stages::course::model::{CourseDoc, Erratum, Outcome, Row, Section};
use crate::stages::course::stats::ALPHA;
use crate::stages::course::CourseReport;
use anyhow::{Context, Result};
use filterlab_charts::render_line;
use std::fmt::Write;
use std::path::Path;

pub mod hash64;

pub(crate) fn num(x: f64, digits: usize) -> String {
    if x.is_finite() {
        format!("{x:.digits$}")
    } else if x.is_nan() {
        "–".into()
    } else if x > 0.0 {
        "+∞".into()
    } else {
        "−∞".into()
    }
}

fn p_value(p: f64) -> String {
    if p.is_nan() {
        "–".into()
    } else if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn table(rows: &[Row], out: &mut String) {
    use super::table::{Align, Table};
    if rows.is_empty() {
        return;
    }
    let mut t = Table::new(&[
        ("case", Align::Left),
        ("formula", Align::Right),
        ("measured", Align::Right),
        ("95% interval", Align::Right),
        ("hits / trials", Align::Right),
        ("reps", Align::Right),
        ("z", Align::Right),
        ("p (Holm)", Align::Right),
        ("verdict", Align::Left),
    ]);
    for r in rows {
        let m = r.pooled();
        let (z, p, v) = r.judged.map_or(("–".into(), "–".into(), "–"), |j| {
            (num(j.z, 2), p_value(j.p_holm), j.text(r.claim))
        });
        let claim = match r.claim {
            crate::stages::course::model::Claim::Upper => " (upper bound)",
            crate::stages::course::model::Claim::Lower => " (lower bound)",
            _ => "",
        };
        t.row([
            r.label.clone(),
            format!("{}{claim}", r.formula.map_or("–".into(), pct)),
            pct(m.rate),
            format!("{} – {}", pct(m.lo), pct(m.hi)),
            format!("{} / {}", m.hits, m.trials),
            r.reps.len().to_string(),
            z,
            p,
            v.to_string(),
        ]);
    }
    out.push_str(&t.render());
}

/// "a of b formulas hold" over a table, and the rows rejected, computed from the verdicts.
pub fn tally(rows: &[Row]) -> String {
    let judged: Vec<&Row> = rows.iter().filter(|r| r.judged.is_some()).collect();
    if judged.is_empty() {
        return String::new();
    }
    let rejected: Vec<String> = judged
        .iter()
        .filter(|r| !matches!(r.verdict(), Some(Verdict::Met | Verdict::NotMeasured)))
        .map(|r| format!("{} ({})", r.label, r.verdict_text()))
        .collect();
    let family = format!(
        "Verdicts at a {:.0}% family-wise error rate over the {} judged rows (Holm)",
        ALPHA * 100.0,
        judged.len()
    );
    if rejected.is_empty() {
        format!("{family}: no formula rejected.")
    } else {
        format!(
            "{family}: {} of {} rejected: {}.",
            rejected.len(),
            judged.len(),
            rejected.join("; ")
        )
    }
}

fn section(i: usize, s: &Section, out: &mut String) {
    let _ = writeln!(out, "## {}. {}\n", i + 1, s.title);
    let _ = writeln!(out, "Source: {}\n", s.source);
    let _ = writeln!(out, "Worked example: {}\n", s.example);
    section_body(s, "", out);
}

/// A section's table, finding and plots (linked under `figures`, a path prefix): what course.md
/// shows under each title's source and example, and the book (whose chapters carry the sources
/// and compute their own examples) under its derivations.
pub(crate) fn section_body(s: &Section, figures: &str, out: &mut String) {
    table(&s.rows, out);
    let t = tally(&s.rows);
    let _ = writeln!(out, "\n{}\n", [s.finding.as_str(), &t].join(" ").trim());
    for p in &s.plots {
        let _ = writeln!(out, "![{}]({figures}{p}.svg)\n", s.title);
    }
}

fn outcome(e: &Erratum, p: &crate::stages::course::model::Pair) -> String {
    let label = |i: usize| e.rows.get(i).map_or("?", |r| r.label.as_str());
    let (w, r) = (
        e.rows.get(p.wrong).map(Row::pooled),
        e.rows.get(p.right).map(Row::pooled),
    );
    let ratio = match (w, r) {
        (Some(w), Some(r)) if r.rate > 0.0 => format!("{:.3}x", w.rate / r.rate),
        _ => "–".into(),
    };
    let what = match p.outcome {
        Outcome::Worse => "the mistake is significantly worse",
        Outcome::Lower => "the mistake measured significantly lower",
        Outcome::NoDifference => "no significant difference",
        Outcome::NotComputable => "not computable",
    };
    format!(
        "{} against {}: {ratio}, z = {}, p (Holm over all errata) = {}: {what}.",
        label(p.wrong),
        label(p.right),
        num(p.z, 2),
        p_value(p.p_holm)
    )
}

fn erratum(e: &Erratum, out: &mut String) {
    let _ = writeln!(out, "### {}\n", e.title);
    erratum_body(e, out);
}

/// An erratum under its heading: the mistake, the runs, the table and the outcomes.
pub(crate) fn erratum_body(e: &Erratum, out: &mut String) {
    let _ = writeln!(out, "The mistake: {}\n", e.mistake);
    for line in &e.run {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    table(&e.rows, out);
    out.push('\n');
    for p in &e.pairs {
        let _ = writeln!(out, "{}\n", outcome(e, p));
    }
    let t = tally(&e.rows);
    let text = [e.finding.as_str(), &t].join(" ");
    if !text.trim().is_empty() {
        let _ = writeln!(out, "{}\n", text.trim());
    }
}

fn header(doc: &CourseDoc) -> String {
    let s = &doc.settings;
    format!(
        "The course study's record: each formula's derivation, in LaTeX with its source, and the exercises are \
         in the course book (`book/`, built by `just book`), whose chapters show these tables and plots. \
         Measured by the course study (`cargo run --release -p bench-harness -- study course`) at commit {} in {:.0} s; \
         do not edit: `course.json` beside this file holds every count, setting and verdict, and `check` \
         re-renders this file from it and recomputes every verdict. Runs at n = {} keys per filter; every \
         measurement is {} independent repetitions, each with a fresh hash seed (a fresh fill and fresh \
         probes), {} non-member probes in all (synthetic e-mails, fixed seeds). A verdict tests the formula \
         with z = (measured - formula) / se, se the larger of the binomial error and the spread between \
         repetitions, and corrects every table for multiple testing (Holm, {:.0}% family-wise): \"holds\" \
         means the run cannot tell the formula from the measurement, not that they are equal. Intervals \
         are 95% Wilson intervals over the pooled probes (section \"Reading a Wilson interval\" says what \
         they cover). Worked examples are computed by `filter_core::math` (`filterlab calc --n 10M --fpr 1%` \
         prints the same sizes). In every figure a variant keeps one colour; dashed lines are formulas, \
         markers are measurements.",
        s.commit,
        s.seconds,
        s.n,
        s.reps,
        s.probes,
        s.alpha * 100.0
    )
}

/// The whole course.
pub fn course(doc: &CourseDoc) -> String {
    let mut out = String::from("# The formula course\n\n");
    out.push_str(&header(doc));
    out.push_str("\n\n");
    for (i, s) in doc.sections.iter().enumerate() {
        section(i, s, &mut out);
    }
    match &doc.hash64 {
        Some(study) => hash64::section(doc.sections.len() + 1, study, &mut out),
        None => out.push_str(
            "What a 64-bit hash costs the split-block filter at 10^9 and 10^10 keys is a study of \
             its own: [hashing.md](../hashing.md) (`just study hashing`).\n\n",
        ),
    }
    out.push_str("## Errata: common mistakes, each shown by a run\n\n");
    for e in &doc.errata {
        erratum(e, &mut out);
    }
    out
}

/// Writes `course.json`, `course.md` (rendered from it) and the plots of `r` into `dir`.
///
/// # Errors
/// A file or plot that cannot be written.
pub fn write(r: &CourseReport, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for p in &r.plots {
        render_line(&p.chart, &dir.join(&p.stem))?;
    }
    if let Some(study) = &r.doc.hash64 {
        render_line(&hash64::chart(study), &dir.join(hash64::STEM))?;
    }
    let json = serde_json::to_string_pretty(&r.doc)?;
    std::fs::write(dir.join("course.json"), json)
        .with_context(|| format!("writing {}/course.json", dir.display()))?;
    std::fs::write(dir.join("course.md"), course(&r.doc))
        .with_context(|| format!("writing {}/course.md", dir.display()))?;
    Ok(())
}

impl Output for CourseReport {
    fn judge(&mut self) {
        judge_course(&mut self.doc);
    }

    /// Into `<out>/course/`.
    fn write(&self, out: &Path) -> Result<()> {
        write(self, &out.join("course"))
    }
}

#[cfg(test)]
pub(crate) mod tests;
