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
fn the_goals_page_counts_verdicts_and_flags_unlike_conditions_and_the_readme_keeps_information() {
    use crate::render::studies::goals_page;
    let page = goals_page(&fixture(), &[], &Default::default());
    assert!(page.starts_with("# The project's goals"), "{page}");
    assert!(
        page.contains("| goal | measured | 95% interval | bound | verdict | conditions | from |")
    );
    assert!(
        page.contains("| not met | differ: batched vs one at a time | main job |"),
        "{page}"
    );
    assert!(page.contains("0 met, 1 not met, 0 undecided."), "{page}");
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
    let page = goals_page(&r, &[], &Default::default());
    // The information row is not a goal; the other four are, whatever their conditions.
    assert!(page.contains("1 met, 1 not met, 2 undecided."), "{page}");
    assert!(
        page.contains("| not measured | differ: not measured | main job |"),
        "{page}"
    );
    // An undecided row whose loop ended on its budget says so.
    r.loops.push(crate::measure::rounds::LoopRecord {
        what: "lookups beside the peers".into(),
        rounds: 9,
        stop: crate::measure::rounds::Stop::Budget,
        ..Default::default()
    });
    let page = goals_page(&r, &[], &Default::default());
    assert!(
        page.contains("undecided: the budget of lookups beside the peers ended its rounds"),
        "{page}"
    );
    let text = render_readme(&r, &[]);
    assert!(
        text.contains("For information: unlike structures"),
        "{text}"
    );
    assert!(
        !text.contains("### Targets"),
        "the goals left the README: {text}"
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
    let block = readme_block(&r, &[]);
    assert!(block.starts_with(BEGIN) && block.ends_with(END));
    assert!(block.contains("| classic |") && block.contains("| blocked |"));
    let page = format!("intro\n{block}\nmore\n");
    assert_eq!(committed_block(&page), Some(block.as_str()));
    assert_eq!(committed_block("no markers"), None);
    let stamp = crate::record::study::Stamp {
        study: crate::record::study::Study::Course,
        commit: "abc1234".into(),
        date: String::new(),
        wall_seconds: 123.4,
        changed_since: Vec::new(),
    };
    let with = readme_block(&r, &[stamp]);
    assert!(
        with.contains("The studies, each at its own commit"),
        "{with}"
    );
    assert!(with.contains("course 123 s"), "{with}");
    assert!(
        block.contains("| FP asked | FP reached [95% interval] |"),
        "{block}"
    );
}

/// The root block gives each FP rate reached with its interval (1.0034% [0.9972%, 1.0096%] is
/// not a miss of 1%), and each lookup time's ratio to the classic filter's with the interval
/// that ordering two rows rests on; the rows keep the registry's order.
#[test]
fn the_root_block_gives_each_rate_its_interval_and_each_time_its_ratio_to_classic() {
    use crate::measure::Spread;
    let mut r = fixture();
    let at_one: Vec<usize> = (0..r.records.len())
        .filter(|&i| r.records[i].scenario == Scenario::Matrix && r.records[i].target_fpr == 0.01)
        .collect();
    assert!(at_one.len() >= 2, "the fixture has two rows at 1%");
    let (a, b) = (at_one[0], at_one[1]);
    r.records[a].variant = "classic".into();
    r.records[a].empirical_fpr = 0.010034;
    r.records[a].fpr_ci_low = 0.009972;
    r.records[a].fpr_ci_high = 0.010096;
    r.records[a].ns_per_lookup.insert(
        Mix::Half.key().into(),
        Spread::of(&mut [100.0, 98.0, 104.0]),
    );
    r.records[b]
        .ns_per_lookup
        .insert(Mix::Half.key().into(), Spread::of(&mut [50.0, 49.0, 52.0]));
    let block = readme_block(&r, &[]);
    assert!(block.contains("| 1.0034% [0.9972%, 1.0096%] |"), "{block}");
    let row = |name: &str| {
        block
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row {name}: {block}"))
            .to_string()
    };
    assert!(
        row("classic").ends_with("| 1.00 (1.00–1.00) |"),
        "{}",
        row("classic")
    );
    let other = row(&r.records[b].variant);
    // Paired rounds: each round of the row is half the classic filter's, so the interval is tight.
    assert!(other.ends_with("| 0.50 (0.50–0.50) |"), "{other}");
    assert!(block.contains("not by speed"), "{block}");
}

/// The quiet run of the issue: an idle 2-core Xeon whose calibration loop stayed within 5.5 to
/// 6.2 ns an operation (1.13×), whose builds loop stopped at its 3-round limit at ±49% and whose
/// lookups loops stopped at their 5-round limit wide; no loop ran out of its budget.
fn quiet_run() -> Results {
    use crate::measure::calibration::Point;
    use crate::measure::rounds::{LoopRecord, Policy, Stop};
    let mut r = fixture();
    let l = |what: &str, policy, rounds, stop, widest| LoopRecord {
        what: what.into(),
        policy: Some(policy),
        rounds,
        seconds: 10.0,
        stop,
        widest: Some(widest),
    };
    r.loops = vec![
        l("builds at 0.01", Policy::fixed(3), 3, Stop::MaxRounds, 0.49),
        l(
            "lookups at 0.01",
            Policy::adaptive(3, 5, 15.0),
            5,
            Stop::MaxRounds,
            0.6,
        ),
        l(
            "lookups beside the peers",
            Policy::adaptive(3, 5, 15.0),
            3,
            Stop::Converged,
            0.02,
        ),
    ];
    r.calibration = [5.5, 6.2, 5.8, 5.9]
        .iter()
        .enumerate()
        .map(|(i, &ns)| Point {
            at: format!("before stage {i}"),
            ns,
            range: (ns * 0.98, ns * 1.02),
        })
        .collect();
    r
}

/// A run is flagged by what measures disturbance (the calibration loop's drift, a loop that ran
/// out of its budget before its policy was met), not by loops that stopped at their round limit:
/// of a quiet and a loaded fixture, exactly the loaded one says it was disturbed, at the top of
/// the root block and beside the machine.
#[test]
fn a_loaded_run_is_flagged_and_a_quiet_one_is_not() {
    use crate::measure::rounds::Stop;
    let quiet = quiet_run();
    let mut drifted = quiet_run();
    drifted.calibration[1].ns = 12.4;
    let mut slowed = quiet_run();
    slowed.loops[1].stop = Stop::Budget;
    let flagged = |r: &Results| {
        let (block, page) = (readme_block(r, &[]), readme(r, &[], &[]));
        assert_eq!(block.contains("disturbed"), page.contains("disturbed"));
        assert_eq!(
            block.contains("speed changed"),
            page.contains("speed changed")
        );
        block.contains("**This run was disturbed**") || block.contains("speed changed")
    };
    assert!(
        quiet.disturbances().is_empty(),
        "{:?}",
        quiet.disturbances()
    );
    assert!(!flagged(&quiet));
    assert!(flagged(&drifted));
    assert!(flagged(&slowed));
    assert!(readme_block(&slowed, &[]).contains("**This run was disturbed**"));
    assert!(readme_block(&drifted, &[]).contains("2.25×"));
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

/// Issue 36, item 6: the report opens with the per-variant table, each row beside the fastest
/// crate of its kind, within its first 60 lines.
#[test]
fn the_report_opens_with_every_variant_beside_its_best_like_crate() {
    let mut r = fixture();
    let ours = |name: &str, ns: f64| PeerRecord {
        name: name.into(),
        side: Side::Filterlab,
        n: 1000,
        target_fpr: 0.01,
        build_seconds: spread(0.5),
        build_seconds_batched: Some(spread(0.25)),
        ns_negative: Spread::of(&mut [ns, ns * 1.01, ns * 0.99]),
        ns_negative_batched: Some(spread(ns / 2.0)),
        empirical_fpr: 0.0101,
        probes: 100_000,
        bits_per_key: 10.5,
        ..PeerRecord::default()
    };
    r.peers[0].ns_negative = Spread::of(&mut [25.0, 24.5, 25.5]);
    r.peers.push(ours("blocked", 12.5));
    r.peers.push(ours("counting", 40.0));
    let mut slow = r.peers[0].clone();
    slow.name = "fastbloom".into();
    slow.ns_negative = spread(50.0);
    r.peers.push(slow);
    let text = render_readme(&r, &[]);
    let top: Vec<&str> = text.lines().take(60).collect();
    let row = |v: &str| {
        top.iter()
            .find(|l| l.starts_with(&format!("| {v} |")))
            .unwrap_or_else(|| panic!("no {v} row in the first 60 lines:\n{text}"))
            .to_string()
    };
    let blocked = row("blocked");
    // The fastest fastbloom configuration (25 ns), not the slower one (50 ns); 12.5 / 25.
    assert!(blocked.contains("| fastbloom+foldhash |"), "{blocked}");
    assert!(blocked.contains("| 0.50 ("), "{blocked}");
    assert!(blocked.contains("| blocked | threads |"), "{blocked}");
    assert!(
        blocked.contains("1.01% ["),
        "reached rate with its interval: {blocked}"
    );
    // A variant no crate of the run is like says so.
    assert!(
        row("counting").contains("no like crate"),
        "{}",
        row("counting")
    );
    assert!(text.find("## Which filter").unwrap() < text.find("## Machine").unwrap());
}
