use super::*;

/// `1 - (1 - x)^n` by repeated multiplication, the independent evaluation.
fn by_product(x: f64, n: u64) -> f64 {
    let mut miss = 1.0f64;
    for _ in 0..n {
        miss *= 1.0 - x;
    }
    1.0 - miss
}

#[test]
fn exact_rate_matches_the_product() {
    for (q, r, n) in [
        (256u64, 0u32, 1u64),
        (64, 2, 200),
        (1000, 2, 3000),
        (3, 14, 60_000),
    ] {
        let want = by_product(1.0 / (q as f64 * 2f64.powi(r as i32)), n);
        let got = quotient_fpr_exact(q, r, n);
        // The product loses ~1e-11 relative to cancellation in `1 - miss`.
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "Q {q} r {r} n {n}: {got} {want}"
        );
    }
    assert_eq!(quotient_fpr_exact(1024, 10, 0), 0.0);
    let one = quotient_fpr_exact(1024, 10, 1);
    assert!((one - 2f64.powi(-20)).abs() < 1e-15 * one, "{one}");
}

#[test]
fn load_rate_is_the_limit_of_the_exact_one() {
    // Q = 10^6 quotients at load 0.9, also for Q not a power of two.
    for r in [1u32, 4, 7, 10, 20] {
        let (q, n) = (1_000_000u64, 900_000u64);
        let exact = quotient_fpr_exact(q, r, n);
        let limit = quotient_fpr(r, 0.9);
        assert!(
            (exact - limit).abs() < 1e-6 * limit,
            "r {r}: {exact} {limit}"
        );
        assert!(limit <= 0.9 * 2f64.powi(-(r as i32)));
    }
    // Tiny rates keep their relative precision (1 - e^-x = x - x²/2 + …).
    let x = 0.95 * 2f64.powi(-60);
    assert!((quotient_fpr(60, 0.95) - x).abs() < 1e-15 * x);
}

#[test]
fn remainder_bits_are_the_fewest_that_meet_the_target() {
    for p in [0.5, 0.1, 0.05, 0.01, 0.003, 0.001, 1e-4, 1e-6, 1e-9] {
        let r = quotient_remainder_bits(p, MAX_LOAD).unwrap();
        assert!(quotient_fpr(r, MAX_LOAD) <= p, "p {p}: r {r}");
        if r > 1 {
            assert!(
                quotient_fpr(r - 1, MAX_LOAD) > p,
                "p {p}: r {r} not the fewest"
            );
        }
        let plain = (1.0 / p).log2().ceil() as u32;
        assert!(r == plain || r + 1 == plain, "p {p}: {r} against {plain}");
    }
    assert_eq!(quotient_remainder_bits(0.01, MAX_LOAD).unwrap(), 7);
    assert!(quotient_remainder_bits(0.0, MAX_LOAD).is_err());
    assert!(quotient_remainder_bits(0.01, 0.0).is_err());
    assert!(quotient_remainder_bits(0.01, f64::NAN).is_err());
    assert!(quotient_remainder_bits(f64::MIN_POSITIVE / 4.0, MAX_LOAD).unwrap() > 1000);
}

#[test]
fn quotients_hold_the_capacity_and_no_more_than_needed() {
    for n in (1..3000).chain([10_000_000, 123_456_789]) {
        let q = quotients_for(n, MAX_LOAD, 64, 1 << 31).unwrap();
        assert!(quotient_max_items(q, MAX_LOAD) >= n, "{n}");
        assert!(
            q == 64 || quotient_max_items(q - 1, MAX_LOAD) < n,
            "{n}: {q}"
        );
    }
    assert_eq!(quotients_for(60, MAX_LOAD, 64, 1 << 31).unwrap(), 64);
    // 10M at 95%: 10,526,316 quotients, not 2^24 = 16.8M.
    assert_eq!(
        quotients_for(10_000_000, MAX_LOAD, 64, 1 << 31).unwrap(),
        10_526_316
    );
    assert!(quotients_for(0, MAX_LOAD, 64, 1 << 31).is_err());
    assert!(matches!(
        quotients_for(u64::MAX, MAX_LOAD, 64, 1 << 31),
        Err(Error::SizeOverflow { .. })
    ));
    assert!((quotient_bits_per_item(7, 0.5) - 19.0).abs() < 1e-12);
}
