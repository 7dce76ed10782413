use super::*;
use filter_core::testkit;
use filter_core::{format, Error, FormatError, Persist};

#[test]
fn builder_rejects_bad_growth_and_tightening() {
    for s in [0.5, 1.0, 1.000_001, 1.05, f64::NAN, f64::INFINITY, 2000.0] {
        assert!(matches!(
            ScalableBloom::builder().growth(s).build(),
            Err(Error::InvalidParameter { name: "growth", .. })
        ));
    }
    for r in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            ScalableBloom::builder().tightening(r).build(),
            Err(Error::InvalidParameter {
                name: "tightening",
                ..
            })
        ));
    }
    assert!(ScalableBloom::builder().capacity(0).build().is_err());
}

#[test]
fn stages_grow_and_tighten_as_specified() {
    let mut f = ScalableBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    // Keys the filter reports present (false positives) are not added: feed keys until
    // 100 + 200 + 400 + 1 were.
    let mut keys = testkit::keys("g", 2_000).into_iter();
    while f.len() < 100 + 200 + 400 + 1 {
        f.insert(&keys.next().unwrap()).unwrap();
    }
    let shapes = f.stage_shapes();
    assert_eq!(shapes.len(), 4);
    let caps: Vec<u64> = shapes.iter().map(|s| s.2).collect();
    assert_eq!(caps, [100, 200, 400, 800]);
    assert_eq!(shapes[3].3, 1);
    // Stage 0 at P0 = 0.001, sized as the classic filter: the textbook m = 1438 misses 0.001
    // at 100 keys, so the exact rule adds bits.
    assert_eq!(
        (shapes[0].0, shapes[0].1),
        math::classic_shape(100, 0.001).unwrap()
    );
    assert!(shapes[0].0 > math::optimal_bits(100, 0.001).unwrap());
    assert_eq!(f.capacity(), 1500);
    assert_eq!(f.fpr_bound(), 0.01 * (1.0 - 0.9) / (1.0 - 0.9));
}

#[test]
fn compound_rate_stays_under_the_target_through_growth() {
    let mut f = ScalableBloom::builder()
        .capacity(50)
        .fpr(0.02)
        .build()
        .unwrap();
    for (i, k) in testkit::keys("h", 20_000).iter().enumerate() {
        f.insert(k).unwrap();
        if i % 997 == 0 {
            assert!(f.expected_fpr() <= 0.02, "at {i}: {}", f.expected_fpr());
        }
    }
}

#[test]
fn corrupted_stage_shapes_are_rejected() {
    let mut f = ScalableBloom::builder().capacity(10).build().unwrap();
    for k in testkit::keys("c", 25) {
        f.insert(&k).unwrap();
    }
    // Version 1's layout: the payload right after its length.
    let bytes = format::layout::to_version_1(&f.to_bytes()).unwrap();
    // Change stage 0's item count (first payload field) and reseal the checksum.
    let params_len = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let at = 24 + params_len + 8;
    let mut bad = bytes.clone();
    bad[at] ^= 1;
    let body = bad.len() - 8;
    let sum = format::checksum(&bad[..body]);
    bad[body..].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        ScalableBloom::from_bytes(&bad),
        Err(FormatError::Invalid(_))
    ));
}

/// Issue 9: a saved 1,000-key filter (1,896 bytes) whose capacity field was changed and its
/// public checksum recomputed made the loader allocate each claimed stage (1.8 PB) before
/// comparing shapes, and abort. Shapes are now compared arithmetically.
#[test]
fn crafted_capacity_is_refused_without_allocating() {
    let mut f = ScalableBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build()
        .unwrap();
    for k in testkit::keys("crafted", 1000) {
        f.insert(&k).unwrap();
    }
    // The file of the issue, version 1's layout.
    let bytes = format::layout::to_version_1(&f.to_bytes()).unwrap();
    assert_eq!(bytes.len(), 1896);
    for capacity in [1_000_000_000_000_000u64, 1 << 62, 999, 1001] {
        let mut bad = bytes.clone();
        bad[24..32].copy_from_slice(&capacity.to_le_bytes());
        format::reseal(&mut bad);
        assert!(
            matches!(
                ScalableBloom::from_bytes(&bad),
                Err(FormatError::Invalid(_))
            ),
            "capacity {capacity}"
        );
    }
}

#[test]
fn growth_stops_at_the_memory_cap_and_loses_nothing() {
    let mut f = ScalableBloom::builder()
        .capacity(100)
        .max_bytes(1000)
        .build()
        .unwrap();
    let keys = testkit::keys("cap", 1000);
    let stored = testkit::check_growth_stops_at_cap(&mut f, &keys, 1000);
    // Stages of 100 and 200 items fit in 1000 bytes; the third (400 items) does not.
    assert_eq!(stored, 300);
    assert!(f.size_in_bytes() <= 1000);
    // Loaded under the same cap, the filter still refuses the third stage; under a lower cap
    // than its stages take, it is refused; loaded without a cap it grows.
    let bytes = filter_core::Persist::to_bytes(&f);
    let mut capped = ScalableBloom::from_bytes_capped(&bytes, 1000).unwrap();
    assert!(matches!(
        capped.insert(&keys[stored]),
        Err(Error::MemoryCap { cap: 1000, .. })
    ));
    assert!(matches!(
        ScalableBloom::from_bytes_capped(&bytes, 100),
        Err(Error::MemoryCap { cap: 100, .. })
    ));
    f.set_max_bytes(None);
    f.insert(&keys[stored]).unwrap();
    assert!(ScalableBloom::builder()
        .capacity(1_000_000)
        .max_bytes(1000)
        .build()
        .is_err());
}

