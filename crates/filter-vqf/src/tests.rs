use super::builder::TYPICAL_FAILURE_LOAD;
use super::*;
use filter_core::testkit::{self, Op};
use filter_core::{HashKind, KeyHasher, Persist};

fn filter(capacity: u64, seed: u64) -> VectorQuotient {
    let hasher = KeyHasher::new(HashKind::Xxh3_128, seed).unwrap();
    VectorQuotient::builder()
        .capacity(capacity)
        .hasher(hasher)
        .build()
        .unwrap()
}

/// Inserts distinct keys until one is refused: the load then.
fn failure_load(f: &mut VectorQuotient, tag: &str) -> f64 {
    let mut i = 0u64;
    while f.insert(format!("{tag}-{i}").as_bytes()).is_ok() {
        i += 1;
    }
    f.load_factor()
}

#[test]
fn holds_its_capacity_with_no_false_negative() {
    for (capacity, seed) in [(1, 1), (47, 2), (48, 3), (49, 4), (500, 5), (20_000, 6)] {
        let mut f = filter(capacity, seed);
        let keys = testkit::keys("member", capacity as usize);
        assert_eq!(testkit::check_no_false_negatives(&mut f, &keys), keys.len());
        assert_eq!(f.len(), capacity);
    }
}

#[test]
fn small_tables_hold_their_capacity() {
    // Every capacity up to 1,500, ten key sets each: no refused insert below capacity.
    for capacity in (1..1_500u64).step_by(7) {
        for seed in 0..10 {
            let mut f = filter(capacity, seed);
            for i in 0..capacity {
                f.insert(format!("s{seed}-{i}").as_bytes())
                    .unwrap_or_else(|e| panic!("capacity {capacity}, seed {seed}, key {i}: {e}"));
            }
        }
    }
}

#[test]
fn large_tables_refuse_their_first_insert_near_the_typical_load() {
    let mut loads: Vec<f64> = (0..5)
        .map(|seed| failure_load(&mut filter(200_000, seed), "fail"))
        .collect();
    loads.sort_by(f64::total_cmp);
    // The design load leaves room; the median sits near the constant the sizing uses.
    assert!(loads[0] > DESIGN_LOAD + 0.04, "{loads:?}");
    assert!((loads[2] - TYPICAL_FAILURE_LOAD).abs() < 0.001, "{loads:?}");
}

#[test]
fn a_refused_insert_changes_nothing() {
    for seed in [9, 10] {
        let mut f = filter(2_000, seed);
        let stored = testkit::check_failed_insert_changes_nothing(&mut f, "full", 10_000);
        assert!(stored.is_some_and(|n| n >= 2_000), "{stored:?}");
    }
}

#[test]
fn false_positive_rate_matches_the_formula() {
    for (load, seed) in [(0.5, 11), (0.9, 12)] {
        let mut f = filter(40_000, seed);
        let n = (load * (f.block_count() * 48) as f64) as u64;
        testkit::insert_members(&mut f, n).unwrap();
        let theory = math::vqf::vqf_fpr(f.load_factor(), f.overflow_share());
        assert!((f.expected_fpr() - theory).abs() < 1e-15);
        testkit::assert_others_fpr("vqf", &f, 1_000_000, theory);
        assert!(theory <= math::vqf::vqf_fpr_bound(f.load_factor()));
    }
}

#[test]
fn most_negative_lookups_read_one_block_and_the_model_says_how_many() {
    let mut f = filter(400_000, 13);
    let n = (0.9 * (f.block_count() * 48) as f64) as u64;
    testkit::insert_members(&mut f, n).unwrap();
    let measured = f.overflow_share();
    let floor = math::vqf::vqf_overflow_share_floor(f.load_factor());
    let random = math::vqf::vqf_overflow_share(f.load_factor());
    assert!(measured < 0.05, "{measured}");
    assert!(
        floor <= measured && measured <= random,
        "{floor} {measured} {random}"
    );
}

