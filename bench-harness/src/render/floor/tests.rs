//! Tests of the floor section.

use super::*;
use crate::measure::Spread;
use crate::record::floor::FloorTable;
use crate::record::floor::{Hashing, LineReads, Lookup, Multiple, OurHash};

#[test]
fn no_floor_renders_nothing() {
    assert_eq!(floor_section(None), "");
}

#[test]
fn the_section_shows_the_reads_the_hashes_and_every_multiple() {
    let r = FloorReport {
        queries: 1000,
        rounds: 3,
        reads: vec![LineReads {
            table: FloorTable::Blocked,
            bytes: 12_000_000,
            lines: 187_500,
            dependent: Spread::of(&mut [118.0, 120.0, 125.0]),
            independent: Spread::of(&mut [1.5, 1.75, 2.0]),
        }],
        hashing: vec![Hashing {
            hash: OurHash::Xxh3_64,
            ns: Spread::single(6.25),
        }],
        multiples: vec![Multiple {
            table: FloorTable::Cuckoo,
            lookup: Lookup::PositiveBatched,
            ns: 24.0,
            floor_ns: 9.6,
            times_floor: 2.5,
            dependent_ns: 120.0,
            times_dependent: 0.2,
        }],
    };
    let s = floor_section(Some(&r));
    assert!(s.contains("over 1000 keys in 3 rounds"), "{s}");
    assert!(
        s.contains("| blocked | 12000000 | 187500 | 120.0 (118.0–125.0) | 1.75 (1.50–2.00) |"),
        "{s}"
    );
    assert!(s.contains("| xxh3-64 | 6.2 |"), "{s}");
    assert!(
        s.contains("| cuckoo | positive, batched | 24.0 | 9.6 | 2.50× | 120.0 | 0.20× |"),
        "{s}"
    );
}
