//! The lock-free classic filter: many threads, no false negative, and the same bits and file as
//! the single-threaded form.

use filter_classic::{AtomicClassicBloom, ClassicBloom};
use filter_core::concurrent::{check_same_as_single, hammer};
use filter_core::{testkit, Error, Filter, HashKind, KeyHasher, Persist};
use std::sync::Arc;

fn builder() -> filter_classic::ClassicBuilder {
    ClassicBloom::builder()
        .capacity(80_000)
        .fpr(0.01)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, 42).unwrap())
}

#[test]
fn many_threads_never_see_a_false_negative() {
    let f = builder().build_atomic().unwrap();
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .max(8);
    assert_eq!(hammer(&f, threads, 10_000), 0);
    assert_eq!(f.len(), threads as u64 * 10_000);
}

#[test]
fn more_probes_than_the_prefetched_ones_set_the_same_bits() {
    // The atomic insert prefetches up to 16 words and continues the sequence past them.
    for k in [1, 16, 17, 40] {
        let shared = builder().hashes(k).build_atomic().unwrap();
        let mut single = builder().hashes(k).build().unwrap();
        check_same_as_single(&shared, &mut single, 4, 2_000);
    }
}

#[test]
fn threaded_inserts_set_the_same_bits_and_file_as_one_thread() {
    let shared = builder().build_atomic().unwrap();
    let mut single = builder().build().unwrap();
    check_same_as_single(&shared, &mut single, 8, 5_000);
    assert_eq!(
        (shared.bits(), shared.hashes()),
        (single.bits(), single.hashes())
    );
}

#[test]
fn shared_through_an_arc_and_converted_back() {
    fn send_sync<T: Send + Sync>(t: T) -> T {
        t
    }
    let f = Arc::new(send_sync(builder().build_atomic().unwrap()));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let f = Arc::clone(&f);
            std::thread::spawn(move || {
                for k in testkit::keys(&format!("arc{t}"), 1000) {
                    f.insert(&k);
                }
            })
        })
        .collect();
    handles.into_iter().for_each(|h| h.join().unwrap());
    let f = Arc::try_unwrap(f).unwrap();
    let inner = f.into_inner().unwrap();
    assert_eq!(inner.len(), 4000);
    assert!((0..4).all(|t| testkit::keys(&format!("arc{t}"), 1000)
        .iter()
        .all(|k| inner.contains(k))));
    let again = AtomicClassicBloom::from(inner.clone());
    assert_eq!(again.to_bytes(), inner.to_bytes());
}

#[test]
fn the_shared_form_passes_the_file_checks() {
    let f = builder().build_atomic().unwrap();
    testkit::keys("file", 500).iter().for_each(|k| f.insert(k));
    testkit::check_round_trip(&f, &testkit::keys("probe", 500));
    testkit::check_rejects_bad_bytes(&f);
}

#[test]
fn bad_sizes_are_errors() {
    assert!(matches!(
        ClassicBloom::builder().capacity(0).build_atomic(),
        Err(Error::InvalidParameter {
            name: "capacity",
            ..
        })
    ));
    assert!(matches!(
        ClassicBloom::builder()
            .bits(1 << 62)
            .hashes(3)
            .build_atomic(),
        Err(Error::OutOfMemory { .. })
    ));
    assert!(matches!(
        ClassicBloom::builder()
            .capacity(1_000_000)
            .max_bytes(1000)
            .build_atomic(),
        Err(Error::MemoryCap { .. })
    ));
}
