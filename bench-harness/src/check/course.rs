//! Checking a written course: `course.json` parses, every verdict recomputes to what it
//! records, every repetition has its own seed, every figure of the prose recomputes from
//! `filter_core::math` and stands in the prose, `course.md` is exactly what the JSON renders
//! to, and every plot it links exists.

use crate::judge::course::judge_course;
use crate::render::course as markdown;
use crate::render::course::hash64;
use crate::stages::course::hash64::{blocks_for, Hash64Study, SliceJudged, FPR};
use crate::stages::course::model::CourseDoc;
use crate::stages::course::stats::ALPHA;
use std::collections::HashSet;
use std::path::Path;

/// Relative tolerance for recomputed statistics (they recompute bit for bit; this only absorbs
/// a JSON writer that prints fewer digits).
const TOLERANCE: f64 = 1e-9;

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= TOLERANCE * a.abs().max(b.abs())
}

/// The commit `dir/course.json` records (`Ok(None)`: no course there).
///
/// # Errors
/// The file cannot be read or parsed.
pub fn recorded_commit(dir: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(dir.join("course.json")) {
        Ok(text) => serde_json::from_str::<CourseDoc>(&text)
            .map(|d| Some(d.settings.commit))
            .map_err(|e| format!("course: course.json does not parse: {e}")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("course: cannot read course.json: {e}")),
    }
}

/// Problems with the book's chapters in `book_src` against the course in `dir`
/// ([`crate::book::check_book`]: every directive fills, every pinned number agrees, every section
/// and erratum has a chapter, every chapter has two exercises), and how many chapters it read.
pub fn book(dir: &Path, book_src: &Path) -> (Vec<String>, usize) {
    let doc: CourseDoc = match std::fs::read_to_string(dir.join("course.json"))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(d) => d,
        Err(e) => return (vec![format!("book: the course record: {e}")], 0),
    };
    let chapters = crate::book::chapters(book_src).map_or(0, |c| c.len());
    (crate::book::check_book(book_src, &doc), chapters)
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
    if doc.hash64.is_some() && !dir.join(format!("{}.svg", hash64::STEM)).exists() {
        problems.push(format!(
            "course: the 64-bit-hash section links {}.svg, which is missing",
            hash64::STEM
        ));
    }
    problems
}

/// The 64-bit-hash study's problems in a course that still carries one (the study is now its
/// own, `hashing.json`; an older course.json may hold it).
fn doc_hash64_problems(doc: &CourseDoc, rejudged: &CourseDoc) -> Vec<String> {
    match (&doc.hash64, &rejudged.hash64) {
        (Some(s), Some(fresh)) => hash64_problems(s, fresh),
        _ => Vec::new(),
    }
}

/// Problems with the 64-bit-hash study `s`: a filter or slice size the builder would not give,
/// impossible counts, or intervals and verdicts that do not recompute (`fresh`, judged again).
pub fn hash64_problems(s: &Hash64Study, fresh: &Hash64Study) -> Vec<String> {
    let mut problems = Vec::new();
    if s.margin != fresh.margin {
        problems.push(format!(
            "course: 64-bit hash: margin {} recorded, judged at {}",
            s.margin, fresh.margin
        ));
    }
    for (r, f) in s.runs.iter().zip(&fresh.runs) {
        let at = format!("course: 64-bit hash at n = {}", r.n);
        match blocks_for(r.n) {
            Ok(b) if b == r.blocks && r.slice_blocks == b / s.slice.max(1) => {}
            _ => problems.push(format!(
                "{at}: {} blocks and a slice of {} are not the builder's for {} at {} (slice 1/{})",
                r.blocks, r.slice_blocks, r.n, s.fpr, s.slice
            )),
        }
        if s.fpr != FPR {
            problems.push(format!(
                "{at}: target {} recorded, the study sizes for {FPR}",
                s.fpr
            ));
        }
        for c in [r.wide, r.narrow] {
            if c.hits > c.trials || c.members > r.n || c.trials > r.probed {
                problems.push(format!("{at}: impossible counts {c:?}"));
            }
        }
        if !same_judged(r.judged, f.judged) {
            problems.push(format!(
                "{at}: recorded {:?}, recomputed {:?}",
                r.judged, f.judged
            ));
        }
    }
    problems
}

/// Equal verdicts, and figures equal to [`TOLERANCE`].
fn same_judged(a: Option<SliceJudged>, b: Option<SliceJudged>) -> bool {
    let (Some(a), Some(b)) = (a, b) else {
        return a.is_none() && b.is_none();
    };
    let figures = |j: SliceJudged| {
        [
            j.formula,
            j.floor_lanes,
            j.floor_whole,
            j.wide.0,
            j.wide.1,
            j.narrow.0,
            j.narrow.1,
            j.difference.0,
            j.difference.1,
        ]
    };
    (a.wide_vs_formula, a.narrow_vs_formula, a.equal)
        == (b.wide_vs_formula, b.narrow_vs_formula, b.equal)
        && figures(a)
            .into_iter()
            .zip(figures(b))
            .all(|(x, y)| close(x, y))
}

/// Whether `prose` writes the number `text` on its own (not as part of a longer number).
fn shows(prose: &str, text: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit() || c == '.');
    prose.match_indices(text).any(|(i, _)| {
        let before = prose[..i].chars().next_back();
        let after = prose[i + text.len()..].chars().next();
        // A full stop after a number ends the sentence unless a digit follows it.
        let after_digit = after.is_some_and(|c| c.is_ascii_digit())
            || (after == Some('.')
                && prose[i + text.len() + 1..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit()));
        !part(before) && !after_digit
    })
}

/// Problems with the figures of the prose: a value that `filter_core::math` (or the library's
/// sizing) does not give for its formula, or a prose that does not show it as computed.
fn figure_problems(doc: &CourseDoc) -> Vec<String> {
    let mut problems = Vec::new();
    for s in &doc.sections {
        let prose = [s.example.clone(), s.finding.clone()].join("\n");
        for f in &s.figures {
            let fresh = match f.formula.value() {
                Ok(v) => v,
                Err(e) => {
                    problems.push(format!(
                        "course: {:?}: figure {:?}: {e}",
                        s.title, f.formula
                    ));
                    continue;
                }
            };
            if !close(f.value, fresh) {
                problems.push(format!(
                    "course: {:?}: figure {:?} is recorded as {}, filter_core::math gives {fresh}",
                    s.title, f.formula, f.value
                ));
            }
            let text = f.shown.text(fresh);
            if !shows(&prose, &text) {
                problems.push(format!(
                    "course: {:?}: the prose does not show {text} ({:?})",
                    s.title, f.formula
                ));
            }
        }
    }
    problems
}

/// Problems with a parsed course against its Markdown: verdicts, seeds, settings, figures,
/// rendering.
pub fn check_doc(doc: &CourseDoc, md: &str) -> Vec<String> {
    let mut problems = figure_problems(doc);
    if doc.settings.alpha != ALPHA {
        problems.push(format!(
            "course: settings.alpha is {}, the verdicts are judged at {ALPHA}",
            doc.settings.alpha
        ));
    }
    let mut rejudged = doc.clone();
    judge_course(&mut rejudged);
    problems.extend(doc_hash64_problems(doc, &rejudged));
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
