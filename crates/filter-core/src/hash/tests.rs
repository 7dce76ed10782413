use super::*;

/// Reference values from Python's `mmh3` 5.x: `mmh3.hash128(key, seed, True, signed=False)`,
/// whose low 64 bits are `h1` and high 64 bits `h2`.
#[test]
fn murmur3_matches_reference_vectors() {
    let range: Vec<u8> = (0..=255).collect();
    let cases: [(&[u8], u32, u64, u64); 14] = [
        (b"", 0, 0x0, 0x0),
        (b"", 42, 0xf02aa77dfa1b8523, 0xd1016610da11cbb9),
        (b"a", 0, 0x85555565f6597889, 0xe6b53a48510e895a),
        (
            b"alice@example.com",
            0,
            0x9e7b0e52d4880725,
            0xb455fa5f4890b039,
        ),
        (
            b"alice@example.com",
            42,
            0x266280937c1de056,
            0x8403a8ac82b48ace,
        ),
        (
            b"bob.smith1987@gmail.com",
            0,
            0x832c0f5174150441,
            0xd584d10465a39e3d,
        ),
        (
            b"bob.smith1987@gmail.com",
            42,
            0xf3064da6b53e281c,
            0x00ef0eb949fd121d,
        ),
        (
            b"xxxxxxxxxxxxxxx",
            0,
            0x1cfd62bac822c29a,
            0x381530a121efa404,
        ),
        (
            b"yyyyyyyyyyyyyyyy",
            42,
            0x1a7beec82c230cd4,
            0x621fea0ab2185056,
        ),
        (
            b"zzzzzzzzzzzzzzzzz",
            0,
            0x109fdf94706e89d5,
            0x932d936fcdc86077,
        ),
        (
            b"mohamed.ali@yahoo.co.uk",
            0,
            0xf56f95ad5eef0256,
            0x2dfa35cf6926c451,
        ),
        (
            b"fatima_zahra22@hotmail.fr",
            42,
            0xb79716cbcf174da9,
            0x6e75fb141f48db4c,
        ),
        (&range, 0, 0x1c99c313dc6f12b9, 0x70d6077fab34cc1e),
        (b"hello", u32::MAX, 0x347bad75d7575e14, 0xd940b3d7b5fb075c),
    ];
    for (key, seed, lo, hi) in cases {
        let got = murmur3_x64_128(key, seed);
        assert_eq!(got, Hash128 { lo, hi }, "key {key:?} seed {seed}");
    }
}

/// Reference values from the C library through Python's `xxhash` 4.1.0
/// (`xxhash.xxh3_128_intdigest(key, seed=seed)`, libxxhash 0.8.4), an implementation
/// independent of the `xxhash-rust` crate: a dependency upgrade that changed the hash would
/// make every saved filter answer wrongly, and fails here.
#[test]
fn xxh3_matches_reference_vectors() {
    let range: Vec<u8> = (0..=255).collect();
    let long = [b'x'; 300];
    let cases: [(&[u8], u64, u128); 7] = [
        (b"", 0, 0x99aa06d3014798d86001c324468d497f),
        (b"a", 0, 0xa96faf705af16834e6c632b61e964e1f),
        (b"alice@example.com", 0, 0x6894295e90529036fd3d12f4080bd2a3),
        (b"alice@example.com", 42, 0x0873e9b7a22d85eba2b55f9658e76064),
        (&range, 0, 0xf1f8a93f50849ac39408a4433b952d71),
        (
            b"bob.smith1987@gmail.com",
            0xdead_beef_cafe_f00d,
            0x5282898a005c95e8fb3377d283772b14,
        ),
        (&long, 7, 0x929877c9ac8814d665afa05e0f083a41),
    ];
    for (key, seed, want) in cases {
        let got = KeyHasher::new(HashKind::Xxh3_128, seed).unwrap().hash(key);
        assert_eq!(got, Hash128::from_u128(want), "key {key:?} seed {seed}");
    }
}

