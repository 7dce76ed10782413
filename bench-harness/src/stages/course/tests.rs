//! Unit tests of `stages/course/mod.rs`.

use super::*;
use crate::check::course::{check, check_doc};
use crate::dataset::{generate, DatasetSpec};
use crate::plan::Output as _;
use crate::record::Verdict;
use crate::render::course as markdown;
use model::judge_doc;
use std::path::Path;

/// One section of the course, as `run_all` calls it.
pub(super) type Step = fn(&Lab<'_>) -> Result<(model::Section, Vec<Plot>)>;

/// A section of [`one_section`]'s: its one plot is `stem`, and every row has its 4 repetitions
/// and is met.
pub(super) fn check_one_plot_all_met(rows: &[model::Row], plots: &[Plot], stem: &str) {
    assert_eq!(plots.len(), 1);
    assert_eq!(plots[0].stem, stem);
    for r in rows {
        assert_eq!(r.reps.len(), 4, "{}", r.label);
        assert_eq!(
            r.verdict(),
            Some(Verdict::Met),
            "{}: {:?}",
            r.label,
            r.judged
        );
    }
}

/// `step` run on 4,000 keys and 40,000 probes of the dataset seeded `seed` in 4 repetitions,
/// judged, as a course of its own.
pub(super) fn one_section(step: Step, seed: u64) -> (CourseDoc, Vec<Plot>) {
    let ds = generate(&DatasetSpec {
        members: 4000,
        non_members: 40_000,
        seed,
    });
    let scale = Scale {
        n: 4000,
        probes: 40_000,
        reps: 4,
        ..Scale::QUICK
    };
    let lab = Lab::new(scale, &ds.members, &ds.non_members);
    let (section, plots) = step(&lab).unwrap();
    let mut doc = CourseDoc {
        settings: Settings {
            n: lab.n,
            probes: lab.probes.len(),
            reps: lab.reps,
            small_filters: 0,
            hash_bits: 0,
            alpha: stats::ALPHA,
            commit: "test".into(),
            date: String::new(),
            seconds: 0.0,
        },
        sections: vec![section],
        errata: vec![],
        hash64: None,
    };
    judge_doc(&mut doc);
    (doc, plots)
}

/// Where [`check_rejects_tampering`] tampers with a one-section course.
pub(super) struct Tamper {
    /// Row and repetition whose hit count grows.
    pub count: (usize, usize),
    /// Row whose verdict flips to not met.
    pub verdict: usize,
}

/// `check_doc` passes the rendered one-section `doc`, whose Markdown carries `title` and links
/// `<stem>.svg`, and names the row when one repetition's hit count grows by 200 or one
/// verdict flips to not met (the Markdown then no longer matches either).
pub(super) fn check_rejects_tampering(doc: &CourseDoc, title: &str, stem: &str, at: Tamper) {
    let md = markdown::course(doc);
    assert_eq!(check_doc(doc, &md), Vec::<String>::new());
    assert!(md.contains(title), "{title} missing");
    assert!(md.contains(&format!("{stem}.svg")), "{stem}.svg missing");
    let rows = &doc.sections[0].rows;

    let (row, rep) = at.count;
    let mut tampered = doc.clone();
    tampered.sections[0].rows[row].reps[rep].hits += 200;
    let p = check_doc(&tampered, &md);
    assert!(p.iter().any(|p| p.contains(&rows[row].label)), "{p:?}");
    assert!(p.iter().any(|p| p.contains("course.md differs")), "{p:?}");

    let mut flipped = doc.clone();
    let judged = flipped.sections[0].rows[at.verdict].judged.as_mut();
    judged.expect("the flipped row is judged").verdict = Verdict::NotMet;
    let p = check_doc(&flipped, &md);
    assert!(
        p.iter().any(|p| p.contains(&rows[at.verdict].label)),
        "{p:?}"
    );
}

/// Runs the course, judges it and writes it into `dir`, as the stage and the pipeline do.
fn write(dir: &Path, members: &KeySet, probes: &KeySet, scale: Scale, commit: &str) -> Result<()> {
    let mut report = run(members, probes, scale, (commit, "2026-12-03 00:00:00 UTC"))?;
    report.judge();
    crate::render::course::write(&report, dir)
}

/// Every plot the course writes.
const STEMS: [&str; 14] = [
    "fp_vs_bits",
    "fp_vs_k",
    "exact_small_m",
    "split_block",
    "cuckoo_fingerprint",
    "cuckoo_load",
    "cuckoo_residual",
    "scalable",
    "counting_overflow",
    "window_fp_stream",
    "quotient_fp_load",
    "expandable_growth",
    "aleph_growth",
    "hash64",
];

#[test]
fn a_tiny_course_writes_every_section_plot_and_erratum_and_checks_clean() {
    let ds = generate(&DatasetSpec {
        members: 4000,
        non_members: 20_000,
        seed: 7,
    });
    let scale = Scale {
        n: 2000,
        probes: 20_000,
        small_filters: 20,
        small_probes: 100,
        hash_bits: 14,
        reps: 4,
        hash64: Some(hash64::Hash64Scale {
            sizes: [2000, 20_000],
            slice: 4,
            probes: 4000,
        }),
    };
    let dir = std::env::temp_dir().join(format!("filterlab-course-test-{}", std::process::id()));
    write(&dir, &ds.members, &ds.non_members, scale, "abc1234").unwrap();
    let md = std::fs::read_to_string(dir.join("course.md")).unwrap();
    for title in [
        "## 7. Counting",
        "k positions from one hash",
        "Estimating n from the fill ratio",
        "Union and intersection",
        "Cuckoo insertion failure",
        "Semi-sorting",
        "space crossover",
        "Deleting keys that were never inserted",
        "memory growth",
        "Static filters",
        "Repeated queries",
        "Adversarial keys",
        "Reading a Wilson interval",
        "### k truncated",
        "### Two equal hash seeds",
        "### 32-bit hashes",
        "## 23. Aleph filter: one table that grows in place",
        "## 24. Vector quotient filter: load, overflow bits and rate",
        "## 25. A 64-bit hash",
    ] {
        assert!(md.contains(title), "{title} missing");
    }
    for stem in STEMS {
        assert!(
            dir.join(format!("{stem}.svg")).exists(),
            "{stem}.svg missing"
        );
    }
    // Every plot the text links exists, and every plot written is linked.
    let linked: Vec<&str> = md
        .split("](")
        .skip(1)
        .filter_map(|t| t.split(')').next())
        .collect();
    assert_eq!(linked.len(), STEMS.len(), "{linked:?}");
    // The JSON re-renders to the Markdown and every verdict recomputes.
    assert_eq!(check(&dir, Some("abc1234")), Vec::<String>::new());
    let doc: CourseDoc =
        serde_json::from_str(&std::fs::read_to_string(dir.join("course.json")).unwrap()).unwrap();
    // The counting row is its own measurement, not the classic one again.
    let rows = &doc.sections[0].rows;
    assert!(rows[0].label.starts_with("classic") && rows[1].label.starts_with("counting"));
    assert_ne!(rows[0].reps, rows[1].reps);
    // Every judged row rests on the repetitions, each with its own seed.
    let judged = doc
        .sections
        .iter()
        .flat_map(|s| &s.rows)
        .filter(|r| r.judged.is_some());
    assert!(judged.clone().count() > 40);
    assert!(judged.clone().all(|r| r.reps.len() == 4));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn too_few_keys_is_an_error() {
    let ds = generate(&DatasetSpec {
        members: 100,
        non_members: 100,
        seed: 7,
    });
    assert!(write(
        Path::new("/nonexistent/never"),
        &ds.members,
        &ds.non_members,
        Scale::QUICK,
        "none"
    )
    .is_err());
}

/// Issue 37, item 17: section 15 gave r = 0.9's up-front cost as log2(10) = 3.3 bits per key
/// (a Bloom filter pays log2(10) / ln 2 for it), and 14.35 and 11.01 bits per key from the
/// rounded 1.44 where the library allocates more; section 13 wrote "about 0.35%" beside its
/// own worked 0.3655%. The prose now shows the library's numbers, and passes the check.
#[test]
fn the_course_prose_shows_the_librarys_numbers() {
    use filterlab::math;
    let bits = |p: f64| math::classic_shape(10_000_000, p).unwrap().0 as f64 / 1e7;
    let (doc, _) = one_section(space::scalable_memory, 7);
    let s = &doc.sections[0];
    let text = s.example.clone();
    let first = bits(math::scalable_initial_fpr(0.01, 0.9));
    let up_front = first - bits(0.01);
    assert!((up_front - 10f64.log2() / std::f64::consts::LN_2).abs() < 0.01);
    for want in [up_front, first, bits(math::scalable_initial_fpr(0.01, 0.5))] {
        assert!(text.contains(&format!("{want:.2}")), "{want:.2}: {text}");
    }
    assert!(!text.contains("3.3 bits"), "{text}");
    assert_eq!(
        check_doc(&doc, &markdown::course(&doc)),
        Vec::<String>::new()
    );
    let (doc, _) = one_section(space::crossover, 7);
    let s = &doc.sections[0];
    let x = (3.0 / 0.95) / (std::f64::consts::LOG2_E - 1.0 / 0.95);
    let worked = crate::record::pct((-x).exp2());
    assert!(s.example.contains(&worked), "{worked}: {s:?}");
    assert_eq!(
        check_doc(&doc, &markdown::course(&doc)),
        Vec::<String>::new()
    );
}
