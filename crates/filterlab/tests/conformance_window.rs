//! The conformance suite adapted to a sliding window, run against every `windowed` row of the
//! registry: an item younger than the window is always found; a file round trip gives the same
//! bytes and answers; damaged or arbitrary bytes are refused or load canonically, never panic;
//! batches answer like single calls; the rate measured over a stream is the formula's (fixed
//! seeds, 4 sigma); memory is flat. The windows' own guarantees (the lifetime bound, the rate
//! over ten windows) stay in `crates/filter-window/tests/guarantees.rs`.
//!
//! A stream is the same for both kinds of window: the `i`-th insert happens at time `i`, and a
//! window counted in time lasts `w` ticks for `w` items, so "younger than the window" is "one
//! of the last `w` inserts" for both.

use filter_core::testkit;
use filterlab::{AnyFilter, Filter, HashKind, KeyHasher, Params, Persist, Timestamp, Variant};
use proptest::prelude::*;

fn seeded(seed: u64) -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, seed).unwrap()
}

/// A window of `w` items (or `w` ticks for `w` items) at 1% through the registry.
fn make(v: Variant, w: u64, h: KeyHasher) -> AnyFilter {
    let p = Params::new(w, 0.01).hasher(h);
    let p = if v.capabilities().timed {
        p.window_ticks(w)
    } else {
        p
    };
    AnyFilter::build(v, &p).unwrap()
}

/// The `i`-th insert of a stream: at time `i` for a window counted in time.
fn insert(f: &mut AnyFilter, key: &[u8], i: u64) {
    if f.capabilities().timed {
        f.insert_at(key, Timestamp(i)).unwrap();
    } else {
        f.insert(key).unwrap();
    }
}

/// Whether the window holds `key` at time `now` (the time after the `now`-th insert).
fn holds(f: &AnyFilter, key: &[u8], now: u64) -> bool {
    if f.capabilities().timed {
        f.contains_at(key, Timestamp(now)).unwrap()
    } else {
        f.contains(key)
    }
}

/// `keys` streamed into `f`, from the `start`-th insert on.
fn stream(f: &mut AnyFilter, keys: &[Vec<u8>], start: u64) {
    for (i, k) in keys.iter().enumerate() {
        insert(f, k, start + i as u64);
    }
}

/// As its typed filter, for the laws of files.
fn typed<T: TryFrom<AnyFilter>>(f: AnyFilter) -> T {
    let v = f.variant();
    T::try_from(f).unwrap_or_else(|_| panic!("{v} holds another type"))
}

