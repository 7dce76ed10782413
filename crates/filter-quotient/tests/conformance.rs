//! The filter-core conformance suite (testkit) on the quotient filter, and a property test of
//! removals against a model of copies.

mod common;

use common::filter;
use filter_core::testkit::{self, Op};
use filter_core::Filter;
use proptest::prelude::*;

#[test]
fn no_false_negatives() {
    for seed in 0..3 {
        let mut f = filter(5_000, 0.01, seed);
        let accepted = testkit::check_no_false_negatives(&mut f, &testkit::keys("member", 5_000));
        assert_eq!(accepted, 5_000);
    }
}

#[test]
fn round_trip_and_bad_bytes() {
    let mut f = filter(1_000, 0.01, 1);
    let keys = testkit::keys("saved", 900);
    keys.iter().for_each(|k| f.insert(k).unwrap());
    testkit::check_round_trip(&f, &testkit::keys("probe", 2_000));
    testkit::check_round_trip(&filter(10, 0.5, 2), &keys[..10]);
    testkit::check_rejects_bad_bytes(&f);
    assert!(testkit::check_decoder_validates(&f) > 0);
}

/// Every truncation and bit flip of a saved file, through the file system (about 1,500 file
/// writes and loads: seconds on a loaded machine). The in-memory truncations and flips run by
/// default in `round_trip_and_bad_bytes`; the facade's conformance suite runs this one for
/// every registered variant. `cargo test -p filter-quotient -- --ignored`.
#[test]
#[ignore]
fn damaged_files_are_refused() {
    let mut f = filter(20, 0.1, 3);
    testkit::keys("d", 15)
        .iter()
        .for_each(|k| f.insert(k).unwrap());
    let dir = std::env::temp_dir().join(format!("filterlab-quotient-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let loaded = testkit::check_damaged_files(&f, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(loaded, 0);
}

#[test]
fn insert_if_absent_is_contains_then_insert() {
    let (mut f, mut twin) = (filter(2_000, 0.05, 4), filter(2_000, 0.05, 4));
    let mut keys = testkit::keys("once", 1_500);
    keys.extend(testkit::keys("once", 300));
    let new = testkit::check_insert_if_absent(&mut f, &mut twin, &keys);
    assert!((1_400..=1_500).contains(&new), "{new}");
}

#[test]
fn removals_against_the_model_of_copies() {
    let ops: Vec<Op> = (0..600u16)
        .map(|i| match i % 5 {
            0 | 3 => Op::Remove(i.wrapping_mul(7) % 90),
            _ => Op::Insert(i.wrapping_mul(13) % 90),
        })
        .collect();
    testkit::check_deletable_against_model(&mut filter(200, 0.01, 5), &ops);
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u16..60).prop_map(Op::Insert),
        2 => (0u16..60).prop_map(Op::Remove),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any sequence of inserts and removals: no false negative, counts at least the copies,
    /// `len` the model's total (a small filter: 64 quotients, full at 60 items).
    #[test]
    fn removals_never_create_false_negatives(
        ops in proptest::collection::vec(op(), 1..150),
        seed in 0u64..4,
    ) {
        testkit::check_deletable_against_model(&mut filter(50, 0.1, seed), &ops);
    }
}
