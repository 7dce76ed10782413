//! The course as Markdown, rendered from a [`CourseDoc`] alone (so `check` can re-render it):
//! one section per formula or topic, then the errata. Only formatting: every number and verdict
//! comes from the document.

use super::model::{CourseDoc, Erratum, Outcome, Row, Section, Verdict};
use super::stats::ALPHA;
use std::fmt::Write;

/// A rate for a table: a percentage, or scientific below 0.001%.
pub fn rate(p: f64) -> String {
    if p.is_nan() {
        "–".into()
    } else if p == 0.0 {
        "0".into()
    } else if p >= 1e-5 {
        format!("{:.4}%", p * 100.0)
    } else {
        format!("{p:.3e}")
    }
}

fn num(x: f64, digits: usize) -> String {
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
    if rows.is_empty() {
        return;
    }
    out.push_str("| case | formula | measured | 95% interval | hits / trials | reps | z | p (Holm) | verdict |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in rows {
        let m = r.pooled();
        let (z, p, v) = r.judged.map_or(("–".into(), "–".into(), "–"), |j| {
            (num(j.z, 2), p_value(j.p_holm), j.verdict.text())
        });
        let claim = match r.claim {
            super::model::Claim::Upper => " (upper bound)",
            super::model::Claim::Lower => " (lower bound)",
            _ => "",
        };
        let _ = writeln!(
            out,
            "| {} | {}{claim} | {} | {} – {} | {} / {} | {} | {z} | {p} | {v} |",
            r.label,
            r.formula.map_or("–".into(), rate),
            rate(m.rate),
            rate(m.lo),
            rate(m.hi),
            m.hits,
            m.trials,
            r.reps.len(),
        );
    }
}

/// "a of b formulas hold" over a table, and the rows rejected, computed from the verdicts.
pub fn tally(rows: &[Row]) -> String {
    let judged: Vec<&Row> = rows.iter().filter(|r| r.judged.is_some()).collect();
    if judged.is_empty() {
        return String::new();
    }
    let rejected: Vec<String> = judged
        .iter()
        .filter(|r| {
            !matches!(
                r.verdict(),
                Some(Verdict::Holds | Verdict::BoundKept | Verdict::NotComputable)
            )
        })
        .map(|r| format!("{} ({})", r.label, r.verdict().map_or("", Verdict::text)))
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
    for line in &s.derivation {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "\nSource: {}\n", s.source);
    let _ = writeln!(out, "Worked example: {}\n", s.example);
    table(&s.rows, out);
    let t = tally(&s.rows);
    let _ = writeln!(out, "\n{}\n", [s.finding.as_str(), &t].join(" ").trim());
    for p in &s.plots {
        let _ = writeln!(out, "![{}]({p}.svg)\n", s.title);
    }
}

fn outcome(e: &Erratum, p: &super::model::Pair) -> String {
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
    let _ = writeln!(out, "### {}\n\nThe mistake: {}\n", e.title, e.mistake);
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
        "Generated by `cargo run --release -p bench-harness` (the `course` stage) at commit {} in {:.0} s; \
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
    out.push_str("## Errata: common mistakes, each shown by a run\n\n");
    for e in &doc.errata {
        erratum(e, &mut out);
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::model::{judge_doc, Pair, Settings};
    use super::super::stats::Count;
    use super::*;

    fn reps(hits: u64, trials: u64) -> Vec<Count> {
        (0..4).map(|seed| Count { seed, hits, trials }).collect()
    }

    pub(crate) fn fixture() -> CourseDoc {
        let s = Section {
            title: "Classic".into(),
            derivation: vec!["p = (1 - e^(-kn/m))^k".into()],
            source: "Bloom 1970".into(),
            example: "m = 95850584".into(),
            rows: vec![
                Row::new("k = 7", 0.01, reps(250, 25_000)),
                Row::new("k = 1", 0.5, reps(250, 25_000)),
                Row::measured("no formula", reps(0, 10)),
            ],
            finding: "Measured at n = 1000.".into(),
            plots: vec!["fp_vs_bits".into()],
        };
        let e = Erratum {
            title: "k truncated".into(),
            mistake: "int(k)".into(),
            run: vec!["n = 1000".into()],
            rows: vec![
                Row::new("k = 7", 0.01, reps(100, 10_000)),
                Row::new("k = 6", 0.0101, reps(101, 10_000)),
            ],
            pairs: vec![Pair::new(1, 0)],
            finding: String::new(),
        };
        let mut doc = CourseDoc {
            settings: Settings {
                n: 1000,
                probes: 100_000,
                reps: 4,
                small_filters: 10,
                hash_bits: 14,
                alpha: ALPHA,
                commit: "abc1234".into(),
                seconds: 1.0,
            },
            sections: vec![s],
            errata: vec![e],
        };
        judge_doc(&mut doc);
        doc
    }

    #[test]
    fn sections_show_formula_measurement_interval_z_and_verdict() {
        let md = course(&fixture());
        assert!(md.contains("## 1. Classic"), "{md}");
        assert!(
            md.contains("| k = 7 | 1.0000% | 1.0000% |")
                && md.contains("| 1000 / 100000 | 4 | 0.00 | 1.0000 | holds |"),
            "{md}"
        );
        // 50% against a measured 1%: the formula overestimates, and the tally names it.
        assert!(md.contains("| k = 1 | 50.0000% | 1.0000% |"), "{md}");
        assert!(
            md.contains("1 of 2 rejected: k = 1 (overestimates)"),
            "{md}"
        );
        assert!(md.contains("| no formula | – | 0 |"), "{md}");
        assert!(md.contains("![Classic](fp_vs_bits.svg)"), "{md}");
        assert!(md.contains("at commit abc1234"), "{md}");
        assert!(
            md.contains("### k truncated")
                && md.contains("- n = 1000")
                && md.contains("k = 6 against k = 7: 1.010x")
                && md.contains("no significant difference"),
            "{md}"
        );
    }

    #[test]
    fn rates_are_readable_at_every_scale() {
        assert_eq!(rate(0.01), "1.0000%");
        assert_eq!(rate(2e-7), "2.000e-7");
        assert_eq!(rate(0.0), "0");
        assert_eq!(num(f64::INFINITY, 2), "+∞");
    }
}
