//! Unit tests of `stages/systems/sample.rs`.

use super::*;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Exponential latencies (mean `mean` ns) from a seeded generator.
fn exponential(n: usize, mean: f64, seed: u64) -> Vec<u64> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    (0..n)
        .map(|_| (-mean * (1.0 - rng.random::<f64>()).ln()) as u64)
        .collect()
}

#[test]
fn the_percentile_intervals_cover_the_true_quantiles_at_their_level() {
    // Exponential with mean 10 µs: the median is 10 ln 2 µs, the p99 10 ln 100 µs. Over 400
    // seeded samples of 2,000 each, a 95% interval misses about 20 times; 4σ of the binomial
    // (σ = √(400 · 0.05 · 0.95) ≈ 4.4) allows up to 37 misses, and an interval that were
    // far too narrow would miss far more often.
    let truth = [(0.5, 10.0 * 2f64.ln()), (0.99, 10.0 * 100f64.ln())];
    let mut misses = [0u32; 2];
    for seed in 0..400 {
        let s = summarise(&mut exponential(2_000, 10_000.0, seed));
        let cis = [s.intervals.p50_us, s.intervals.p99_us];
        for ((ci, (_, t)), miss) in cis.iter().zip(truth).zip(&mut misses) {
            *miss += u32::from(!(ci.0 <= t && t <= ci.1));
        }
    }
    for (m, (q, _)) in misses.iter().zip(truth) {
        assert!((3..=37).contains(m), "q = {q}: {m} misses in 400");
    }
}

#[test]
fn the_mean_interval_covers_the_true_mean_and_the_throughput_follows_it() {
    let mut misses = 0;
    for seed in 0..400 {
        let s = summarise(&mut exponential(2_000, 10_000.0, 1_000 + seed));
        let (lo, hi) = s.intervals.mean_us;
        misses += u32::from(!(lo <= 10.0 && 10.0 <= hi));
        assert_eq!(s.intervals.checks_per_s, (1e6 / hi, 1e6 / lo));
        assert!(interval_problem("mean", s.mean_us, s.intervals.mean_us).is_none());
    }
    assert!((3..=37).contains(&misses), "{misses} misses in 400");
}

#[test]
fn every_interval_holds_its_figure_even_for_tiny_samples() {
    for n in [1, 2, 3, 10, 101] {
        let mut v: Vec<u64> = (1..=n as u64).map(|i| i * 1000).collect();
        let s = summarise(&mut v);
        for (name, value, ci) in [
            ("p50", s.p50_us, s.intervals.p50_us),
            ("p99", s.p99_us, s.intervals.p99_us),
            ("mean", s.mean_us, s.intervals.mean_us),
            ("checks/s", s.checks_per_s, s.intervals.checks_per_s),
        ] {
            assert_eq!(interval_problem(name, value, ci), None, "n = {n}");
        }
    }
}

#[test]
fn an_interval_that_misses_its_figure_is_named() {
    let p = interval_problem("p99", 12.0, (9.0, 11.0)).unwrap();
    assert!(p.contains("p99 12 lies outside its interval 9–11"), "{p}");
    assert!(interval_problem("p99", f64::NAN, (9.0, 11.0)).is_some());
    assert!(interval_problem("p99", 10.0, (11.0, 9.0)).is_some());
}

#[test]
fn a_ratio_interval_widens_with_either_side_and_holds_the_ratio() {
    let narrow = ratio_interval((1.0, (0.99, 1.01)), (10.0, (9.9, 10.1))).unwrap();
    let wide = ratio_interval((1.0, (0.9, 1.1)), (10.0, (9.9, 10.1))).unwrap();
    assert!(narrow.0 < 0.1 && 0.1 < narrow.1, "{narrow:?}");
    assert!(
        wide.0 < narrow.0 && narrow.1 < wide.1,
        "{wide:?} vs {narrow:?}"
    );
    assert_eq!(ratio_interval((1.0, (1.0, 1.0)), (0.0, (0.0, 0.0))), None);
}
