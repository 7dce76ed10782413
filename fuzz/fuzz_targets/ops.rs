//! Random operation sequences against a `HashMap<key, count>` model, for every variant, with
//! save/load round trips in the middle. After every step: no false negative, `len` equals the
//! model's total, a deletable filter's `count` is at least the model's, a refused operation
//! changed nothing, and a round trip gives back the same bytes.
#![no_main]

mod common;
mod mapped;
mod ops_more;

use arbitrary::Arbitrary;
use common::{Pick, Shape};
use filterlab::{AnyFilter, Error, Filter};
use libfuzzer_sys::fuzz_target;
use std::collections::HashMap;

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(u8),
    InsertIfAbsent(u8),
    Remove(u8),
    Contains(u8),
    Batch(Vec<u8>),
    RoundTrip,
}

#[derive(Arbitrary, Debug)]
struct Input {
    pick: Pick,
    shape: Shape,
    ops: Vec<Op>,
}

fn key(i: u8) -> [u8; 2] {
    [b'k', i]
}

/// A refusal must leave the filter as it was; only a full cuckoo table, a key held as often as
/// its buckets allow, and a scalable filter at its memory cap refuse here.
fn refused(f: &AnyFilter, before: &[u8], e: &Error) {
    assert!(
        matches!(
            e,
            Error::Full { .. } | Error::TooManyCopies { .. } | Error::MemoryCap { .. }
        ),
        "unexpected error {e}"
    );
    assert_eq!(f.to_bytes(), before, "a refused insert changed the filter");
}

/// An insert that succeeded: it added one copy (`len` grew by one), or, in a variant that adds
/// only absent keys (the scalable filter), found the key present and changed nothing.
fn inserted(f: &AnyFilter, before: (&[u8], u64, bool), model: &mut HashMap<u8, u32>, i: u8) {
    let (bytes, len, seen) = before;
    if f.len() == len + 1 {
        *model.entry(i).or_default() += 1;
        return;
    }
    assert_eq!(f.len(), len, "an insert changed len by more than one");
    assert!(seen, "an insert of an absent key added nothing");
    assert_eq!(
        f.to_bytes(),
        bytes,
        "an insert that added nothing changed the filter"
    );
}

fn step(f: &mut AnyFilter, model: &mut HashMap<u8, u32>, op: &Op) {
    match op {
        Op::Insert(i) => {
            let before = f.to_bytes();
            let (len, seen) = (f.len(), f.contains(&key(*i)));
            match f.insert(&key(*i)) {
                Ok(()) => inserted(f, (&before, len, seen), model, *i),
                Err(e) => refused(f, &before, &e),
            }
        }
        Op::InsertIfAbsent(i) => {
            let before = f.to_bytes();
            let seen = f.contains(&key(*i));
            match f.insert_if_absent(&key(*i)) {
                Ok(true) => {
                    assert!(!seen, "reported new but was present");
                    *model.entry(*i).or_default() += 1;
                }
                Ok(false) => {
                    assert!(seen, "reported present but was absent");
                    assert_eq!(f.to_bytes(), before, "a present key changed the filter");
                }
                Err(e) => refused(f, &before, &e),
            }
        }
        Op::Remove(i) => {
            let held = model.get(i).copied().unwrap_or(0);
            let present = f.contains(&key(*i));
            if held == 0 && present {
                return; // a false positive: removing it is a caller error the filter cannot see
            }
            let before = f.to_bytes();
            match f.remove(&key(*i)) {
                Ok(()) => {
                    assert!(held > 0, "removed a key the model does not hold");
                    model.insert(*i, held - 1);
                }
                Err(Error::Unsupported { .. }) => {
                    assert!(!f.capabilities().deletes, "a deletable variant refused");
                    assert_eq!(f.to_bytes(), before, "a refused removal changed the filter");
                }
                Err(e) => {
                    assert!(held == 0 && e == Error::NotPresent, "{e} with {held} held");
                    assert_eq!(f.to_bytes(), before, "a refused removal changed the filter");
                }
            }
        }
        Op::Contains(i) => {
            let _ = f.contains(&key(*i));
        }
        Op::Batch(ids) => {
            let keys: Vec<[u8; 2]> = ids.iter().map(|&i| key(i)).collect();
            let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
            // A batch stops at the first refusal: count the keys that went in one by one.
            for (id, k) in ids.iter().zip(&refs) {
                let before = f.to_bytes();
                let (len, seen) = (f.len(), f.contains(k));
                match f.insert_batch(std::slice::from_ref(k)) {
                    Ok(()) => inserted(f, (&before, len, seen), model, *id),
                    Err(e) => refused(f, &before, &e),
                }
            }
            let mut out = Vec::new();
            f.contains_batch(&refs, &mut out);
            let single: Vec<bool> = refs.iter().map(|k| f.contains(k)).collect();
            assert_eq!(out, single, "batch answers differ");
        }
        Op::RoundTrip => {
            let bytes = f.to_bytes();
            let copy = AnyFilter::from_bytes(&bytes).expect("own bytes must load");
            assert_eq!(copy.to_bytes(), bytes, "round trip changed the bytes");
            mapped::exercise(&bytes, Some(&copy));
            *f = copy;
        }
    }
}

fn check(f: &AnyFilter, model: &HashMap<u8, u32>) {
    let total: u64 = model.values().map(|&c| u64::from(c)).sum();
    assert_eq!(f.len(), total, "len disagrees with the model");
    for (&i, &c) in model.iter().filter(|(_, &c)| c > 0) {
        assert!(f.contains(&key(i)), "false negative for key {i}");
        if let Ok(n) = f.count_hash(f.hasher().hash(&key(i))) {
            assert!(n >= c, "count {n} below the {c} copies inserted");
        }
    }
    let p = f.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
}

fn run(mut f: AnyFilter, ops: &[Op]) {
    let mut model = HashMap::new();
    for op in ops.iter().take(512) {
        step(&mut f, &mut model, op);
        check(&f, &model);
    }
}

fuzz_target!(|input: Input| {
    let (s, v) = (input.shape, input.pick.variant());
    let caps = v.capabilities();
    if caps.static_set {
        // Built once from the keys of every insert-like op: the static model.
        ops_more::run_static(|k| common::build_static(v, s, k), &input.ops)
    } else if caps.timed {
        ops_more::run_time(common::build(v, s), u64::from(s.seed % 8), &input.ops)
    } else if caps.windowed {
        ops_more::run_window(common::build(v, s), &input.ops)
    } else {
        run(common::build(v, s), &input.ops)
    }
});
