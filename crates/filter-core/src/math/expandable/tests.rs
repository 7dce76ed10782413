use super::*;

/// `q(f)` by enumerating every raw fingerprint value (f <= 12), independent of the closed form.
fn collision_by_enumeration(f: u32) -> f64 {
    let mut counts = vec![0u64; 1 << f];
    for raw in 0..(1u64 << f) {
        counts[raw.max(1) as usize] += 1;
    }
    let total = (1u64 << f) as f64;
    counts.iter().map(|&c| (c as f64 / total).powi(2)).sum()
}

#[test]
fn collision_matches_enumeration() {
    for f in 1..=12 {
        let (a, b) = (fingerprint_collision(f), collision_by_enumeration(f));
        assert!((a - b).abs() <= 1e-15 * b, "f = {f}: {a} vs {b}");
    }
}

/// The stage rate by direct summation over every fingerprint value and a product loop.
fn stage_fpr_by_summation(f: u32, buckets: u64, n: u64) -> f64 {
    let b = buckets as f64;
    let g = (2.0 * b - 1.0) / (b * b);
    let total = (1u64 << f) as f64;
    let mut miss = 0.0;
    for v in 1..(1u64 << f) {
        let pv = if v == 1 { 2.0 } else { 1.0 } / total;
        let mut pass = 1.0;
        for _ in 0..n {
            pass *= 1.0 - pv * g;
        }
        miss += pv * pass;
    }
    1.0 - miss
}

#[test]
fn stage_fpr_matches_direct_summation() {
    for (f, b, n) in [
        (4, 10, 30),
        (6, 100, 380),
        (8, 1, 3),
        (10, 57, 200),
        (2, 3, 11),
    ] {
        let (a, s) = (stage_fpr(f, b, n), stage_fpr_by_summation(f, b, n));
        assert!((a - s).abs() <= 1e-12, "f={f} B={b} n={n}: {a} vs {s}");
        assert!(
            a <= stage_fpr_bound(f, b, n) + 1e-15,
            "bound below the rate"
        );
    }
    assert_eq!(stage_fpr(10, 100, 0), 0.0);
}

#[test]
fn stage_fpr_keeps_precision_for_tiny_rates() {
    let p = stage_fpr(57, 1 << 20, 10);
    let approx = 10.0 * (2.0 * (1u64 << 20) as f64 - 1.0) / ((1u64 << 20) as f64).powi(2)
        * fingerprint_collision(57);
    assert!(
        p > 0.0 && (p - approx).abs() <= 1e-6 * approx,
        "{p} vs {approx}"
    );
}

#[test]
fn closed_series_bounds_the_schedule_and_matches_a_long_sum() {
    for (f0, k) in [(10, 1), (14, 8), (12, 3)] {
        // 4,000 uncapped terms, summed directly.
        let direct: f64 = (0..4000u32)
            .map(|i| 7.6 * fingerprint_collision(f0 + i / k))
            .sum();
        let closed = series_bound(f0, k);
        assert!(
            (direct - closed).abs() <= 1e-12 * closed,
            "{direct} vs {closed}"
        );
        assert!(schedule_bound(f0, k, 40) <= closed, "no stage at the cap");
    }
}

#[test]
fn initial_width_is_the_narrowest_that_meets_the_target() {
    let f0 = initial_fingerprint_bits(0.01, 8, 50).unwrap();
    assert_eq!(f0, 14);
    assert!(schedule_bound(f0, 8, 50) <= 0.01);
    assert!(schedule_bound(f0 - 1, 8, 50) > 0.01);
    assert!(initial_fingerprint_bits(1e-20, 8, 64).is_err());
}

#[test]
fn shapes_nest_and_stop_at_the_address_limit() {
    assert_eq!(initial_buckets(1000), 264);
    assert_eq!(stage_capacity(264), 1003);
    assert_eq!(initial_buckets(1), 1);
    assert_eq!(stage_buckets(264, 1, 3), Some(264 * 8));
    assert_eq!(stage_buckets(1, 1, 58), Some(1 << 58));
    assert_eq!(stage_buckets(1, 1, 59), None);
    assert_eq!(possible_stages(1, 2), 30);
    assert_eq!(stage_fingerprint_bits(14, 8, 17), 16);
    assert_eq!(stage_fingerprint_bits(50, 1, 30), MAX_FP_BITS);
}

/// The figure quoted in the crate docs: growing from 1,000 to 10M keys at 1% (growth 2,
/// period 8), by hand: stages of 264·2^i buckets, 14 stages, 14 or 15 bits.
#[test]
fn bits_per_key_at_ten_million() {
    let by_hand: u64 = (0..14u64)
        .map(|i| (264u64 << i) * 4 * (14 + i / 8) / 8 + 8)
        .sum();
    let bpk = bits_per_key(1000, 0.01, 1, 8, 10_000_000).unwrap();
    assert!((bpk - by_hand as f64 * 8.0 / 1e7).abs() < 1e-9, "{bpk}");
    assert!((25.0..26.5).contains(&bpk), "{bpk}");
}

