//! The lock-free classic filter: the generic lock-free checks, the probes past the prefetched
//! ones, and its sizing errors.

use filter_classic::ClassicBloom;
use filter_core::testkit::{check_lock_free, check_same_as_single, check_sizing_refusals};
use filter_core::{HashKind, KeyHasher};

fn builder() -> filter_classic::ClassicBuilder {
    ClassicBloom::builder()
        .capacity(80_000)
        .fpr(0.01)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, 42).unwrap())
}

#[test]
fn passes_the_lock_free_checks() {
    check_lock_free(
        || builder().build_atomic().unwrap(),
        || builder().build().unwrap(),
    );
}

#[test]
fn more_probes_than_the_prefetched_ones_set_the_same_bits() {
    // The atomic insert prefetches up to 16 words and continues the sequence past them.
    for k in [1, 16, 17, 40] {
        let shared = builder().hashes(k).build_atomic().unwrap();
        let mut single = builder().hashes(k).build().unwrap();
        check_same_as_single(&shared, &mut single, 4, 2_000);
        assert_eq!((shared.bits(), shared.hashes()), (single.bits(), k));
    }
}

#[test]
fn bad_sizes_are_errors() {
    check_sizing_refusals(
        ClassicBloom::builder().capacity(0).build_atomic(),
        ClassicBloom::builder()
            .bits(1 << 62)
            .hashes(3)
            .build_atomic(),
        ClassicBloom::builder()
            .capacity(1_000_000)
            .max_bytes(1000)
            .build_atomic(),
    );
}

/// Issue 37, item 6: a file that declares the maximum count, shared between threads that each
/// insert, saves a file that loads again (the count used to wrap to 0, and a file with set
/// bits and no items is refused).
#[test]
fn a_count_at_the_maximum_saturates_and_the_saved_file_loads() {
    use filter_classic::AtomicClassicBloom;
    use filter_core::concurrent::SharedInsert;
    use filter_core::{format, Filter, Persist};
    let mut f = builder().build().unwrap();
    f.insert(b"seed").unwrap();
    let mut bytes = f.to_bytes();
    // The count follows m (8 bytes) and k (4) in the parameter section, at 24.
    bytes[36..44].copy_from_slice(&u64::MAX.to_le_bytes());
    format::reseal(&mut bytes);
    let shared = AtomicClassicBloom::from(ClassicBloom::from_bytes(&bytes).unwrap());
    // Threads started one after another take every slot of the counter.
    for i in 0..32u32 {
        std::thread::scope(|s| {
            s.spawn(|| shared.insert_shared(&i.to_le_bytes()));
        });
    }
    assert_eq!(shared.len(), u64::MAX);
    let back = ClassicBloom::from_bytes(&shared.to_bytes()).expect("the saved file loads");
    assert_eq!(back.len(), u64::MAX);
}
