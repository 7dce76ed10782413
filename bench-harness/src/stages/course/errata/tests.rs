//! Unit tests of `stages/course/errata.rs`.

use super::*;

#[test]
fn the_library_sizes_cuckoo_tables_to_any_bucket_count() {
    // What the erratum's text relies on: capacity n gives about n / (4 · 0.95) buckets,
    // not the next power of two.
    let c = CuckooFilter::builder()
        .capacity(1_200_000)
        .fpr(P)
        .build()
        .unwrap();
    assert!(!c.buckets().is_power_of_two());
    assert!((c.buckets() as f64 / (1_200_000.0 / 3.8) - 1.0).abs() < 0.01);
}
