use super::*;
use crate::{BloomBits, KeyHasher};

#[test]
fn bloom_indices_are_the_bits_an_insert_sets() {
    let hasher = KeyHasher::default();
    for key in [&b"alice@example.com"[..], b"", b"x"] {
        let h = hasher.hash(key);
        let mut bits = BloomBits::new(1000, 7).unwrap();
        bits.insert(h);
        let mut want = bloom_indices(h, 1000, 7);
        want.sort_unstable();
        want.dedup();
        let words = bits.words();
        let set: Vec<u64> = (0..1000u64)
            .filter(|&i| words[(i / 64) as usize] >> (i % 64) & 1 == 1)
            .collect();
        assert_eq!(set, want);
    }
}
