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
    let mut out = Vec::new();
    for round in 0..2 {
        f.contains_batch(&mixed, &mut out);
        let want: Vec<bool> = mixed.iter().map(|k| f.contains(k)).collect();
        assert_eq!(out, want, "round {round}");
        let kept = |i: usize| round == 0 || i * 14 >= 30_000;
        let members_out = &out[probes.len()..];
        assert!((0..members_out.len()).all(|i| members_out[i] || !kept(i)));
        for k in members[..30_000].iter().step_by(2).filter(|_| round == 0) {
            f.remove(k).unwrap();
        }
    }
    assert!(out[probes.len()..].iter().filter(|&&b| !b).count() > 0);
}
