//! The growth page's tables, on the stage's small run.

use super::*;
use crate::record::Machine;
use crate::stages::expansion::tests::{measured, measured_cycle, settings};

/// The stage's small run as a report (no goals: the tables do not read them).
fn report() -> ExpansionReport {
    let (checkpoints, summaries) = measured();
    ExpansionReport {
        machine: Machine::default(),
        settings: settings(),
        checkpoints,
        summaries,
        cycle: measured_cycle(),
        goals: Vec::new(),
    }
}

#[test]
fn the_batched_table_has_our_figures_and_says_why_for_the_peers() {
    let table = batched_table(&report());
    let row = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {name} ")))
            .unwrap_or_else(|| panic!("a row for {name}: {table}"))
            .to_string()
    };
    let ours = row("expandable");
    assert_eq!(ours.matches('×').count(), 2, "{ours}");
    assert!(!ours.contains("not measured"), "{ours}");
    let peer = row(Contender::Qfilter.name());
    assert!(
        peer.contains("not measured: qfilter 0.3.1: its crate has no batch lookup"),
        "{peer}"
    );
    let cuckoo = row("cuckoo");
    assert!(
        cuckoo.contains("not measured: refused an insert"),
        "{cuckoo}"
    );
}

#[test]
fn the_lookups_table_has_both_sizes_before_its_spreads_the_batched_one_none() {
    let r = report();
    let summaries = &r.summaries;
    let lookups = lookups_table(&r);
    let batched = batched_table(&r);
    let header = |t: &str| t.lines().next().unwrap_or_default().to_string();
    assert_eq!(
        header(&lookups),
        "| contender | small | large | ns/non-member small | large | ratio | ns/member small | large | ratio |"
    );
    assert_eq!(
        header(&batched),
        "| contender | ns/non-member small | large | ratio | ns/member small | large | ratio |"
    );
    let ours = lookups
        .lines()
        .find(|l| l.starts_with("| expandable "))
        .unwrap_or_else(|| panic!("a row for expandable: {lookups}"));
    let cells: Vec<&str> = ours.trim_matches('|').split(" | ").map(str::trim).collect();
    assert_eq!(cells.len(), 9, "{ours}");
    let l = summaries
        .iter()
        .find_map(|x| (x.contender.name() == "expandable").then(|| x.lookups.measured()))
        .flatten()
        .expect("expandable measured its lookups");
    assert_eq!(cells[1..3], [l.small_n.to_string(), l.large_n.to_string()]);
    assert_eq!(
        cells[5],
        format!("{:.2}×", l.negative_large.median / l.negative_small.median)
    );
}

/// The references that do not grow are rows of both lookup tables, labelled as references,
/// and the sentence under each table reads their figures from the records.
#[test]
fn the_references_are_labelled_rows_and_the_reading_is_computed_from_them() {
    let r = report();
    let x = r
        .summaries
        .iter()
        .find(|x| x.contender == EXPANDABLE)
        .expect("the expandable filter");
    let f = x
        .references
        .iter()
        .find(|f| f.kind == ReferenceKind::FixedCuckoo)
        .and_then(|f| f.lookups.measured())
        .expect("the fixed cuckoo filter timed");
    for table in [lookups_table(&r), batched_table(&r)] {
        for kind in ReferenceKind::ALL {
            // The quotient reference serves both Aleph rows: one row in each one's rounds.
            let rows: Vec<&str> = table
                .lines()
                .filter(|l| l.starts_with(&format!("| {}", kind.label())))
                .collect();
            let want = if kind == ReferenceKind::FixedQuotient {
                2
            } else {
                1
            };
            assert_eq!(rows.len(), want, "{kind:?}: {table}");
            for row in rows {
                // The grown peers have no batch lookup: their batched row says so.
                let batched_peer = kind.grows() && row.contains("no batch lookup");
                let want = if batched_peer { 0 } else { 2 };
                assert_eq!(row.matches('×').count(), want, "{row}");
            }
        }
    }
    let fixed = f.negative_large.median / f.negative_small.median;
    let text = reading(&r, false);
    assert!(
        text.starts_with("Reading: at 3200 keys against 1000,"),
        "{text}"
    );
    assert!(
        text.contains(&format!("takes {fixed:.2}× the time per non-member")),
        "{text}"
    );
    let g = x.lookups.measured().expect("timed");
    let price = g.positive_large.median
        / g.positive_small.median
        / (f.positive_large.median / f.positive_small.median);
    assert!(
        text.contains(&format!("and {price:.2}× (medians")),
        "{text}"
    );
    assert!(reading(&r, true).starts_with("Reading (batched): "));
    let mut bare = r.clone();
    bare.summaries.iter_mut().for_each(|x| x.references.clear());
    assert_eq!(reading(&bare, false), "");
    assert!(!render(&bare).contains("reference: no growth"));
}

/// The cycle's curve is on the page: a row per point and the fullest table, each with the
/// quotient filter's bits at its measured rate.
#[test]
fn the_page_shows_the_aleph_filter_over_its_last_doubling_cycle() {
    let r = report();
    let c = r.cycle.as_ref().expect("the small run has a cycle");
    let page = render(&r);
    let section = page
        .split("## The Aleph filter over one doubling cycle")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    for p in c.points.iter().chain([&c.before]) {
        assert!(
            section.contains(&format!("| {}", p.n)),
            "{} missing: {section}",
            p.n
        );
    }
    assert!(section.contains(" (fullest) |"), "{section}");
    let mut none = report();
    none.cycle = None;
    assert!(render(&none).contains("no complete cycle to measure"));
}
