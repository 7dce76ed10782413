//! The directives that quote the course study: its settings, a section, an erratum, one number.
//! Rendered by the same functions as `course.md`, from the same `course.json`.

use super::directive::Field;
use crate::record::pct;
use crate::render::course::{erratum_body, num, section_body};
use crate::stages::course::model::{CourseDoc, Row};

/// Where the book finds the course's plots, relative to a chapter.
pub const FIGURES: &str = "figures/";

/// The study's settings: what every measured table in the book comes from.
#[must_use]
pub fn study(doc: &CourseDoc) -> String {
    let s = &doc.settings;
    format!(
        "Measured by the course study (`cargo run --release -p bench-harness -- study course`) \
         at commit `{}` on {}, in {:.0} s: n = {} keys per filter, {} independent repetitions \
         per measurement (a fresh hash seed each), {} non-member probes per row, verdicts at a \
         {:.0}% family-wise error rate (Holm).",
        s.commit,
        s.date,
        s.seconds,
        s.n,
        s.reps,
        s.probes,
        s.alpha * 100.0
    )
}

fn titles(doc: &CourseDoc) -> String {
    let all: Vec<&str> = doc
        .sections
        .iter()
        .map(|s| s.title.as_str())
        .chain(doc.errata.iter().map(|e| e.title.as_str()))
        .collect();
    all.join("; ")
}

/// A section: its table, finding and plots, and the commit (the chapter gives the source and
/// computes its own worked examples).
///
/// # Errors
/// No section has that title.
pub fn section(doc: &CourseDoc, title: &str) -> Result<String, String> {
    let s = doc
        .sections
        .iter()
        .find(|s| s.title == title)
        .ok_or_else(|| {
            format!(
                "no course section titled {title:?} (titles: {})",
                titles(doc)
            )
        })?;
    let mut out = String::new();
    section_body(s, FIGURES, &mut out);
    out.push_str(&format!(
        "*From `reports/course/course.json`, commit `{}`.*\n",
        doc.settings.commit
    ));
    Ok(out)
}

/// An erratum: the mistake, its runs, table and outcomes, and the commit.
///
/// # Errors
/// No erratum has that title.
pub fn erratum(doc: &CourseDoc, title: &str) -> Result<String, String> {
    let e = doc
        .errata
        .iter()
        .find(|e| e.title == title)
        .ok_or_else(|| format!("no erratum titled {title:?} (titles: {})", titles(doc)))?;
    let mut out = String::new();
    erratum_body(e, &mut out);
    out.push_str(&format!(
        "*From `reports/course/course.json`, commit `{}`.*\n",
        doc.settings.commit
    ));
    Ok(out)
}

fn rows<'a>(doc: &'a CourseDoc, title: &str) -> Result<&'a [Row], String> {
    doc.sections
        .iter()
        .find(|s| s.title == title)
        .map(|s| s.rows.as_slice())
        .or_else(|| {
            doc.errata
                .iter()
                .find(|e| e.title == title)
                .map(|e| e.rows.as_slice())
        })
        .ok_or_else(|| format!("no course section or erratum titled {title:?}"))
}

/// One number of one row, as the course's tables print it.
///
/// # Errors
/// No such section or row, or a field the row does not have.
pub fn value(doc: &CourseDoc, title: &str, row: &str, field: Field) -> Result<String, String> {
    let rows = rows(doc, title)?;
    let r = rows.iter().find(|r| r.label == row).ok_or_else(|| {
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        format!("{title:?} has no row {row:?} (rows: {})", labels.join("; "))
    })?;
    let m = r.pooled();
    let judged = || {
        r.judged
            .ok_or_else(|| format!("row {row:?} has no verdict"))
    };
    Ok(match field {
        Field::Formula => pct(r
            .formula
            .ok_or_else(|| format!("row {row:?} has no formula"))?),
        Field::Measured => pct(m.rate),
        Field::Low => pct(m.lo),
        Field::High => pct(m.hi),
        Field::Hits => m.hits.to_string(),
        Field::Trials => m.trials.to_string(),
        Field::Z => num(judged()?.z, 2),
        Field::Verdict => judged()?.text(r.claim).to_string(),
    })
}
