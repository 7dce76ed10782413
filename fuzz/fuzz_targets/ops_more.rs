//! Operation sequences for the kinds whose model is not a `HashMap<key, count>`:
//!
//! * static filters: the keys of every insert-like op build one filter (repeats allowed); then
//!   every key is present, `len` counts the distinct keys, batches answer as single queries,
//!   and round trips give back the same bytes and answers;
//! * windows counted in items: the last `window` inserts are always present, `len` lies
//!   between `min(inserts, window)` and the inserts; a removal is not an operation they have;
//! * windows counted in time: each op moves the clock `step` ticks on, and `Remove(i)` jumps it `i`
//!   quarter-slices further (windows cannot remove); a key inserted at `t` is present until
//!   `t + window`.

use crate::{key, Op};
use filterlab::any::Detail;
use filterlab::{AnyFilter, Filter, Timestamp};
use std::collections::{HashMap, VecDeque};

fn insert_ids(ops: &[Op]) -> Vec<u8> {
    let mut ids = Vec::new();
    for op in ops {
        match op {
            Op::Insert(i) | Op::InsertIfAbsent(i) => ids.push(*i),
            Op::Batch(b) => ids.extend(b),
            _ => {}
        }
    }
    ids
}

fn same_answers(a: &AnyFilter, b: &AnyFilter) {
    let all: Vec<[u8; 2]> = (0..=255u8).map(key).collect();
    let refs: Vec<&[u8]> = all.iter().map(|k| &k[..]).collect();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    a.contains_batch(&refs, &mut x);
    b.contains_batch(&refs, &mut y);
    assert_eq!(x, y, "a round trip changed the answers");
}

pub fn run_static(build: impl Fn(&[&[u8]]) -> AnyFilter, ops: &[Op]) {
    let ids = insert_ids(ops);
    let keys: Vec<[u8; 2]> = ids.iter().map(|&i| key(i)).collect();
    let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let f = build(&refs);
    let mut distinct = ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        f.len(),
        distinct.len() as u64,
        "len is not the distinct keys"
    );
    assert!(refs.iter().all(|k| f.contains(k)), "false negative");
    let p = f.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    for op in ops.iter().take(64) {
        match op {
            Op::Contains(i) | Op::Remove(i) => {
                let k = key(*i);
                let mut out = Vec::new();
                f.contains_batch(&[&k[..]], &mut out);
                assert_eq!(out, [f.contains(&k)], "batch answers differ");
            }
            Op::RoundTrip => {
                let bytes = f.to_bytes();
                let copy = AnyFilter::from_bytes(&bytes).expect("own bytes must load");
                assert_eq!(copy.to_bytes(), bytes, "round trip changed the bytes");
                same_answers(&f, &copy);
            }
            _ => {}
        }
    }
}

/// A window counted in items and its last `window` inserts.
pub fn run_window(mut f: AnyFilter, ops: &[Op]) {
    let window = f.capacity();
    let mut recent: VecDeque<u8> = VecDeque::new();
    let mut total = 0u64;
    let push = |recent: &mut VecDeque<u8>, i: u8| {
        recent.push_back(i);
        if recent.len() as u64 > window {
            recent.pop_front();
        }
    };
    for op in ops.iter().take(512) {
        match op {
            Op::Insert(i) => {
                f.insert(&key(*i)).expect("a window takes every insert");
                push(&mut recent, *i);
                total += 1;
            }
            Op::InsertIfAbsent(i) => {
                let seen = f.contains(&key(*i));
                let new = f
                    .insert_if_absent(&key(*i))
                    .expect("a window takes every insert");
                assert_eq!(new, !seen, "insert_if_absent disagrees with contains");
                if new {
                    push(&mut recent, *i);
                    total += 1;
                }
            }
            Op::Batch(ids) => {
                let keys: Vec<[u8; 2]> = ids.iter().map(|&i| key(i)).collect();
                let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
                f.insert_batch(&refs).expect("a window takes every insert");
                ids.iter().for_each(|&i| push(&mut recent, i));
                total += ids.len() as u64;
                let mut out = Vec::new();
                f.contains_batch(&refs, &mut out);
                let single: Vec<bool> = refs.iter().map(|k| f.contains(k)).collect();
                assert_eq!(out, single, "batch answers differ");
            }
            Op::Contains(i) | Op::Remove(i) => {
                let _ = f.contains(&key(*i));
            }
            Op::RoundTrip => {
                let bytes = f.to_bytes();
                let copy = AnyFilter::from_bytes(&bytes).expect("own bytes must load");
                assert_eq!(copy.to_bytes(), bytes, "round trip changed the bytes");
                f = copy;
            }
        }
        for &i in &recent {
            assert!(
                f.contains(&key(i)),
                "false negative for key {i} in the window"
            );
        }
        let len = f.len();
        assert!(
            len <= total && len >= total.min(window),
            "len {len} of {total}"
        );
        let p = f.expected_fpr();
        assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    }
}