/// The laws of a sliding window, instantiated once per `windowed` row.
macro_rules! window_laws {
    ($name:ident, $ty:ty) => {
        #[allow(non_snake_case)]
        mod $name {
            use super::*;

            const V: Variant = Variant::$name;

            proptest! {
                #![proptest_config(ProptestConfig::with_cases(24))]

                #[test]
                fn items_younger_than_the_window_are_always_found(
                    w in 8u64..300,
                    len in 0usize..1000,
                    seed in any::<u32>(),
                ) {
                    let mut f = make(V, w, seeded(u64::from(seed)));
                    let keys = testkit::keys("young", len);
                    for (i, k) in keys.iter().enumerate() {
                        insert(&mut f, k, i as u64);
                        if i % 29 == 0 || i + 1 == len {
                            let young = (i + 1).saturating_sub(w as usize);
                            for (j, k) in keys[young..=i].iter().enumerate() {
                                prop_assert!(holds(&f, k, i as u64), "insert {} missing at {i}", young + j);
                            }
                        }
                    }
                }

                #[test]
                fn save_then_load_is_identical(n in 0usize..700, seed in any::<u64>()) {
                    let mut f = make(V, 200, seeded(seed));
                    stream(&mut f, &testkit::keys("rt", n), 0);
                    let f: $ty = typed(f);
                    testkit::check_round_trip(&f, &testkit::keys("probe", 300));
                    testkit::check_round_trip(&f, &testkit::keys("rt", n));
                }

                #[test]
                fn arbitrary_bytes_never_panic_on_load(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                    let _ = <$ty>::from_bytes(&bytes);
                    let _ = AnyFilter::from_bytes(&bytes);
                }

                /// Random edits of the sections, re-enveloped (right lengths, right checksum) so
                /// that every case reaches the decoder: it must refuse or load canonically.
                #[test]
                fn resealed_edits_reach_the_decoder_and_never_panic(
                    n in 0usize..400,
                    edits in prop::collection::vec((any::<bool>(), any::<u16>(), any::<u8>()), 1..6),
                ) {
                    let mut f = make(V, 100, seeded(13));
                    stream(&mut f, &testkit::keys("edit", n), 0);
                    let f: $ty = typed(f);
                    testkit::check_resealed_edits(&f, &edits, None);
                }

                #[test]
                fn batches_answer_like_single_calls(n in 0usize..500, probes in 0usize..300) {
                    let keys = testkit::keys("batch", n);
                    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
                    let mut one = make(V, 150, seeded(3));
                    let mut many = make(V, 150, seeded(3));
                    // One batch per tick of time (a window counted in time takes a batch at
                    // one time), or the whole stream at once.
                    for (t, chunk) in refs.chunks(7).enumerate() {
                        for k in chunk {
                            insert(&mut one, k, t as u64);
                        }
                        if many.capabilities().timed {
                            let hashes: Vec<_> = chunk.iter().map(|k| many.hasher().hash(k)).collect();
                            many.insert_hash_batch_at(&hashes, Timestamp(t as u64)).unwrap();
                        }
                    }
                    if !many.capabilities().timed {
                        many.insert_batch(&refs).unwrap();
                    }
                    prop_assert_eq!(one.to_bytes(), many.to_bytes());
                    let queries = testkit::keys("batch", n + probes);
                    let qrefs: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
                    let mut out = vec![true; 3]; // cleared by the call
                    one.contains_batch(&qrefs, &mut out);
                    let single: Vec<bool> = qrefs.iter().map(|k| one.contains(k)).collect();
                    prop_assert_eq!(out, single);
                }
            }

            #[test]
            fn damaged_bytes_and_files_are_rejected() {
                let mut f = make(V, 300, seeded(9));
                stream(&mut f, &testkit::keys("bad", 700), 0);
                let f: $ty = typed(f);
                testkit::check_rejects_bad_bytes(&f);
                let rejected = testkit::check_decoder_validates(&f);
                assert!(rejected > 10, "{rejected}");
                let dir = std::env::temp_dir().join(format!(
                    "filterlab-window-damage-{}-{}",
                    stringify!($name),
                    std::process::id()
                ));
                std::fs::create_dir_all(&dir).unwrap();
                let mut small = make(V, 12, seeded(14));
                stream(&mut small, &testkit::keys("file", 30), 0);
                let small: $ty = typed(small);
                assert_eq!(testkit::check_damaged_files(&small, &dir), 0);
                std::fs::remove_dir_all(&dir).unwrap();
            }

            /// Three windows streamed, then strangers asked: the rate is the formula's at the
            /// real counts (fixed seeds, disjoint keys, 4 sigma), at or under the target, and
            /// the memory never moved.
            #[test]
            fn measured_fpr_is_within_4_sigma_of_the_formula_and_memory_is_flat() {
                for seed in [1u64, 2, 3] {
                    let mut f = make(V, 20_000, seeded(seed));
                    let bytes = f.size_in_bytes();
                    stream(&mut f, &testkit::keys("member", 60_000), 0);
                    assert_eq!(f.size_in_bytes(), bytes, "memory moved");
                    let (fp, n) = testkit::measure_fpr(&f, &testkit::keys("probe", 100_000));
                    let p = f.expected_fpr();
                    assert!(p <= 0.01 && p > 0.005, "{p}");
                    testkit::assert_fpr_near(f.name(), fp, n, p, 4.0);
                }
            }
        }
    };
}

/// [`window_laws`] for each `windowed` row of the registry, nothing for the others.
macro_rules! if_windowed {
    ([windowed $(, $rest:ident)*] $name:ident, $ty:ty) => {
        window_laws!($name, $ty);
    };
    ([$first:ident $(, $rest:ident)*] $name:ident, $ty:ty) => {
        if_windowed!([$($rest),*] $name, $ty);
    };
    ([] $name:ident, $ty:ty) => {};
}

macro_rules! windowed_rows {
    ($($name:ident => $ty:ident [$($cap:ident),*]),+) => {$(
        if_windowed!([$($cap),*] $name, filterlab::$ty);
    )+};
}

filterlab::for_each_variant!(windowed_rows);
