use super::*;
use filter_core::testkit;
use filter_core::{format, FormatError, KeyHasher, Persist};

#[test]
fn one_key_meets_its_target() {
    // The textbook 10 bits and 7 hashes put one key at 1.75% against a 1% target.
    let mut f = ClassicBloom::builder()
        .capacity(1)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"only").unwrap();
    assert!(f.expected_fpr() <= 0.01, "{}", f.expected_fpr());
    assert!(f.bits() > 10);
}

#[test]
fn rates_beyond_64_hashes_are_refused_not_capped() {
    let e = ClassicBloom::builder()
        .capacity(1000)
        .fpr(1e-300)
        .build()
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidParameter { name: "fpr", .. }),
        "{e}"
    );
    assert!(e.to_string().contains("1e-300"), "{e}");
}

#[test]
fn far_below_capacity_the_rate_keeps_its_digits() {
    // Issue 15: the textbook shape for 1M keys at 1e-6 (m = 28,755,176, k = 20), 100k keys
    // inserted: 3.515e-24 (the alternating sum said 1.04e-68).
    let mut f = ClassicBloom::builder()
        .capacity(1_000_000)
        .fpr(1e-6)
        .bits(28_755_176)
        .hashes(20)
        .build()
        .unwrap();
    for i in 0..100_000u32 {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    let p = f.expected_fpr();
    assert!((p / 3.515_345_497_694_539e-24 - 1.0).abs() < 1e-9, "{p:e}");
}

fn small() -> ClassicBloom {
    ClassicBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build()
        .unwrap()
}

#[test]
fn builder_rejects_bad_input_with_a_named_parameter() {
    for (b, name) in [
        (ClassicBloom::builder().capacity(0), "capacity"),
        (ClassicBloom::builder().fpr(f64::NAN), "fpr"),
        (ClassicBloom::builder().fpr(1.0), "fpr"),
        (ClassicBloom::builder().fpr(0.0), "fpr"),
        (ClassicBloom::builder().hashes(0), "hashes"),
        (ClassicBloom::builder().bits(0), "bits"),
    ] {
        match b.build() {
            Err(Error::InvalidParameter { name: got, .. }) => assert_eq!(got, name),
            other => panic!("expected an error naming {name}, got {other:?}"),
        }
    }
    assert!(matches!(
        ClassicBloom::builder()
            .capacity(u64::MAX)
            .fpr(1e-300)
            .build(),
        Err(Error::SizeOverflow { .. })
    ));
}

#[test]
fn explicit_sizing_reproduces_the_articles() {
    // The second article: m = 9,585,059 and k = 7 for 1M e-mails at 1%.
    let f = ClassicBloom::builder()
        .capacity(1_000_000)
        .bits(9_585_059)
        .hashes(7)
        .build()
        .unwrap();
    assert_eq!((f.bits(), f.hashes()), (9_585_059, 7));
    assert_eq!(f.size_in_bytes(), 9_585_059usize.div_ceil(64) * 8);
}

#[test]
fn union_and_intersection() {
    let a_keys = testkit::keys("a", 300);
    let b_keys = testkit::keys("b", 300);
    let mut a = small();
    let mut b = small();
    a_keys.iter().for_each(|k| a.insert(k).unwrap());
    b_keys.iter().for_each(|k| b.insert(k).unwrap());
    let mut both = small();
    a_keys
        .iter()
        .chain(&b_keys)
        .for_each(|k| both.insert(k).unwrap());

    let mut u = a.clone();
    u.union(&b).unwrap();
    assert_eq!(u.bits, both.bits, "union equals inserting both sets");
    assert_eq!(u.len(), 600);

    let shared = testkit::keys("shared", 100);
    let (mut x, mut y) = (a.clone(), b.clone());
    shared.iter().for_each(|k| x.insert(k).unwrap());
    shared.iter().for_each(|k| y.insert(k).unwrap());
    x.intersect(&y).unwrap();
    assert!(shared.iter().all(|k| x.contains(k)));
    assert_eq!(x.len(), 400);
}

#[test]
fn incompatible_filters_are_refused_and_untouched() {
    let mut a = small();
    a.insert(b"x").unwrap();
    let before = a.clone();
    let other_size = ClassicBloom::builder().capacity(2000).build().unwrap();
    let other_seed = ClassicBloom::builder()
        .capacity(1000)
        .hasher(KeyHasher::new(filter_core::HashKind::Xxh3_128, 1).unwrap())
        .build()
        .unwrap();
    for other in [&other_size, &other_seed] {
        assert!(matches!(a.union(other), Err(Error::Incompatible(_))));
        assert!(matches!(a.intersect(other), Err(Error::Incompatible(_))));
        assert_eq!(a, before);
    }
}

#[test]
fn distinct_estimate_tracks_unique_keys() {
    let mut f = ClassicBloom::builder().capacity(10_000).build().unwrap();
    for k in testkit::keys("u", 5000) {
        f.insert(&k).unwrap();
        f.insert(&k).unwrap(); // repeats do not count
    }
    assert_eq!(f.len(), 10_000);
    let est = f.estimate_distinct();
    assert!((est - 5000.0).abs() < 150.0, "{est}");
}

#[test]
fn stray_bits_beyond_m_are_rejected() {
    let f = ClassicBloom::builder().bits(100).hashes(3).build().unwrap();
    let mut bytes = f.to_bytes();
    // The last payload word sits just before the 8-byte checksum; set its top bit.
    let at = bytes.len() - 9;
    bytes[at] |= 0x80;
    let body = bytes.len() - 8;
    let sum = format::checksum(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(
        ClassicBloom::from_bytes(&bytes),
        Err(FormatError::Invalid(_))
    ));
}

#[test]
fn sizes_beyond_memory_are_errors_not_aborts() {
    // 2^62 bits (512 PiB): addressable, so this used to reach `vec!` and abort.
    assert!(matches!(
        ClassicBloom::builder().bits(1 << 62).hashes(3).build(),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(
        ClassicBloom::builder()
            .capacity(1_000_000)
            .max_bytes(1 << 20)
            .build(),
        Err(Error::MemoryCap { .. })
    ));
    assert!(ClassicBloom::builder()
        .capacity(1_000)
        .max_bytes(1 << 20)
        .build()
        .is_ok());
}

#[test]
fn an_altered_len_is_rejected() {
    let mut f = small();
    for k in testkit::keys("len", 100) {
        f.insert(&k).unwrap();
    }
    let mut bytes = f.to_bytes();
    // len follows m (8 bytes) and k (4 bytes) in the parameters, which start at byte 24.
    assert_eq!(bytes[36..44], 100u64.to_le_bytes());
    for len in [0u64, 10] {
        bytes[36..44].copy_from_slice(&len.to_le_bytes());
        format::reseal(&mut bytes);
        assert!(
            matches!(
                ClassicBloom::from_bytes(&bytes),
                Err(FormatError::Invalid(_))
            ),
            "len {len}"
        );
    }
    // A count above the bits is accepted (only the rate estimate reads it), and the next
    // inserts neither panic (debug) nor wrap to 0 (release). Issue 16, defect 4.
    bytes[36..44].copy_from_slice(&u64::MAX.to_le_bytes());
    format::reseal(&mut bytes);
    let mut loaded = ClassicBloom::from_bytes(&bytes).unwrap();
    loaded.insert(b"one more").unwrap();
    loaded.insert_if_absent(b"two more").unwrap();
    loaded.insert_hash_batch(&[Hash128::default(); 3]).unwrap();
    assert_eq!(loaded.len(), u64::MAX);
}

#[test]
fn the_table_itself_gives_distinct_keys_and_the_rate_duplicates_do_not_raise() {
    let mut f = small();
    for i in 0..500u32 {
        for _ in 0..3 {
            f.insert(&i.to_le_bytes()).unwrap();
        }
    }
    assert_eq!(f.len(), 1500, "len counts every insert");
    let est = f.estimate_distinct();
    assert!((est - 500.0).abs() < 25.0, "{est}");
    let realised = f.realised_fpr();
    let at_500 = filter_core::math::classic_fpr(f.bits(), 500, f.hashes());
    assert!((realised / at_500 - 1.0).abs() < 0.3, "{realised} {at_500}");
    // The formula at len() takes the duplicates for keys.
    assert!(f.expected_fpr() > 10.0 * realised, "{}", f.expected_fpr());
}

#[test]
fn subsets_follow_the_bits_and_clear_empties_the_table() {
    let (mut a, mut b) = (small(), small());
    a.insert(b"x").unwrap();
    b.insert(b"x").unwrap();
    b.insert(b"y").unwrap();
    assert!(a.is_subset(&b).unwrap() && !b.is_subset(&a).unwrap());
    assert!(a.is_subset(&a).unwrap());
    let other = ClassicBloom::builder()
        .capacity(2000)
        .fpr(0.01)
        .build()
        .unwrap();
    assert!(a.is_subset(&other).is_err(), "another shape is refused");
    b.clear();
    assert_eq!((b.len(), b.fill_ratio()), (0, 0.0));
    assert!(b.is_subset(&a).unwrap() && !b.contains(b"x"));
}
