use super::*;
use filter_core::{format, Persist};

#[test]
fn four_times_the_classic_memory() {
    let f = CountingBloom::builder()
        .capacity(10_000_000)
        .fpr(0.01)
        .build()
        .unwrap();
    let (m, _) = filter_core::math::classic_shape(10_000_000, 0.01).unwrap();
    assert_eq!(f.counters(), m);
    assert_eq!(f.size_in_bytes() as u64, m.div_ceil(2)); // 4 bits x m = 4 x 11.99 MB
}

#[test]
fn saturated_counters_are_never_decremented() {
    // Two counters and one hash (one counter would be at rate 1, above any target): 60
    // keys saturate both (a counter holds at most 15).
    let mut f = CountingBloom::builder()
        .capacity(1)
        .fpr(0.9)
        .build()
        .unwrap();
    assert_eq!((f.counters(), f.hashes()), (2, 1));
    for i in 0..60u32 {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    assert_eq!((f.get(0), f.get(1)), (MAX, MAX));
    assert_eq!(f.saturated(), 2);
    for i in 0..60u32 {
        f.remove(&i.to_le_bytes()).unwrap();
    }
    assert_eq!(
        (f.get(0), f.get(1)),
        (MAX, MAX),
        "a saturated counter must stay saturated"
    );
    assert!(f.contains(b"anything"));
}

#[test]
fn removal_of_an_absent_key_is_refused_and_changes_nothing() {
    let mut f = CountingBloom::builder().capacity(100).build().unwrap();
    f.insert(b"present").unwrap();
    let before = f.clone();
    assert_eq!(f.remove(b"absent"), Err(Error::NotPresent));
    assert_eq!(f, before);
    f.remove(b"present").unwrap();
    assert!(!f.contains(b"present"));
    assert_eq!(f.len(), 0);
    assert!(f.counters.iter().all(|&b| b == 0));
}

#[test]
fn repeated_positions_need_matching_counts() {
    // With 2 counters and 8 hashes every key repeats positions; removals must balance.
    let mut f = CountingBloom {
        counters: vec![0; 1].into(),
        m: 2,
        k: 8,
        len: 0,
        sum: 0,
        sizing: Sizing::default(),
    };
    f.insert(b"a").unwrap();
    f.remove(b"a").unwrap();
    assert!(f.counters.iter().all(|&b| b == 0));
    assert_eq!(f.remove(b"a"), Err(Error::NotPresent));
}

#[test]
fn count_stays_an_upper_bound_after_saturation() {
    let mut f = CountingBloom::builder().capacity(100).build().unwrap();
    for i in 1..=20u32 {
        f.insert(b"hot").unwrap();
        assert!(
            f.count(b"hot") >= i,
            "{i} inserts, count {}",
            f.count(b"hot")
        );
    }
    assert_eq!(f.count(b"hot"), u32::MAX, "saturated: unknown, at least 15");
    assert_eq!(f.count(b"cold"), 0);
}

/// Issue 9 (counting overflow): 10x the design load drives many counters to saturation;
/// they must stay saturated through the deletes, and no remaining key may go missing.
#[test]
fn ten_times_the_design_load_then_deletes_loses_no_key() {
    let mut f = CountingBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build()
        .unwrap();
    let keys = filter_core::testkit::keys("overload", 10_000);
    keys.iter().for_each(|k| f.insert(k).unwrap());
    let stuck: Vec<u64> = (0..f.m).filter(|&i| f.get(i) == MAX).collect();
    assert!(stuck.len() > 20, "only {} saturated", stuck.len());
    for k in &keys[..5000] {
        f.remove(k).unwrap();
    }
    assert!(
        stuck.iter().all(|&i| f.get(i) == MAX),
        "a saturated counter moved"
    );
    assert!(keys[5000..].iter().all(|k| f.contains(k)), "false negative");
    assert_eq!(f.len(), 5000);
    let copy = CountingBloom::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(copy, f);
}

#[test]
fn an_altered_len_is_rejected() {
    let mut f = CountingBloom::builder().capacity(100).build().unwrap();
    for i in 0..50u32 {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    let mut bytes = f.to_bytes();
    // len follows m (8 bytes) and k (4 bytes) in the parameters, which start at byte 24.
    assert_eq!(bytes[36..44], 50u64.to_le_bytes());
    for len in [0u64, 49, 51, u64::MAX] {
        bytes[36..44].copy_from_slice(&len.to_le_bytes());
        format::reseal(&mut bytes);
        assert!(
            matches!(
                CountingBloom::from_bytes(&bytes),
                Err(FormatError::Invalid(_))
            ),
            "len {len}"
        );
    }
}

#[test]
fn sizes_beyond_memory_are_errors_not_aborts() {
    assert!(matches!(
        CountingBloom::builder().capacity(1 << 58).fpr(0.5).build(),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(
        CountingBloom::builder()
            .capacity(100_000)
            .max_bytes(1000)
            .build(),
        Err(Error::MemoryCap { .. })
    ));
}

/// `f`'s file, opened in place (mapped) as a counting filter.
#[cfg(not(miri))] // Miri cannot map files.
fn opened(bytes: &[u8], tag: &str) -> std::result::Result<CountingBloom, FormatError> {
    let p = std::env::temp_dir().join(format!("filterlab-counting-{tag}-{}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    let map = format::mapped::map_file(&p).unwrap();
    std::fs::remove_file(&p).unwrap();
    format::mapped::decode_in_place(&map)
}

/// An open leaves out the sum of the counters and its check (they read the whole table); the
/// first change computes and checks them, then copies the table, as a load would have.
#[cfg(not(miri))]
#[test]
fn a_filter_opened_in_place_checks_its_counters_before_a_first_change() {
    let mut f = CountingBloom::builder().capacity(1000).build().unwrap();
    let keys = filter_core::testkit::keys("c", 300);
    for k in &keys {
        f.insert(k).unwrap();
    }
    let bytes = f.to_bytes();
    let mut open = opened(&bytes, "good").unwrap();
    assert!(open.counters.is_in_file());
    assert_eq!(open.sum, 0, "the sum was read at open");
    open.remove(&keys[0]).unwrap();
    f.remove(&keys[0]).unwrap();
    assert!(!open.counters.is_in_file());
    assert_eq!(open, f);
    // Counters that do not match the item count: the open trusts them, a change refuses them.
    let mut lying = bytes.clone();
    lying[36..44].copy_from_slice(&299u64.to_le_bytes()); // items, after m (8) and k (4)
    format::reseal(&mut lying);
    assert!(CountingBloom::from_bytes(&lying).is_err());
    let mut open = opened(&lying, "lying").unwrap();
    assert!(open.insert(b"x").is_err());
    assert!(open.remove(&keys[1]).is_err());
    assert!(
        open.counters.is_in_file(),
        "a refused change copied the table"
    );
}
