//! Unit tests of `record/conditions.rs`.

use super::*;

fn side() -> Conditions {
    Conditions {
        api: Api::OneAtATime,
        achieved_fpr: Some(0.01),
        hash: OURS_HASH.into(),
        threads: 1,
        huge_pages: Some(0.0),
        bytes: Some(1000),
        timed: Timed::Lookups,
        grown_from: None,
        keys: Some(10_000_000),
    }
}

#[test]
fn each_recorded_difference_is_listed() {
    assert!(differences(&side(), &side(), Terms::AlikeFp).is_empty());
    let other = Conditions {
        api: Api::Batched,
        achieved_fpr: Some(0.0126),
        hash: "foldhash".into(),
        threads: 2,
        huge_pages: Some(0.9),
        bytes: Some(2000),
        timed: Timed::InsertsOnly,
        grown_from: None,
        keys: Some(1_000_000),
    };
    let d = differences(&side(), &other, Terms::AlikeFp).join("; ");
    for needle in [
        "one at a time vs batched",
        "hash xxh3-128 vs foldhash",
        "1 vs 2 threads",
        "timer: lookups vs inserts",
        "huge pages on 0% vs 90%",
        "achieved FP 1% vs 1.26%",
        "10000000 vs 1000000 keys",
    ] {
        assert!(d.contains(needle), "{needle} in {d}");
    }
    // 1.25x both ways: 1.24x is alike, whichever side is higher.
    for f in [0.0124, 0.01 / 1.24] {
        let b = Conditions {
            achieved_fpr: Some(f),
            ..side()
        };
        assert!(differences(&side(), &b, Terms::AlikeFp).is_empty(), "{f}");
        assert!(differences(&b, &side(), Terms::AlikeFp).is_empty(), "{f}");
    }
    let speedup = Conditions {
        threads: 2,
        achieved_fpr: None,
        ..side()
    };
    assert!(differences(&side(), &speedup, Terms::Speedup).is_empty());
    assert!(!differences(&side(), &speedup, Terms::AlikeFp).is_empty());
}

#[test]
fn a_sample_against_the_full_size_differs_unless_the_terms_compare_sizes() {
    let sample = Conditions {
        keys: Some(100_000),
        ..side()
    };
    for terms in [
        Terms::AlikeFp,
        Terms::Speedup,
        Terms::NoWorse { bytes: None },
    ] {
        assert_eq!(
            keys_differ(&side(), &sample, terms),
            Some((10_000_000, 100_000)),
            "{terms:?}"
        );
        assert!(differences(&sample, &side(), terms)
            .iter()
            .any(|d| d == "100000 vs 10000000 keys"));
    }
    // One filter at two sizes is what a growth row compares.
    assert_eq!(keys_differ(&side(), &sample, Terms::Growth), None);
    // A side that records no key count (a goal's unit, the floor) is not a size.
    let unit = Conditions {
        keys: None,
        ..side()
    };
    assert_eq!(keys_differ(&unit, &sample, Terms::AlikeFp), None);
    assert!(differences(&side(), &side(), Terms::AlikeFp).is_empty());
}
