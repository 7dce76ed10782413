use super::*;
use filter_core::{testkit, HashKind, Persist};

mod model;

fn hasher() -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, 7).unwrap()
}

fn key(i: u64) -> Vec<u8> {
    format!("aleph-key-{i}").into_bytes()
}

#[test]
fn grows_from_a_hundred_keys_to_two_hundred_thousand_without_a_false_negative() {
    let mut f = AlephFilter::builder()
        .capacity(100)
        .fpr(0.01)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..200_000 {
        f.insert(&key(i)).unwrap();
    }
    assert!(f.expansions() >= 10, "{} doublings", f.expansions());
    assert_eq!(f.len(), 200_000);
    assert!((0..200_000).all(|i| f.contains(&key(i))));
    // The rate the formula gives, within 4 binomial sigmas, and under the target.
    let expected = f.expected_fpr();
    assert!(expected <= 0.01 && f.fpr_bound() <= 0.01, "{expected}");
    testkit::assert_others_fpr("aleph", &f, 400_000, expected);
}

#[test]
fn an_estimate_makes_the_final_table_a_static_ones_plus_a_marker_bit() {
    let n = 300_000;
    let f0 = AlephFilter::builder().capacity(1000).fpr(0.01).max_n(n);
    let mut f = f0.hasher(hasher()).build().unwrap();
    for i in 0..n {
        f.insert(&key(i)).unwrap();
    }
    // ⌊log2(300)⌋ = 8 doublings, and the table holds the estimate at 95% or a little less.
    assert_eq!(f.expansions(), 8);
    assert_eq!(f.slot_width(), math::estimated_bits(0.01) + 1);
    assert_eq!(f.void_entries(), 0);
    let load = n as f64 / f.quotients() as f64;
    assert!(load > 0.94 && load <= 0.95, "{load}");
    let q = filter_quotient::QuotientFilter::builder()
        .capacity(n)
        .fpr(0.01)
        .build()
        .unwrap();
    let ratio = f.size_in_bytes() as f64 / q.size_in_bytes() as f64;
    assert!(ratio < 1.15, "{ratio}");
    testkit::assert_others_fpr("aleph with an estimate", &f, 400_000, f.expected_fpr());
}

#[test]
fn a_key_inserted_before_doublings_is_deleted_after_them() {
    let mut f = AlephFilter::builder()
        .capacity(64)
        .fpr(0.2)
        .hasher(hasher())
        .build()
        .unwrap();
    f.insert(b"early").unwrap();
    for i in 0..20_000 {
        f.insert(&key(i)).unwrap();
    }
    assert!(f.expansions() >= 8);
    // At 20% the first generation has 3 bits: it is void by now, and copied.
    assert!(f.void_entries() > 0, "no void entries");
    f.remove(b"early").unwrap();
    assert!((0..20_000).all(|i| f.contains(&key(i))));
    assert_eq!(f.len(), 20_000);
}

#[test]
fn saved_and_loaded_it_answers_the_same_and_damage_is_refused() {
    let mut f = AlephFilter::builder()
        .capacity(64)
        .fpr(0.2)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..5_000 {
        f.insert(&key(i)).unwrap();
    }
    assert!(f.void_entries() > 0);
    let probes: Vec<Vec<u8>> = (0..20_000).map(key).collect();
    testkit::check_round_trip(&f, &probes);
    testkit::check_rejects_bad_bytes(&f);
    assert!(testkit::check_decoder_validates(&f) > 0);
    let back = AlephFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(back, f);
}

#[test]
fn a_file_whose_void_groups_disagree_with_its_table_is_refused() {
    let mut f = AlephFilter::builder()
        .capacity(64)
        .fpr(0.2)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..5_000 {
        f.insert(&key(i)).unwrap();
    }
    let (level, origin, _) = f.voids.iter().next().unwrap();
    let mut bad = f.clone();
    bad.voids.take(level, origin);
    let err = AlephFilter::from_bytes(&bad.to_bytes()).unwrap_err();
    assert!(err.to_string().contains("void"), "{err}");
    let mut extra = f.clone();
    extra.voids.add(level, origin);
    assert!(AlephFilter::from_bytes(&extra.to_bytes()).is_err());
}

#[test]
fn bad_parameters_are_refused() {
    assert!(AlephFilter::builder().capacity(0).build().is_err());
    assert!(AlephFilter::builder().fpr(1.0).build().is_err());
    assert!(AlephFilter::builder().fpr(f64::NAN).build().is_err());
    assert!(AlephFilter::builder()
        .capacity(1)
        .max_n(u64::MAX)
        .build()
        .is_err());
    assert!(AlephFilter::builder().capacity(1 << 40).build().is_err());
}

#[test]
fn growth_stops_at_the_memory_cap_and_changes_nothing() {
    let mut f = AlephFilter::builder()
        .capacity(100)
        .fpr(0.01)
        .hasher(hasher())
        .max_bytes(16 * 1024)
        .build()
        .unwrap();
    let keys: Vec<Vec<u8>> = (0..20_000).map(key).collect();
    let held = testkit::check_growth_stops_at_cap(&mut f, &keys, 16 * 1024);
    assert!(held > 1000, "{held}");
}

/// Batched lookups (prefetching later keys' blocks) answer as lookups one by one, before and
/// after doublings, for members and others.
#[test]
fn batched_lookups_answer_as_single_ones() {
    let mut f = AlephFilter::builder()
        .capacity(1_000)
        .fpr(0.01)
        .hasher(hasher())
        .build()
        .unwrap();
    let probes: Vec<Hash128> = (0..40_000).map(|i| f.hasher().hash(&key(i))).collect();
    let mut answers = Vec::new();
    for i in 0..20_000 {
        f.insert(&key(i)).unwrap();
        if i % 5_000 == 0 || i == 19_999 {
            f.contains_hash_batch(&probes, &mut answers);
            let singles: Vec<bool> = probes.iter().map(|&h| f.contains_hash(h)).collect();
            assert_eq!(answers, singles, "after {i} keys");
        }
    }
    assert!(f.expansions() >= 4 && answers[..20_000].iter().all(|&a| a));
}