/// A window counted in time: `window` and `slice` ticks, from its plan.
fn ticks(f: &AnyFilter) -> (u64, u64) {
    match f.plan().expect("a built window has a plan").detail {
        Detail::TimeSliced {
            window_ticks,
            slice_ticks,
            ..
        } => (window_ticks, slice_ticks),
        other => panic!("{} planned as {other:?}", f.variant()),
    }
}

pub fn run_time(mut f: AnyFilter, step: u64, ops: &[Op]) {
    let (window, slice) = ticks(&f);
    let mut last: HashMap<u8, u64> = HashMap::new();
    let mut total = 0u64;
    let mut t = 0u64;
    for op in ops.iter().take(512) {
        t += step;
        match op {
            Op::Insert(i) | Op::InsertIfAbsent(i) => {
                // Without a time: refused, nothing changed.
                let before = f.to_bytes();
                assert!(f.insert(&key(*i)).is_err(), "an untimed insert went in");
                assert_eq!(f.to_bytes(), before, "a refused insert changed the window");
                f.insert_at(&key(*i), Timestamp(t))
                    .expect("a time window takes every insert");
                last.insert(*i, t);
                total += 1;
            }
            Op::Remove(i) => t += u64::from(*i) * slice.div_ceil(4),
            Op::Contains(i) => {
                let _ = f.contains_at(&key(*i), Timestamp(t)).expect("timed");
            }
            Op::Batch(ids) => {
                let keys: Vec<[u8; 2]> = ids.iter().map(|&i| key(i)).collect();
                let hashes: Vec<_> = keys.iter().map(|k| f.hasher().hash(k)).collect();
                f.insert_hash_batch_at(&hashes, Timestamp(t))
                    .expect("takes every insert");
                for &i in ids {
                    last.insert(i, t);
                }
                total += ids.len() as u64;
                let mut out = Vec::new();
                f.contains_hash_batch_at(&hashes, Timestamp(t), &mut out)
                    .expect("timed");
                let single: Vec<bool> = hashes
                    .iter()
                    .map(|&h| f.contains_hash_at(h, Timestamp(t)).expect("timed"))
                    .collect();
                assert_eq!(out, single, "batch answers differ");
            }
            Op::RoundTrip => {
                let bytes = f.to_bytes();
                let copy = AnyFilter::from_bytes(&bytes).expect("own bytes must load");
                assert_eq!(copy.to_bytes(), bytes, "round trip changed the bytes");
                f = copy;
            }
        }
        for (&i, &at) in &last {
            if t - at < window {
                assert!(
                    f.contains_at(&key(i), Timestamp(t)).expect("timed"),
                    "false negative for key {i}"
                );
            }
        }
        let len = f.len_at(Timestamp(t)).expect("timed");
        assert!(len <= total, "len above the inserts");
        let p = f.expected_fpr_at(Timestamp(t)).expect("timed");
        assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    }
}
