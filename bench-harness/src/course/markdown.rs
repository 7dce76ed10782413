//! The course as Markdown: one section per formula, then the errata. Only formatting: every
//! number and verdict comes from the run.

use super::probe::{Measured, Verdict};
use std::fmt::Write;

/// A formula beside its measurement.
#[derive(Clone, Debug)]
pub struct Row {
    /// What was measured.
    pub label: String,
    /// The formula's value (`None` where the row only shows a measurement).
    pub formula: Option<f64>,
    /// The measurement.
    pub measured: Measured,
    /// Whether `formula` is an estimate or an upper bound.
    pub bound: bool,
}

impl Row {
    /// A row with a formula.
    pub fn new(label: impl Into<String>, formula: f64, measured: Measured) -> Self {
        Row {
            label: label.into(),
            formula: Some(formula),
            measured,
            bound: false,
        }
    }

    /// A row whose formula is an upper bound.
    pub fn bound(label: impl Into<String>, bound: f64, measured: Measured) -> Self {
        Row {
            label: label.into(),
            formula: Some(bound),
            measured,
            bound: true,
        }
    }

    /// A row with a measurement only.
    pub fn measured(label: impl Into<String>, measured: Measured) -> Self {
        Row {
            label: label.into(),
            formula: None,
            measured,
            bound: false,
        }
    }

    /// The formula against the measurement.
    pub fn verdict(&self) -> Option<Verdict> {
        self.formula.map(|f| {
            if self.bound {
                Verdict::of_bound(f, &self.measured)
            } else {
                Verdict::of(f, &self.measured, 0.0)
            }
        })
    }
}

/// "k of n estimates inside the interval" and the rows outside it, for a finding.
pub fn tally(rows: &[Row]) -> String {
    let estimates: Vec<&Row> = rows
        .iter()
        .filter(|r| r.formula.is_some() && !r.bound)
        .collect();
    let misses: Vec<String> = estimates
        .iter()
        .filter_map(|r| {
            r.verdict()
                .filter(|&v| v != Verdict::Holds)
                .map(|v| format!("{} ({})", r.label, v.text().split(' ').next().unwrap_or("")))
        })
        .collect();
    let inside = estimates.len() - misses.len();
    if misses.is_empty() {
        format!(
            "The formula lies inside the measured 95% interval in all {} rows.",
            estimates.len()
        )
    } else {
        format!(
            "The formula lies inside the measured 95% interval in {inside} of {} rows; outside: {}. \
             (At 95%, about one honest row in twenty falls outside by chance.)",
            estimates.len(),
            misses.join("; ")
        )
    }
}

/// One formula of the course.
#[derive(Clone, Debug)]
pub struct Section {
    /// Heading.
    pub title: String,
    /// A few lines of derivation.
    pub derivation: Vec<String>,
    /// The paper.
    pub source: String,
    /// The worked example at 10M keys and 1%, numbers computed.
    pub example: String,
    /// Formula beside measurement.
    pub rows: Vec<Row>,
    /// What the run shows, computed from it.
    pub finding: String,
    /// Plot file stems (`fp_vs_bits` gives `fp_vs_bits.svg`).
    pub plots: Vec<String>,
}

/// One common mistake, shown by a run.
#[derive(Clone, Debug)]
pub struct Erratum {
    /// Heading.
    pub title: String,
    /// The mistake and where it is made.
    pub mistake: String,
    /// What was run (sizes, seeds), and arithmetic where the run is a scaled-down stand-in.
    pub run: Vec<String>,
    /// Right and wrong, measured.
    pub rows: Vec<Row>,
    /// What the run shows, computed from it.
    pub finding: String,
}

/// A rate for a table: a percentage, or scientific below 0.001%.
pub fn rate(p: f64) -> String {
    if p == 0.0 {
        "0".into()
    } else if p >= 1e-5 {
        format!("{:.4}%", p * 100.0)
    } else {
        format!("{p:.3e}")
    }
}

