//! The conformance suite, run against every variant: the laws every filter must obey.

use filter_core::testkit::{self, Op};
use filterlab::{AnyFilter, Filter, HashKind, KeyHasher, Params, Persist, Variant};
use proptest::prelude::*;

fn seeded(seed: u64) -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, seed).unwrap()
}

/// A filter of `v` for `cap` items at 1%, through the registry; a growing variant gets a small
/// first stage, so that every law is also checked across growth.
fn make<T: TryFrom<AnyFilter>>(v: Variant, cap: u64, h: KeyHasher) -> T {
    let cap = if v.capabilities().grows {
        cap / 8 + 1
    } else {
        cap
    };
    let f = AnyFilter::build(v, &Params::new(cap, 0.01).hasher(h)).unwrap();
    T::try_from(f).unwrap_or_else(|_| panic!("{v} built another variant"))
}

/// The laws every filter obeys, instantiated once per variant.
macro_rules! filter_laws {
    ($variant:ident, $ty:ty, $make:path) => {
        mod $variant {
            use super::*;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(48))]

                #[test]
                fn inserted_keys_are_always_found(
                    keys in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..600),
                    seed in any::<u32>(),
                    kind in prop::sample::select(vec![
                        HashKind::Xxh3_128,
                        HashKind::Murmur3X64_128,
                        HashKind::Xxh3_64,
                    ]),
                ) {
                    let mut f = $make(400, KeyHasher::new(kind, u64::from(seed)).unwrap());
                    testkit::check_no_false_negatives(&mut f, &keys);
                }

                #[test]
                fn save_then_load_is_identical(n in 0usize..700, seed in any::<u64>()) {
                    let mut f = $make(500, seeded(seed));
                    testkit::check_no_false_negatives(&mut f, &testkit::keys("rt", n));
                    testkit::check_round_trip(&f, &testkit::keys("probe", 300));
                }

                #[test]
                fn batches_answer_like_single_calls(n in 0usize..300, probes in 0usize..300) {
                    let members = testkit::keys("batch", n);
                    let refs: Vec<&[u8]> = members.iter().map(Vec::as_slice).collect();
                    let mut one = $make(200, seeded(3));
                    let mut many = $make(200, seeded(3));
                    let single: Vec<bool> = refs.iter().map(|k| one.insert(k).is_ok()).collect();
                    let batched = many.insert_batch(&refs);
                    // Identical state whenever every insert succeeded; a batch stops at the
                    // first refusal, as documented.
                    if single.iter().all(|&ok| ok) {
                        prop_assert!(batched.is_ok());
                        prop_assert_eq!(one.to_bytes(), many.to_bytes());
                    }
                    let queries: Vec<Vec<u8>> = testkit::keys("batch", n + probes);
                    let qrefs: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
                    let mut out = vec![true; 3]; // cleared by the call
                    one.contains_batch(&qrefs, &mut out);
                    let expected: Vec<bool> = qrefs.iter().map(|k| one.contains(k)).collect();
                    prop_assert_eq!(out, expected);
                }

                #[test]
                fn arbitrary_bytes_never_panic_on_load(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                    let _ = <$ty>::from_bytes(&bytes);
                }

                /// Random edits of the sections, re-enveloped (right lengths, right checksum) so
                /// that every case reaches the decoder: it must refuse or load canonically.
                #[test]
                fn resealed_edits_reach_the_decoder_and_never_panic(
                    n in 0usize..300,
                    edits in prop::collection::vec((any::<bool>(), any::<u16>(), any::<u8>()), 1..6),
                    resize in prop::option::of((any::<bool>(), 0usize..64)),
                ) {
                    let mut f = $make(200, seeded(13));
                    testkit::check_no_false_negatives(&mut f, &testkit::keys("edit", n));
                    testkit::check_resealed_edits(&f, &edits, resize);
                }

                #[test]
                fn insert_if_absent_is_contains_then_insert(n in 0usize..400, dups in 0usize..200) {
                    let keys = testkit::keys("ifa", n);
                    let mut stream = keys.clone();
                    stream.extend(keys.iter().take(dups).cloned());
                    let mut f = $make(250, seeded(12));
                    let mut twin = $make(250, seeded(12));
                    let new = testkit::check_insert_if_absent(&mut f, &mut twin, &stream);
                    prop_assert!(new <= n);
                    prop_assert_eq!(f.len(), new as u64);
                }
            }

            #[test]
            fn mutated_sections_reach_the_decoder() {
                let mut f = $make(300, seeded(10));
                testkit::check_no_false_negatives(&mut f, &testkit::keys("dec", 250));
                let rejected = testkit::check_decoder_validates(&f);
                assert!(rejected > 10, "{rejected}");
            }

            #[test]
            fn damaged_saved_files_load_identical_or_not_at_all() {
                let dir = std::env::temp_dir().join(format!(
                    "filterlab-damage-{}-{}",
                    // One directory per variant: the variants' tests run in parallel.
                    stringify!($ty).replace("::", "-"),
                    std::process::id()
                ));
                std::fs::create_dir_all(&dir).unwrap();
                let mut f = $make(12, seeded(14));
                testkit::check_no_false_negatives(&mut f, &testkit::keys("file", 10));
                let loaded = testkit::check_damaged_files(&f, &dir);
                assert_eq!(loaded, 0);
                std::fs::remove_dir_all(&dir).unwrap();
            }

            #[test]
            fn serde_does_not_trust_a_declared_length() {
                use filter_core::serde_bytes::serde::de::value::{Error as DeError, SeqDeserializer};
                use filter_core::serde_bytes::serde::Deserialize;
                /// Yields the real bytes but claims 2^60 of them.
                struct Liar(std::vec::IntoIter<u8>);
                impl Iterator for Liar {
                    type Item = u8;
                    fn next(&mut self) -> Option<u8> {
                        self.0.next()
                    }
                    fn size_hint(&self) -> (usize, Option<usize>) {
                        (1 << 60, Some(1 << 60))
                    }
                }
                let f = $make(100, seeded(15));
                let de = SeqDeserializer::<_, DeError>::new(Liar(f.to_bytes().into_iter()));
                let back = <$ty>::deserialize(de).unwrap();
                assert_eq!(back.to_bytes(), f.to_bytes());
            }

            #[test]
            fn damaged_bytes_are_rejected() {
                let mut f = $make(300, seeded(9));
                testkit::check_no_false_negatives(&mut f, &testkit::keys("bad", 200));
                testkit::check_rejects_bad_bytes(&f);
            }

            #[test]
            fn a_failed_insert_changes_nothing() {
                let mut f = $make(2000, seeded(4));
                // Bloom-family and growing filters never refuse an insert; the fixed tables of
                // fingerprints do when full (their plan has no rate at twice the capacity),
                // and the check then verifies that it left everything as it was.
                let failed = testkit::check_failed_insert_changes_nothing(&mut f, "full", 4000);
                let any = AnyFilter::from_bytes(&f.to_bytes()).unwrap();
                let fixed_table = any.plan().unwrap().rate_at(2 * any.capacity()).is_none();
                assert_eq!(failed.is_some(), fixed_table, "{failed:?}");
            }

            #[test]
            fn serde_round_trip_is_identical() {
                let mut f = $make(300, seeded(5));
                testkit::check_no_false_negatives(&mut f, &testkit::keys("serde", 250));
                let json = serde_json::to_string(&f).unwrap();
                let back: $ty = serde_json::from_str(&json).unwrap();
                assert_eq!(back.to_bytes(), f.to_bytes());
                assert!(serde_json::from_str::<$ty>("[1,2,3]").is_err());
            }

            #[test]
            fn measured_fpr_is_within_4_sigma_of_the_formula() {
                // Fixed seeds, disjoint members and probes, a binomial tolerance.
                for seed in [1u64, 2, 3] {
                    let mut f = $make(20_000, seeded(seed));
                    testkit::check_no_false_negatives(&mut f, &testkit::keys("member", 20_000));
                    let (fp, n) = testkit::measure_fpr(&f, &testkit::keys("probe", 100_000));
                    testkit::assert_fpr_near(f.name(), fp, n, f.expected_fpr(), 4.0);
                }
            }
        }
    };
}

