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
