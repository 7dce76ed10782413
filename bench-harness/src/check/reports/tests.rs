//! Fixtures every report checker must reject: a flipped verdict, a changed value, a stale
//! commit, for each kind of file; and a Markdown file that nothing renders.

use super::*;
use crate::measure::Spread;
use crate::record::Machine;
use crate::stages::threads::{Contender, Op, Row, Settings, ThreadsReport};

const COMMIT: &str = "abc1234";

fn machine() -> Machine {
    Machine {
        commit: COMMIT.into(),
        cpu: "test cpu".into(),
        cores: 2,
        ..Machine::default()
    }
}

fn results() -> Results {
    Results {
        machine: machine(),
        ..Results::default()
    }
}

fn row(contender: Contender, threads: usize, op: Op, ns: &[f64]) -> Row {
    Row {
        contender,
        threads,
        op,
        ns: Spread::of(&mut ns.to_vec()),
    }
}

fn threads_report() -> ThreadsReport {
    let rows = vec![
        row(Contender::Classic, 1, Op::Insert, &[100.0, 104.0, 98.0]),
        row(Contender::Classic, 2, Op::Insert, &[52.0, 55.0, 50.0]),
        row(Contender::Fastbloom, 1, Op::Insert, &[110.0, 112.0, 108.0]),
        row(Contender::Fastbloom, 2, Op::Insert, &[60.0, 61.0, 58.0]),
    ];
    ThreadsReport {
        machine: machine(),
        settings: Settings {
            n: 1000,
            fpr: 0.01,
            rounds: 3,
            queries: 100,
        },
        targets: crate::judge::threads::targets(&rows),
        rows,
        sizes: Vec::new(),
    }
}

fn systems_report() -> crate::stages::systems::SystemsResults {
    let unique = crate::stages::systems::unique::run(3000, 1000, 3, &[100]).unwrap();
    let claims = crate::judge::systems::claims(
        &[],
        &unique,
        &crate::stages::systems::lag::LagOutcome::default(),
        None,
    );
    crate::stages::systems::SystemsResults {
        machine: machine(),
        settings: crate::stages::systems::Settings::default(),
        python_lookup_ns: None,
        rows: 0,
        signup: Vec::new(),
        postgres_absent: Some("no server in the test".into()),
        lag: crate::stages::systems::lag::LagOutcome::default(),
        service: crate::stages::systems::service::ServiceOutcome::NotMeasured {
            why: "no server in the test".into(),
        },
        unique,
        rolling: crate::stages::systems::rolling::run(3_000, 1_000, 3).unwrap(),
        claims,
        timing: crate::stages::systems::steps::Timing::default(),
    }
}

/// A temporary reports directory, removed when dropped (also when its test fails).
struct Dir(PathBuf);