/// [`filter_laws`] for every row of the registry, in a module named after the variant.
macro_rules! every_variant {
    ($($name:ident => $ty:ident [$($cap:ident),*]),+) => {$(
        #[allow(non_snake_case)]
        mod $name {
            use super::*;

            #[allow(dead_code)] // The static variants are built from their key sets instead.
            fn build(cap: u64, h: KeyHasher) -> filterlab::$ty {
                make(Variant::$name, cap, h)
            }

            by_construction!([$($cap),*] filterlab::$ty, $name, build);
            if_deletes!([$($cap),*]
                deletable_laws!(deletion, build);

                #[test]
                fn deletion_is_a_capability_checked_by_the_compiler() {
                    churn(&mut build(10, seeded(0))).unwrap();
                }
            );
        }
    )+};
}

/// The extra laws of deletable filters, checked against a `HashMap<key, count>` model.
macro_rules! deletable_laws {
    ($variant:ident, $make:path) => {
        mod $variant {
            use super::*;

            fn op() -> impl Strategy<Value = Op> {
                prop_oneof![
                    3 => (0u16..64).prop_map(Op::Insert),
                    2 => (0u16..64).prop_map(Op::Remove),
                ]
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(64))]

                #[test]
                fn agrees_with_a_multiset_model(ops in prop::collection::vec(op(), 0..400)) {
                    let mut f = $make(200, seeded(7));
                    testkit::check_deletable_against_model(&mut f, &ops);
                }
            }

            #[test]
            fn removing_everything_empties_the_filter() {
                let mut f = $make(5000, seeded(8));
                let keys = testkit::keys("churn", 5000);
                testkit::check_no_false_negatives(&mut f, &keys);
                for k in &keys {
                    filterlab::Deletable::remove(&mut f, k).unwrap();
                }
                assert_eq!(f.len(), 0);
                let grows = AnyFilter::from_bytes(&f.to_bytes()).unwrap().capabilities().grows;
                if grows {
                    // A growing filter keeps the stages it grew, emptied: no slot holds
                    // anything, so nothing is found and the rate is 0.
                    assert_eq!(f.expected_fpr(), 0.0);
                    assert!(keys.iter().all(|k| !f.contains(k)));
                } else {
                    assert_eq!(f.to_bytes(), $make(5000, seeded(8)).to_bytes());
                }
            }
        }
    };
}

