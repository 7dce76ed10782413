use super::*;
use filter_core::testkit::{self, SplitMix64};
use filter_core::FormatError;

/// Guava's own known values of `Hashing.murmur3_128(seed)` (its `Murmur3Hash128Test`): the two
/// longs in the order the strategies read them.
#[test]
fn murmur3_matches_guavas_known_values() {
    let known: [(u32, u64, u64, &str); 8] = [
        (0, 0x6299_4269_3e10_f867, 0x92db_0b82_baeb_5347, "hell"),
        (1, 0xa78d_dff5_adae_8d10, 0x1289_00ef_2090_0135, "hello"),
        (2, 0x8a48_6b23_f422_e826, 0xf962_a2c5_8947_765f, "hello "),
        (3, 0x2ea5_9f46_6f6b_ed8c, 0xc610_990a_cc42_8a17, "hello w"),
        (4, 0x79f6_305a_386c_572c, 0x4630_5aed_3483_b94e, "hello wo"),
        (5, 0xc221_9d21_3ec1_f1b5, 0xa1d8_e2e0_a527_85bd, "hello wor"),
        (
            0,
            0xe34b_bc7b_bc07_1b6c,
            0x7a43_3ca9_c49a_9347,
            "The quick brown fox jumps over the lazy dog",
        ),
        (
            0,
            0x658c_a970_ff85_269a,
            0x43fe_e3ea_a68e_5c3e,
            "The quick brown fox jumps over the lazy cog",
        ),
    ];
    for (seed, h1, h2, key) in known {
        let h = filter_core::murmur3_x64_128(key.as_bytes(), seed);
        assert_eq!((h.lo, h.hi), (h1, h2), "{key:?} seed {seed}");
    }
    let f = GuavaBloom::with_shape(1, 1, Strategy::Murmur128Mitz64).unwrap();
    assert_eq!(f.hasher().hash(b"hell").lo, 0x6299_4269_3e10_f867);
}

/// Guava's sizing, worked by hand from `optimalNumOfBits` and both `k` rules.
#[test]
fn sizing_follows_guavas_create() {
    // 1000 at 1%: (long) 9585.058... = 9585 bits -> 150 longs; k = round(9.585 ln 2) = 7.
    assert_eq!(optimal_bits(1000, 0.01).unwrap(), 9585);
    let f = GuavaBloom::new(1000, 0.01, Strategy::Murmur128Mitz64).unwrap();
    assert_eq!((f.bits(), f.hashes()), (150 * 64, 7));
    // Guava's default 3%: 5 hash functions whatever the count (its comment says so).
    for n in [1, 10, 1000, 1_000_000] {
        let bits = optimal_bits(n, 0.03).unwrap();
        for rule in [HashCountRule::FromBitsPerItem, HashCountRule::FromFpp] {
            assert_eq!(optimal_hashes(n, 0.03, bits, rule).unwrap(), 5, "{n}");
        }
    }
    // 0 insertions count as 1.
    assert_eq!(
        optimal_bits(0, 0.01).unwrap(),
        optimal_bits(1, 0.01).unwrap()
    );
}

