//! The growth page's tables, on the stage's small run.

use super::*;
use crate::record::Machine;
use crate::stages::expansion::tests::{measured, settings};

/// The stage's small run as a report (no goals: the tables do not read them).
fn report() -> ExpansionReport {
    let (checkpoints, summaries) = measured();
    ExpansionReport {
        machine: Machine::default(),
        settings: settings(),
        checkpoints,
        summaries,
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
                assert_eq!(row.matches('×').count(), 2, "{row}");
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
