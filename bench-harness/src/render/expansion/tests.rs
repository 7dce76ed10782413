//! The growth page's tables, on the stage's small run.

use super::*;
use crate::stages::expansion::tests::measured;

#[test]
fn the_batched_table_has_our_figures_and_says_why_for_the_peers() {
    let (_, summaries) = measured();
    let table = batched_table(&summaries);
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
    let (_, summaries) = measured();
    let lookups = lookups_table(&summaries);
    let batched = batched_table(&summaries);
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
