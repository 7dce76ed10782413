use super::*;

const RATES: [f64; 6] = [0.5, 0.1, 0.01, 1e-3, 1e-6, 1e-12];

#[test]
fn the_bound_holds_through_every_doubling_with_and_without_an_estimate() {
    for fpr in RATES {
        for planned in [None, Some(0), Some(4), Some(13), Some(25)] {
            let w = Widening::new(fpr, planned).unwrap();
            for k in 0..=31 {
                let bound = w.fpr_bound(k);
                assert!(bound <= fpr, "ε {fpr} {planned:?} k {k}: {bound}");
            }
        }
    }
}

#[test]
fn an_estimate_gives_every_entry_the_same_bits_at_the_estimate() {
    for fpr in RATES {
        for k in [0u32, 1, 5, 13] {
            let w = Widening::new(fpr, Some(k)).unwrap();
            let f = estimated_bits(fpr);
            for x in 0..=k {
                assert_eq!(w.fingerprint_bits(x) - (k - x), f, "ε {fpr} K {k} x {x}");
            }
            // A static quotient filter's width plus the marker, when it fits.
            assert_eq!(w.slot_width(k), f + 1);
            assert_eq!(
                w.void_density(k),
                0.0,
                "no entry runs out before the estimate"
            );
            // At the estimate the rate is that of a static table at 95%: 0.95·2^-F at most.
            let static_rate = -(-MAX_LOAD * (-f64::from(f)).exp2()).exp_m1();
            assert!(w.fpr_after(k, MAX_LOAD / 2.0) <= static_rate * (1.0 + 1e-12));
        }
    }
}

#[test]
fn estimated_bits_are_the_fewest_within_fifteen_sixteenths() {
    for fpr in RATES {
        let f = estimated_bits(fpr);
        let kept = fpr * 15.0 / 16.0;
        assert!(MAX_LOAD * (-f64::from(f)).exp2() <= kept, "ε {fpr}");
        if f > 1 {
            assert!(
                MAX_LOAD * (-f64::from(f - 1)).exp2() > kept,
                "ε {fpr}: not the fewest"
            );
        }
    }
    assert_eq!(estimated_bits(0.01), 7);
}

#[test]
fn without_an_estimate_fingerprints_widen_by_about_two_log2_bits() {
    let w = Widening::new(0.01, None).unwrap();
    // F_x = ceil(log2(λ_x (x+1)(x+2) / ε)).
    assert_eq!(w.fingerprint_bits(0), 8); // log2(0.95·2/0.01) = 7.57
    assert_eq!(w.fingerprint_bits(1), 9); // log2(0.475·6/0.01) = 8.15
    for x in 0..31u32 {
        let want = (generation_load(x) * f64::from((x + 1) * (x + 2)) / 0.01)
            .log2()
            .ceil() as u32;
        assert_eq!(w.fingerprint_bits(x), want, "x {x}");
        assert!(w.fingerprint_bits(x + 1) >= w.fingerprint_bits(x));
    }
    // The widest slot is the newest generation's: after 14 doublings, 14 bits and the marker.
    assert_eq!(w.slot_width(14), w.fingerprint_bits(14) + 1);
}

#[test]
fn past_the_estimate_the_kept_sixteenth_is_shared_out() {
    let w = Widening::new(0.01, Some(3)).unwrap();
    let f = estimated_bits(0.01);
    let rest = 0.01 - MAX_LOAD * (-f64::from(f)).exp2();
    assert!(rest >= 0.01 / 16.0);
    for j in 1..20u32 {
        let bits = w.fingerprint_bits(3 + j);
        assert!(generation_load(1) * (-f64::from(bits)).exp2() <= rest / f64::from(j * (j + 1)));
        assert!(generation_load(1) * (-f64::from(bits - 1)).exp2() > rest / f64::from(j * (j + 1)));
    }
}

#[test]
fn void_entries_appear_only_when_fingerprints_run_out() {
    let w = Widening::new(0.01, None).unwrap();
    // Generation 0 has 8 bits: void after 8 doublings, not before.
    assert_eq!(w.void_density(7), 0.0);
    let d = w.void_density(8);
    assert!((d - 0.95 / 256.0).abs() < 1e-15, "{d}");
}

#[test]
fn planned_doublings_reach_the_estimate_from_the_capacity() {
    assert_eq!(planned_doublings(1000, 10_000_000).unwrap(), (13, 1221));
    assert_eq!(planned_doublings(1000, 1000).unwrap(), (0, 1000));
    assert_eq!(planned_doublings(1000, 10).unwrap(), (0, 1000));
    assert_eq!(planned_doublings(1000, 1999).unwrap(), (0, 1999));
    assert_eq!(planned_doublings(1000, 2000).unwrap(), (1, 1000));
    for (c, n) in [(1u64, 1u64 << 40), (7, 1_000_003), (1000, 10_000_000)] {
        let (k, first) = planned_doublings(c, n).unwrap();
        assert!(
            first >= c && first << k >= n && (first - 1) << k < n,
            "{c} {n}"
        );
    }
    assert!(planned_doublings(0, 5).is_err());
    assert!(planned_doublings(1, u64::MAX).is_err());
}

#[test]
fn bits_per_key_and_compares() {
    assert!((bits_per_key(8, 0.95) - 10.5 / 0.95).abs() < 1e-12);
    assert_eq!(expected_compares(95, 100), 0.95);
    assert_eq!(expected_compares(0, 0), 0.0);
}