#[test]
fn every_accepted_growth_keeps_the_growable_promise() {
    // Accepted: the stages reach the address limit before the stage count runs out.
    for (s, r) in [(2.0, 0.9), (1.25, 0.9), (4.0, 0.5), (1024.0, 0.99)] {
        let f = ScalableBloom::builder()
            .capacity(1)
            .growth(s)
            .tightening(r)
            .build();
        assert!(f.is_ok(), "s = {s}, r = {r}");
    }
    // Refused: 256 stages of these hold far less than memory could.
    for (s, r) in [(1.0, 0.9), (1.01, 0.9), (2.0, 1e-300)] {
        let f = ScalableBloom::builder()
            .capacity(1)
            .growth(s)
            .tightening(r)
            .build();
        assert!(
            matches!(f, Err(Error::InvalidParameter { name: "growth", .. })),
            "s = {s}, r = {r}"
        );
    }
}

/// Issue 51: stages were sized by the textbook m and missed their own rate (0.100103% for a
/// 0.1% stage). Each stage now meets its rate exactly, as the classic filter does.
#[test]
fn every_stage_meets_its_own_rate() {
    for (n, p) in [
        (100, 0.01),
        (1_000, 0.001),
        (10_000, 0.01),
        (1_000_000, 0.001),
    ] {
        let f = ScalableBloom::builder().capacity(n).fpr(p).build().unwrap();
        for i in 0..12 {
            let plan = f.stage_plan(i).unwrap();
            let rate = math::classic_fpr_best(plan.m, plan.capacity, plan.k);
            assert!(
                rate <= plan.fpr,
                "n {n}, p {p}, stage {i}: {rate} > {}",
                plan.fpr
            );
        }
    }
}

/// The paper's insert: a key the filter already reports present is not added again, so
/// repeats fill no stage (1M events from 10k users cost 72x the memory before).
#[test]
fn repeated_keys_fill_no_stage() {
    let build = || {
        ScalableBloom::builder()
            .capacity(1_000)
            .fpr(0.01)
            .build()
            .unwrap()
    };
    let users = testkit::keys("user", 5_000);
    let mut once = build();
    for u in &users {
        once.insert(u).unwrap();
    }
    let mut events = build();
    for _round in 0..20 {
        for u in &users {
            events.insert(u).unwrap();
        }
    }
    assert_eq!(
        events, once,
        "20 events per user built another filter than one"
    );
    assert!(once.len() <= 5_000);
    let mut again = build();
    assert!(again.insert_if_absent(b"k").unwrap());
    let snapshot = again.clone();
    for _ in 0..1_000 {
        again.insert(b"k").unwrap();
        assert!(!again.insert_if_absent(b"k").unwrap());
    }
    assert_eq!(again, snapshot);
    assert_eq!(again.len(), 1);
}

/// A file saved before the exact rule (textbook stages) still loads, saves back byte for byte
/// and grows by its own rule; a file whose stage breaks its first stage's rule is refused.
#[test]
fn textbook_files_load_and_keep_their_rule() {
    let mut f = ScalableBloom::builder()
        .capacity(100)
        .fpr(0.001)
        .build()
        .unwrap();
    f.sizing_rule = StageSizing::Textbook;
    f.stages = vec![f.new_stage(0).unwrap()];
    let mut keys = testkit::keys("t", 5_000).into_iter();
    while f.stages() < 3 {
        f.insert(&keys.next().unwrap()).unwrap();
    }
    assert_eq!(
        f.stage_shapes()[0].0,
        math::optimal_bits(100, 0.0001).unwrap()
    );
    let bytes = f.to_bytes();
    let loaded = ScalableBloom::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.stage_sizing(), StageSizing::Textbook);
    assert_eq!(loaded.to_bytes(), bytes);
    let mut grown = loaded.clone();
    while grown.stages() < 4 {
        grown.insert(&keys.next().unwrap()).unwrap();
    }
    assert_eq!(
        grown.stage_shapes()[3].0,
        math::optimal_bits(800, grown.stage_plan(3).unwrap().fpr).unwrap()
    );
    // A textbook first stage followed by an exact one: no rule gives that file.
    let mut mixed = f.clone();
    mixed.sizing_rule = StageSizing::Exact;
    mixed.stages[1] = mixed.new_stage(1).unwrap();
    mixed.stages[1].len = mixed.stages[1].capacity;
    mixed.len = mixed.stages.iter().map(|s| s.len).sum();
    assert!(matches!(
        ScalableBloom::from_bytes(&mixed.to_bytes()),
        Err(FormatError::Invalid(_))
    ));
}