/// As above, `xxhash.xxh3_64_intdigest(key, seed=seed)` (Python `xxhash` 4.1.0, libxxhash
/// 0.8.4); the widened halves are `lo = h` and `hi = h * 0x9E37_79B9_7F4A_7C15`.
#[test]
fn xxh3_64_matches_reference_vectors() {
    let range: Vec<u8> = (0..=255).collect();
    let long = [b'x'; 300];
    let cases: [(&[u8], u64, u64); 7] = [
        (b"", 0, 0x2d06800538d394c2),
        (b"a", 0, 0xe6c632b61e964e1f),
        (b"alice@example.com", 0, 0x76eb895512bf35ff),
        (b"alice@example.com", 42, 0x471ab0c0476f57c4),
        (&range, 0, 0x9408a4433b952d71),
        (
            b"bob.smith1987@gmail.com",
            0xdead_beef_cafe_f00d,
            0x2208db15c1eac4ed,
        ),
        (&long, 7, 0x65afa05e0f083a41),
    ];
    for (key, seed, want) in cases {
        let got = KeyHasher::new(HashKind::Xxh3_64, seed).unwrap().hash(key);
        assert_eq!(got.lo, want, "key {key:?} seed {seed}");
        assert_eq!(got.hi, want.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
}

#[test]
fn secret_seeds_differ_and_respect_the_kind() {
    let a = KeyHasher::secret(HashKind::Xxh3_128);
    let b = KeyHasher::secret(HashKind::Xxh3_128);
    // Two draws of 64 random bits collide with probability 2^-64.
    assert_ne!(a.seed(), b.seed());
    let m = KeyHasher::secret(HashKind::Murmur3X64_128);
    assert!(m.seed() <= u64::from(u32::MAX));
    assert_eq!(m.kind(), HashKind::Murmur3X64_128);
}

#[test]
fn murmur_seed_above_u32_is_rejected() {
    assert!(KeyHasher::new(HashKind::Murmur3X64_128, 1 << 32).is_err());
    assert!(KeyHasher::new(HashKind::Murmur3X64_128, u64::from(u32::MAX)).is_ok());
    assert!(KeyHasher::new(HashKind::Xxh3_128, u64::MAX).is_ok());
}

#[test]
fn hash_kind_ids_round_trip() {
    for k in [
        HashKind::Xxh3_128,
        HashKind::Murmur3X64_128,
        HashKind::Xxh3_64,
    ] {
        assert_eq!(HashKind::from_id(k.id()), Some(k));
    }
    assert_eq!(HashKind::from_id(0), None);
    assert_eq!(HashKind::from_id(4), None);
}

#[test]
fn indexes_stay_in_range_and_step_is_never_zero() {
    for m in [1u64, 2, 3, 7, 64, 1000, (1 << 33) + 17, 1 << 63] {
        for seed in 0..200u64 {
            let h = KeyHasher::new(HashKind::Xxh3_128, seed).unwrap().hash(b"k");
            let mut g = IndexGen::new(h, m);
            assert!(m == 1 || g.y >= 1);
            let idx: Vec<u64> = (0..16).map(|_| g.next()).collect();
            assert!(idx.iter().all(|&i| i < m), "m = {m}: {idx:?}");
        }
    }
}

#[test]
fn degenerate_hashes_still_spread() {
    // All-zero and all-one hashes are where a naive `h1 + i*h2` (with h2 = 0) collapses to
    // one index. Here the step is at least 1 and grows, so they spread; the all-ones hash
    // (step m - 1, i.e. -1) repeats two indexes when the growing step wraps through 0, an
    // event of probability about k^2 / 2m for a random hash.
    for h in [
        Hash128 { lo: 0, hi: 0 },
        Hash128 {
            lo: u64::MAX,
            hi: u64::MAX,
        },
    ] {
        let mut g = IndexGen::new(h, 1_000_003);
        let idx: std::collections::BTreeSet<u64> = (0..8).map(|_| g.next()).collect();
        assert!(idx.len() >= 6, "{h:?} gave {idx:?}");
    }
}

#[test]
fn indexes_reach_above_2_pow_32() {
    let m = 1u64 << 33;
    let hasher = KeyHasher::default();
    let above = (0..1000u32)
        .flat_map(|i| {
            let mut g = IndexGen::new(hasher.hash(&i.to_le_bytes()), m);
            (0..7).map(move |_| g.next())
        })
        .filter(|&i| i >= 1 << 32)
        .count();
    // Half of 7000 uniform indexes should land in the upper half: 3500 +- 4 sigma (~165).
    assert!((3335..=3665).contains(&above), "{above}");
}

#[test]
fn reduce_is_multiply_high() {
    assert_eq!(reduce(0, 10), 0);
    assert_eq!(reduce(u64::MAX, 10), 9);
    assert_eq!(reduce(1 << 63, 10), 5);
}
