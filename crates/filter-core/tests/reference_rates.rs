//! Every formula of `filter_core::math` against high-precision reference values (issue 15).
//!
//! `data/reference_rates.csv` is written by `scripts/reference_rates.py` with mpmath at 60 or
//! more significant digits (the classic exact rate by the textbook alternating sum at whatever
//! precision its cancellation needs: a different route from the library's). The grid: capacities
//! from 1 to 1e12 sized at rates from 0.5 down to 1e-300, k from 1 to 64, fills from 0.01% to
//! 1000% of capacity; cuckoo fingerprints from 1 to 64 bits; split-block loads from 0.001 to
//! 32,000 keys per block; scalable filters with targets down to 1e-300; the count estimate of a
//! Bloom filter from its set bits, its spread and the rate at it, at fills from 1e-9 to all but
//! one bit.
//!
//! Wherever the reference is a normal `f64`, the relative error must be at most 1e-9. The test
//! prints the worst point of each formula.

use filter_core::math;

const DATA: &str = include_str!("data/reference_rates.csv");
const MAX_REL_ERROR: f64 = 1e-9;

/// One reference line: the formula's name, its arguments and the reference value.
struct Point<'a> {
    formula: &'a str,
    args: Vec<&'a str>,
    reference: f64,
}

fn points() -> Vec<Point<'static>> {
    DATA.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let (last, head) = fields.split_last().expect("a non-empty line");
            Point {
                formula: head[0],
                args: head[1..].to_vec(),
                reference: last
                    .parse()
                    .unwrap_or_else(|_| panic!("bad value in {line}")),
            }
        })
        .collect()
}

fn int(s: &str) -> u64 {
    s.parse().unwrap_or_else(|_| panic!("bad integer {s}"))
}

fn real(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("bad number {s}"))
}

/// The library's value at a reference point; `None` for a formula this test does not know.
fn ours(p: &Point<'_>) -> Option<f64> {
    let a = &p.args;
    Some(match p.formula {
        "classic_exact" => {
            math::classic_fpr_exact(int(a[0]), int(a[1]), int(a[2]) as u32).expect("k <= 64")
        }
        "classic_approx" => math::classic_fpr(int(a[0]), int(a[1]), int(a[2]) as u32),
        "lower_bound_bits" => math::lower_bound_bits(int(a[0]), real(a[1])),
        "cuckoo_limit" => math::cuckoo_fpr(int(a[0]) as u32, int(a[1]) as u32, real(a[2])),
        "cuckoo_upper_bound" => {
            math::cuckoo_fpr_upper_bound(int(a[0]) as u32, int(a[1]) as u32, real(a[2]))
        }
        "cuckoo_exact" => {
            math::cuckoo_fpr_exact(int(a[0]) as u32, int(a[1]) as u32, int(a[2]), int(a[3]))
        }
        "split_block" => math::split_block_fpr(int(a[0]), int(a[1])),
        "split_block_block_model" => math::split_block_fpr_block_model(int(a[0]), int(a[1])),
        "compound" => {
            let (p, r, stages) = (real(a[0]), real(a[1]), int(a[2]) as u32);
            let p0 = math::scalable_initial_fpr(p, r);
            math::compound_fpr((0..stages).map(|i| math::scalable_stage_fpr(p0, r, i)))
        }
        "counting_overflow" => {
            math::counting_overflow_bound(int(a[0]), int(a[1]), int(a[2]) as u32, int(a[3]) as u32)
        }
        "aleph_fpr" => {
            let planned = u32::try_from(a[1].parse::<i64>().expect("an integer")).ok();
            let w = math::aleph::Widening::new(real(a[0]), planned).expect("a valid rate");
            w.fpr_after(int(a[2]) as u32, real(a[3]))
        }
        "count_estimate" => {
            math::bloom_count_estimate(int(a[0]), int(a[1]) as u32, int(a[2])).expect("ones <= m")
        }
        "count_estimate_sd" => {
            math::bloom_count_estimate_sd(int(a[0]), int(a[1]) as u32, int(a[2]) as f64)
        }
        "fpr_at_fill" => {
            math::bloom_fpr_at_fill(int(a[0]), int(a[1]) as u32, int(a[2])).expect("ones <= m")
        }
        _ => return None,
    })
}

/// The worst relative error of one formula, and where.
#[derive(Default)]
struct Worst {
    error: f64,
    at: String,
    checked: usize,
    skipped: usize,
}

fn relative_error(ours: f64, reference: f64) -> f64 {
    if ours == reference {
        0.0
    } else {
        ((ours - reference) / reference).abs()
    }
}

