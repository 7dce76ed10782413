//! Each static-filter check against a sound fixture (it must pass) and broken ones (it must
//! fail): an exact set of hashes with one [`Flaw`] at a time, chosen by a const parameter.

use super::*;
use crate::Result;
use std::collections::BTreeSet;

const SOUND: u8 = 0;
/// Forgets the largest hash it was built from.
const DROPS_ONE: u8 = 1;
/// Counts repeated hashes.
const COUNTS_REPEATS: u8 = 2;
/// Refuses to build from nothing.
const REFUSES_EMPTY: u8 = 3;
/// Answers batches wrongly (always "present").
const BAD_BATCH: u8 = 4;

struct Exact<const FLAW: u8> {
    set: BTreeSet<u128>,
    len: u64,
}

impl<const FLAW: u8> StaticFilter for Exact<FLAW> {
    fn from_hashes(hashes: &[Hash128], _: KeyHasher) -> Result<Self> {
        if FLAW == REFUSES_EMPTY && hashes.is_empty() {
            return Err(crate::Error::Incompatible("empty".into()));
        }
        let mut set: BTreeSet<u128> = hashes.iter().map(|h| h.to_u128()).collect();
        let len = if FLAW == COUNTS_REPEATS {
            hashes.len() as u64
        } else {
            set.len() as u64
        };
        if FLAW == DROPS_ONE {
            set.pop_last();
        }
        Ok(Exact { set, len })
    }
    fn contains_hash(&self, h: Hash128) -> bool {
        self.set.contains(&h.to_u128())
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        out.clear();
        out.extend(
            hashes
                .iter()
                .map(|&h| FLAW == BAD_BATCH || self.contains_hash(h)),
        );
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn size_in_bytes(&self) -> usize {
        self.set.len() * 16
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "exact"
    }
}

fn rejects(check: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).is_err()
}

#[test]
fn a_sound_static_filter_passes_every_check() {
    check_static_filter::<Exact<SOUND>>(1..=50);
}

#[test]
fn build_check_rejects_a_filter_that_drops_a_key() {
    assert!(rejects(|| {
        check_static_build::<Exact<DROPS_ONE>>(&hashes(1, 10));
    }));
    assert!(rejects(check_static_keys::<Exact<DROPS_ONE>>));
}

#[test]
fn repeats_check_rejects_a_filter_that_counts_them() {
    check_static_build::<Exact<COUNTS_REPEATS>>(&hashes(1, 10)); // distinct: fine
    assert!(rejects(check_static_repeats::<Exact<COUNTS_REPEATS>>));
}

#[test]
fn the_empty_set_check_rejects_a_filter_that_refuses_it() {
    assert!(rejects(|| check_static_filter::<Exact<REFUSES_EMPTY>>(
        1..=2
    )));
}

#[test]
fn keys_check_rejects_batch_answers_that_differ() {
    assert!(rejects(check_static_keys::<Exact<BAD_BATCH>>));
}

#[test]
fn splitmix64_gives_the_reference_stream() {
    // The first outputs of the reference C code (Vigna, splitmix64.c) from seed 0: a generator
    // that drifted from it would change every seeded test's keys without a word.
    let mut rng = SplitMix64(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert!((0..1000).all(|_| rng.below(7) < 7));
    let (a, b) = (hashes(5, 3), hashes(5, 3));
    assert_eq!(a, b, "a seed gives one stream");
}
