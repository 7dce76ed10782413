//! Unit tests of the filter: the shared conformance checks, files, the builder and the memory
//! cap here; deletion (including after merges), the false-positive rate and space, and the
//! batch paths in the submodules.

use super::*;
use filter_core::testkit::{self, Op, SplitMix64 as Rng};
use filter_core::{format, FormatError, HashKind, Persist, Prefetch};
use std::collections::HashMap;

mod batch;
mod deletion;
mod rate;

fn small(capacity: u64, fpr: f64) -> ExpandableCuckoo {
    ExpandableCuckoo::builder()
        .capacity(capacity)
        .fpr(fpr)
        .build()
        .unwrap()
}

/// A filter whose fingerprints are short (5 bits in stage 0, one more per stage), so keys
/// collide across stages all the time: the case the deletion rule exists for.
fn colliding() -> ExpandableCuckoo {
    ExpandableCuckoo::builder()
        .capacity(8)
        .fpr(0.9)
        .tightening_period(1)
        .build()
        .unwrap()
}

#[test]
fn conformance_suite() {
    let mut f = small(300, 0.01);
    let keys = testkit::keys("conf", 2000);
    assert_eq!(testkit::check_no_false_negatives(&mut f, &keys), 2000);
    assert!(f.stages() > 1);
    let probes = testkit::keys("probe", 2000);
    testkit::check_round_trip(&f, &probes);
    testkit::check_rejects_bad_bytes(&f);
    assert!(testkit::check_decoder_validates(&f) > 0);
    let (mut a, mut b) = (small(100, 0.05), small(100, 0.05));
    let new = testkit::check_insert_if_absent(&mut a, &mut b, &testkit::keys("ifabsent", 800));
    assert!(new > 700, "{new}");
}

#[test]
fn damaged_files_are_refused() {
    let mut f = small(4, 0.05);
    for k in testkit::keys("dmg", 8) {
        f.insert(&k).unwrap();
    }
    let dir = std::env::temp_dir().join(format!("filter-expand-dmg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let loaded = testkit::check_damaged_files(&f, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(loaded, 0);
}

#[test]
fn deletable_against_the_testkit_model() {
    for seed in 1..=2u64 {
        let mut rng = Rng(seed);
        let ops: Vec<Op> = (0..1000)
            .map(|step| {
                let key = rng.below(20 + step / 20) as u16;
                if rng.below(10) < 6 {
                    Op::Insert(key)
                } else {
                    Op::Remove(key)
                }
            })
            .collect();
        testkit::check_deletable_against_model(&mut colliding(), &ops);
    }
}

#[test]
fn builder_rejects_bad_input() {
    let b = ExpandableCuckoo::builder;
    for g in [0, 1, 3, 6, 32] {
        assert!(matches!(
            b().growth(g).build(),
            Err(Error::InvalidParameter { name: "growth", .. })
        ));
    }
    for k in [0, 65] {
        assert!(matches!(
            b().tightening_period(k).build(),
            Err(Error::InvalidParameter {
                name: "tightening_period",
                ..
            })
        ));
    }
    for kicks in [0, MAX_KICKS + 1] {
        assert!(b().max_kicks(kicks).build().is_err());
    }
    for p in [0.0, 1.0, f64::NAN, 1e-30] {
        assert!(matches!(
            b().fpr(p).build(),
            Err(Error::InvalidParameter { name: "fpr", .. })
        ));
    }
    assert!(b().capacity(0).build().is_err());
    assert!(matches!(
        b().capacity(1 << 62).build(),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(b()
        .capacity(u64::MAX / 2)
        .max_bytes(1 << 20)
        .build()
        .is_err());
    let f = b().capacity(1).growth(16).fpr(0.5).build().unwrap();
    assert_eq!((f.growth(), f.stages()), (16, 1));
}

#[test]
fn growth_stops_at_the_memory_cap_and_changes_nothing() {
    let mut f = ExpandableCuckoo::builder()
        .capacity(100)
        .fpr(0.01)
        .max_bytes(400)
        .build()
        .unwrap();
    let keys = testkit::keys("cap", 1000);
    let stored = testkit::check_growth_stops_at_cap(&mut f, &keys, 400);
    // 27 buckets of 14-bit slots (197 bytes), then 54 buckets (386 bytes) exceed 400 bytes.
    assert_eq!(stored, 102);
    let bytes = f.to_bytes();
    assert!(matches!(
        ExpandableCuckoo::from_bytes_capped(&bytes, 100),
        Err(Error::MemoryCap { cap: 100, .. })
    ));
    let mut capped = ExpandableCuckoo::from_bytes_capped(&bytes, 400).unwrap();
    assert!(capped.insert(&keys[stored]).is_err());
    f.set_max_bytes(None);
    f.insert(&keys[stored]).unwrap();
    assert_eq!(f.stages(), 2);
}

/// Files with a valid checksum but impossible contents: each field changed and re-sealed.
#[test]
fn crafted_files_are_refused() {
    let mut f = small(10, 0.05);
    for k in testkit::keys("crafted", 60) {
        f.insert(&k).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(bytes[10], 13, "the header carries id 13");
    let stage_count_at = 24 + 8 + 8 + 4 + 4 + 4;
    let edits: [(usize, &[u8]); 8] = [
        (24, &(1u64 << 62).to_le_bytes()), // capacity: stages no longer the derived shape
        (32, &2.0f64.to_le_bytes()),       // fpr outside (0, 1)
        (40, &7u32.to_le_bytes()),         // growth 2^7
        (44, &0u32.to_le_bytes()),         // period 0
        (stage_count_at, &60u32.to_le_bytes()), // stages beyond the payload
        (stage_count_at, &300u32.to_le_bytes()), // more stages than a filter may have
        (stage_count_at + 4 + 8, &1u32.to_le_bytes()), // stage 0 at level 1
        (stage_count_at + 4 + 8 + 4, &u64::MAX.to_le_bytes()), // stage 0's item count
    ];
    for (at, value) in edits {
        let mut bad = bytes.clone();
        bad[at..at + value.len()].copy_from_slice(value);
        format::reseal(&mut bad);
        assert!(
            ExpandableCuckoo::from_bytes(&bad).is_err(),
            "edit at {at} accepted"
        );
    }
    // Stage 0's item count off by one: the occupied slots no longer match it.
    let len_at = stage_count_at + 4 + 8 + 4;
    let mut bad = bytes.clone();
    bad[len_at] ^= 1;
    format::reseal(&mut bad);
    assert!(matches!(
        ExpandableCuckoo::from_bytes(&bad),
        Err(FormatError::Invalid(_))
    ));
}
