//! The 64-bit hash kind ([`HashKind::Xxh3_64`]) in the split-block filter: selected in the
//! builder, stored in the file (id 3), FP rate as with 128 bits, and the whole-hash-collision
//! floor `n / 2^r` measured on a hash cut to `r = 20` bits so that it is visible. Files written
//! before the kind existed keep loading byte for byte.

use filter_blocked::{AtomicBlockedBloom, BlockedBloom};
use filter_core::testkit::assert_fpr_near;
use filter_core::{math, widen64, Filter, Hash128, HashKind, KeyHasher, Persist};

/// A split-block file written by the code before this kind existed (xxh3-128, seed 21, capacity
/// 64 at 1%, keys `user{0..40}@example.com`).
const OLD_FILE: &[u8] = include_bytes!("data/blocked-xxh3-128.bin");

fn key(tag: &str, i: u32) -> Vec<u8> {
    format!("{tag}{i}@example.com").into_bytes()
}

#[test]
fn a_file_written_before_the_64_bit_kind_loads_unchanged() {
    let f = BlockedBloom::from_bytes(OLD_FILE).unwrap();
    assert_eq!(f.hasher(), KeyHasher::new(HashKind::Xxh3_128, 21).unwrap());
    assert_eq!(f.len(), 40);
    assert!((0..40).all(|i| f.contains(&key("user", i))));
    // Saves write version 2; the same filter's version 1 file is the old file, byte for byte.
    let v1 = filter_core::format::layout::to_version_1(&f.to_bytes()).unwrap();
    assert_eq!(v1, OLD_FILE, "saving it again changed its bytes");
    let a = AtomicBlockedBloom::from_bytes(OLD_FILE).unwrap();
    assert!((0..40).all(|i| a.contains(&key("user", i))));
}

#[test]
fn the_64_bit_kind_is_stored_and_reloaded_by_both_forms() {
    let hasher = KeyHasher::new(HashKind::Xxh3_64, 5).unwrap();
    let mut f = BlockedBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .hasher(hasher)
        .build()
        .unwrap();
    let atomic = BlockedBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .hasher(hasher)
        .build_atomic()
        .unwrap();
    for i in 0..1000 {
        f.insert(&key("m", i)).unwrap();
        atomic.insert(&key("m", i));
    }
    let bytes = f.to_bytes();
    assert_eq!(atomic.to_bytes(), bytes, "the atomic form set other bits");
    let back = BlockedBloom::from_bytes(&bytes).unwrap();
    assert_eq!(back.hasher().kind(), HashKind::Xxh3_64);
    assert_eq!(back.hasher().seed(), 5);
    assert!((0..1000).all(|i| back.contains(&key("m", i))));
    // Same bytes read as the other kind would answer wrongly: the kind must really be stored.
    let old = BlockedBloom::from_bytes(OLD_FILE).unwrap();
    assert_ne!(old.hasher().kind(), back.hasher().kind());
}

/// Builds a filter of `n` members at 1% whose keys are hashed by `hash`, and measures its FP
/// rate over `probes` other keys. Returns (false positives, the split-block formula's rate).
fn fp_with(hash: impl Fn(&[u8]) -> Hash128, n: u32, probes: u32) -> (u64, f64) {
    let mut f = BlockedBloom::builder()
        .capacity(u64::from(n))
        .fpr(0.01)
        .build()
        .unwrap();
    for i in 0..n {
        f.insert_hash(hash(&key("member", i))).unwrap();
    }
    let fp = (0..probes)
        .filter(|&i| f.contains_hash(hash(&key("other", i))))
        .count() as u64;
    (fp, math::split_block_fpr(f.blocks(), u64::from(n)))
}

#[test]
fn xxh3_64_keeps_the_split_block_rate() {
    let hasher = KeyHasher::new(HashKind::Xxh3_64, 17).unwrap();
    let (n, probes) = (20_000, 200_000);
    let (fp, theory) = fp_with(|k| hasher.hash(k), n, probes);
    assert_fpr_near("xxh3-64", fp, u64::from(probes), theory, 4.0);
}

/// A hash of `r` bits adds a floor: a non-member whose whole hash equals a member's is a false
/// positive for certain, probability `q = 1 - (1 - 2^-r)^n`, so the rate is `q + (1 - q) p`.
/// At `r = 64` that floor is `n / 2^64` (5.4e-10 at 10^10 keys); cut to 20 bits with 20 000
/// members it is 1.9%, visible against the 1% target — and the measurement must match it.
#[test]
fn a_short_hash_adds_the_whole_hash_collision_floor() {
    let hasher = KeyHasher::new(HashKind::Xxh3_64, 17).unwrap();
    let r = 20;
    let cut = |k: &[u8]| widen64(hasher.hash(k).lo & ((1 << r) - 1));
    let (n, probes) = (20_000, 200_000);
    let (fp, p) = fp_with(cut, n, probes);
    let q = 1.0 - (1.0 - 0.5f64.powi(r)).powi(n as i32);
    let expected = q + (1.0 - q) * p;
    assert_fpr_near(
        "xxh3-64 cut to 20 bits",
        fp,
        u64::from(probes),
        expected,
        4.0,
    );
    // The fixture: the plain formula, without the floor, must be rejected by the same check.
    let plain = std::panic::catch_unwind(|| {
        assert_fpr_near("no floor", fp, u64::from(probes), p, 4.0);
    });
    assert!(plain.is_err(), "the floor was not visible at 20 bits");
}