fn table(rows: &[Row], out: &mut String) {
    out.push_str("| case | formula | measured | 95% interval | hits / trials | verdict |\n");
    out.push_str("|---|---:|---:|---:|---:|---|\n");
    for r in rows {
        let m = &r.measured;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} – {} | {} / {} | {} |",
            r.label,
            r.formula.map_or("–".into(), rate),
            rate(m.rate),
            rate(m.lo),
            rate(m.hi),
            m.hits,
            m.trials,
            r.verdict().map_or("–", Verdict::text)
        );
    }
}

/// The whole course.
pub fn course(header: &str, sections: &[Section], errata: &[Erratum]) -> String {
    let mut out = String::from("# The formula course\n\n");
    out.push_str(header.trim_end());
    out.push_str("\n\n");
    for (i, s) in sections.iter().enumerate() {
        let _ = writeln!(out, "## {}. {}\n", i + 1, s.title);
        for line in &s.derivation {
            let _ = writeln!(out, "    {line}");
        }
        let _ = writeln!(out, "\nSource: {}\n", s.source);
        let _ = writeln!(out, "Worked example, 10M keys at 1%: {}\n", s.example);
        table(&s.rows, &mut out);
        let _ = writeln!(out, "\n{}\n", s.finding);
        for p in &s.plots {
            let _ = writeln!(out, "![{}]({p}.svg)\n", s.title);
        }
    }
    out.push_str("## Errata: common mistakes, each shown by a run\n\n");
    for e in errata {
        let _ = writeln!(out, "### {}\n\nThe mistake: {}\n", e.title, e.mistake);
        for line in &e.run {
            let _ = writeln!(out, "- {line}");
        }
        out.push('\n');
        table(&e.rows, &mut out);
        let _ = writeln!(out, "\n{}\n", e.finding);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (Vec<Section>, Vec<Erratum>) {
        let s = Section {
            title: "Classic".into(),
            derivation: vec!["p = (1 - e^(-kn/m))^k".into()],
            source: "Bloom 1970".into(),
            example: "m = 95850584".into(),
            rows: vec![
                Row::new("k = 7", 0.01, Measured::new(1000, 100_000)),
                Row::new("k = 1", 0.5, Measured::new(1000, 100_000)),
                Row::measured("no formula", Measured::new(0, 10)),
            ],
            finding: "the formula holds".into(),
            plots: vec!["fp_vs_bits".into()],
        };
        let e = Erratum {
            title: "k truncated".into(),
            mistake: "int(k)".into(),
            run: vec!["n = 1000".into()],
            rows: vec![Row::new("k = 6", 0.0101, Measured::new(101, 10_000))],
            finding: "no detectable difference".into(),
        };
        (vec![s], vec![e])
    }

    #[test]
    fn sections_show_formula_measurement_interval_and_verdict() {
        let (s, e) = fixture();
        let md = course("Run at n = 1000.", &s, &e);
        assert!(md.contains("## 1. Classic"), "{md}");
        assert!(md.contains("| k = 7 | 1.0000% | 1.0000% |"), "{md}");
        assert!(md.contains("holds (inside"), "{md}");
        // 50% against a measured 1%: the formula overestimates, and the table says so.
        assert!(
            md.contains("| k = 1 | 50.0000% | 1.0000% |") && md.contains("overestimates"),
            "{md}"
        );
        assert!(md.contains("| no formula | – | 0 |"), "{md}");
        assert!(md.contains("![Classic](fp_vs_bits.svg)"), "{md}");
        assert!(
            md.contains("### k truncated") && md.contains("- n = 1000"),
            "{md}"
        );
    }

    #[test]
    fn tally_names_the_rows_outside_and_ignores_bounds() {
        let (s, _) = fixture();
        let t = tally(&s[0].rows);
        assert!(
            t.contains("1 of 2 rows") && t.contains("k = 1 (overestimates)"),
            "{t}"
        );
        let kept = vec![Row::bound("bound", 0.5, Measured::new(1, 100))];
        assert!(tally(&kept).contains("all 0 rows"));
        assert_eq!(kept[0].verdict(), Some(Verdict::BoundKept));
    }

    #[test]
    fn rates_are_readable_at_every_scale() {
        assert_eq!(rate(0.01), "1.0000%");
        assert_eq!(rate(2e-7), "2.000e-7");
        assert_eq!(rate(0.0), "0");
    }
}
