use super::*;

#[test]
fn per_part_targets_recompose_the_target() {
    for (p, s) in [(0.01, 8), (1e-9, 64), (0.5, 2)] {
        let q = per_part_target(p, s);
        let back = -(f64::from(s) * (-q).ln_1p()).exp_m1();
        assert!((back - p).abs() <= 1e-12 * p, "p = {p}, s = {s}: {back}");
    }
}

#[test]
fn fill_matches_the_direct_product_and_survives_huge_tables() {
    let direct = 1.0 - (1.0 - 1.0 / 1000.0f64).powi(700);
    assert!((fill(700.0, 1000) - direct).abs() < 1e-12);
    // 1 - (1 - 1/m) rounds to 0 in f64 for m = 2^60; ln_1p does not.
    let tiny = fill(1.0, 1 << 60);
    assert!((tiny * (1u64 << 60) as f64 - 1.0).abs() < 1e-9, "{tiny}");
}

/// The design point of the crate docs: seven generations per window, eight kept, 1%.
#[test]
fn sliced_plan_reaches_the_goal_at_one_percent() {
    let plan = SlicedPlan::new(1_000_000, 7, 0.01).unwrap();
    assert!(plan.worst_fpr() <= 0.01, "{plan:?}: {}", plan.worst_fpr());
    assert!(plan.worst_fpr() > 0.0099, "{plan:?}: sizing is not tight");
    let bits = plan.bits_per_item();
    assert!(bits < 16.5 && bits > 15.8, "{bits}");
    // One generation per window is the two-buffer rotation: about 22 bits.
    let two = SlicedPlan::new(1_000_000, 1, 0.01).unwrap().bits_per_item();
    assert!((two - 22.0).abs() < 0.3, "{two}");
}

/// The brief's figure for the paper's own sizing: k = l = 8 takes about 23.1 bits per item.
#[test]
fn apbf_paper_sizing_costs_about_23_bits() {
    let plan = ApbfPlan::paper(1_000_000, 8, 8).unwrap();
    assert!((plan.bits_per_item() - 23.08).abs() < 0.05, "{plan:?}");
    let tuned = ApbfPlan::for_target(1_000_000, 8, 8, 0.01).unwrap();
    assert!(tuned.worst_fpr() <= 0.01);
    let smaller = ApbfPlan {
        m: tuned.m - 1,
        ..tuned
    };
    assert!(smaller.worst_fpr() > 0.01, "bisection is not tight");
}

/// The run probability against brute-force enumeration over every match pattern.
#[test]
fn apbf_fpr_equals_enumeration() {
    let (k, m) = (3u32, 50u64);
    let counts = [5u64, 10, 15, 15, 15, 30];
    let r: Vec<f64> = counts.iter().map(|&c| fill(c as f64, m)).collect();
    let mut brute = 0.0;
    for mask in 0u32..1 << counts.len() {
        let run = (0..=counts.len() - k as usize)
            .any(|s| (s..s + k as usize).all(|i| mask >> i & 1 == 1));
        if run {
            brute += (0..counts.len())
                .map(|i| if mask >> i & 1 == 1 { r[i] } else { 1.0 - r[i] })
                .product::<f64>();
        }
    }
    let dp = apbf_fpr(k, m, &counts);
    assert!((dp - brute).abs() < 1e-14, "{dp} vs {brute}");
}

/// Checking every one of 24 slices at the full 1% (expiring-bloom-rs) gives about 21%.
#[test]
fn full_target_per_slice_compounds() {
    let union = -(24.0 * (-0.01f64).ln_1p()).exp_m1();
    assert!((union - 0.214).abs() < 0.001, "{union}");
}
