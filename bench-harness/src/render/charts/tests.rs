//! Unit tests of `render/charts.rs`.

use super::*;
use std::collections::BTreeMap;

fn rec(scenario: Scenario, variant: &str, t: f64, ns: f64) -> Record {
    let s = Spread {
        median: ns,
        min: ns - 1.0,
        max: ns + 2.0,
        rounds: 5,
        samples: Vec::new(),
    };
    Record {
        scenario,
        variant: variant.into(),
        n: 1000,
        capacity: 1000,
        target_fpr: t,
        empirical_fpr: t,
        theoretical_fpr: t,
        fpr_ci_low: t * 0.9,
        fpr_ci_high: t * 1.1,
        bytes: 1200,
        bits_per_key: 9.6,
        ns_per_insert: Some(s.clone()),
        ns_per_lookup: BTreeMap::from([
            ("0".into(), s.clone()),
            ("50".into(), s.clone()),
            ("100".into(), s),
        ]),
        threads: Some(1),
        step: Some(1),
        ..Record::default()
    }
}

fn fixture() -> Vec<Record> {
    let mut v = Vec::new();
    for scenario in [
        Scenario::Matrix,
        Scenario::Growth,
        Scenario::Churn,
        Scenario::SizeSweep,
        Scenario::Parallel,
    ] {
        for variant in ["classic", "cuckoo"] {
            for t in [0.01, 0.001] {
                v.push(rec(scenario, variant, t, 30.0));
            }
        }
    }
    v
}

#[test]
fn every_chart_is_made_and_every_timing_carries_its_spread() {
    let mut charts = all(&fixture());
    // The size sweep's charts are its study's page's (render::sweep), drawn from the same rows.
    let at = charts.len() - 1;
    charts.splice(at..at, size_sweep(&fixture()));
    let stems: Vec<&str> = charts.iter().map(|c| c.stem.as_str()).collect();
    assert_eq!(
        stems,
        [
            "fpr_measured_vs_theory",
            "bits_per_key_vs_fpr",
            "lookup_ns_1pct",
            "lookup_ns_0_1pct",
            "insert_ns",
            "growth",
            "churn",
            "size_sweep_negative",
            "size_sweep_positive",
            "parallel"
        ]
    );
    for c in &charts {
        match &c.kind {
            ChartKind::Bar(b) => {
                assert_eq!(b.spread.len(), b.groups.len(), "{}", c.stem);
                assert!(
                    b.spread
                        .iter()
                        .flatten()
                        .all(|&(lo, hi)| lo == 29.0 && hi == 32.0),
                    "{}",
                    c.stem
                );
            }
            ChartKind::Line(l) if c.stem != "bits_per_key_vs_fpr" => {
                let measured = l.series.iter().filter(|s| s.style != SeriesStyle::Dashed);
                for s in measured {
                    assert_eq!(s.spread.len(), s.points.len(), "{} / {}", c.stem, s.name);
                }
            }
            ChartKind::Line(_) => {}
        }
    }
}

#[test]
fn no_records_no_charts() {
    assert!(all(&[]).is_empty());
    assert_eq!(target_slug(0.0001), "0_01pct");
    assert_eq!(pct(0.01), "1%");
    assert_eq!(pct(0.000_977), "0.0977%");
}

#[test]
fn grouped_keeps_first_seen_variants_and_their_rows_in_order_within_the_scenario() {
    let records = vec![
        rec(Scenario::Matrix, "b", 0.01, 1.0),
        rec(Scenario::Growth, "c", 0.01, 2.0),
        rec(Scenario::Matrix, "a", 0.01, 3.0),
        rec(Scenario::Matrix, "b", 0.001, 4.0),
    ];
    let groups = grouped(&records, Scenario::Matrix);
    let shape: Vec<(&str, Vec<f64>)> = groups
        .iter()
        .map(|(v, rows)| (v.as_str(), rows.iter().map(|r| r.target_fpr).collect()))
        .collect();
    assert_eq!(shape, [("b", vec![0.01, 0.001]), ("a", vec![0.01])]);
    assert!(grouped(&records, Scenario::Churn).is_empty());
}
