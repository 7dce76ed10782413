//! Checking a written course: `course.json` parses, every verdict recomputes to what it
//! records, every repetition has its own seed, `course.md` is exactly what the JSON renders to,
//! and every plot it links exists.

use crate::render::course as markdown;
use crate::stages::course::model::{judge_doc, CourseDoc};
use crate::stages::course::stats::ALPHA;
use std::collections::HashSet;
use std::path::Path;

/// Relative tolerance for recomputed statistics (they recompute bit for bit; this only absorbs
/// a JSON writer that prints fewer digits).
const TOLERANCE: f64 = 1e-9;

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= TOLERANCE * a.abs().max(b.abs())
}

/// Problems with the course written to `dir` (`course.json`, `course.md`, the plots); empty if
/// none. Reads nothing but those files. With `commit`, the course must also record that commit
/// (the one results.json records for the same run), so a course left from an older run fails.
pub fn check(dir: &Path, commit: Option<&str>) -> Vec<String> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|e| format!("course: cannot read {}: {e}", dir.join(name).display()))
    };
    let (json, md) = match (read("course.json"), read("course.md")) {
        (Ok(j), Ok(m)) => (j, m),
        (j, m) => return [j.err(), m.err()].into_iter().flatten().collect(),
    };
    let doc: CourseDoc = match serde_json::from_str(&json) {
        Ok(d) => d,
        Err(e) => return vec![format!("course: course.json does not parse: {e}")],
    };
    let mut problems = check_doc(&doc, &md);
    if let Some(c) = commit.filter(|&c| c != doc.settings.commit) {
        problems.push(format!(
            "course: course.json records commit {:?}, the run's results record {c:?} (a stale course)",
            doc.settings.commit
        ));
    }
    for s in &doc.sections {
        for p in &s.plots {
            if !dir.join(format!("{p}.svg")).exists() {
                problems.push(format!(
                    "course: section {:?} links {p}.svg, which is missing",
                    s.title
                ));
            }
        }
    }
    problems
}

/// Problems with a parsed course against its Markdown: verdicts, seeds, settings, rendering.
pub fn check_doc(doc: &CourseDoc, md: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if doc.settings.alpha != ALPHA {
        problems.push(format!(
            "course: settings.alpha is {}, the verdicts are judged at {ALPHA}",
            doc.settings.alpha
        ));
    }
    let mut rejudged = doc.clone();
    judge_doc(&mut rejudged);
    let tables = doc
        .sections
        .iter()
        .map(|s| (&s.title, &s.rows))
        .chain(doc.errata.iter().map(|e| (&e.title, &e.rows)));
    let again = rejudged
        .sections
        .iter()
        .map(|s| &s.rows)
        .chain(rejudged.errata.iter().map(|e| &e.rows));
    for ((title, rows), fresh) in tables.zip(again) {
        for (r, f) in rows.iter().zip(fresh) {
            let same = match (r.judged, f.judged) {
                (None, None) => true,
                (Some(a), Some(b)) => {
                    a.verdict == b.verdict && close(a.z, b.z) && close(a.p_holm, b.p_holm)
                }
                _ => false,
            };
            if !same {
                problems.push(format!(
                    "course: {title:?}, row {:?}: recorded {:?}, recomputed {:?}",
                    r.label, r.judged, f.judged
                ));
            }
            let seeds: HashSet<u64> = r.reps.iter().map(|c| c.seed).collect();
            if seeds.len() != r.reps.len() {
                problems.push(format!(
                    "course: {title:?}, row {:?}: repetitions share a seed",
                    r.label
                ));
            }
            if r.judged.is_some() && r.reps.len() < 2 {
                problems.push(format!(
                    "course: {title:?}, row {:?}: a verdict on {} repetition(s)",
                    r.label,
                    r.reps.len()
                ));
            }
        }
    }
    let pairs = doc
        .errata
        .iter()
        .flat_map(|e| e.pairs.iter().map(move |p| (&e.title, p)));
    let fresh = rejudged.errata.iter().flat_map(|e| e.pairs.iter());
    for ((title, p), f) in pairs.zip(fresh) {
        if p.outcome != f.outcome || !close(p.z, f.z) || !close(p.p_holm, f.p_holm) {
            problems.push(format!(
                "course: erratum {title:?}: comparison of rows {} and {} recorded {:?}, recomputed {:?}",
                p.wrong, p.right, p.outcome, f.outcome
            ));
        }
    }
    let rendered = markdown::course(&rejudged);
    if rendered != md {
        let line = rendered
            .lines()
            .zip(md.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| rendered.lines().count().min(md.lines().count()));
        problems.push(format!(
            "course: course.md differs from what course.json renders to, from line {}",
            line + 1
        ));
    }
    problems
}

#[cfg(test)]
mod tests;
