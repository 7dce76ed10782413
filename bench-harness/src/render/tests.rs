//! Report tests on a fixture `Results`: what the README says, and that it says nothing it
//! should not.

use super::*;
use crate::record::Ratio;
use crate::record::{PeerRecord, Side};
use std::collections::BTreeMap;

fn spread(m: f64) -> Spread {
    Spread {
        median: m,
        min: m - 2.0,
        max: m + 4.0,
        rounds: 5,
        samples: Vec::new(),
    }
}

fn rec(scenario: Scenario, variant: &str, target: f64) -> Record {
    let lookups: BTreeMap<String, Spread> = ["0", "25", "50", "75", "100"]
        .iter()
        .map(|k| (k.to_string(), spread(20.0)))
        .collect();
    Record {
        scenario,
        variant: variant.into(),
        n: 1000,
        capacity: 1000,
        target_fpr: target,
        params: "m=9586 k=7".into(),
        theoretical_fpr: target,
        empirical_fpr: target,
        fpr_ci_low: target * 0.9,
        fpr_ci_high: target * 1.1,
        theory_in_ci: true,
        probes: 100_000,
        false_positives: (target * 1e5) as u64,
        bytes: 1200,
        bits_per_key: 9.6,
        ns_per_insert: Some(spread(50.0)),
        ns_per_insert_batched: Some(spread(30.0)),
        ns_per_lookup: lookups.clone(),
        ns_per_lookup_batched: lookups,
        ..Record::default()
    }
}

fn fixture() -> Results {
    let mut records = Vec::new();
    for v in ["classic", "blocked"] {
        records.push(rec(Scenario::Matrix, v, 0.01));
        records.push(rec(Scenario::SizeSweep, v, 0.01));
        for (threads, speedup) in [(1, 1.0), (2, 2.27)] {
            records.push(Record {
                threads: Some(threads),
                parallel_speedup: Some(speedup),
                ..rec(Scenario::Parallel, v, 0.01)
            });
        }
    }
    let peer = PeerRecord {
        name: "fastbloom+foldhash".into(),
        side: Side::Peer,
        n: 1000,
        target_fpr: 0.01,
        build_seconds: spread(1.0),
        ns_negative: spread(25.0),
        ns_positive: spread(26.0),
        empirical_fpr: 0.01,
        huge_page_coverage: None,
        ..PeerRecord::default()
    };
    Results {
        dataset: DatasetInfo {
            source: "synthetic e-mails".into(),
            members: 4000,
            non_members: 1000,
            ..DatasetInfo::default()
        },
        records,
        peers: vec![peer],
        ratios: vec![Ratio {
            what: "classic vs fastbloom+foldhash: ns per negative lookup, batched".into(),
            numerator: "classic: ns per negative lookup, batched".into(),
            numerator_value: 20.0,
            numerator_samples: vec![20.0, 19.0, 21.0],
            denominator: "fastbloom+foldhash: ns per negative lookup".into(),
            denominator_value: 25.0,
            denominator_samples: vec![25.0, 24.0, 26.0],
            bound: crate::judge::targets::Bound::AtMost(0.7),
            numerator_conditions: crate::judge::targets::Conditions {
                api: crate::record::conditions::Api::Batched,
                achieved_fpr: Some(0.01),
                ..crate::judge::targets::Conditions::default()
            },
            denominator_conditions: crate::judge::targets::Conditions {
                achieved_fpr: Some(0.01),
                ..crate::judge::targets::Conditions::default()
            },
            ..Ratio::default()
        }
        .recomputed()],
        ..Results::default()
    }
}

