//! The `python-peers` study on fixtures (no Python run): its goals, its page, its check.

use crate::record::python::peers::{self, promise_row, PeersMeasured, PythonPeersReport};
use crate::record::python::{
    study_rows, ContenderId, Outcome, Sample, Scale, Settings, Timing, STUDY,
};
use crate::record::study::Study;
use crate::record::{Machine, Results, Verdict};
use crate::stages::python::tests::{looped, row};
use std::path::{Path, PathBuf};

/// The study at 10M keys and 1M probes, 3 rounds, every promise kept.
fn timing() -> Timing {
    Timing {
        python: "3.11.7".into(),
        versions: [("pybloom_live".to_string(), "4.0.0".to_string())].into(),
        n: 10_000_000,
        queries: 1_000_000,
        sample: None,
        loops: vec![looped(Scale::Full, STUDY.to_vec(), 3)],
        contenders: STUDY
            .iter()
            .map(|&id| {
                let mut r = row(id, Scale::Full, 10_000.0, 9_950);
                // `row` gives a row of the main job's once loop one round: these ran three.
                for xs in [&mut r.ns_negative, &mut r.ns_positive] {
                    let x = xs[0];
                    *xs = vec![x, x * 1.01, x * 0.99];
                }
                r.build_seconds = Some(vec![0.2, 0.21, 0.19]);
                if let Some(xs) = &mut r.build_seconds_batched {
                    *xs = vec![0.4, 0.41, 0.39];
                }
                for xs in [&mut r.ns_negative_batched, &mut r.ns_positive_batched]
                    .into_iter()
                    .flatten()
                {
                    *xs = vec![20.0, 21.0, 19.0];
                }
                r
            })
            .collect(),
    }
}

fn report() -> PythonPeersReport {
    let timing = timing();
    timing.validate(&study_rows()).unwrap();
    let goals = peers::goals(&timing).unwrap();
    PythonPeersReport {
        machine: Machine {
            commit: "abc1234".into(),
            wall_seconds: 1800.0,
            ..Machine::default()
        },
        settings: Settings {
            n: 10_000_000,
            queries: 1_000_000,
            sample: None,
            members_file: "target/python-keys/python-peers-members.txt".into(),
            probes_file: "target/python-keys/python-peers-probes.txt".into(),
        },
        outcome: Outcome::Measured(Box::new(PeersMeasured { timing, goals })),
    }
}

fn measured(r: &mut PythonPeersReport) -> &mut PeersMeasured {
    let Outcome::Measured(m) = &mut r.outcome else {
        panic!("fixture is measured")
    };
    m
}

#[test]
fn each_slow_contender_has_its_promise_judged_at_full_size() {
    let r = report();
    let goals = r.goals();
    assert_eq!(goals.len(), 4, "the four slow contenders, not ClassicBloom");
    for g in &goals {
        assert_eq!(g.verdict, Verdict::Met, "{g:?}");
        assert!(g.what.contains("at 10000000 keys"), "{}", g.what);
        assert!(g.same_conditions, "{}", g.differences);
    }
    // 1.1% measured against a 1% promise over 1M probes: far above 4 sigmas.
    let mut high = row(ContenderId::BloomFilter2, Scale::Full, 1.0, 11_000);
    assert_eq!(promise_row(&high).verdict, Verdict::NotMet);
    // 1.0390%: the Wilson interval straddles the band's top (1% + 4 sigmas = 1.0398%).
    high.false_positives = 10_390;
    assert_eq!(promise_row(&high).verdict, Verdict::Undecided);
}

#[test]
fn check_rejects_a_stored_verdict_a_sampled_row_and_a_goal_at_another_size() {
    assert!(peers::check_report(&report()).is_empty());
    let mut r = report();
    measured(&mut r).goals[1].verdict = Verdict::NotMet;
    let p = peers::check_report(&r);
    assert!(p.iter().any(|m| m.contains("goals")), "{p:?}");
    // A slow contender's row taken on the main job's sample: not what the study measures.
    let mut r = report();
    let bf2 = measured(&mut r)
        .timing
        .contenders
        .iter_mut()
        .find(|c| c.id == ContenderId::BloomFilter2)
        .unwrap();
    (bf2.n, bf2.probes, bf2.positives) = (100_000, 50_000, 50_000);
    let p = peers::check_report(&r);
    assert!(
        p.iter()
            .any(|m| m.contains("not its scale's 10000000 keys")),
        "{p:?}"
    );
    // A sample in a study that measures everything at full size.
    let mut r = report();
    measured(&mut r).timing.sample = Some(Sample {
        keys: 100_000,
        probes: 50_000,
    });
    assert!(!peers::check_report(&r).is_empty());
}

fn check(dir: &Path, commit: &str) -> crate::check::reports::Coverage {
    let results = Results {
        machine: Machine {
            commit: commit.into(),
            ..Machine::default()
        },
        ..Results::default()
    };
    crate::check::reports::check_dir(dir, &results, None)
}

#[test]
fn check_re_renders_the_page_and_goals_md_lists_its_goals() {
    let dir = std::env::temp_dir().join(format!("filterlab-python-peers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let r = report();
    crate::plan::Output::write(&r, &dir).unwrap();
    let md = std::fs::read_to_string(dir.join("python-peers.md")).unwrap();
    let first = md.lines().next().unwrap();
    assert!(
        first.starts_with("# python-peers at commit abc1234") && first.contains("10000000 keys"),
        "{first}"
    );
    assert_eq!(Study::from_name("python-peers"), Some(Study::PythonPeers));
    assert_eq!(Study::PythonPeers.json(), "python-peers.json");
    let ok = check(&dir, "abc1234");
    assert!(ok.problems.is_empty(), "{:?}", ok.problems);
    assert!(ok.covered.contains(&PathBuf::from("python-peers.md")));
    let found = crate::render::studies::read_studies(&dir).unwrap();
    assert_eq!(found.len(), 1);
    let page = crate::render::studies::goals_page(&Results::default(), &found, &Default::default());
    assert!(
        page.contains("bloom-filter2 BloomFilter keeps its FP promise"),
        "{page}"
    );
    // An edited page, and a goal rewritten to compare its rate with one taken at another size.
    std::fs::write(
        dir.join("python-peers.md"),
        md.replacen("| met |", "| not met |", 1),
    )
    .unwrap();
    let p = check(&dir, "abc1234").problems;
    assert!(
        p.iter().any(|m| m.contains("python-peers.md differs")),
        "{p:?}"
    );
    let mut r = report();
    let g = &mut measured(&mut r).goals[0];
    g.denominator_conditions.keys = Some(100_000);
    *g = g.recomputed();
    crate::plan::Output::write(&r, &dir).unwrap();
    let p = check(&dir, "abc1234").problems;
    assert!(
        p.iter()
            .any(|m| m.contains("compares a figure taken at 10000000 keys")),
        "{p:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
