//! Unit tests of the quotient filter's internals: the table against a model with crafted
//! fingerprints (exact counts, every invariant checked after every step), resizing, merging,
//! full tables, the builder and the loader.

use super::*;
use filter_core::{format, testkit, FormatError, Persist};
use std::collections::HashMap;

/// The hash whose quotient in `f` is `q` and remainder `rem` (the inverse of `split`).
fn hash_of(f: &QuotientFilter, q: u64, rem: u64) -> Hash128 {
    let (k, r, q0) = (f.doublings, f.remainder_bits(), f.base_quotients);
    let (base, top) = (q >> k, q & mask(k));
    let bits = (top << r) | rem;
    Hash128 {
        // The smallest `lo` with `⌊lo·Q0/2^64⌋ = base`.
        lo: ((u128::from(base) << 64).div_ceil(u128::from(q0))) as u64,
        hi: bits << (64 - (r + k)),
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Runs `steps` random inserts and removals of crafted fingerprints from `universe` against a
/// `HashMap` of copies. Fingerprints are exact here, so counts and answers must be exact too.
fn run_model(f: &mut QuotientFilter, universe: &[(u64, u64)], steps: usize, seed: u64) {
    let mut model: HashMap<(u64, u64), u32> = HashMap::new();
    let mut rng = seed | 1;
    for step in 0..steps {
        let key = universe[(xorshift(&mut rng) % universe.len() as u64) as usize];
        let h = hash_of(f, key.0, key.1);
        let held = model.get(&key).copied().unwrap_or(0);
        if xorshift(&mut rng) % 10 < 6 {
            match f.insert_hash(h) {
                Ok(()) => *model.entry(key).or_default() += 1,
                Err(Error::Full { .. }) => assert!(f.len() >= f.max_items() - 1, "early Full"),
                Err(e) => panic!("{e}"),
            }
        } else if held > 0 {
            f.remove_hash(h).unwrap();
            model.insert(key, held - 1);
        } else {
            let before = f.clone();
            assert_eq!(f.remove_hash(h), Err(Error::NotPresent));
            assert_eq!(*f, before, "a refused removal changed the filter");
        }
        let used = f
            .slots
            .check()
            .unwrap_or_else(|e| panic!("step {step}: {e}"));
        assert_eq!(used, f.len());
        assert_eq!(f.len(), model.values().map(|&c| u64::from(c)).sum::<u64>());
        for &k in universe {
            let want = model.get(&k).copied().unwrap_or(0);
            let hk = hash_of(f, k.0, k.1);
            assert_eq!(f.count_hash(hk), want, "step {step}: count of {k:?}");
            assert_eq!(f.contains_hash(hk), want > 0, "step {step}: {k:?}");
        }
    }
}

/// Dense clusters across a block boundary (quotients 40-99 around slot 64) and runs that
/// spill past the last quotient into the extra slots.
#[test]
fn dense_clusters_match_the_model_with_exact_counts() {
    let mut widest = 0;
    for seed in [1u64, 2] {
        let mut f = QuotientFilter::builder()
            .capacity(200)
            .remainder_bits(5)
            .build()
            .unwrap();
        assert_eq!(f.quotients(), 211);
        let universe: Vec<(u64, u64)> = (40..100)
            .chain(205..211)
            .flat_map(|q| (0..3).map(move |r| (q, r * 11)))
            .collect();
        run_model(&mut f, &universe, 1000, seed);
        widest = widest.max(f.slots.max_spill());
    }
    assert!(widest > 64, "no run crossed a whole block: {widest}");
}

/// Sparse, random fingerprints over a whole table filled close to its limit.
#[test]
fn a_nearly_full_table_matches_the_model() {
    let mut f = QuotientFilter::builder()
        .capacity(900)
        .remainder_bits(3)
        .build()
        .unwrap();
    let mut rng = 77u64;
    let universe: Vec<(u64, u64)> = (0..400)
        .map(|_| (xorshift(&mut rng) % 948, xorshift(&mut rng) % 8))
        .collect();
    run_model(&mut f, &universe, 1500, 9);
}

#[test]
fn keys_against_the_model_of_copies() {
    for seed in 0..2u64 {
        let mut f = QuotientFilter::builder()
            .capacity(300)
            .fpr(0.01)
            .hasher(KeyHasher::new(filter_core::HashKind::Xxh3_128, seed).unwrap())
            .build()
            .unwrap();
        let mut rng = seed + 5;
        let ops: Vec<testkit::Op> = (0..1500)
            .map(|_| {
                let k = (xorshift(&mut rng) % 200) as u16;
                if xorshift(&mut rng) % 3 == 0 {
                    testkit::Op::Remove(k)
                } else {
                    testkit::Op::Insert(k)
                }
            })
            .collect();
        testkit::check_deletable_against_model(&mut f, &ops);
    }
}

#[test]
fn runs_past_the_last_quotient_fill_the_extra_slots_then_fail_cleanly() {
    // 10-bit remainders: the 333 below are distinct.
    let build = || {
        QuotientFilter::builder()
            .capacity(900)
            .remainder_bits(10)
            .build()
            .unwrap()
    };
    let mut f = build();
    assert_eq!((f.quotients(), f.slots()), (948, 1280));
    let last = f.quotients() - 1;
    let room = f.slots() - last;
    for i in 0..room {
        f.insert_hash(hash_of(&f, last, i)).unwrap();
    }
    let before = f.clone();
    assert!(matches!(
        f.insert_hash(hash_of(&f, last, 999)),
        Err(Error::Full { len: 333, .. })
    ));
    assert_eq!(f, before);
    // The slot before the cluster takes one new run; a second item there would push the
    // cluster past the end. Elsewhere the table is empty.
    f.insert_hash(hash_of(&f, last - 1, 1)).unwrap();
    assert!(f.insert_hash(hash_of(&f, last - 1, 2)).is_err());
    f.insert_hash(hash_of(&f, 5, 1)).unwrap();
    assert_eq!(f.slots.check().unwrap(), room + 2);
    assert!((0..room).all(|i| f.contains_hash(hash_of(&f, last, i))));
    // Removals from the spilled cluster move the rest back; the index follows.
    for i in (0..room).step_by(3) {
        f.remove_hash(hash_of(&f, last, i)).unwrap();
    }
    f.remove_hash(hash_of(&f, last - 1, 1)).unwrap();
    assert_eq!(f.slots.check().unwrap(), f.len());
    assert!((0..room).all(|i| f.contains_hash(hash_of(&f, last, i)) == (i % 3 != 0)));

    // A merge whose runs would pass the end is refused and changes nothing.
    let mut a = build();
    for i in 0..200 {
        a.insert_hash(hash_of(&a, last, i)).unwrap();
    }
    let (b, before) = (a.clone(), a.clone());
    assert!(matches!(a.merge(&b), Err(Error::Full { .. })));
    assert_eq!(a, before);
}

#[test]
fn the_load_limit_is_a_typed_error_that_changes_nothing() {
    let mut f = QuotientFilter::builder()
        .capacity(900)
        .fpr(0.01)
        .build()
        .unwrap();
    let failed_at = testkit::check_failed_insert_changes_nothing(&mut f, "fill", 5000)
        .expect("the table must refuse past its limit");
    assert_eq!(failed_at as u64, f.max_items());
    assert_eq!(f.max_items(), 900);
}

#[test]
fn resize_keeps_every_key_and_the_rate_at_the_same_count() {
    let mut f = QuotientFilter::builder()
        .capacity(2000)
        .fpr(0.01)
        .build()
        .unwrap();
    let keys = testkit::keys("grow", 1900);
    for k in &keys {
        f.insert(k).unwrap();
    }
    f.insert(&keys[0]).unwrap();
    let (q, r, fpr) = (f.quotients(), f.remainder_bits(), f.expected_fpr());
    let others = testkit::keys("absent", 20_000);
    let fp_before = testkit::measure_fpr(&f, &others).0;
    f.resize().unwrap();
    assert_eq!((f.quotients(), f.remainder_bits()), (2 * q, r - 1));
    assert_eq!((f.len(), f.capacity()), (1901, 4000));
    assert_eq!(f.expected_fpr(), fpr, "Q·2^r is unchanged");
    assert_eq!(f.slots.check().unwrap(), 1901);
    assert!(
        keys.iter().all(|k| f.contains(k)),
        "false negative after a resize"
    );
    assert_eq!(f.count(&keys[0]), 2);
    // The same fingerprints answer: the same false positives, exactly.
    assert_eq!(testkit::measure_fpr(&f, &others).0, fp_before);
    // Now it takes twice the keys.
    for k in testkit::keys("more", 1900) {
        f.insert(&k).unwrap();
    }
    assert!(keys.iter().all(|k| f.contains(k)));
    f.remove(&keys[5]).unwrap();
    assert_eq!(f.slots.check().unwrap(), f.len());
}

#[test]
fn resize_stops_at_one_remainder_bit_and_a_growth_reserve_keeps_the_target() {
    let mut f = QuotientFilter::builder()
        .capacity(50)
        .remainder_bits(2)
        .build()
        .unwrap();
    f.insert(b"k").unwrap();
    f.resize().unwrap();
    let before = f.clone();
    assert!(matches!(f.resize(), Err(Error::InvalidParameter { .. })));
    assert_eq!(f, before);
    assert!(f.contains(b"k"));

    let mut g = QuotientFilter::builder()
        .capacity(1000)
        .fpr(0.01)
        .growth_reserve(2)
        .build()
        .unwrap();
    assert_eq!(g.remainder_bits(), 9);
    g.resize().unwrap();
    g.resize().unwrap();
    let at_capacity = math::quotient_fpr_exact(g.quotients(), g.remainder_bits(), g.capacity());
    assert!(at_capacity <= 0.01, "{at_capacity}");
}

#[test]
fn merge_adds_copies_and_refuses_what_does_not_fit_or_match() {
    let build = || {
        QuotientFilter::builder()
            .capacity(900)
            .fpr(0.01)
            .build()
            .unwrap()
    };
    let (mut a, mut b) = (build(), build());
    let (ka, kb) = (testkit::keys("a", 400), testkit::keys("b", 400));
    ka.iter().for_each(|k| a.insert(k).unwrap());
    kb.iter().for_each(|k| b.insert(k).unwrap());
    b.insert(&ka[0]).unwrap();
    a.merge(&b).unwrap();
    assert_eq!(a.len(), 801);
    assert!(ka.iter().chain(&kb).all(|k| a.contains(k)));
    assert_eq!(a.count(&ka[0]), 2);
    assert_eq!(a.slots.check().unwrap(), 801);
    // The same keys in one filter answer exactly as the merged one.
    let mut one = build();
    ka.iter().chain(&kb).for_each(|k| one.insert(k).unwrap());
    one.insert(&ka[0]).unwrap();
    let probes = testkit::keys("probe", 5000);
    assert_eq!(
        testkit::measure_fpr(&a, &probes),
        testkit::measure_fpr(&one, &probes)
    );

    let before = a.clone();
    assert!(matches!(a.merge(&b), Err(Error::Full { .. })));
    let other = QuotientFilter::builder()
        .capacity(900)
        .fpr(0.001)
        .build()
        .unwrap();
    assert!(matches!(a.merge(&other), Err(Error::Incompatible(_))));
    assert_eq!(a, before);
}

#[test]
fn builder_rejects_bad_input() {
    let b = QuotientFilter::builder;
    assert!(b().capacity(0).build().is_err());
    assert!(b().fpr(0.0).build().is_err());
    assert!(b().fpr(1.0).build().is_err());
    assert!(b().remainder_bits(0).build().is_err());
    assert!(b().capacity(1000).remainder_bits(65).build().is_err());
    assert!(b().growth_reserve(u32::MAX).build().is_err());
    assert!(matches!(
        b().capacity(u64::MAX).build(),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(matches!(
        b().capacity(100_000).max_bytes(1000).build(),
        Err(Error::MemoryCap { .. })
    ));
    let f = b().capacity(10_000_000).fpr(0.01).build().unwrap();
    assert_eq!((f.quotients(), f.remainder_bits()), (10_526_316, 7));
    // 7 remainder bits and 2.5 of metadata per slot at 95% load, the extra slots included.
    let bits_per_key = f.size_in_bytes() as f64 * 8.0 / 1e7;
    assert!((10.0..10.1).contains(&bits_per_key), "{bits_per_key}");
}

/// A valid file of a small filter holding a few keys, and its decoded sections.
fn sample() -> (QuotientFilter, Vec<u8>) {
    let mut f = QuotientFilter::builder()
        .capacity(100)
        .fpr(0.05)
        .build()
        .unwrap();
    for k in testkit::keys("s", 60) {
        f.insert(&k).unwrap();
    }
    let bytes = f.to_bytes();
    (f, bytes)
}

/// Files with a valid checksum whose fields describe an impossible filter.
#[test]
fn crafted_files_with_impossible_metadata_are_rejected() {
    let (_, bytes) = sample();
    let craft = |edit: &dyn Fn(&mut Vec<u8>, &mut Vec<u8>)| {
        QuotientFilter::from_bytes(&testkit::reenvelope::<QuotientFilter>(&bytes, edit))
    };
    let set_u32 =
        |p: &mut Vec<u8>, at: usize, v: u32| p[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let set_u64 =
        |p: &mut Vec<u8>, at: usize, v: u64| p[at..at + 8].copy_from_slice(&v.to_le_bytes());
    let rejected =
        |r: Result<QuotientFilter, FormatError>| matches!(r, Err(FormatError::Invalid(_)));
    // Parameters: Q0 (u64), doublings, r (u32), len, capacity (u64), fpr.
    assert!(rejected(craft(&|p, _| set_u64(p, 0, 1 << 40))), "Q0 = 2^40");
    assert!(rejected(craft(&|p, _| set_u64(p, 0, 5))), "Q0 = 5");
    assert!(
        rejected(craft(&|p, _| set_u64(p, 0, 107))),
        "Q0 not sized for the capacity"
    );
    assert!(
        rejected(craft(&|p, _| {
            set_u64(p, 0, 211);
            set_u64(p, 24, 200);
        })),
        "Q0 and capacity without their payload"
    );
    assert!(rejected(craft(&|p, _| set_u32(p, 8, 40))), "2^40 doublings");
    assert!(
        rejected(craft(&|p, _| set_u32(p, 8, 64))),
        "a shift past the word"
    );
    assert!(
        rejected(craft(&|p, _| set_u32(p, 8, 1))),
        "a doubling without its payload"
    );
    assert!(rejected(craft(&|p, _| set_u32(p, 12, 0))), "r = 0");
    assert!(rejected(craft(&|p, _| set_u32(p, 12, 70))), "r = 70");
    assert!(
        rejected(craft(&|p, _| {
            set_u32(p, 8, 1);
            set_u32(p, 12, 64);
        })),
        "r + k = 65"
    );
    assert!(
        rejected(craft(&|p, _| set_u64(p, 16, 59))),
        "len below the stored count"
    );
    assert!(rejected(craft(&|p, _| set_u64(p, 16, u64::MAX))), "len");
    assert!(rejected(craft(&|p, _| set_u64(p, 24, 1 << 40))), "capacity");
    assert!(QuotientFilter::from_bytes(&bytes).is_ok());
}

/// Files with a valid checksum whose table (format 3) is impossible.
#[test]
fn crafted_files_with_impossible_tables_are_rejected() {
    let (f, bytes) = sample();
    let craft = |edit: &dyn Fn(&mut Vec<u8>)| {
        let file = testkit::reenvelope::<QuotientFilter>(&bytes, |_, pl| edit(pl));
        QuotientFilter::from_bytes(&file)
    };
    let rejected =
        |r: Result<QuotientFilter, FormatError>| matches!(r, Err(FormatError::Invalid(_)));
    // Payload (blocks of 20 + 8r bytes: offset, occupieds, runends, remainders; a 16-byte
    // tail): an occupied quotient with no run, a run end in an empty slot, a stray remainder,
    // offsets and a tail other than the table gives.
    let (blocks, stride) = (f.slots.blocks(), 20 + 8 * f.remainder_bits() as usize);
    assert!(rejected(craft(&|pl| {
        (0..blocks).for_each(|b| pl[b * stride + 12..b * stride + 20].fill(0));
    })));
    assert!(
        rejected(craft(&|pl| pl[(blocks - 1) * stride + 11] = 0x80)),
        "occupied past Q"
    );
    assert!(
        rejected(craft(&|pl| pl[blocks * stride - 1] = 0xFF)),
        "remainder bits in empty slots at the end"
    );
    assert!(
        rejected(craft(&|pl| pl[0] = 1)),
        "an offset other than 0 at the first block"
    );
    assert!(
        rejected(craft(&|pl| pl[stride] ^= 1)),
        "an offset the table does not give"
    );
    assert!(
        rejected(craft(&|pl| *pl.last_mut().unwrap() = 1)),
        "bytes other than 0 in the tail"
    );
    assert!(
        rejected(craft(&|pl| pl.truncate(pl.len() - 8))),
        "short payload"
    );
    assert!(rejected(craft(&|pl| pl.extend([0; 8]))), "long payload");
    assert!(QuotientFilter::from_bytes(&bytes).is_ok());
}

/// A version 2 load reads the `spill` index (and checks it), a version 1 load derives it; a
/// filter opened in place reads it from the file, and its first change checks the table, then
/// copies every table out of the file.
#[test]
fn a_loaded_filter_reads_or_rebuilds_its_index() {
    let (f, bytes) = sample();
    let g = QuotientFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g.slots, f.slots, "the spill index is read on load");
    assert_eq!(g.to_bytes(), bytes);
    let v1 = f.to_bytes_version_1().unwrap();
    let g = QuotientFilter::from_bytes(&v1).unwrap();
    assert_eq!(g.slots, f.slots, "the spill index is rebuilt on load");
    assert!(g.slots.is_checked() && g.slots.is_owned() && g.slots.tables_in_file() == 0);
    #[cfg(not(miri))] // Miri cannot map files.
    {
        let p = std::env::temp_dir().join(format!("filterlab-q-index-{}", std::process::id()));
        std::fs::write(&p, &bytes).unwrap();
        let map = format::mapped::map_file(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        let mut open: QuotientFilter = format::mapped::decode_in_place(&map).unwrap();
        assert!(!open.slots.is_checked() && !open.slots.is_owned());
        assert_eq!(open.slots.tables_in_file(), 1);
        assert_eq!(open.slots, f.slots);
        open.insert(b"changed").unwrap();
        assert!(open.slots.is_checked() && open.slots.is_owned());
        assert_eq!(open.slots.tables_in_file(), 0);
        assert_eq!(open.slots.check(), Ok(61));
    }
}

/// 64-bit remainders (the whole `hi` half) and a resize from them: the shifts at the edges.
#[test]
fn full_width_remainders_work_and_resize() {
    let mut f = QuotientFilter::builder()
        .capacity(100)
        .remainder_bits(64)
        .build()
        .unwrap();
    let keys = testkit::keys("wide", 100);
    keys.iter().for_each(|k| f.insert(k).unwrap());
    assert!(keys.iter().all(|k| f.contains(k)));
    assert_eq!(f.expected_fpr(), math::quotient_fpr_exact(106, 64, 100));
    f.resize().unwrap();
    assert_eq!((f.remainder_bits(), f.resizes()), (63, 1));
    assert!(keys.iter().all(|k| f.contains(k)));
    let bytes = f.to_bytes();
    assert_eq!(QuotientFilter::from_bytes(&bytes).unwrap(), f);
}

/// Heavy: a 200,000-item table filled to its 95% limit, then 200,000 random removals and
/// re-inserts at that load; every invariant, every key and every count checked at the end.
/// `cargo test -p filter-quotient -- --ignored churn`.
#[test]
#[ignore]
fn churn_at_full_load_keeps_every_key() {
    let mut f = QuotientFilter::builder().capacity(200_000).build().unwrap();
    let key = |i: u64| format!("churn-{i}").into_bytes();
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut rng = 42u64;
    while f.len() < f.max_items() {
        let i = xorshift(&mut rng) % 150_000;
        f.insert(&key(i)).unwrap();
        *model.entry(i).or_default() += 1;
    }
    for _ in 0..200_000 {
        let i = xorshift(&mut rng) % 150_000;
        if let Some(c) = model.get_mut(&i).filter(|c| **c > 0) {
            f.remove(&key(i)).unwrap();
            *c -= 1;
            let j = xorshift(&mut rng) % 150_000;
            f.insert(&key(j)).unwrap();
            *model.entry(j).or_default() += 1;
        }
    }
    assert_eq!(f.slots.check().unwrap(), f.len());
    assert_eq!(f.len(), model.values().map(|&c| u64::from(c)).sum::<u64>());
    for (&i, &c) in &model {
        assert!(f.count(&key(i)) >= c, "key {i}: count below {c}");
    }
}