#[test]
fn sizing_refuses_what_guava_refuses() {
    // One item at 70%: 0 bits ("data length is zero!" in Guava).
    assert!(matches!(
        optimal_bits(1, 0.7),
        Err(Error::SizeOverflow { .. })
    ));
    // More than 2^31 - 1 longs.
    assert!(matches!(
        optimal_bits(1 << 40, 1e-6),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(optimal_bits(u64::MAX, 0.01).is_err());
    for fpp in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(GuavaBloom::new(10, fpp, Strategy::Murmur128Mitz64).is_err());
    }
    // k above 255.
    assert!(optimal_hashes(1, 1e-300, 1 << 20, HashCountRule::FromFpp).is_err());
    assert!(GuavaBloom::with_shape(0, 3, Strategy::Murmur128Mitz32).is_err());
    assert!(GuavaBloom::with_shape(MAX_WORDS + 1, 3, Strategy::Murmur128Mitz32).is_err());
    assert!(GuavaBloom::with_shape(1, 0, Strategy::Murmur128Mitz32).is_err());
}

fn filled(strategy: Strategy, n: u64, inserted: usize) -> GuavaBloom {
    let mut f = GuavaBloom::new(n, 0.01, strategy).unwrap();
    for k in testkit::keys("member", inserted) {
        f.insert(&k).unwrap();
    }
    f
}

#[test]
fn no_false_negatives_and_the_bytes_round_trip() {
    for strategy in [Strategy::Murmur128Mitz32, Strategy::Murmur128Mitz64] {
        let mut f = GuavaBloom::new(5000, 0.01, strategy).unwrap();
        assert_eq!(
            testkit::check_no_false_negatives(&mut f, &testkit::keys("k", 5000)),
            5000
        );
        let bytes = f.to_bytes();
        assert_eq!(bytes.len() as u64, f.header().file_len());
        assert_eq!(bytes[..2], [strategy.ordinal(), f.hashes() as u8]);
        let back = GuavaBloom::from_bytes(&bytes).unwrap();
        assert_eq!(back.words(), f.words());
        assert_eq!(back.to_bytes(), bytes);
        let mut streamed = Vec::new();
        f.write_to(&mut streamed).unwrap();
        assert_eq!(streamed, bytes);
        let mut rest = bytes.clone();
        rest.extend_from_slice(b"after");
        let mut r = &rest[..];
        assert_eq!(GuavaBloom::read_from(&mut r).unwrap().words(), f.words());
        assert_eq!(r, b"after", "read_from stops after the filter");
        for k in testkit::keys("other", 2000) {
            assert_eq!(back.contains(&k), f.contains(&k));
        }
    }
}

/// Each refusal, from a crafted header or a cut file: one fixture per check.
#[test]
fn crafted_and_damaged_bytes_are_refused() {
    let good = filled(Strategy::Murmur128Mitz64, 100, 100).to_bytes();
    let with = |i: usize, v: &[u8]| {
        let mut b = good.clone();
        b[i..i + v.len()].copy_from_slice(v);
        b
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("five header bytes", good[..5].to_vec()),
        ("strategy 2", with(0, &[2])),
        ("strategy -1", with(0, &[0xff])),
        ("zero hashes", with(1, &[0])),
        ("zero longs", with(2, &0i32.to_be_bytes())),
        ("negative longs", with(2, &(-5i32).to_be_bytes())),
        ("2^31 - 1 longs declared", with(2, &i32::MAX.to_be_bytes())),
        ("one long short", good[..good.len() - 8].to_vec()),
        ("one byte short", good[..good.len() - 1].to_vec()),
        ("one byte over", [&good[..], &[0]].concat()),
    ];
    for (what, bytes) in &cases {
        let err = GuavaBloom::from_bytes(bytes).expect_err(what);
        assert!(!err.to_string().is_empty());
        let streamed = GuavaBloom::read_from(&bytes[..]);
        if *what != "one byte over" {
            let e = streamed.expect_err(what);
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{what}: {e}");
        }
    }
    assert!(matches!(
        GuavaBloom::from_bytes(&cases[7].1),
        Err(FormatError::Truncated { .. })
    ));
    assert!(matches!(
        GuavaBloom::from_bytes(&cases[10].1),
        Err(FormatError::TrailingBytes(1))
    ));
    assert!(
        GuavaBloom::from_bytes(&good).is_ok(),
        "the fixtures' source is valid"
    );
}

#[test]
fn load_checks_the_file_length_before_reading() {
    let dir = std::env::temp_dir().join(format!("filter-interop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = filled(Strategy::Murmur128Mitz32, 1000, 700);
    let path = dir.join("good.guava");
    f.save(&path).unwrap();
    assert_eq!(GuavaBloom::load(&path).unwrap(), {
        let mut g = GuavaBloom::from_bytes(&f.to_bytes()).unwrap();
        g.expected = None;
        g
    });
    let mut lying = f.to_bytes();
    lying[2..6].copy_from_slice(&i32::MAX.to_be_bytes());
    let bad = dir.join("lying.guava");
    std::fs::write(&bad, &lying).unwrap();
    let e = GuavaBloom::load(&bad).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn union_is_putall_and_refuses_other_shapes() {
    let a = filled(Strategy::Murmur128Mitz64, 1000, 300);
    let mut b = GuavaBloom::new(1000, 0.01, Strategy::Murmur128Mitz64).unwrap();
    for k in testkit::keys("second", 300) {
        b.insert(&k).unwrap();
    }
    let mut both = a.clone();
    both.union(&b).unwrap();
    let ors: Vec<u64> = a
        .words()
        .iter()
        .zip(b.words())
        .map(|(x, y)| x | y)
        .collect();
    assert_eq!(both.words(), &ors[..]);
    assert_eq!(
        both.ones(),
        ors.iter().map(|w| u64::from(w.count_ones())).sum()
    );
    let other = filled(Strategy::Murmur128Mitz32, 1000, 10);
    assert!(matches!(
        both.clone().union(&other),
        Err(Error::Incompatible(_))
    ));
}

/// The count estimate against the true count: random keys (fixed seeds) at fills from 1% to
/// 300% of capacity, each within 4 standard deviations ([`math::bloom_count_estimate_sd`]) plus
/// one item.
#[test]
fn estimated_count_tracks_the_true_count() {
    let within = |f: &GuavaBloom, n: u64| {
        let sd = math::bloom_count_estimate_sd(f.bits(), f.hashes(), n as f64);
        (f.estimated_count() - n as f64).abs() <= 4.0 * sd + 1.0
    };
    for (seed, strategy) in [
        (7, Strategy::Murmur128Mitz64),
        (8, Strategy::Murmur128Mitz32),
    ] {
        let mut rng = SplitMix64(seed);
        let mut f = GuavaBloom::new(20_000, 0.01, strategy).unwrap();
        let mut n = 0u64;
        for target in [200, 2_000, 10_000, 20_000, 40_000, 60_000] {
            while n < target {
                f.insert(&rng.next_u64().to_le_bytes()).unwrap();
                n += 1;
            }
            assert!(within(&f, n), "{strategy:?} n {n}: {}", f.estimated_count());
            // The check must be able to fail: a count 5% off at this fill is rejected.
            assert!(!within(&f, n + n / 20 + 10), "{strategy:?} n {n}");
            let loaded = GuavaBloom::from_bytes(&f.to_bytes()).unwrap();
            assert_eq!(loaded.len(), f.estimated_count().round() as u64);
            // The classic approximation at the (real-valued) estimate is the fill to the k.
            let (m, k) = (f.bits() as f64, f64::from(f.hashes()));
            let rate = (-(-k * f.estimated_count() / m).exp_m1()).powf(k);
            assert!(
                (f.estimated_fpr() - rate).abs() <= 1e-9 * rate,
                "{rate} vs {}",
                f.estimated_fpr()
            );
        }
    }
}

/// The fuzz target's properties (fuzz/fuzz_targets/guava.rs) over a seeded sweep of crafted
/// files, in the default run: headers set to random strategy ordinals, hash counts and declared
/// counts (2^31 - 1 among them), bytes flipped, ends cut or extended. Each read refuses or gives
/// one filter that writes back its bytes; `read_from` agrees with `from_bytes`.
#[test]
fn crafted_files_are_refused_or_read_back_exactly() {
    let mut rng = SplitMix64(40);
    let (mut loaded, mut refused) = (0, 0);
    for _ in 0..4000 {
        let strategy =
            [Strategy::Murmur128Mitz32, Strategy::Murmur128Mitz64][rng.below(2) as usize];
        let mut bytes = filled(strategy, 64, rng.below(80) as usize).to_bytes();
        match rng.below(6) {
            0 => bytes[0] = rng.next_u64() as u8,
            1 => bytes[1] = rng.below(4) as u8,
            2 => bytes[2..6]
                .copy_from_slice(&[i32::MAX, 0, -1, 7, 11][rng.below(5) as usize].to_be_bytes()),
            3 => {
                let i = rng.below(bytes.len() as u64) as usize;
                bytes[i] ^= 1 << rng.below(8);
            }
            4 => bytes.truncate(rng.below(bytes.len() as u64) as usize),
            _ => bytes.extend((0..rng.below(20)).map(|_| rng.next_u64() as u8)),
        }
        let strict = GuavaBloom::from_bytes(&bytes);
        let mut rest = &bytes[..];
        let streamed = GuavaBloom::read_from(&mut rest);
        match (&strict, &streamed) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b);
                assert_eq!(a.to_bytes(), bytes);
                assert!(rest.is_empty());
                assert!((0.0..=1.0).contains(&a.estimated_fpr()));
                loaded += 1;
            }
            (Ok(_), Err(e)) => panic!("from_bytes loads what read_from refuses: {e}"),
            (Err(_), Ok(b)) => assert_eq!(b.to_bytes(), bytes[..bytes.len() - rest.len()]),
            (Err(_), Err(_)) => refused += 1,
        }
    }
    assert!(
        loaded > 1000 && refused > 1000,
        "{loaded} loaded, {refused} refused"
    );
}
