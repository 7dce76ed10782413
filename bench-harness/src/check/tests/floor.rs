//! `check` on the limit, measured: a run without it, an unsound figure, a multiple or a target
//! row that is not what the records give.

use super::*;
use crate::record::floor::{FloorReport, FloorTable, Hashing, LineReads, OurHash};

fn rounds(ns: f64) -> Spread {
    Spread::of(&mut [ns, ns * 0.95, ns * 1.1, ns * 1.02, ns * 0.98])
}

/// Gives `r` a floor, its multiples and its target rows, as the pipeline does.
pub(super) fn add_floor(r: &mut Results) {
    for p in r.peers.iter_mut() {
        if FloorTable::ALL.iter().any(|t| t.name() == p.name) {
            p.ns_negative_batched = Some(rounds(12.0));
            p.ns_positive_batched = Some(rounds(13.0));
            p.bytes = 12_000_000;
        }
    }
    let mut report = FloorReport {
        queries: 1000,
        rounds: 5,
        reads: FloorTable::ALL
            .iter()
            .map(|&table| LineReads {
                table,
                bytes: 12_000_000,
                lines: 187_500,
                dependent: rounds(120.0),
                independent: rounds(2.0),
            })
            .collect(),
        hashing: vec![
            Hashing {
                hash: OurHash::Xxh3_128,
                ns: rounds(8.0),
            },
            Hashing {
                hash: OurHash::Xxh3_64,
                ns: rounds(6.0),
            },
        ],
        multiples: Vec::new(),
    };
    report.multiples = crate::judge::floor::multiples(&report, &r.peers).unwrap();
    let rows = crate::judge::targets::hot::floor_rows(&r.peers, &report).unwrap();
    r.ratios.extend(rows);
    r.floor = Some(report);
}

fn report(r: &mut Results) -> &mut FloorReport {
    r.floor.as_mut().unwrap()
}

#[test]
fn a_comparison_without_its_floor_is_rejected() {
    rejects("no floor", |r| r.floor = None);
}

#[test]
fn a_run_without_a_comparison_needs_no_floor() {
    let mut r = good();
    r.floor = None;
    r.records.retain(|x| x.scenario != Scenario::Matrix);
    assert!(crate::check::floor::floor(&r, Floors::default()).is_empty());
}

#[test]
fn an_unsound_floor_figure_is_rejected() {
    rejects("dependent read is not a sound timing", |r| {
        report(r).reads[0].dependent = Spread::single(100.0);
    });
    rejects("xxh3-64 hashing is not a sound timing", |r| {
        report(r).hashing[1].ns.min = 0.0;
    });
}

#[test]
fn a_stored_multiple_that_is_not_the_figures_is_rejected() {
    rejects("stored multiples are not", |r| {
        report(r).multiples[2].times_floor *= 0.5;
    });
    // The figure under it moved, the multiple did not.
    rejects("stored multiples are not", |r| {
        report(r).hashing[0].ns = rounds(4.0);
    });
}

#[test]
fn a_floor_target_that_is_not_the_floor_is_rejected() {
    rejects("stored row is not what the rows and the floor give", |r| {
        let row = r
            .ratios
            .iter_mut()
            .find(|x| x.what.contains("vs the floor"))
            .unwrap();
        row.denominator_samples.iter_mut().for_each(|v| *v *= 2.0);
        row.denominator_value *= 2.0;
        *row = row.recomputed();
    });
    rejects(
        "target blocked vs the floor: ns per positive lookup, batched is missing",
        |r| {
            r.ratios
                .retain(|x| !x.what.contains("positive lookup, batched"));
        },
    );
}