#[test]
fn matrix_rows_carry_their_spread_and_both_overheads() {
    let text = render_readme(&fixture(), &[]);
    assert!(text.contains("## n = 1000, target FP rate 1%"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("| classic | m=9586 k=7 |"))
        .unwrap();
    assert!(row.contains("50.0 (48.0–54.0)"), "insert spread: {row}");
    assert!(row.contains("20.0 (18.0–24.0)"), "lookup spread: {row}");
    assert!(text.contains("| over lower bound at target | at achieved FP |"));
}

#[test]
fn the_targets_table_names_numerator_and_denominator_and_flags_unlike_conditions() {
    let text = render_readme(&fixture(), &[]);
    assert!(text.contains("| comparison | numerator | value | denominator | value | ratio | 95% interval | target | verdict | same conditions? |"));
    assert!(
        text.contains("| not met | no: batched vs one at a time |"),
        "{text}"
    );
    assert!(
        text.contains("(0 met, 0 not met, 0 undecided of 0 under the same conditions)"),
        "{text}"
    );
    // The count is over same-condition targets only, by their three-way verdicts.
    let mut r = fixture();
    let mut alike = r.ratios[0].clone();
    alike.numerator_conditions = alike.denominator_conditions.clone();
    alike.numerator_samples = vec![10.0, 9.0, 11.0];
    alike.numerator_value = 10.0;
    let alike = alike.recomputed();
    let mut straddles = alike.clone();
    straddles.numerator_samples = vec![15.0, 19.5, 17.5];
    straddles.numerator_value = 17.5;
    let straddles = straddles.recomputed();
    let mut info = alike.clone();
    info.role = crate::judge::targets::Role::Information;
    let mut missing = alike.clone();
    missing.numerator_value = f64::NAN;
    missing.numerator_samples.clear();
    let missing = missing.recomputed();
    r.ratios.extend([alike, straddles, info, missing]);
    let text = render_readme(&r, &[]);
    assert!(
        text.contains("(1 met, 0 not met, 1 undecided of 2 under the same conditions)"),
        "{text}"
    );
    assert!(
        text.contains("| not measured | no: not measured |"),
        "{text}"
    );
    assert!(
        text.contains("For information: unlike structures"),
        "{text}"
    );
}

#[test]
fn speed_ups_above_the_thread_count_are_flagged() {
    let text = render_readme(&fixture(), &[]);
    let flagged: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("above the thread count"))
        .collect();
    assert_eq!(flagged.len(), 2, "{flagged:?}");
    assert!(flagged.iter().all(|l| l.contains("| 2 |")));
}

#[test]
fn the_sweep_page_shows_every_row_and_its_plots() {
    let r = fixture();
    let report = crate::stages::sweep::SweepReport {
        machine: r.machine.clone(),
        sizes: vec![4000],
        records: r
            .records
            .iter()
            .filter(|x| x.scenario == Scenario::SizeSweep)
            .cloned()
            .collect(),
    };
    let page = crate::render::sweep::render(&report);
    assert!(page.starts_with("# Size sweep"));
    assert!(page
        .lines()
        .nth(2)
        .is_some_and(|l| l.contains(&r.machine.commit)));
    for x in &report.records {
        assert!(
            page.contains(&format!("| {} | {} |", x.variant, x.n)),
            "{page}"
        );
    }
    assert!(page.contains("size_sweep_negative.svg") && page.contains("size_sweep_positive.svg"));
    // The main report no longer carries the sweep.
    assert!(!render_readme(&r, &[]).contains("## Size sweep"));
}

#[test]
fn the_root_readme_block_round_trips() {
    let r = fixture();
    let block = readme_block(&r);
    assert!(block.starts_with(BEGIN) && block.ends_with(END));
    assert!(block.contains("| classic |") && block.contains("| blocked |"));
    let page = format!("intro\n{block}\nmore\n");
    assert_eq!(committed_block(&page), Some(block.as_str()));
    assert_eq!(committed_block("no markers"), None);
}

#[test]
fn write_puts_results_and_the_rendered_readme_side_by_side() {
    let dir = std::env::temp_dir().join(format!("filterlab-report-{}", std::process::id()));
    let r = fixture();
    write(&dir, &r, None).unwrap();
    let json = std::fs::read_to_string(dir.join("results.json")).unwrap();
    let back: Results = serde_json::from_str(&json).unwrap();
    assert_eq!(back.records.len(), r.records.len());
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert_eq!(readme, render_readme(&back, &[]));
    assert!(dir.join("insert_ns.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
