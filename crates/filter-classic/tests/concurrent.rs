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
