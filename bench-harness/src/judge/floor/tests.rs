//! Tests of the floor's multiples and of the floor target rows.

use super::*;
use crate::judge::targets::hot::floor_rows;
use crate::record::floor::{Hashing, LineReads};
use crate::record::Verdict;

fn spread(v: &[f64]) -> Spread {
    Spread::of(&mut v.to_vec())
}

fn report(hash: &[f64], independent: &[f64]) -> FloorReport {
    FloorReport {
        queries: 100,
        rounds: hash.len(),
        reads: FloorTable::ALL
            .iter()
            .map(|&table| LineReads {
                table,
                bytes: 6400,
                lines: 100,
                dependent: spread(&[100.0, 110.0, 90.0]),
                independent: spread(independent),
            })
            .collect(),
        hashing: vec![
            Hashing {
                hash: OurHash::Xxh3_128,
                ns: spread(hash),
            },
            Hashing {
                hash: OurHash::Xxh3_64,
                ns: spread(&[1.0, 1.0, 1.0]),
            },
        ],
        multiples: Vec::new(),
    }
}

fn row(name: &str, one: f64, batched: f64) -> PeerRecord {
    PeerRecord {
        name: name.into(),
        ns_negative: spread(&[one, one, one]),
        ns_positive: spread(&[one * 2.0, one * 2.0, one * 2.0]),
        ns_negative_batched: Some(spread(&[batched, batched * 1.01, batched * 0.99])),
        ns_positive_batched: Some(spread(&[batched, batched * 1.01, batched * 0.99])),
        empirical_fpr: 0.01,
        bytes: 6400,
        ..PeerRecord::default()
    }
}

#[test]
fn the_floor_is_the_hash_plus_the_independent_read_round_by_round() {
    let r = report(&[10.0, 20.0, 30.0], &[5.0, 1.0, 2.0]);
    let f = floor(&r, FloorTable::Blocked).unwrap();
    assert_eq!(f.samples, vec![15.0, 21.0, 32.0]);
    assert_eq!(f.median, 21.0);
    // Rounds that cannot be paired give no floor, not a made-up one.
    let odd = report(&[10.0, 20.0], &[5.0, 1.0, 2.0]);
    assert!(floor(&odd, FloorTable::Cuckoo).is_none());
}

#[test]
fn every_lookup_is_a_multiple_of_its_floor_and_of_the_dependent_read() {
    let r = report(&[10.0, 10.0, 10.0], &[2.0, 2.0, 2.0]);
    let peers = [row("blocked", 48.0, 18.0), row("cuckoo", 60.0, 24.0)];
    let m = multiples(&r, &peers).unwrap();
    assert_eq!(m.len(), 8);
    let neg = &m[0];
    assert_eq!(
        (neg.table, neg.lookup),
        (FloorTable::Blocked, Lookup::Negative)
    );
    assert_eq!((neg.ns, neg.floor_ns, neg.times_floor), (48.0, 12.0, 4.0));
    assert_eq!((neg.dependent_ns, neg.times_dependent), (100.0, 0.48));
    let cuckoo_pos = m
        .iter()
        .find(|x| (x.table, x.lookup) == (FloorTable::Cuckoo, Lookup::Positive))
        .unwrap();
    assert_eq!(cuckoo_pos.times_floor, 10.0);
    assert_eq!(m[2].ns, 18.0);
}

#[test]
fn a_missing_row_or_figure_is_an_error() {
    let r = report(&[10.0, 10.0, 10.0], &[2.0, 2.0, 2.0]);
    let err = multiples(&r, &[row("blocked", 48.0, 18.0)]).unwrap_err();
    assert!(err.to_string().contains("cuckoo row"), "{err}");
    let mut unbatched = row("cuckoo", 60.0, 24.0);
    unbatched.ns_positive_batched = None;
    let err = multiples(&r, &[row("blocked", 48.0, 18.0), unbatched]).unwrap_err();
    assert!(err.to_string().contains("positive, batched"), "{err}");
    assert!(floor_rows(&[row("cuckoo", 1.0, 1.0)], &r).is_err());
}

#[test]
fn the_floor_target_is_met_within_and_missed_beyond_one_and_a_half_floors() {
    let r = report(&[10.0, 10.5, 9.5], &[2.0, 2.1, 1.9]);
    let near = floor_rows(&[row("blocked", 48.0, 15.0)], &r).unwrap();
    assert_eq!(near.len(), 2);
    assert!(near.iter().all(|x| x.verdict == Verdict::Met), "{near:#?}");
    assert!(near[0].same_conditions, "{}", near[0].differences);
    let far = floor_rows(&[row("blocked", 48.0, 30.0)], &r).unwrap();
    assert!(far.iter().all(|x| x.verdict == Verdict::NotMet), "{far:#?}");
    assert!(
        far[1].what.contains("positive lookup, batched"),
        "{}",
        far[1].what
    );
}