/// The doubling floor at 10M keys from 1,000 at 1%: 14 stages (264·2^i buckets, 16,435,419
/// keys of capacity, 17,300,448 slots) of 10-bit fingerprints, 17.30 bits per key, above the
/// 14.38 of the goal; a full stage of 9 bits is above 1%, of 10 under.
#[test]
fn the_doubling_floor_at_10m_is_ten_bit_slots_of_fourteen_stages() {
    let (b0, p, n) = (initial_buckets(1000), 0.01, 10_000_000u64);
    assert_eq!(b0, 264);
    let last = stage_buckets(b0, 1, 13).unwrap();
    assert!(stage_fpr(9, last, stage_capacity(last)) > p);
    assert!(stage_fpr(10, last, stage_capacity(last)) <= p);
    let capacity: u64 = (0..14).map(|i| stage_capacity(b0 << i)).sum();
    let below: u64 = (0..13).map(|i| stage_capacity(b0 << i)).sum();
    assert!(below < n && n <= capacity && capacity == 16_435_419);
    let slots = 4 * b0 * ((1 << 14) - 1);
    let floor = doubling_floor_bits_per_key(1000, p, n).unwrap();
    assert!(
        (floor - slots as f64 * 10.0 / n as f64).abs() < 1e-9,
        "{floor}"
    );
    assert!((17.30..17.31).contains(&floor), "{floor}");
    // Below the filter's own figure, and a floor only: one more key than a trough, a new stage.
    assert!(floor < bits_per_key(1000, p, 1, 8, n).unwrap());
    let full = doubling_floor_bits_per_key(1000, p, below).unwrap();
    assert!(doubling_floor_bits_per_key(1000, p, below + 1).unwrap() > 2.0 * full);
    assert!(doubling_floor_bits_per_key(1000, 0.0, n).is_err());
}

/// "How tight the schedule is" (module docs): at 1% from 1,000 keys (264 buckets, 50
/// possible stages), no schedule whose widths never shrink gives stage 13 (the one 10M keys
/// fill) fewer than 14 bits; 20 stages of 14 bits, then one more bit per stage, keep the
/// bound under 1% at every size and give every stage 10M keys need 14 bits; the periods
/// of the `f0 + floor(i/k)` family compared at 10M.
#[test]
fn the_schedule_is_within_a_few_percent_of_the_tightest_at_10m() {
    let (p, b0) = (0.01, initial_buckets(1000));
    let stages = possible_stages(b0, 1);
    assert_eq!(stages, 50);
    // f_13 <= 13 forces f_0..f_13 <= 13: those 14 stages alone exceed the target.
    assert!(14.0 * stage_bound(13) > p);
    let delayed = |wide: u32| move |i: u32| if i < wide { 14 } else { 14 + i + 1 - wide };
    let sum = |f: &dyn Fn(u32) -> u32| (0..stages).map(|i| stage_bound(f(i))).sum::<f64>();
    let bound = sum(&delayed(20));
    assert!(bound <= p && sum(&delayed(21)) > p, "{bound}");
    let bytes: u64 = (0..14)
        .map(|i| stage_table_bytes(b0 << i, delayed(20)(i)).unwrap())
        .sum();
    let tightest = bytes as f64 * 8.0 / 1e7;
    let now = bits_per_key(1000, p, 1, 8, 10_000_000).unwrap();
    let best_k = (1..=16)
        .map(|k| (bits_per_key(1000, p, 1, k, 10_000_000).unwrap(), k))
        .fold((f64::MAX, 0), |a, b| if b.0 < a.0 { b } else { a });
    assert!((24.22..24.23).contains(&tightest), "{tightest}");
    // The floor: widths may jump, so the stages past 10M can be made almost free (57 bits);
    // then at most 7 stages of 13 bits fit (8 and six of 14 exceed 1% alone).
    let floor = |narrow: u32| {
        move |i: u32| [13, 14, MAX_FP_BITS][(i >= narrow) as usize + (i >= 14) as usize]
    };
    assert!(sum(&floor(7)) <= p && 8.0 * stage_bound(13) + 6.0 * stage_bound(14) > p);
    let bytes: u64 = (0..14)
        .map(|i| stage_table_bytes(b0 << i, floor(7)(i)).unwrap())
        .sum();
    let least = bytes as f64 * 8.0 / 1e7;
    assert!(
        (24.20..24.21).contains(&least) && tightest - least < 0.02,
        "{least}"
    );
    assert!((25.9..25.95).contains(&now), "{now}");
    assert_eq!(best_k.1, 11);
    assert!((25.7..25.75).contains(&best_k.0), "{best_k:?}");
}