/// [`static_laws`] for a variant built once from its key set (`static_set`), [`filter_laws`]
/// for one filled by inserts; a sliding window (`windowed`) obeys the laws of
/// `conformance_window.rs` instead (it forgets: "inserted keys are always found" holds only
/// within its window).
macro_rules! by_construction {
    ([static_set $(, $rest:ident)*] $ty:ty, $name:ident, $make:path) => {
        static_laws!(laws, $ty, $name);
    };
    ([windowed $(, $rest:ident)*] $ty:ty, $name:ident, $make:path) => {};
    ([$first:ident $(, $rest:ident)*] $ty:ty, $name:ident, $make:path) => {
        by_construction!([$($rest),*] $ty, $name, $make);
    };
    ([] $ty:ty, $name:ident, $make:path) => {
        filter_laws!(laws, $ty, $make);
    };
}

/// A filter of the static variant `v` built from `keys` at 1% through the registry.
fn built<T: TryFrom<AnyFilter>>(v: Variant, keys: &[Vec<u8>], h: KeyHasher) -> T {
    let hashes: Vec<filterlab::Hash128> = keys.iter().map(|k| h.hash(k)).collect();
    let params = Params::new((keys.len() as u64).max(1), 0.01).hasher(h);
    let f = AnyFilter::build_from_hashes(v, &params, &hashes).unwrap();
    T::try_from(f).unwrap_or_else(|_| panic!("{v} built another variant"))
}

/// The laws of a filter built once from its whole key set.
macro_rules! static_laws {
    ($module:ident, $ty:ty, $name:ident) => {
        mod $module {
            use super::*;

            fn of(keys: &[Vec<u8>], h: KeyHasher) -> $ty {
                built(Variant::$name, keys, h)
            }

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(32))]

                #[test]
                fn built_keys_are_always_found_and_files_round_trip(
                    keys in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..600),
                    seed in any::<u32>(),
                ) {
                    let f = of(&keys, seeded(u64::from(seed)));
                    prop_assert!(keys.iter().all(|k| f.contains(k)));
                    testkit::check_round_trip(&f, &testkit::keys("probe", 300));
                    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                    let mut out = vec![false; 2]; // cleared by the call
                    f.contains_batch(&refs, &mut out);
                    prop_assert!(out.iter().all(|&b| b));
                }

                #[test]
                fn arbitrary_bytes_never_panic_on_load(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                    let _ = <$ty>::from_bytes(&bytes);
                }
            }

            #[test]
            fn an_insert_is_refused_and_changes_nothing() {
                let mut f = of(&testkit::keys("set", 100), seeded(2));
                let before = f.to_bytes();
                let e = f.insert(b"late").unwrap_err();
                assert!(matches!(e, filterlab::Error::Unsupported { .. }), "{e}");
                assert!(e.to_string().contains("built once"), "{e}");
                assert_eq!(f.to_bytes(), before);
            }

            #[test]
            fn damaged_bytes_and_files_are_rejected() {
                let f = of(&testkit::keys("bad", 300), seeded(9));
                testkit::check_rejects_bad_bytes(&f);
                assert!(testkit::check_decoder_validates(&f) > 10);
                let dir = std::env::temp_dir().join(format!(
                    "filterlab-damage-{}-{}",
                    stringify!($name),
                    std::process::id()
                ));
                std::fs::create_dir_all(&dir).unwrap();
                let small = of(&testkit::keys("file", 10), seeded(14));
                assert_eq!(testkit::check_damaged_files(&small, &dir), 0);
                std::fs::remove_dir_all(&dir).unwrap();
            }

            #[test]
            fn measured_fpr_is_within_4_sigma_of_the_formula() {
                // Fixed seeds, disjoint members and probes, a binomial tolerance.
                for seed in [1u64, 2, 3] {
                    let f = of(&testkit::keys("member", 20_000), seeded(seed));
                    let (fp, n) = testkit::measure_fpr(&f, &testkit::keys("probe", 100_000));
                    testkit::assert_fpr_near(f.name(), fp, n, f.expected_fpr(), 4.0);
                }
            }
        }
    };
}

