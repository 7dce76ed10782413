use super::*;
use crate::rsqf::bulk::sort_by_quotient;
use filter_core::{Error, Filter, Persist};

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn filter(capacity: u64, r: Option<u32>) -> QuotientFilter {
    let b = QuotientFilter::builder().capacity(capacity).fpr(0.01);
    match r {
        Some(r) => b.remainder_bits(r).build().unwrap(),
        None => b.build().unwrap(),
    }
}

/// `n` random hashes, about one in `repeat` a copy of an earlier one.
fn hashes(n: usize, repeat: u64, seed: u64) -> Vec<Hash128> {
    let mut s = seed;
    let mut out: Vec<Hash128> = Vec::with_capacity(n);
    while out.len() < n {
        let h = match xorshift(&mut s) % repeat {
            0 if !out.is_empty() => out[(xorshift(&mut s) % out.len() as u64) as usize],
            _ => Hash128 {
                lo: xorshift(&mut s),
                hi: xorshift(&mut s),
            },
        };
        out.push(h);
    }
    out
}

/// `f` after inserting `hashes` one at a time, as the default `insert_hash_batch` does.
fn one_by_one(mut f: QuotientFilter, hashes: &[Hash128]) -> (QuotientFilter, Result<()>) {
    let r = hashes.iter().try_for_each(|&h| f.insert_hash(h));
    (f, r)
}

#[test]
fn a_bulk_build_is_the_table_of_inserts_one_by_one() {
    let mut cases = 0;
    for (capacity, r, repeat) in [
        (1_000, None, 10),
        (5_000, None, 3),
        (300, Some(1), 1_000),
        (300, Some(2), 2),
        (2_000, Some(64), 5),
        (64, Some(13), 4),
    ] {
        for (seed, fill) in [(1, 0.3), (2, 0.9), (3, 1.0)] {
            let empty = filter(capacity, r);
            let n = (empty.max_items() as f64 * fill) as usize;
            let keys = hashes(n, repeat, seed * 7919 + capacity);
            let mut bulk = empty.clone();
            bulk.insert_hash_batch(&keys).unwrap();
            let (seq, done) = one_by_one(empty, &keys);
            done.unwrap();
            assert_eq!(bulk, seq, "{capacity} {r:?} {fill}");
            assert_eq!(bulk.to_bytes(), seq.to_bytes());
            assert!(keys.iter().all(|&h| bulk.contains_hash(h)));
            cases += 1;
        }
    }
    assert_eq!(cases, 18);
}

/// A batch that does not fit fails as the inserts one by one fail: the keys before the first
/// refused one are in, it and the later ones not. Too many keys, and runs piled past the
/// table's end (every key with the last quotient).
#[test]
fn a_batch_that_does_not_fit_fails_as_one_by_one() {
    let empty = filter(1_000, None);
    let too_many = hashes(empty.max_items() as usize + 5, 50, 9);
    let mut s = 77u64;
    let past_the_end = empty.slots() - empty.quotients() + 2;
    let piled: Vec<Hash128> = (0..past_the_end)
        .map(|_| Hash128 {
            lo: u64::MAX,
            hi: xorshift(&mut s),
        })
        .collect();
    assert!(piled.len() as u64 <= empty.max_items());
    for keys in [too_many, piled] {
        let mut bulk = empty.clone();
        let e = bulk.insert_hash_batch(&keys).unwrap_err();
        let (seq, done) = one_by_one(empty.clone(), &keys);
        assert!(matches!(
            (e, done),
            (Error::Full { .. }, Err(Error::Full { .. }))
        ));
        assert_eq!(bulk, seq);
        assert!(bulk.len() > 0 && bulk.len() < keys.len() as u64);
    }
}

/// Into a filter that holds keys, a batch inserts one by one (with prefetches): the same table.
#[test]
fn a_batch_into_a_filled_filter_is_the_inserts_one_by_one() {
    let keys = hashes(4_000, 20, 5);
    let mut batched = filter(5_000, None);
    batched.insert_hash(keys[0]).unwrap();
    batched.insert_hash_batch(&keys[1..]).unwrap();
    let (seq, done) = one_by_one(filter(5_000, None), &keys);
    done.unwrap();
    assert_eq!(batched, seq);
    let mut answers = Vec::new();
    let probes = hashes(3_000, 1_000, 6);
    batched.contains_hash_batch(&probes, &mut answers);
    let singles: Vec<bool> = probes.iter().map(|&h| batched.contains_hash(h)).collect();
    assert_eq!(answers, singles);
}

/// The radix sort is by quotient and stable: as the standard library's stable sort.
#[test]
fn the_sort_by_quotient_is_stable() {
    let mut s = 3u64;
    for (n, bits) in [(1_000, 5), (5_000, 17), (3_000, 31)] {
        let mut pairs: Vec<(u64, u64)> = (0..n)
            .map(|i| (xorshift(&mut s) & ((1 << bits) - 1), i))
            .collect();
        let mut want = pairs.clone();
        want.sort_by_key(|p| p.0);
        let mut scratch = vec![(0, 0); n as usize];
        sort_by_quotient(&mut pairs, &mut scratch, bits);
        assert_eq!(pairs, want, "{n} {bits}");
    }
}

/// `insert_batch` of key bytes into an empty filter hashes them all and builds in one pass:
/// the table a key at a time gives, well past the first block of 256 hashes; into a filter
/// that holds keys it inserts block by block, to the same table.
#[test]
fn insert_batch_of_keys_builds_the_table_one_by_one_gives() {
    let keys: Vec<String> = (0..5000).map(|i| format!("user{i}@example.com")).collect();
    let refs: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
    let hasher = filter(6000, None).hasher();
    let hashed: Vec<Hash128> = refs.iter().map(|k| hasher.hash(k)).collect();
    let (want, r) = one_by_one(filter(6000, None), &hashed);
    r.unwrap();
    let mut f = filter(6000, None);
    f.insert_batch(&refs).unwrap();
    assert!(f.to_bytes() == want.to_bytes(), "the batch build differs");
    let mut g = filter(6000, None);
    g.insert_batch(&refs[..1]).unwrap();
    g.insert_batch(&refs[1..]).unwrap();
    assert!(
        g.to_bytes() == want.to_bytes(),
        "the build in two calls differs"
    );
}