#[test]
fn deletes_and_counts_against_a_model() {
    let mut s = 0x1234_5678_9abc_def1u64;
    for capacity in [40, 300, 3_000] {
        let mut f = filter(capacity, capacity);
        let ops: Vec<Op> = (0..6_000)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let key = (s % (capacity + capacity / 3)) as u16;
                if s >> 60 < 9 {
                    Op::Insert(key)
                } else {
                    Op::Remove(key)
                }
            })
            .collect();
        testkit::check_deletable_against_model(&mut f, &ops);
    }
}

#[test]
fn deleting_a_tenth_after_a_full_table_loses_no_key() {
    let mut f = filter(100_000, 21);
    let keys = testkit::keys("member", 100_000);
    for k in &keys {
        f.insert(k).unwrap();
    }
    for k in keys.iter().step_by(10) {
        f.remove(k).unwrap();
    }
    let kept: Vec<Vec<u8>> = keys
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 10 != 0)
        .map(|(_, k)| k.clone())
        .collect();
    assert_eq!(f.len(), 90_000);
    assert!(kept.iter().all(|k| f.contains(k)));
    // And a table filled to its last slot, then a tenth deleted.
    let mut full = filter(10_000, 22);
    let all = testkit::keys("all", 20_000);
    let stored = testkit::check_no_false_negatives(&mut full, &all);
    assert!(full.load_factor() > 0.99, "{}", full.load_factor());
    let accepted: Vec<&Vec<u8>> = all
        .iter()
        .filter(|k| full.contains(k))
        .take(stored)
        .collect();
    for k in accepted.iter().step_by(10) {
        full.remove(k).unwrap();
    }
    let rest = accepted.iter().enumerate().filter(|(i, _)| i % 10 != 0);
    assert!(rest.clone().all(|(_, k)| full.contains(k)));
}

#[test]
fn round_trips_and_refuses_damaged_files() {
    let mut f = filter(5_000, 31);
    testkit::insert_members(&mut f, 5_000).unwrap();
    let probes = testkit::keys("probe", 2_000);
    testkit::check_round_trip(&f, &probes);
    testkit::check_rejects_bad_bytes(&f);
    assert!(testkit::check_decoder_validates(&f) > 0);
}

#[test]
fn a_file_whose_counts_disagree_is_refused() {
    let mut f = filter(1_000, 32);
    testkit::insert_members(&mut f, 900).unwrap();
    let mut wrong = f.clone();
    wrong.len += 1;
    testkit::check_refused::<VectorQuotient>(&wrong.to_bytes(), "fingerprints stored but");
    let mut marks = f.clone();
    marks.overflow_marks += 1;
    testkit::check_refused::<VectorQuotient>(&marks.to_bytes(), "overflow bits set but");
}

#[test]
fn rates_below_what_eight_bits_give_are_refused() {
    let e = VectorQuotient::builder().fpr(0.001).build().unwrap_err();
    assert!(e.to_string().contains("cuckoo or quotient"), "{e}");
    let bound = math::vqf::vqf_fpr_bound(DESIGN_LOAD);
    assert!(VectorQuotient::builder()
        .fpr(bound)
        .capacity(10)
        .build()
        .is_ok());
    // The message's figure is the bound's, rounded.
    assert_eq!(format!("{:.2}%", bound * 100.0), "0.47%");
    assert!(e.to_string().contains("0.47%"), "{e}");
}

#[test]
fn insert_if_absent_and_batches_agree_with_one_by_one() {
    let f = filter(3_000, 41);
    let once = testkit::keys("once", 1_000);
    let new = testkit::check_insert_if_absent(&mut f.clone(), &mut f.clone(), &once);
    assert!(new > 990, "{new}");
    let keys = testkit::keys("batch", 3_000);
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let (mut one, mut batched) = (f.clone(), f);
    for k in &keys {
        one.insert(k).unwrap();
    }
    batched.insert_batch(&refs).unwrap();
    assert_eq!(one, batched);
    let probes = testkit::keys("probe", 5_000);
    let prefs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
    let mut out = Vec::new();
    batched.contains_batch(&prefs, &mut out);
    let each: Vec<bool> = probes.iter().map(|p| one.contains(p)).collect();
    assert_eq!(out, each);
}