#[test]
fn every_formula_matches_the_high_precision_reference() {
    let mut worst: std::collections::BTreeMap<&str, Worst> = Default::default();
    let mut failures = Vec::new();
    for p in points() {
        if p.formula == "optimal_bits_real" {
            continue; // an integer: checked below
        }
        let value = ours(&p).unwrap_or_else(|| panic!("unknown formula {}", p.formula));
        let w = worst.entry(p.formula).or_default();
        if !p.reference.is_normal() {
            w.skipped += 1;
            continue;
        }
        w.checked += 1;
        let error = relative_error(value, p.reference);
        let at = format!(
            "{}({}) = {:e}, reference {:e}",
            p.formula,
            p.args.join(", "),
            value,
            p.reference
        );
        if error.is_nan() || error > MAX_REL_ERROR {
            failures.push(format!("{at}: relative error {error:.2e}"));
        }
        if error > w.error || error.is_nan() {
            *w = Worst { error, at, ..*w };
        }
    }
    for (formula, w) in &worst {
        println!(
            "{formula}: {} points ({} skipped, reference not a normal f64); worst {:.2e} at {}",
            w.checked, w.skipped, w.error, w.at
        );
    }
    assert!(
        worst.len() >= 10,
        "the reference file lacks formulas: {:?}",
        worst.keys()
    );
    assert!(worst["classic_exact"].checked > 2000);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn optimal_bits_is_the_ceiling_of_the_reference() {
    let mut checked = 0;
    for p in points().iter().filter(|p| p.formula == "optimal_bits_real") {
        let (n, rate) = (int(p.args[0]), real(p.args[1]));
        let want = p.reference.ceil().max(1.0);
        match math::optimal_bits(n, rate) {
            Ok(m) => {
                // Within 1e-9 of an integer either rounding is right.
                let near = (p.reference - p.reference.round()).abs() <= 1e-9 * p.reference;
                assert!(
                    m as f64 == want || near,
                    "n {n} p {rate}: {m} vs {}",
                    p.reference
                );
                checked += 1;
            }
            Err(e) => assert!(want >= 2f64.powi(63), "n {n} p {rate}: {e}"),
        }
    }
    assert!(checked > 30, "{checked}");
}

/// A check must be able to fail: the alternating sum the library used before issue 15, fed
/// the same grid, misses the reference by far more than the tolerance.
#[test]
fn the_textbook_alternating_sum_fails_this_test() {
    let p = points()
        .into_iter()
        .find(|p| p.formula == "classic_exact" && p.args == ["28755176", "100000", "20"]);
    let reference = p.map_or(3.515_345_497_694_539e-24, |p| p.reference);
    let naive = alternating_sum(28_755_176, 100_000, 20);
    assert!(
        relative_error(naive, reference) > MAX_REL_ERROR,
        "{naive:e}"
    );
    let ours = math::classic_fpr_exact(28_755_176, 100_000, 20).unwrap();
    assert!(relative_error(ours, reference) <= MAX_REL_ERROR, "{ours:e}");
}

/// `Σ_d S(k,d) (m)_d / m^k Σ_i (-1)^i C(d,i) (1 - i/m)^(kn)` in plain `f64`.
fn alternating_sum(m: u64, n: u64, k: usize) -> f64 {
    let (mf, draws) = (m as f64, (n * k as u64) as f64);
    let mut s = vec![0.0f64; k + 1];
    s[0] = 1.0;
    for j in 1..=k {
        for d in (1..=j).rev() {
            s[d] = d as f64 * s[d] + s[d - 1];
        }
        s[0] = 0.0;
    }
    let (mut p, mut falling) = (0.0, 1.0);
    for (d, &sd) in s.iter().enumerate().skip(1) {
        falling *= 1.0 - (d - 1) as f64 / mf;
        let mut all_set = 0.0;
        let mut binom = 1.0;
        for i in 0..=d {
            let miss = (draws * (-(i as f64) / mf).ln_1p()).exp();
            all_set += if i % 2 == 0 { binom } else { -binom } * miss;
            binom = binom * (d - i) as f64 / (i + 1) as f64;
        }
        p += sd * falling * mf.powi(d as i32 - k as i32) * all_set.max(0.0);
    }
    p
}

/// The count estimate's check must be able to fail too: `ln(1 - X/m)` written as it reads
/// loses the digits of a nearly empty filter (at 1e-9 of its bits set, about half of them),
/// where the reference and the library agree.
#[test]
fn the_count_estimate_written_as_it_reads_fails_this_test() {
    let (m, k, ones) = (1_000_000_000_000_000u64, 7u32, 1_000_000u64);
    let reference = points()
        .into_iter()
        .find(|p| p.formula == "count_estimate" && p.args == ["1000000000000000", "7", "1000000"])
        .expect("the reference file has this point")
        .reference;
    let naive = -(m as f64 / f64::from(k)) * (1.0 - ones as f64 / m as f64).ln();
    assert!(
        relative_error(naive, reference) > MAX_REL_ERROR,
        "{naive:e}"
    );
    let ours = math::bloom_count_estimate(m, k, ones).unwrap();
    assert!(relative_error(ours, reference) <= MAX_REL_ERROR, "{ours:e}");
}
