//! The batch methods against the single-key ones, on a small filter and on one large enough
//! to take the prefetching pipeline.

use super::*;

/// The batch methods (prefetching the large stages) answer as the single-key ones do.
#[test]
fn batches_agree_with_single_keys() {
    let mut batched = small(40_000, 0.01);
    let mut single = batched.clone();
    let members = testkit::keys("batch", 60_000);
    let refs: Vec<&[u8]> = members.iter().map(Vec::as_slice).collect();
    batched.insert_batch(&refs).unwrap();
    for k in &members {
        single.insert(k).unwrap();
    }
    assert_eq!(batched, single);
    assert!(batched.stages() == 2 && batched.lines_per_key() == 4);
    let probes = testkit::keys("batch-probe", 20_000);
    let mixed: Vec<&[u8]> = probes
        .iter()
        .chain(&members[..20_000])
        .map(Vec::as_slice)
        .collect();
    let mut out = Vec::new();
    batched.contains_batch(&mixed, &mut out);
    let want: Vec<bool> = mixed.iter().map(|k| single.contains(k)).collect();
    assert_eq!(out, want);
    assert!(out[20_000..].iter().all(|&b| b));
}

/// The batch lookup's own pipeline (places computed once, kept in a ring, prefetched ahead) is
/// taken by a filter above the prefetch threshold, grown through many stages, and answers as
/// single lookups do, before and after deleting most of the keys of the oldest stages.
#[test]
fn pipelined_batches_agree_with_single_keys_on_a_large_filter() {
    // Long fingerprints, so that a few stages pass the threshold of a multi-line filter.
    let mut f = small(1_000, 1e-10);
    let members = testkit::keys("pipelined", 650_000);
    let refs: Vec<&[u8]> = members.iter().map(Vec::as_slice).collect();
    f.insert_batch(&refs).unwrap();
    let bytes = f.size_in_bytes();
    assert!(
        filter_core::worth_prefetching(bytes, f.lines_per_key()),
        "{bytes}"
    );
    assert!(f.stages() >= 9 && f.lines_per_key() >= 4, "{}", f.stages());
    let probes = testkit::keys("pipelined-probe", 30_000);
    let mixed: Vec<&[u8]> = probes
        .iter()
        .chain(members.iter().step_by(14))
        .map(Vec::as_slice)
        .collect();
    let (ahead, stage_bytes) = f.batch_plan();
    assert!(
        (2..=filter_core::PREFETCH_AHEAD).contains(&ahead),
        "{ahead}"
    );
    assert!(stage_bytes > 1 << 16, "{stage_bytes}");
    let mut out = Vec::new();
    for round in 0..2 {
        f.contains_batch(&mixed, &mut out);
        let want: Vec<bool> = mixed.iter().map(|k| f.contains(k)).collect();
        assert_eq!(out, want, "round {round}");
        every_pipeline_agrees(&f, &mixed, &want);
        let kept = |i: usize| round == 0 || i * 14 >= 30_000;
        let members_out = &out[probes.len()..];
        assert!((0..members_out.len()).all(|i| members_out[i] || !kept(i)));
        for k in members[..30_000].iter().step_by(2).filter(|_| round == 0) {
            f.remove(k).unwrap();
        }
    }
    assert!(out[probes.len()..].iter().filter(|&&b| !b).count() > 0);
}

/// Every depth (none, one, a few, the old fixed 16, past the clamp) and stage threshold
/// (every stage, the default, none) of the explicit pipeline answers as single lookups do (every
/// 8th key), in whole and in short batches (fewer keys than the depth).
fn every_pipeline_agrees(f: &ExpandableCuckoo, keys: &[&[u8]], want: &[bool]) {
    let hashes: Vec<Hash128> = keys.iter().step_by(8).map(|k| f.hasher().hash(k)).collect();
    let want: Vec<bool> = want.iter().step_by(8).copied().collect();
    let mut out = Vec::new();
    let default_bytes = f.batch_plan().1;
    for ahead in [0, 1, 3, 16, 1_000] {
        for bytes in [0, default_bytes, usize::MAX] {
            f.contains_hash_batch_ahead(&hashes, &mut out, ahead, bytes);
            assert_eq!(out, want, "ahead {ahead}, stage bytes {bytes}");
            for (chunk, w) in hashes.chunks(5).zip(want.chunks(5)).take(50) {
                f.contains_hash_batch_ahead(chunk, &mut out, ahead, bytes);
                assert_eq!(out, w, "ahead {ahead}, stage bytes {bytes}, short batch");
            }
        }
    }
    f.contains_hash_batch_ahead(&[], &mut out, 4, 0);
    assert!(out.is_empty());
}
