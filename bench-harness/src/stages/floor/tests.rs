//! Tests of the floor stage's measurements (what they record, not how fast).

use super::*;

#[test]
fn the_chase_is_one_cycle_through_every_line() {
    let lines = 1000;
    let t = chase_table(lines, 7);
    let mut seen = vec![false; lines];
    let mut at = 0usize;
    for _ in 0..lines {
        assert!(!seen[at], "line {at} visited twice before the cycle closed");
        seen[at] = true;
        at = t[at * WORDS] as usize;
    }
    assert_eq!(at, 0, "the chase must return to its start after every line");
    assert!(seen.iter().all(|&s| s));
    assert!(t.iter().skip(1).any(|&w| w != 0), "the table is written");
}

#[test]
fn measure_records_every_table_and_hash() {
    let keys: KeySet = (0..2000u32)
        .map(|i| format!("user{i}@example.com"))
        .collect();
    let tables = [(FloorTable::Blocked, 64 * 300), (FloorTable::Cuckoo, 100)];
    let r = measure(&tables, &keys, 3).unwrap();
    assert_eq!(r.reads.len(), 2);
    assert_eq!(r.reads(FloorTable::Blocked).unwrap().lines, 300);
    assert_eq!(r.reads(FloorTable::Cuckoo).unwrap().lines, 2);
    assert_eq!(r.hashing.len(), 2);
    assert!(r.reads.iter().all(|x| x.dependent.rounds == 3));
    assert!(r.hashing(OurHash::Xxh3_64).is_some());
    assert!(measure(&[(FloorTable::Blocked, 0)], &keys, 1).is_err());
    assert!(measure(&tables, &KeySet::default(), 1).is_err());
}
