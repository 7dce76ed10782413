use super::*;
use filter_core::testkit;
use filter_core::{format, Persist};

#[test]
fn every_key_sets_exactly_one_bit_per_lane() {
    for key in [0u32, 1, 0xdead_beef, u32::MAX] {
        assert!(kernel::masks(key).iter().all(|m| m.count_ones() == 1));
    }
    let mut f = BlockedBloom::builder().capacity(100).build().unwrap();
    f.insert(b"x").unwrap();
    let set: u32 = f.blocks.iter().flat_map(|b| b.0).map(u32::count_ones).sum();
    assert_eq!(set, 8);
}

#[test]
fn sizing_meets_the_target() {
    for p in [0.01, 0.001, 0.0001] {
        let f = BlockedBloom::builder()
            .capacity(1_000_000)
            .fpr(p)
            .build()
            .unwrap();
        let at_capacity = math::split_block_fpr(f.blocks(), 1_000_000);
        assert!(at_capacity <= p * 1.0001, "{p}: {at_capacity}");
        assert!(at_capacity >= p * 0.99, "{p}: oversized, {at_capacity}");
    }
}

#[test]
fn batch_answers_equal_single_answers() {
    // Smaller under Miri, which interprets every hash.
    let n = if cfg!(miri) { 200 } else { 5000 };
    let mut f = BlockedBloom::builder().capacity(5000).build().unwrap();
    let keys = testkit::keys("b", n);
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    f.insert_batch(&refs[..n / 2]).unwrap();
    let mut out = Vec::new();
    f.contains_batch(&refs, &mut out);
    let single: Vec<bool> = refs.iter().map(|k| f.contains(k)).collect();
    assert_eq!(out, single);
    assert!(out[..n / 2].iter().all(|&b| b));
}

#[test]
fn union_of_incompatible_filters_is_refused() {
    let mut a = BlockedBloom::builder().capacity(100).build().unwrap();
    let b = BlockedBloom::builder().capacity(100_000).build().unwrap();
    assert!(matches!(a.union(&b), Err(Error::Incompatible(_))));
}

#[test]
fn unreachable_targets_are_refused_not_missed() {
    // Below ~1e-15 the sizing search used to stop at its bound and build a filter that
    // silently missed the target.
    assert!(matches!(
        BlockedBloom::builder().capacity(1000).fpr(1e-18).build(),
        Err(Error::InvalidParameter { name: "fpr", .. })
    ));
    let f = BlockedBloom::builder()
        .capacity(1000)
        .fpr(1e-12)
        .build()
        .unwrap();
    assert!(math::split_block_fpr(f.blocks(), 1000) <= 1e-12);
}

/// Issue 16, defect 6: the loader refuses a rate the builder refuses, with its message.
#[test]
fn the_loader_refuses_a_rate_the_builder_refuses() {
    let mut bytes = BlockedBloom::builder()
        .capacity(1000)
        .build()
        .unwrap()
        .to_bytes();
    // The rate follows blocks, len and capacity (8 bytes each) in the parameters.
    assert_eq!(bytes[48..56], 0.01f64.to_le_bytes());
    bytes[48..56].copy_from_slice(&1e-300f64.to_le_bytes());
    format::reseal(&mut bytes);
    let built = BlockedBloom::builder().capacity(1000).fpr(1e-300).build();
    assert_eq!(
        BlockedBloom::from_bytes(&bytes).unwrap_err(),
        FormatError::Invalid(built.unwrap_err().to_string())
    );
}

#[test]
fn a_huge_loaded_len_is_answered_in_bounded_time() {
    let mut f = BlockedBloom::builder().capacity(1000).build().unwrap();
    f.insert(b"x").unwrap();
    let mut bytes = f.to_bytes();
    // len follows the block count (8 bytes) in the parameters (from byte 24).
    bytes[32..40].copy_from_slice(&u64::MAX.to_le_bytes());
    format::reseal(&mut bytes);
    let mut loaded = BlockedBloom::from_bytes(&bytes).unwrap();
    // Issue 16: the next insert neither panics (debug) nor wraps to 0 (release).
    loaded.insert(b"y").unwrap();
    assert_eq!(loaded.len(), u64::MAX);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(loaded.expected_fpr()));
    let p = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("expected_fpr did not return");
    assert!(p > 0.999 && p <= 1.0, "{p}");
    // And a len below the set bits is an altered file.
    bytes[32..40].copy_from_slice(&0u64.to_le_bytes());
    format::reseal(&mut bytes);
    assert!(matches!(
        BlockedBloom::from_bytes(&bytes),
        Err(FormatError::Invalid(_))
    ));
}

#[test]
fn sizes_beyond_memory_are_errors_not_aborts() {
    assert!(matches!(
        BlockedBloom::builder().capacity(1 << 60).fpr(0.5).build(),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(
        BlockedBloom::builder()
            .capacity(100_000)
            .max_bytes(1000)
            .build(),
        Err(Error::MemoryCap { .. })
    ));
}