impl std::ops::Deref for Dir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Dir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh directory holding README.md, threads and systems reports, all consistent.
fn dir(name: &str) -> Dir {
    let d = std::env::temp_dir().join(format!("filterlab-reports-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("README.md"), "# report\n").unwrap();
    crate::render::threads::write(&threads_report(), &d).unwrap();
    crate::render::systems::write(&systems_report(), &d).unwrap();
    crate::render::window::write(&crate::render::window::tests::report(), &d).unwrap();
    Dir(d)
}

fn problems(d: &Path) -> Vec<String> {
    check_dir(d, &results(), None).problems
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn consistent_reports_pass() {
    let d = dir("pass");
    assert_eq!(problems(&d), Vec::<String>::new());
}

#[test]
fn a_flipped_verdict_in_threads_md_or_json_is_rejected() {
    let d = dir("threads-verdict");
    edit(&d.join("threads.md"), "| met ", "| not met ");
    assert!(problems(&d)
        .iter()
        .any(|p| p.contains("threads.md differs")));
    let d = dir("threads-verdict-json");
    let mut r = threads_report();
    r.targets[0].verdict = crate::record::verdict::Verdict::NotMet;
    crate::render::threads::write(&r, &d).unwrap();
    assert!(
        problems(&d).iter().any(|p| p
            .contains("threads: threads.json: targets differ from the rows (")
            && p.contains("stored NotMet, the rows give Met")),
        "{:?}",
        problems(&d)
    );
}

#[test]
fn a_changed_value_in_threads_json_is_rejected() {
    let d = dir("threads-value");
    let mut r = threads_report();
    r.rows[1].ns = Spread::of(&mut [90.0, 95.0, 92.0]);
    std::fs::write(
        d.join("threads.json"),
        serde_json::to_string_pretty(&r).unwrap() + "\n",
    )
    .unwrap();
    let p = problems(&d);
    assert!(p.iter().any(|p| p.contains("targets differ")), "{p:?}");
    assert!(p.iter().any(|p| p.contains("threads.md differs")), "{p:?}");
}

#[test]
fn a_stale_commit_is_rejected_for_threads_and_systems() {
    let d = dir("stale");
    let mut t = threads_report();
    t.machine.commit = "0ld0ld0".into();
    crate::render::threads::write(&t, &d).unwrap();
    let mut s = systems_report();
    s.machine.commit = "0ld0ld0".into();
    crate::render::systems::write(&s, &d).unwrap();
    let p = problems(&d);
    for md in ["threads.md", "systems.md"] {
        assert!(
            p.iter()
                .any(|x| x.contains(&format!("{md} comes from commit \"0ld0ld0\""))),
            "{md}: {p:?}"
        );
    }
}

#[test]
fn a_flipped_verdict_in_systems_md_is_rejected() {
    let d = dir("systems-verdict");
    let md = std::fs::read_to_string(d.join("systems.md")).unwrap();
    let flipped = md.replace("| not met |", "| met |");
    assert_ne!(flipped, md, "the fixture has a claim not met");
    std::fs::write(d.join("systems.md"), flipped).unwrap();
    assert!(problems(&d)
        .iter()
        .any(|p| p.contains("systems.md differs")));
}

#[test]
fn a_changed_value_or_verdict_in_systems_json_is_rejected() {
    let d = dir("systems-value");
    let mut s = systems_report();
    s.unique.filter_to_hashset *= 50.0;
    std::fs::write(
        d.join("systems.json"),
        serde_json::to_string_pretty(&s).unwrap() + "\n",
    )
    .unwrap();
    let p = problems(&d);
    assert!(p.iter().any(|x| x.contains("claim")), "{p:?}");
    let d = dir("systems-json-verdict");
    let mut s = systems_report();
    let c = s
        .claims
        .iter_mut()
        .find(|c| c.verdict == crate::record::verdict::Verdict::NotMeasured)
        .unwrap();
    c.verdict = crate::record::verdict::Verdict::Met;
    crate::render::systems::write(&s, &d).unwrap();
    let p = problems(&d);
    assert!(
        p.iter().any(|x| x
            .contains("systems: systems.json: claims differ from the measurements (claim ")
            && x.ends_with("(Met), the measurements give None (NotMeasured))")),
        "{p:?}"
    );
}

#[test]
fn markdown_that_no_json_renders_is_rejected() {
    let d = dir("orphan");
    std::fs::create_dir_all(d.join("large")).unwrap();
    std::fs::write(d.join("large/README.md"), "# old\n").unwrap();
    assert!(problems(&d)
        .iter()
        .any(|p| p.contains("large/README.md: no JSON renders it")));
    // A threads.md whose JSON is gone is not checked by anything, so it is rejected too.
    let d = dir("orphan-threads");
    std::fs::remove_file(d.join("threads.json")).unwrap();
    assert!(problems(&d)
        .iter()
        .any(|p| p.contains("threads.md: no JSON renders it")));
    let d = dir("broken-json");
    std::fs::write(d.join("systems.json"), "{").unwrap();
    assert!(problems(&d)
        .iter()
        .any(|p| p.contains("parsing systems.json")));
}

#[test]
fn a_course_without_its_json_or_with_an_edited_page_is_rejected() {
    // A course page whose JSON is missing is reported by the course's own check.
    let d = dir("course-no-json");
    std::fs::create_dir_all(d.join("course")).unwrap();
    std::fs::write(d.join("course/course.md"), "# The course\n").unwrap();
    let p = problems(&d);
    assert!(
        p.iter()
            .any(|x| x.starts_with("course: ") && x.contains("course.json")),
        "{p:?}"
    );
}

#[test]
fn a_window_report_with_a_flipped_verdict_or_an_edited_count_is_rejected() {
    let d = dir("window-md");
    edit(&d.join("window.md"), "| ≤ 0 | met |", "| ≤ 0 | not met |");
    let p = problems(&d);
    assert!(p.iter().any(|p| p.contains("window.md differs")), "{p:?}");
    let d = dir("window-json");
    edit(
        &d.join("window.json"),
        "\"false_negatives\": 0",
        "\"false_negatives\": 2",
    );
    let p = problems(&d);
    assert!(p.iter().any(|p| p.contains("guarantees differ")), "{p:?}");
    let d = dir("window-commit");
    edit(&d.join("window.json"), "abc1234", "def5678");
    let p = problems(&d);
    assert!(p.iter().any(|p| p.contains("not the same run")), "{p:?}");
}

#[test]
fn a_changed_or_dropped_claim_in_systems_json_is_rejected() {
    let mut flipped = systems_report();
    let text = flipped.claims[0].text.clone();
    flipped.claims[0].measured = Some(-1.0);
    let p = Section::problems(&flipped, &Results::default());
    assert!(
        p.iter()
            .any(|p| p.contains("claims differ") && p.contains(&text)),
        "{p:?}"
    );
    let mut dropped = systems_report();
    let n = dropped.claims.len();
    dropped.claims.pop();
    let p = Section::problems(&dropped, &Results::default());
    let counts = format!("{} claims stored, the measurements give {n}", n - 1);
    assert!(p.iter().any(|p| p.contains(&counts)), "{p:?}");
    assert_eq!(
        Section::problems(&systems_report(), &Results::default()),
        Vec::<String>::new()
    );
}
