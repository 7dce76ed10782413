//! Issue 16, defect 4: saturated counters, `len` and the file of every reachable state.

use filter_core::{format, Deletable, Error, Filter, FormatError, Persist};
use filter_counting::{CountingBloom, MAX_ITEMS};
use proptest::prelude::*;

fn small() -> CountingBloom {
    CountingBloom::builder()
        .capacity(50)
        .fpr(0.01)
        .build()
        .unwrap()
}

/// The sequence: A 20 times and B once, then A removed 21 times. The removals the
/// counters cannot account for are refused, `len` never drops below B's one item, B stays, and
/// the filter's own file loads.
// Before the fix every removal succeeded, `len` reached 0 and the file was refused.
#[test]
fn removals_past_saturation_never_drop_len_below_what_the_counters_hold() {
    let mut f = small();
    (0..20).for_each(|_| f.insert(b"A").unwrap());
    f.insert(b"B").unwrap();
    for i in 0..20 {
        f.remove(b"A")
            .unwrap_or_else(|e| panic!("removal {i}: {e}"));
        CountingBloom::from_bytes(&f.to_bytes()).expect("every reachable state loads");
    }
    assert_eq!(f.remove(b"A"), Err(Error::NotPresent), "the 21st removal");
    assert_eq!(f.len(), 1, "B is still there");
    assert!(f.contains(b"B"));
    assert!(f.contains(b"A"), "saturated counters must stay saturated");
    f.remove(b"B").unwrap();
}

/// A file whose counters saturated accepts any `len` above the counters' sum / k, so `len` must
/// be bounded on its own: `u64::MAX` is refused (the next insert used to overflow).
#[test]
fn a_crafted_huge_len_is_refused() {
    let mut f = small();
    (0..20).for_each(|_| f.insert(b"A").unwrap());
    let mut bytes = f.to_bytes();
    // len follows m (8 bytes) and k (4 bytes) in the parameters, which start at byte 24.
    assert_eq!(bytes[36..44], 20u64.to_le_bytes());
    for (len, ok) in [(MAX_ITEMS, true), (MAX_ITEMS + 1, false), (u64::MAX, false)] {
        bytes[36..44].copy_from_slice(&len.to_le_bytes());
        format::reseal(&mut bytes);
        match CountingBloom::from_bytes(&bytes) {
            Ok(mut g) => {
                assert!(ok, "len {len} loaded");
                assert_eq!(g.len(), MAX_ITEMS);
                assert_eq!(
                    g.insert(b"one more"),
                    Err(Error::TooManyItems { limit: MAX_ITEMS })
                );
                assert_eq!(g.len(), MAX_ITEMS, "a refused insert changes nothing");
            }
            Err(e) => assert!(
                !ok && matches!(e, FormatError::Invalid(_)),
                "len {len}: {e}"
            ),
        }
    }
}

#[test]
fn unions_past_the_item_limit_are_refused() {
    let mut f = small();
    (0..20).for_each(|_| f.insert(b"A").unwrap());
    let mut bytes = f.to_bytes();
    bytes[36..44].copy_from_slice(&MAX_ITEMS.to_le_bytes());
    format::reseal(&mut bytes);
    let big = CountingBloom::from_bytes(&bytes).unwrap();
    let before = f.clone();
    assert!(matches!(f.union(&big), Err(Error::Incompatible(_))));
    assert_eq!(f, before);
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u8),
    Remove(u8),
    Union(Vec<u8>),
}

/// Key 0 is hot (inserted and removed most: its counters saturate, and it is removed more
/// often than inserted), keys 1 and 2 cold, key 3 never inserted.
fn key() -> impl Strategy<Value = u8> {
    prop_oneof![6 => Just(0u8), 1 => 1u8..3]
}

fn op(insert: u32, remove: u32) -> impl Strategy<Value = Op> {
    prop_oneof![
        insert => key().prop_map(Op::Insert),
        remove => prop_oneof![20 => Just(0u8), 1 => 1u8..3, 1 => Just(3u8)].prop_map(Op::Remove),
        1 => proptest::collection::vec(key(), 0..20).prop_map(Op::Union),
    ]
}

/// A filling phase (mostly inserts: counters saturate), then a draining one (mostly removals:
/// keys are removed more often than they were inserted).
fn ops() -> impl Strategy<Value = Vec<Op>> {
    let fill = proptest::collection::vec(op(6, 1), 0..80);
    let drain = proptest::collection::vec(op(1, 6), 0..120);
    (fill, drain).prop_map(|(mut a, b)| {
        a.extend(b);
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Few keys in a tiny filter, so counters saturate, keys share counters and are removed
    /// more often than inserted (a removal the filter cannot refuse): whatever the
    /// sequence, the filter saves and loads to an equal filter, `len` never underflows, and a
    /// key inserted more often than removed (by accepted removals) is never lost.
    #[test]
    fn every_reachable_state_saves_and_loads(ops in ops()) {
        let mut f = CountingBloom::builder().capacity(4).fpr(0.1).build().unwrap();
        let mut net = [0i64; 4];
        for op in ops {
            match op {
                Op::Insert(k) => {
                    f.insert(&[k]).unwrap();
                    net[k as usize] += 1;
                }
                Op::Remove(k) => {
                    let len = f.len();
                    match f.remove(&[k]) {
                        Ok(()) => {
                            prop_assert_eq!(f.len(), len - 1);
                            net[k as usize] -= 1;
                        }
                        Err(Error::NotPresent) => prop_assert_eq!(f.len(), len),
                        Err(e) => panic!("{e}"),
                    }
                }
                Op::Union(keys) => {
                    let mut other = CountingBloom::builder().capacity(4).fpr(0.1).build().unwrap();
                    for &k in &keys {
                        other.insert(&[k]).unwrap();
                        net[k as usize] += 1;
                    }
                    f.union(&other).unwrap();
                }
            }
            let back = CountingBloom::from_bytes(&f.to_bytes());
            prop_assert!(back.is_ok(), "{:?}", back);
            prop_assert_eq!(back.unwrap(), f.clone());
            for (k, &n) in net.iter().enumerate() {
                // Removals of keys never inserted may be accepted (false positives) and are
                // the caller's error; only keys whose accepted removals stay below their
                // inserts are promised.
                if n > 0 && net.iter().all(|&c| c >= 0) {
                    prop_assert!(f.contains(&[k as u8]), "key {} lost", k);
                }
            }
        }
    }
}