/// `$body` when the capabilities include `deletes`.
macro_rules! if_deletes {
    ([deletes $(, $rest:ident)*] $($body:tt)*) => { $($body)* };
    ([$first:ident $(, $rest:ident)*] $($body:tt)*) => { if_deletes!([$($rest),*] $($body)*); };
    ([] $($body:tt)*) => {};
}

filterlab::for_each_variant!(every_variant);

/// A compile-time law: code that deletes asks for `Deletable`, which the classic and scalable
/// filters do not implement, so `remove` on them does not compile (every variant the table
/// says `deletes` is checked with it above).
fn churn<F: filterlab::Deletable>(f: &mut F) -> filterlab::Result<()> {
    f.insert(b"x")?;
    f.remove(b"x")
    // churn(&mut classic(10, seeded(0)));  // error[E0277]: `ClassicBloom: Deletable` not satisfied
}

/// The batch paths prefetch only tables of at least `PREFETCH_MIN_BYTES` (`_MULTI` for k-probe filters); the laws above use
/// small filters, so check the prefetching path on tables above that size too.
#[test]
fn prefetching_batches_answer_like_single_calls() {
    fn check(mut one: AnyFilter, mut many: AnyFilter) {
        assert!(
            one.size_in_bytes() >= filterlab::PREFETCH_MIN_BYTES_MULTI,
            "{}",
            one.name()
        );
        let keys = testkit::keys("big", 20_000);
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        for k in &refs {
            one.insert(k).unwrap();
        }
        many.insert_batch(&refs).unwrap();
        assert_eq!(one.to_bytes(), many.to_bytes(), "{}", one.name());
        let probes = testkit::keys("big", 40_000);
        let prefs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
        let mut out = Vec::new();
        many.contains_batch(&prefs, &mut out);
        let single: Vec<bool> = prefs.iter().map(|k| one.contains(k)).collect();
        assert_eq!(out, single, "{}", one.name());
        assert!(out[..20_000].iter().all(|&b| b));
    }
    let h = seeded(11);
    // The static variants take no inserts; their batch queries are checked by `static_laws`.
    // A window counted in time takes its inserts with a time: `conformance_window.rs`.
    for &v in Variant::ALL
        .iter()
        .filter(|v| !v.capabilities().static_set && !v.capabilities().timed)
    {
        // The smallest of these sizes whose table is above the threshold.
        let params = [1_000_000, 2_000_000, 4_000_000]
            .map(|n| Params::new(n, 0.01).hasher(h))
            .into_iter()
            .find(|p| {
                v.plan(p)
                    .is_ok_and(|plan| plan.bytes >= filterlab::PREFETCH_MIN_BYTES_MULTI as u64)
            })
            .unwrap_or_else(|| panic!("{v}: no size above the prefetch threshold"));
        let build = || AnyFilter::build(v, &params).unwrap();
        check(build(), build());
    }
}

/// The cuckoo filter's near layout (`cuckoo::Layout::near()`, a builder option rather than a
/// row of the registry) obeys the same laws, deletions and counts of copies included.
mod cuckoo_near_layout {
    use super::*;

    /// A name of its own, so its damaged-file directory is not the spread layout's.
    type NearCuckoo = filterlab::CuckooFilter;

    fn build(cap: u64, h: KeyHasher) -> NearCuckoo {
        let f = NearCuckoo::builder()
            .capacity(cap)
            .fpr(0.01)
            .hasher(h)
            .layout(filterlab::cuckoo::Layout::near())
            .build()
            .unwrap();
        assert!(matches!(f.layout(), filterlab::cuckoo::Layout::Near { .. }));
        f
    }

    filter_laws!(laws, NearCuckoo, build);
    deletable_laws!(deletion, build);

    #[test]
    fn deletion_is_a_capability_checked_by_the_compiler() {
        churn(&mut build(10, seeded(0))).unwrap();
    }
}
