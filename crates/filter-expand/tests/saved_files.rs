//! A file saved before the word-at-once bucket test and the prefetching lookup (commit fc86367,
//! format version 1) still loads, saves back byte for byte, and answers exactly as it did then.
//!
//! `fixtures/grown-5000.bin` was written by `examples/expand_lookups.rs build 5000` at that
//! commit: 1,000 initial items at 1%, grown to 5,000 keys in 3 stages. The answer figures
//! below were computed by that commit's code.

use filter_core::{Deletable, Filter, FormatError, Growable, Persist};
use filter_expand::ExpandableCuckoo;

const SAVED: &[u8] = include_bytes!("fixtures/grown-5000.bin");
/// Keys of the fixture, as in `examples/expand_lookups.rs`.
fn key(i: u64) -> Vec<u8> {
    format!("user{i}@mail{}.example.com", i % 97).into_bytes()
}
const PROBES: u64 = 50_000;
/// Non-members `u64::MAX/2 + i`, `i < PROBES`, answering "maybe" at commit fc86367.
const FALSE_POSITIVES_THEN: u64 = 50;
/// FNV-1a over the indices of those false positives, at commit fc86367.
const FALSE_POSITIVE_DIGEST_THEN: u64 = 0x1fae_5f7b_caf4_9395;

fn fnv(acc: u64, i: u64) -> u64 {
    i.to_le_bytes().iter().fold(acc, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn a_file_saved_by_the_earlier_code_answers_identically() {
    let f = ExpandableCuckoo::from_bytes(SAVED).unwrap();
    assert_eq!((f.len(), f.stages()), (5_000, 3));
    // Saves write version 2; the same filter's version 1 file is the saved one.
    let v1 = filter_core::format::layout::to_version_1(&f.to_bytes()).unwrap();
    assert_eq!(v1, SAVED, "saved back byte for byte");
    assert!((0..5_000).all(|i| f.contains(&key(i)) && f.count(&key(i)) >= 1));
    let (mut found, mut digest) = (0u64, 0xcbf2_9ce4_8422_2325u64);
    for i in 0..PROBES {
        if f.contains(&key(u64::MAX / 2 + i)) {
            found += 1;
            digest = fnv(digest, i);
        }
    }
    assert_eq!(found, FALSE_POSITIVES_THEN);
    assert_eq!(digest, FALSE_POSITIVE_DIGEST_THEN, "{digest:#x}");
}

/// The fixture with one payload byte flipped, or cut short, is refused with a typed error.
#[test]
fn the_fixture_damaged_is_refused() {
    let mut flipped = SAVED.to_vec();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x10;
    assert!(matches!(
        ExpandableCuckoo::from_bytes(&flipped),
        Err(FormatError::ChecksumMismatch { .. })
    ));
    let cut = &SAVED[..SAVED.len() - 100];
    assert!(ExpandableCuckoo::from_bytes(cut).is_err());
}
