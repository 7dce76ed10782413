use super::*;
use crate::KeyHasher;

#[test]
fn rejects_bad_shapes() {
    assert!(BloomBits::new(0, 3).is_err());
    assert!(BloomBits::new((1 << 63) + 1, 3).is_err());
    assert!(BloomBits::new(100, 0).is_err());
    assert!(BloomBits::new(100, 65).is_err());
}

#[test]
fn insert_then_contains_at_odd_sizes() {
    let h = KeyHasher::default();
    for m in [1, 63, 64, 65, 1000] {
        let mut b = BloomBits::new(m, 5).unwrap();
        for i in 0..50u32 {
            b.insert(h.hash(&i.to_le_bytes()));
        }
        for i in 0..50u32 {
            assert!(b.contains(h.hash(&i.to_le_bytes())));
        }
        assert!(b.count_ones() <= m);
    }
}

#[test]
fn the_pipelined_insert_sets_the_same_bits_as_one_at_a_time() {
    let h = KeyHasher::default();
    // Fewer keys than the pipeline's depth, many more, and k on both sides of the ring's 16.
    for (m, k, n) in [
        (1000, 7, 5u32),
        (100_003, 7, 5000),
        (4096, 1, 300),
        (77_777, 16, 999),
        (50_000, 17, 700),
        (65, 64, 40),
    ] {
        let hashes: Vec<Hash128> = (0..n).map(|i| h.hash(&i.to_le_bytes())).collect();
        let (mut one, mut many) = (BloomBits::new(m, k).unwrap(), BloomBits::new(m, k).unwrap());
        hashes.iter().for_each(|&x| one.insert(x));
        many.insert_many_prefetched(&hashes);
        assert_eq!(one, many, "m = {m}, k = {k}, {n} keys");
    }
    // And it can tell: a key left out changes the bits.
    let hashes: Vec<Hash128> = (0..100u32).map(|i| h.hash(&i.to_le_bytes())).collect();
    let (mut one, mut many) = (
        BloomBits::new(100_003, 7).unwrap(),
        BloomBits::new(100_003, 7).unwrap(),
    );
    hashes.iter().for_each(|&x| one.insert(x));
    many.insert_many_prefetched(&hashes[1..]);
    assert_ne!(one, many);
}

#[test]
fn filters_above_2_pow_32_bits_work() {
    // 2^33 bits = 1 GiB, zero-initialised lazily by the allocator; only touched pages count.
    let m = 1u64 << 33;
    let mut b = BloomBits::new(m, 7).unwrap();
    let h = KeyHasher::default();
    for i in 0..2000u32 {
        b.insert(h.hash(&i.to_le_bytes()));
    }
    for i in 0..2000u32 {
        assert!(b.contains(h.hash(&i.to_le_bytes())));
    }
    let high_words = b.words[(1usize << 26)..]
        .iter()
        .filter(|&&w| w != 0)
        .count();
    // About half of the 14,000 bits land above bit 2^32.
    assert!(high_words > 6000, "{high_words}");
}
