use super::*;

fn counts(fp: u64, absent: u64) -> GateCounts {
    GateCounts {
        false_positives: fp,
        filter_absent: absent,
        ..GateCounts::default()
    }
}

#[test]
fn warns_only_when_the_whole_interval_is_above_target() {
    // 1% measured on 10k negatives: interval straddles 1%, no warning.
    let ok = FprReport::new(&counts(100, 9_900), 0.01, 0.01);
    assert!(ok.interval.0 < 0.01 && ok.interval.1 > 0.01);
    assert!(!ok.over_target());
    // 3% on 10k negatives against a 1% target: a warning (the fixture it must flag).
    let bad = FprReport::new(&counts(300, 9_700), 0.01, 0.01);
    assert!((bad.rate - 0.03).abs() < 1e-12);
    assert!(bad.over_target());
    // 1 out of 30 (3.3%): too few trials to tell, no warning.
    assert!(!FprReport::new(&counts(1, 29), 0.01, 0.01).over_target());
    // 1.14% on 20k: 2.1 sigma above a filter at its 1% target, which a 95% alarm flagged
    // (its lower end 1.002%); a filter at its target gives such a draw once in 60 seeds.
    let high_draw = FprReport::new(&counts(228, 19_772), 0.0099, 0.01);
    assert!(high_draw.interval.0 > 0.01 && !high_draw.over_target());
    // 1.5% on 20k (7 sigma): the alarm.
    assert!(FprReport::new(&counts(300, 19_700), 0.0099, 0.01).over_target());
}

#[test]
fn no_checks_means_no_rate_and_no_warning() {
    let r = FprReport::new(&GateCounts::default(), 0.0, 0.01);
    assert_eq!((r.rate, r.negatives), (0.0, 0));
    assert!(!r.over_target());
}
