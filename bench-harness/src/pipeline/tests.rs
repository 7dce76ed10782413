//! Unit tests of `pipeline.rs`.

use super::*;
use std::path::PathBuf;

fn plan() -> Plan {
    Plan {
        quick: false,
        large: false,
        study: None,
        keys: None,
        probes: None,
        out: PathBuf::from("reports"),
        rounds: 5,
        build_rounds: 5,
        builds: crate::measure::rounds::Policy::fixed(5),
        lookups: crate::measure::rounds::Policy::fixed(5),
        peer_lookups: crate::measure::rounds::Policy::fixed(9),
        peer_rounds: 9,
        queries: 1000,
        scenario_probes: 1000,
        python_queries: 1000,
        targets: vec![0.01],
    }
}

/// The names of the stages `plan` runs, in order.
fn stage_names(plan: &Plan, stages: &[&dyn Stage]) -> Vec<&'static str> {
    stages
        .iter()
        .filter(|s| s.wanted(plan))
        .map(|s| s.name())
        .collect()
}

/// A run of `plan` over `members` (probed as themselves), one round of one query, no results yet.
fn one_round<'a>(plan: &'a Plan, members: &'a crate::dataset::KeySet) -> Run<'a> {
    Run {
        plan,
        ctx: crate::plan::Ctx {
            members,
            probes: members,
            rounds: 1,
            seed: 1,
            queries: 1,
            scenario_probes: 1,
        },
        n: members.len(),
        results: crate::record::Results::default(),
        started: std::time::Instant::now(),
        outputs: Vec::new(),
    }
}

#[test]
fn the_main_job_runs_no_study_a_quick_run_every_one_and_a_study_only_itself() {
    let main = stage_names(&plan(), &stages(&plan()));
    assert_eq!(main.len(), MAIN.len());
    for study in Study::ALL {
        let name = studies::stage(study).name();
        assert!(!main.contains(&name), "the main job runs {name}");
    }
    let quick = Plan {
        quick: true,
        ..plan()
    };
    let all = stage_names(&quick, &stages(&quick));
    assert_eq!(all.len(), MAIN.len() + Study::ALL.len());
    assert_eq!(all[all.len() - 2..], ["false negatives", "reports"]);
    let sweep = Plan {
        study: Some(Study::Sweep),
        ..plan()
    };
    assert_eq!(
        stage_names(&sweep, &stages(&sweep)),
        ["size sweep", "the index of studies and the goals"]
    );
    assert!(plan().is_committed_run());
    assert!(sweep.is_committed_run());
    assert!(!quick.is_committed_run());
    assert!(!Plan {
        keys: Some("k".into()),
        ..plan()
    }
    .is_committed_run());
    assert!(!Plan {
        large: true,
        ..sweep
    }
    .is_committed_run());
}

#[test]
fn sweep_sizes_are_powers_of_ten_and_the_top() {
    use crate::stages::sweep::sizes;
    assert_eq!(sizes(200_000), [10_000, 100_000, 200_000]);
    assert_eq!(sizes(10_000_000), [10_000, 100_000, 1_000_000, 10_000_000]);
    assert_eq!(sizes(500), [500]);
}

/// Issue 16, defect 5: 12 keys failed after seconds of measuring ("churn needs 13
/// members"); now the run stops before the first stage, naming the stage and the counts.
#[test]
fn too_few_members_stop_the_run_before_any_stage() {
    let keys = |n: usize| -> crate::dataset::KeySet { (0..n).map(|i| format!("k{i}")).collect() };
    let p = plan();
    for (n, ok) in [(12, false), (13, true), (20, true)] {
        let members = keys(n);
        let run = one_round(&p, &members);
        match crate::plan::check_members(&run, MAIN) {
            Ok(()) => assert!(ok, "{n} members passed"),
            Err(e) => {
                assert!(!ok, "{n} members: {e}");
                let e = e.to_string();
                assert!(
                    e.contains("deletion churn") && e.contains("13 members"),
                    "{e}"
                );
            }
        }
    }
}

#[test]
fn a_false_negative_stops_the_run() {
    let members: crate::dataset::KeySet = ["a", "b"].into_iter().collect();
    let p = plan();
    let mut run = one_round(&p, &members);
    NoFalseNegatives.run(&mut run).unwrap();
    run.results.records.push(crate::record::Record {
        false_negatives: 1,
        ..Default::default()
    });
    assert!(NoFalseNegatives.run(&mut run).is_err());
}
