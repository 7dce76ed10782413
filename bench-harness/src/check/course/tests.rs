//! Unit tests of `stages/course/check.rs`.

use super::*;
use crate::record::Verdict;
use crate::render::course::tests::fixture;
use crate::stages::course::model::Outcome;

fn ok() -> (CourseDoc, String) {
    let doc = fixture();
    let md = markdown::course(&doc);
    (doc, md)
}

/// The fixture with one figure of the prose (issue 37, item 17): a classic filter's bits per
/// key at 0.1%, as the library allocates them, in its worked example.
fn with_figure() -> CourseDoc {
    use crate::stages::course::figures::{Figures, Formula, Shown};
    let mut doc = fixture();
    let mut fig = Figures::default();
    let bits = Formula::ClassicBitsPerKey {
        n: 10_000_000,
        p: 0.001,
    };
    let text = fig.add(bits, Shown::Decimals(2)).unwrap();
    doc.sections[0].example = format!("at 0.1%: {text} bits per key.");
    doc.sections[0].figures = fig.into_vec();
    doc
}

#[test]
fn a_figure_of_the_prose_that_math_gives_passes() {
    let doc = with_figure();
    let md = markdown::course(&doc);
    assert_eq!(check_doc(&doc, &md), Vec::<String>::new());
}

/// The case: 14.35 bits per key from the rounded 1.44 (1.44 log2(1000)), where the
/// library allocates 14.38. Recorded so, it fails twice: the value and the prose.
#[test]
fn a_figure_from_a_rounded_constant_fails() {
    let mut doc = with_figure();
    let rounded = 1.44 * 1000f64.log2();
    doc.sections[0].figures[0].value = rounded;
    doc.sections[0].example = format!("at 0.1%: {rounded:.2} bits per key.");
    let md = markdown::course(&doc);
    let p = check_doc(&doc, &md);
    assert!(
        p.iter().any(|p| p.contains("is recorded as 14.35")),
        "{p:?}"
    );
    assert!(p.iter().any(|p| p.contains("does not show 14.38")), "{p:?}");
}

/// A prose number edited alone (the figure still right) fails; a longer number that only
/// contains the figure's digits does not count as showing it.
#[test]
fn a_prose_number_that_disagrees_with_its_figure_fails() {
    for example in [
        "at 0.1%: 14.35 bits per key.",
        "at 0.1%: 14.381 bits per key.",
    ] {
        let mut doc = with_figure();
        doc.sections[0].example = example.into();
        let md = markdown::course(&doc);
        let p = check_doc(&doc, &md);
        assert!(
            p.iter().any(|p| p.contains("does not show 14.38")),
            "{example}: {p:?}"
        );
    }
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
        j.verdict = if j.verdict == Verdict::Met {
            Verdict::NotMet
        } else {
            Verdict::Met
        };
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
    let dir = std::env::temp_dir().join(format!("filterlab-course-check-{}", std::process::id()));
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
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].contains("fp_vs_bits.svg, which is missing"), "{p:?}");
    assert!(p[1].contains("hash64.svg, which is missing"), "{p:?}");
    std::fs::write(dir.join("fp_vs_bits.svg"), "<svg/>").unwrap();
    std::fs::write(dir.join("hash64.svg"), "<svg/>").unwrap();
    assert_eq!(check(&dir, Some("abc1234")), Vec::<String>::new());
    let stale = check(&dir, Some("def5678"));
    assert!(
        stale.len() == 1 && stale[0].contains("a stale course"),
        "{stale:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The course's JSON with the 64-bit-hash study changed by `tamper`: the problems `check_doc`
/// finds against the Markdown the untouched course renders to.
fn tampered(tamper: impl FnOnce(&mut serde_json::Value)) -> Vec<String> {
    let (doc, md) = ok();
    let mut json = serde_json::to_value(&doc).unwrap();
    tamper(&mut json["hash64"]);
    let doc: CourseDoc = serde_json::from_value(json).unwrap();
    check_doc(&doc, &md)
}

#[test]
fn a_tampered_64_bit_hash_study_fails() {
    assert_eq!(tampered(|_| {}), Vec::<String>::new());
    // More false positives for xxh3-64 at 10^9: the interval no longer recomputes, nor the text.
    let p = tampered(|h| h["runs"][1]["narrow"]["hits"] = 150_000.into());
    assert!(
        p.iter()
            .any(|p| p.contains("64-bit hash at n = 1000000000: recorded")),
        "{p:?}"
    );
    assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");
    // A verdict flipped to met where the run cannot tell.
    let p = tampered(|h| h["runs"][0]["judged"]["equal"] = "met".into());
    assert!(
        p.iter()
            .any(|p| p.contains("64-bit hash at n = 10000000: recorded")),
        "{p:?}"
    );
    // A filter the builder would not size so, a wider margin, impossible counts.
    let p = tampered(|h| h["runs"][1]["blocks"] = 1000.into());
    assert!(p.iter().any(|p| p.contains("not the builder's")), "{p:?}");
    let p = tampered(|h| h["margin"] = 0.5.into());
    assert!(p.iter().any(|p| p.contains("margin 0.5 recorded")), "{p:?}");
    let p = tampered(|h| h["runs"][1]["wide"]["hits"] = 20_000_000.into());
    assert!(p.iter().any(|p| p.contains("impossible counts")), "{p:?}");
}

#[test]
fn a_course_written_before_the_study_still_parses_and_checks() {
    let (mut doc, _) = ok();
    doc.hash64 = None;
    let md = markdown::course(&doc);
    let mut json = serde_json::to_value(&doc).unwrap();
    assert!(json.get("hash64").is_none());
    json.as_object_mut().unwrap().remove("hash64");
    let back: CourseDoc = serde_json::from_value(json).unwrap();
    assert_eq!(check_doc(&back, &md), Vec::<String>::new());
}
