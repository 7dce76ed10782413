use super::*;
use std::collections::HashSet;

/// A small stream: windows of 7000 items (a whole number of generations).
fn small() -> Settings {
    Settings {
        window: 7_000,
        windows: 10,
        checkpoints_per_window: 8,
        fp_queries: 4_000,
        samples: 500,
        rounds: 1,
        timed_inserts: 2_000,
        timed_lookups: 2_000,
        seed: 7,
    }
}

#[test]
fn members_and_non_members_never_meet_nor_repeat() {
    let mut seen = HashSet::new();
    for i in 0..20_000u64 {
        assert!(seen.insert(key(true, i, 7)));
        assert!(seen.insert(key(false, i, 7)));
    }
}

#[test]
fn a_small_stream_keeps_every_guarantee_but_the_apbf_tail() {
    let r = run(&small(), Machine::default()).unwrap();
    assert_eq!(r.designs.len(), Design::all().len());
    for d in &r.designs {
        // Ten windows after the first, eight checkpoints each, plus the one at the end.
        assert_eq!(d.checkpoints.len(), 81, "{}", d.design.name());
        let bytes: HashSet<u64> = d.checkpoints.iter().map(|c| c.bytes).collect();
        assert_eq!(bytes.len(), 1, "{}: memory moved", d.design.name());
        assert!(d.insert_ns.is_sound() && d.lookup_ns.is_sound());
    }
    let item = &r.designs[0];
    assert_eq!(item.design, Design::Ours(filterlab::Variant::ItemWindow));
    // The rate over the stream within 4 binomial sigmas of the model's mean.
    let (fp, probes) = item.pooled_fp();
    let model: f64 = item
        .checkpoints
        .iter()
        .map(|c| c.model.unwrap() * c.probes as f64)
        .sum();
    let sigma = (model * (1.0 - model / probes as f64)).sqrt();
    assert!((fp as f64 - model).abs() <= 4.0 * sigma, "{fp} vs {model}");
    // Past the horizon an item is found only as a false positive would be.
    let (aged, asked) = item.pooled_aged();
    let p = FPR * asked as f64;
    assert!(
        (aged as f64) <= p + 4.0 * (p * (1.0 - FPR)).sqrt(),
        "{aged} of {asked}"
    );
    // The age-partitioned filter keeps k - 1 bits of an item past l + 1 generations.
    let apbf = r
        .designs
        .iter()
        .find(|d| d.design == Design::Ours(filterlab::Variant::Apbf))
        .unwrap();
    let (aged, asked) = apbf.pooled_aged();
    assert!(aged as f64 > 3.0 * FPR * asked as f64, "{aged} of {asked}");
    // Checked at its full rate per level, probabilistic-rs is far above 1% over the window.
    let docs = r
        .designs
        .iter()
        .find(|d| d.design == Design::ProbabilisticRsAsDocumented)
        .unwrap();
    let (fp, probes) = docs.pooled_fp();
    assert!(fp as f64 > 3.0 * FPR * probes as f64, "{fp} of {probes}");
}

#[test]
fn bits_per_in_window_item_are_the_plans() {
    let w = 1_000_000;
    let bits = |d: Design| {
        let f = designs::build(d, w, FPR).unwrap();
        f.bytes() as f64 * 8.0 / w as f64
    };
    assert!(
        (bits(Design::Ours(filterlab::Variant::ItemWindow)) - 15.90).abs() < 0.02,
        "{}",
        bits(Design::Ours(filterlab::Variant::ItemWindow))
    );
    assert!(
        (bits(Design::TwoBuffer) - 22.06).abs() < 0.05,
        "{}",
        bits(Design::TwoBuffer)
    );
    assert!(
        (bits(Design::Ours(filterlab::Variant::Apbf)) - 23.5).abs() < 0.1,
        "{}",
        bits(Design::Ours(filterlab::Variant::Apbf))
    );
}

#[test]
fn a_design_is_stored_by_key_and_an_unknown_key_is_refused() {
    for d in Design::all() {
        let json = serde_json::to_string(&d).unwrap();
        assert_eq!(json, format!("{:?}", d.key()));
        assert_eq!(serde_json::from_str::<Design>(&json).unwrap(), d);
    }
    let err = serde_json::from_str::<Design>("\"three_buffer\"").unwrap_err();
    assert!(
        err.to_string()
            .contains("no window design is called \"three_buffer\""),
        "{err}"
    );
}
