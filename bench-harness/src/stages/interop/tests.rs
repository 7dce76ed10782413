//! The interop study's judge and page on a small made-up report: every goal recomputed by
//! `check` as written, and a tampered figure refused.

use super::estimate::Fill;
use super::reads::{Foreign, ReadPair};
use super::{InteropReport, Settings};
use crate::record::Verdict;

fn report() -> InteropReport {
    let settings = Settings {
        read_keys: 1000,
        read_rounds: 3,
        capacity: 1000,
        fills: vec![1.0],
        replicates: 4,
        probes: 100_000,
    };
    let read = ReadPair {
        foreign: Foreign::Guava,
        keys: 1000,
        foreign_bytes: 1_200_000,
        own_bytes: 1_200_000,
        foreign_ms: vec![1.0, 1.1, 0.9],
        own_ms: vec![1.5, 1.4, 1.6],
        foreign_missed: 0,
        own_missed: 0,
    };
    let fill = Fill {
        fill: 1.0,
        keys: 1000,
        bits: 9600,
        hashes: 7,
        estimates: vec![998.0, 1003.0, 1001.0, 999.5],
        ones: 4800,
        false_positives: 780,
        probes: 100_000,
    };
    let mut r = InteropReport {
        machine: crate::record::Machine::default(),
        settings,
        reads: vec![read],
        estimates: vec![fill],
        goals: Vec::new(),
    };
    r.goals = crate::judge::targets::interop::goals(&r);
    r
}

#[test]
fn goals_are_judged_and_recomputed_and_a_tampered_figure_is_refused() {
    let r = report();
    assert_eq!(r.goals.len(), 3);
    // 1.0 against 1.5 ms per MB: met. The estimates within 3 sd (8.3 keys): met. 780 of 100k
    // against (0.5)^7 = 0.78%: met.
    assert!(
        r.goals.iter().all(|g| g.verdict == Verdict::Met),
        "{:#?}",
        r.goals
    );
    assert!(crate::check::interop::problems(&r).is_empty());
    let page = crate::render::interop::render(&r);
    assert!(page.contains("## The count a Bloom filter's bits imply"));
    let mut bad = r.clone();
    bad.reads[0].foreign_ms = vec![3.0, 3.1, 2.9];
    assert!(!crate::check::interop::problems(&bad).is_empty());
    let mut bad = r.clone();
    bad.estimates[0].estimates[0] = 2000.0;
    assert!(!crate::check::interop::problems(&bad).is_empty());
    let mut bad = r;
    bad.reads[0].foreign_missed = 1;
    assert!(!crate::check::interop::problems(&bad).is_empty());
}

#[test]
fn a_slow_foreign_read_and_a_biased_estimate_are_not_met() {
    let mut r = report();
    r.reads[0].foreign_ms = vec![3.0, 3.1, 2.9];
    r.estimates[0].estimates = vec![1100.0, 1102.0, 1098.0, 1101.0];
    let goals = crate::judge::targets::interop::goals(&r);
    assert_eq!(goals[0].verdict, Verdict::NotMet);
    assert_eq!(goals[1].verdict, Verdict::NotMet);
}
