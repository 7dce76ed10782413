//! Unit tests of the layouts: the near partner function, window fitting, building with a
//! layout, and the loader's refusal of impossible layouts.

use super::*;
use crate::{CuckooFilter, DEFAULT_MAX_KICKS};
use filter_core::{format, Error, Filter, Persist};

#[test]
fn near_alt_is_an_involution_without_fixed_points_inside_its_window() {
    for buckets in [2u64, 4, 6, 1000, 2_631_580] {
        for window in [2u32, 16, 1024] {
            let Layout::Near { window } = (Layout::Near { window }).fit(buckets) else {
                unreachable!()
            };
            for fp in 1..1500u64 {
                let mix = crate::fp_mix(fp);
                for i in [0, 1, buckets / 2, buckets - 2, buckets - 1] {
                    let a = near_alt(i, mix, buckets, window);
                    assert!(a < buckets);
                    assert_ne!(a, i, "B {buckets} w {window} fp {fp}");
                    assert_eq!(near_alt(a, mix, buckets, window), i);
                    let d = a.abs_diff(i);
                    assert!(d.min(buckets - d) < u64::from(window), "{i} -> {a}");
                }
            }
        }
    }
}

#[test]
fn near_offsets_cover_the_window_evenly() {
    // Every odd offset below the window is used, about equally (not only small ones).
    let window = 64u32;
    let mut seen = [0u32; 64];
    for fp in 1..=64_000u64 {
        let a = near_alt(1000, crate::fp_mix(fp), 1 << 20, window);
        seen[(a - 1000) as usize] += 1;
    }
    for (off, &n) in seen.iter().enumerate() {
        if off % 2 == 0 {
            assert_eq!(n, 0, "even offset {off}");
        } else {
            // 2,000 expected; 5 sigma is about 220.
            assert!((1780..=2220).contains(&n), "offset {off}: {n}");
        }
    }
}

#[test]
fn windows_fit_the_table_and_bucket_counts_are_even() {
    assert_eq!(Layout::near().buckets(1), 2);
    assert_eq!(Layout::near().buckets(5), 6);
    assert_eq!(Layout::near().buckets(6), 6);
    assert_eq!(Layout::Spread.buckets(5), 5);
    assert_eq!(Layout::near().fit(6), Layout::Near { window: 4 });
    assert_eq!(Layout::near().fit(2), Layout::Near { window: 2 });
    assert_eq!(Layout::near().fit(1 << 30), Layout::near());
    for capacity in [1u64, 4, 5, 22, 1000, 10_000_000] {
        let f = CuckooFilter::builder()
            .capacity(capacity)
            .layout(Layout::near())
            .build()
            .unwrap();
        let Layout::Near { window } = f.layout() else {
            panic!("spread")
        };
        assert_eq!(f.buckets() % 2, 0);
        assert!(u64::from(window) <= f.buckets() && window.is_power_of_two());
        assert!(f.buckets() <= crate::buckets_for(capacity).unwrap() + 1);
        assert_eq!(f.max_kicks(), NEAR_MAX_KICKS);
    }
}

#[test]
fn the_builder_refuses_impossible_windows_and_keeps_given_kicks() {
    for window in [0, 1, 3, 1000, MIN_WINDOW / 2, MAX_WINDOW * 2] {
        assert!(matches!(
            CuckooFilter::builder()
                .layout(Layout::Near { window })
                .build(),
            Err(Error::InvalidParameter { name: "window", .. })
        ));
    }
    let wide = Layout::Near { window: MAX_WINDOW };
    let f = CuckooFilter::builder().capacity(1 << 24).layout(wide);
    assert_eq!(f.build().unwrap().layout(), wide);
    let f = CuckooFilter::builder()
        .layout(Layout::near())
        .max_kicks(7)
        .build()
        .unwrap();
    assert_eq!(f.max_kicks(), 7);
    let spread = CuckooFilter::builder().build().unwrap();
    assert_eq!(
        (spread.layout(), spread.max_kicks()),
        (Layout::Spread, DEFAULT_MAX_KICKS)
    );
}

/// Offsets in the file: the parameters start at byte 24 (buckets u64, fp_bits u32, kicks u32,
/// len u64, capacity u64, rate f64), then the layout tag at 64 and the window at 68.
const BUCKETS_AT: usize = 24;
const TAG_AT: usize = 64;
const WINDOW_AT: usize = 68;

