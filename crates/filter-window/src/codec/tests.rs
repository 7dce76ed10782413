use super::*;
use crate::Timestamp;
use filter_core::{testkit, Filter, Persist};

fn hasher() -> KeyHasher {
    KeyHasher::new(filter_core::HashKind::Xxh3_64, 5).unwrap()
}

fn item_window(window: u64, generations: u32, inserts: u64) -> ItemWindow {
    let mut f = ItemWindow::builder()
        .window(window)
        .generations(generations)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..inserts {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    f
}

fn apbf(window: u64, k: u32, l: u32, inserts: u64) -> Apbf {
    let mut f = Apbf::builder()
        .window(window)
        .k(k)
        .l(l)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..inserts {
        f.insert(&i.to_le_bytes()).unwrap();
    }
    f
}

/// A time window of 70 ticks in 7 slices of 10, with `inserts` keys, one every 3 ticks.
fn time_window(inserts: u64) -> TimeWindow {
    let mut f = TimeWindow::builder()
        .window(70)
        .items_per_window(100)
        .hasher(hasher())
        .build()
        .unwrap();
    for i in 0..inserts {
        f.insert_at(&i.to_le_bytes(), Timestamp(3 * i)).unwrap();
    }
    f
}

fn probes(n: u64) -> Vec<Vec<u8>> {
    (0..n).map(|i| i.to_le_bytes().to_vec()).collect()
}

fn load<F: Persist>(f: &F) -> F {
    F::from_bytes(&f.to_bytes()).expect("own bytes load")
}

/// The state derived on load (ring position, counts) is the state the filter had, at every
/// insert count through several windows, and the copy goes on exactly as the original.
#[test]
fn derived_state_equals_the_saved_state_at_every_insert_count() {
    let mut f = item_window(20, 3, 0);
    let mut a = apbf(12, 3, 4, 0);
    for i in 0..120u64 {
        assert_eq!(load(&f), f, "item window after {i} inserts");
        assert_eq!(load(&a), a, "apbf after {i} inserts");
        f.insert(&i.to_le_bytes()).unwrap();
        a.insert(&i.to_le_bytes()).unwrap();
    }
    let (mut f2, mut a2) = (load(&f), load(&a));
    for i in 120..200u64 {
        f.insert(&i.to_le_bytes()).unwrap();
        f2.insert(&i.to_le_bytes()).unwrap();
        a.insert(&i.to_le_bytes()).unwrap();
        a2.insert(&i.to_le_bytes()).unwrap();
    }
    assert_eq!(f2, f);
    assert_eq!(a2, a);
}

#[test]
fn loaded_windows_answer_as_the_saved_ones() {
    let p = probes(30_000);
    for generations in [1, 7, 63] {
        for inserts in [0, 1, 5_000, 23_456] {
            testkit::check_round_trip(&item_window(5_000, generations, inserts), &p);
        }
    }
    for (k, l) in [(8, 8), (1, 1), (40, 24)] {
        for inserts in [0, 1, 5_000, 23_456] {
            testkit::check_round_trip(&apbf(4_000, k, l, inserts), &p);
        }
    }
    for inserts in [0, 1, 50, 1_000] {
        let f = time_window(inserts);
        let copy = load(&f);
        assert_eq!(copy, f, "{inserts} inserts");
        assert_eq!(copy.to_bytes(), f.to_bytes());
        for t in [0, 100, 3 * inserts, 3 * inserts + 75, u64::MAX] {
            let (t, refs) = (Timestamp(t), p.iter().map(Vec::as_slice));
            assert!(refs
                .clone()
                .all(|k| copy.contains_at(k, t) == f.contains_at(k, t)));
            assert_eq!(copy.len_at(t), f.len_at(t));
            assert_eq!(
                copy.expected_fpr_at(t).to_bits(),
                f.expected_fpr_at(t).to_bits()
            );
        }
    }
}

/// A time window keeps its place in time across a save and a load: the same keys expire at the
/// same ticks, and after a pause longer than the window a loaded copy holds nothing.
#[test]
fn a_time_window_keeps_its_clock_across_a_save() {
    let mut f = time_window(0);
    f.insert_at(b"early", Timestamp(1_000)).unwrap();
    f.insert_at(b"late", Timestamp(1_045)).unwrap();
    let mut copy = load(&f);
    assert!(copy.contains_at(b"early", Timestamp(1_069)));
    // "early" sits in slice 100 (ticks 1000-1009), gone once slice 108 begins.
    assert!(copy.contains_at(b"early", Timestamp(1_079)));
    assert!(!copy.contains_at(b"early", Timestamp(1_080)));
    assert!(copy.contains_at(b"late", Timestamp(1_080)));
    // A timestamp before the saved slice is filed into it, as in the original.
    copy.insert_at(b"stale", Timestamp(5)).unwrap();
    f.insert_at(b"stale", Timestamp(5)).unwrap();
    assert_eq!(copy, f);
    assert!(copy.contains_at(b"stale", Timestamp(1_105)));
    // After a long pause, the next insert empties every slice.
    copy.insert_at(b"after", Timestamp(50_000)).unwrap();
    assert!(!copy.contains_at(b"late", Timestamp(50_000)));
    assert_eq!(copy.len_at(Timestamp(50_000)), 1);
}

#[test]
fn every_truncation_and_bit_flip_is_refused() {
    let dir = std::env::temp_dir().join(format!("filterlab-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(
        testkit::check_damaged_files(&item_window(30, 3, 50), &dir),
        0
    );
    assert_eq!(testkit::check_damaged_files(&time_window(50), &dir), 0);
    assert_eq!(testkit::check_damaged_files(&apbf(30, 2, 2, 50), &dir), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    testkit::check_rejects_bad_bytes(&item_window(2_000, 7, 3_000));
    testkit::check_rejects_bad_bytes(&time_window(300));
    testkit::check_rejects_bad_bytes(&apbf(2_000, 8, 8, 3_000));
}

#[test]
fn the_decoders_validate_every_field() {
    assert!(testkit::check_decoder_validates(&item_window(200, 7, 300)) > 0);
    assert!(testkit::check_decoder_validates(&time_window(100)) > 0);
    assert!(testkit::check_decoder_validates(&apbf(200, 4, 4, 300)) > 0);
}

/// `bytes` (a valid file of `F`) with `edits` written into its parameters at byte offsets, and
/// its payload resized to `payload` bytes when given.
fn crafted<F: Persist>(bytes: &[u8], edits: &[(usize, &[u8])], payload: Option<usize>) -> Vec<u8> {
    testkit::reenvelope::<F>(bytes, |params, body| {
        for &(at, value) in edits {
            params[at..at + value.len()].copy_from_slice(value);
        }
        if let Some(n) = payload {
            body.resize(n, 0);
        }
    })
}

/// Plan fields sit at the same offsets in both lane-sliced files.
fn bad_plans<F: Persist + std::fmt::Debug>(bytes: &[u8]) {
    let le32 = |v: u32| v.to_le_bytes().to_vec();
    let le64 = |v: u64| v.to_le_bytes().to_vec();
    let cases: [(usize, Vec<u8>, &str); 8] = [
        (0, le32(0), "0 generations"),
        (0, le32(5), "5 generations"),
        (0, le32(u32::MAX), "4294967295 generations"),
        (4, le64(0), "generations of 0 items"),
        (12, le64(0), "0 positions"),
        (12, le64((1 << 62) + 1), "4611686018427387905 positions"),
        (20, le32(0), "0 probes"),
        (20, le32(33), "33 probes"),
    ];
    for (at, value, why) in cases {
        testkit::check_refused::<F>(&crafted::<F>(bytes, &[(at, &value)], None), why);
    }
    // 2^62 positions is a valid plan, but the payload present is far from its 2^59 words.
    let huge = crafted::<F>(bytes, &[(12, &le64(1 << 62))], None);
    testkit::check_refused::<F>(&huge, "words of lanes");
}

#[test]
fn impossible_item_windows_are_refused() {
    let bytes = item_window(700, 7, 1_000).to_bytes();
    bad_plans::<ItemWindow>(&bytes);
    let le64 = |v: u64| v.to_le_bytes();
    let cases: [(usize, [u8; 8], &str); 4] = [
        (24, le64(0), "a window of 0"),
        (
            24,
            le64(701),
            "generations of 100 items for a window of 701",
        ),
        (24, le64(u64::MAX), "window of 18446744073709551615"),
        (32, le64(u64::MAX), "18446744073709551615 inserts"),
    ];
    for (at, value, why) in cases {
        testkit::check_refused::<ItemWindow>(
            &crafted::<ItemWindow>(&bytes, &[(at, &value)], None),
            why,
        );
    }
    // Fewer inserts than the bits set in the generations say.
    let few = crafted::<ItemWindow>(&bytes, &[(32, &le64(3))], None);
    testkit::check_refused::<ItemWindow>(&few, "bits set in generation slot");
    // A table that does not match the plan.
    let short = crafted::<ItemWindow>(&bytes, &[], Some(8));
    testkit::check_refused::<ItemWindow>(&short, "a payload of 8 bytes");
}

#[test]
fn impossible_time_windows_are_refused() {
    let f = time_window(40);
    let bytes = f.to_bytes();
    bad_plans::<TimeWindow>(&bytes);
    let le64 = |v: u64| v.to_le_bytes();
    type Edits<'a> = &'a [(usize, &'a [u8])];
    let window_cases: [(Edits<'_>, &str); 5] = [
        (&[(24, &le64(6))], "a window of 6 ticks in 7"),
        (&[(32, &[2])], "flag 2"),
        (&[(32, &[0])], "flag 0"),
        (
            &[(33, &le64(u64::MAX))],
            "a current slice of 18446744073709551615",
        ),
        (
            &[(32, &[0]), (33, &le64(0))],
            "items in a window never inserted into",
        ),
    ];
    for (edits, why) in window_cases {
        testkit::check_refused::<TimeWindow>(&crafted::<TimeWindow>(&bytes, edits, None), why);
    }
    // Slice counts are in the payload: overflowing, or below the bits set.
    let with_counts = |counts: [u64; 8]| {
        testkit::reenvelope::<TimeWindow>(&bytes, |_, payload| {
            for (c, v) in payload.chunks_exact_mut(8).zip(counts) {
                c.copy_from_slice(&v.to_le_bytes());
            }
        })
    };
    testkit::check_refused::<TimeWindow>(
        &with_counts([u64::MAX, 1, 0, 0, 0, 0, 0, 0]),
        "overflows",
    );
    testkit::check_refused::<TimeWindow>(&with_counts([0; 8]), "bits set in generation slot");
    let short = crafted::<TimeWindow>(&bytes, &[], Some(7 * 8));
    assert!(matches!(
        TimeWindow::from_bytes(&short),
        Err(FormatError::Truncated { .. })
    ));
}

#[test]
fn impossible_apbfs_are_refused() {
    let bytes = apbf(800, 8, 8, 1_000).to_bytes();
    let le32 = |v: u32| v.to_le_bytes().to_vec();
    let le64 = |v: u64| v.to_le_bytes().to_vec();
    let cases: [(usize, Vec<u8>, &str); 10] = [
        (0, le32(0), "k = 0"),
        (4, le32(0), "l = 0"),
        (0, le32(57), "k = 57, l = 8"),
        (0, le32(u32::MAX), "k = 4294967295"),
        (8, le64(101), "generations of 101 items"),
        (24, le64(0), "a window of 0"),
        (24, le64(u64::MAX), "a window of 18446744073709551615"),
        (16, le64(100), "slices of 100 bits"),
        (16, le64((1 << 56) + 64), "slices of 72057594037928000 bits"),
        (32, le64(u64::MAX), "18446744073709551615 inserts"),
    ];
    for (at, value, why) in cases {
        testkit::check_refused::<Apbf>(&crafted::<Apbf>(&bytes, &[(at, &value)], None), why);
    }
    testkit::check_refused::<Apbf>(
        &crafted::<Apbf>(&bytes, &[(16, &le64(1 << 56))], None),
        "words of slices",
    );
    testkit::check_refused::<Apbf>(
        &crafted::<Apbf>(&bytes, &[(32, &le64(10))], None),
        "bits set in slice",
    );
}

/// The decoder's own arithmetic, against a filter built and filled.
#[test]
fn item_counts_follow_the_generations() {
    let plan = item_window(20, 3, 0).plan();
    assert_eq!(plan.per_generation, 7);
    assert_eq!(item_counts(&plan, 0), [0, 0, 0, 0]);
    assert_eq!(item_counts(&plan, 7), [7, 0, 0, 0]);
    assert_eq!(item_counts(&plan, 8), [7, 1, 0, 0]);
    // Generations 1..=4 kept after 30 inserts: slot 0 holds generation 4 (2 items).
    assert_eq!(item_counts(&plan, 30), [2, 7, 7, 7]);
}
