//! Checking a written course: `course.json` parses, every verdict recomputes to what it
//! records, every repetition has its own seed, `course.md` is exactly what the JSON renders to,
//! and every plot it links exists.

use super::markdown;
use super::model::{judge_doc, CourseDoc};
use super::stats::ALPHA;
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
mod tests {
    use super::super::markdown::tests::fixture;
    use super::super::model::{Outcome, Verdict};
    use super::*;

    fn ok() -> (CourseDoc, String) {
        let doc = fixture();
        let md = markdown::course(&doc);
        (doc, md)
    }

    #[test]
    fn a_consistent_course_passes() {
        let (doc, md) = ok();
        assert_eq!(check_doc(&doc, &md), Vec::<String>::new());
    }

    #[test]
    fn a_flipped_verdict_in_the_json_fails() {
        let (mut doc, md) = ok();
        if let Some(j) = doc.sections[0].rows[1].judged.as_mut() {
            j.verdict = Verdict::Holds;
        }
        let p = check_doc(&doc, &md);
        assert!(p.iter().any(|p| p.contains("row \"k = 1\"")), "{p:?}");
    }

    #[test]
    fn a_flipped_verdict_in_the_markdown_fails() {
        let (doc, md) = ok();
        let md = md.replacen("| overestimates |", "| holds |", 1);
        let p = check_doc(&doc, &md);
        assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");
    }

    #[test]
    fn a_changed_value_fails() {
        let (mut doc, md) = ok();
        doc.sections[0].rows[0].reps[0].hits += 40;
        let p = check_doc(&doc, &md);
        assert!(p.iter().any(|p| p.contains("row \"k = 7\"")), "{p:?}");
        assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");
    }

    #[test]
    fn a_flipped_comparison_and_a_shared_seed_fail() {
        let (mut doc, md) = ok();
        doc.errata[0].pairs[0].outcome = Outcome::Worse;
        doc.errata[0].rows[0].reps[1].seed = doc.errata[0].rows[0].reps[0].seed;
        let p = check_doc(&doc, &md);
        assert!(
            p.iter().any(|p| p.contains("comparison of rows 1 and 0")),
            "{p:?}"
        );
        assert!(p.iter().any(|p| p.contains("share a seed")), "{p:?}");
    }

    #[test]
    fn missing_or_broken_files_are_reported() {
        let dir =
            std::env::temp_dir().join(format!("filterlab-course-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(check(&dir, None).len(), 2);
        std::fs::write(dir.join("course.json"), "{").unwrap();
        std::fs::write(dir.join("course.md"), "").unwrap();
        assert!(check(&dir, None)[0].contains("does not parse"));
        let (doc, md) = ok();
        std::fs::write(
            dir.join("course.json"),
            serde_json::to_string(&doc).unwrap(),
        )
        .unwrap();
        std::fs::write(dir.join("course.md"), md).unwrap();
        let p = check(&dir, Some("abc1234"));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("fp_vs_bits.svg, which is missing"), "{p:?}");
        std::fs::write(dir.join("fp_vs_bits.svg"), "<svg/>").unwrap();
        assert_eq!(check(&dir, Some("abc1234")), Vec::<String>::new());
        let stale = check(&dir, Some("def5678"));
        assert!(
            stale.len() == 1 && stale[0].contains("a stale course"),
            "{stale:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