fn near_bytes() -> (CuckooFilter, Vec<u8>) {
    let mut f = CuckooFilter::builder()
        .capacity(100)
        .layout(Layout::near())
        .build()
        .unwrap();
    f.insert(b"x").unwrap();
    let bytes = f.to_bytes();
    (f, bytes)
}

fn edited(bytes: &[u8], at: usize, value: &[u8]) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at..at + value.len()].copy_from_slice(value);
    format::reseal(&mut b);
    b
}

fn refusal(bytes: &[u8]) -> String {
    match CuckooFilter::from_bytes(bytes) {
        Err(filter_core::FormatError::Invalid(why)) => why,
        other => panic!("expected an invalid layout, got {other:?}"),
    }
}

#[test]
fn files_carry_the_layout_and_load_back() {
    let (f, bytes) = near_bytes();
    assert_eq!(bytes[TAG_AT..TAG_AT + 4], 2u32.to_le_bytes());
    let Layout::Near { window } = f.layout() else {
        unreachable!()
    };
    assert_eq!(bytes[WINDOW_AT..WINDOW_AT + 4], window.to_le_bytes());
    let back = CuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(back, f);
    assert!(back.contains(b"x"));
    // A spread filter's parameters end where layout 1 files always ended: no tag.
    let params_len = |b: &[u8]| {
        let d = format::decode(b, crate::FILE_KIND).unwrap();
        d.params.remaining()
    };
    let spread = CuckooFilter::builder().capacity(100).build().unwrap();
    assert_eq!(params_len(&spread.to_bytes()), 40);
    assert_eq!(params_len(&bytes), 48);
}

#[test]
fn the_loader_refuses_impossible_layouts() {
    let (f, bytes) = near_bytes();
    let window = match f.layout() {
        Layout::Near { window } => window,
        Layout::Spread => unreachable!(),
    };
    for (w, why) in [
        (0u32, "power of two"),
        (3, "power of two"),
        (MAX_WINDOW * 2, "power of two"),
        (window * 2, "at least its window"),
    ] {
        let bad = edited(&bytes, WINDOW_AT, &w.to_le_bytes());
        assert!(refusal(&bad).contains(why), "window {w}: {}", refusal(&bad));
    }
    for (tag, why) in [(1u32, "tagged explicitly"), (3, "newer")] {
        let bad = edited(&bytes, TAG_AT, &tag.to_le_bytes());
        assert!(refusal(&bad).contains(why), "tag {tag}");
    }
    // An odd bucket count is refused by the layout check, before the table's length is.
    let odd = edited(&bytes, BUCKETS_AT, &(f.buckets() - 1).to_le_bytes());
    assert!(
        refusal(&odd).contains("even bucket count"),
        "{}",
        refusal(&odd)
    );
    // The unedited file, resealed the same way, loads: the edits above are what is refused.
    assert!(CuckooFilter::from_bytes(&edited(&bytes, TAG_AT, &2u32.to_le_bytes())).is_ok());
}

#[test]
fn the_near_rate_has_no_self_paired_term() {
    // Two buckets: every key's pair is {0, 1} in the near layout.
    let values = 15.0f64;
    let near = fpr_exact(Layout::near(), 4, 2, 6);
    assert!((near - (1.0 - (1.0 - 1.0 / values).powi(6))).abs() < 1e-12);
    assert!(fpr_exact(Layout::Spread, 4, 2, 6) < near - 0.05);
    assert_eq!(fpr_exact(Layout::near(), 4, 1000, 0), 0.0);
}

#[test]
fn near_duplicates_are_counted_and_limited_to_their_two_buckets() {
    crate::tests::check_duplicates_fill_two_buckets(
        CuckooFilter::builder()
            .capacity(1000)
            .layout(Layout::near())
            .build()
            .unwrap(),
    );
}

#[test]
fn layouts_read_as_words_in_messages() {
    assert_eq!(Layout::Spread.to_string(), "spread");
    assert_eq!(Layout::near().to_string(), "near (window 1024)");
    assert_eq!(Layout::Near { window: 4 }.to_string(), "near (window 4)");
}
