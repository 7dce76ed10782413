use super::*;
use filterlab::{Params, Variant};

fn key(line: u64, hi: u64, lo: u64) -> (u64, Hash128) {
    (line, Hash128 { lo, hi })
}

/// The first occurrences as a set probed in order finds them.
fn naive(keys: &[(u64, Hash128)]) -> Vec<bool> {
    let mut seen = std::collections::HashSet::new();
    keys.iter().map(|(_, h)| seen.insert(h.to_u128())).collect()
}

/// A small generator (xorshift) for repeatable key streams with repeats.
fn stream(n: usize, distinct: u64, seed: u64) -> Vec<(u64, Hash128)> {
    let mut x = seed | 1;
    (0..n as u64)
        .map(|line| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let id = x % distinct;
            let h =
                filterlab::KeyHasher::default().hash(format!("user{id}@example.com").as_bytes());
            (line + 1, h)
        })
        .collect()
}

#[test]
fn the_first_copy_of_each_hash_is_kept_and_no_other() {
    // A repeat, and two hashes sharing their high word but not their low one: both kept.
    let keys = [
        key(1, 7, 1),
        key(2, 9, 1),
        key(3, 7, 1),
        key(4, 7, 2),
        key(5, 7, 2),
    ];
    assert_eq!(first_occurrences(&keys), [true, true, false, true, false]);
    assert!(first_occurrences(&[]).is_empty());
    for (n, distinct) in [
        (1, 1),
        (31, 5),
        (1000, 900),
        (50_000, 20_000),
        (70_000, 70_000),
    ] {
        let keys = stream(n, distinct, n as u64);
        assert_eq!(
            first_occurrences(&keys),
            naive(&keys),
            "{n} keys of {distinct}"
        );
    }
}

#[test]
fn the_block_fills_the_filter_as_inserting_line_by_line_does() {
    let keys = stream(30_000, 12_000, 3);
    let keep = naive(&keys);
    // Every variant filled by inserts without a time (a window counted in time takes its keys
    // one at a time through `at`).
    let filled = Variant::ALL.iter().copied().filter(|v| {
        let c = v.capabilities();
        !c.static_set && !c.timed
    });
    for variant in filled {
        let params = Params::new(15_000, 0.01);
        let mut one = AnyFilter::build(variant, &params).unwrap();
        for ((_, h), _) in keys.iter().zip(&keep).filter(|(_, &k)| k) {
            one.insert_hash(*h).unwrap();
        }
        let mut block = AnyFilter::build(variant, &params).unwrap();
        let mut counts = Counts::default();
        insert_distinct(&mut block, None, &keys, &mut counts).unwrap();
        assert_eq!(
            counts.duplicates,
            30_000 - keep.iter().filter(|&&k| k).count() as u64
        );
        assert!(
            block.to_bytes() == one.to_bytes(),
            "{variant}: the filters differ"
        );
    }
}

#[test]
fn a_full_filter_names_the_line_of_the_key_it_refused() {
    // A cuckoo filter for 1,000 keys refuses one of 20,000 distinct keys: the block names the
    // line the one-at-a-time insert names, after as many keys.
    let keys = stream(20_000, u64::MAX, 11);
    let params = Params::new(1000, 0.01);
    let mut one = AnyFilter::build(Variant::Cuckoo, &params).unwrap();
    let refused = keys
        .iter()
        .find(|(_, h)| one.insert_hash(*h).is_err())
        .expect("the filter fills");
    let mut block = AnyFilter::build(Variant::Cuckoo, &params).unwrap();
    let e = insert_distinct(&mut block, None, &keys, &mut Counts::default()).unwrap_err();
    assert_eq!(format!("{e}"), full(refused.0, one.len()));
    assert_eq!(block.len(), one.len());
}
