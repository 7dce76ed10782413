//! Unit tests of `measure.rs`.

use super::*;

#[test]
fn median_and_quantiles() {
    assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
    assert!(median(&mut []).is_nan());
    let s: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(quantile(&s, 0.5), 50.0);
    assert_eq!(quantile(&s, 0.99), 99.0);
    assert_eq!(quantile(&s, 1.0), 100.0);
}

#[test]
fn spread_keeps_median_min_max_and_round_count() {
    let s = Spread::of(&mut [5.0, 1.0, 3.0, 9.0, 4.0]);
    assert_eq!((s.median, s.min, s.max, s.rounds), (4.0, 1.0, 9.0, 5));
    assert!(s.is_sound());
    assert_eq!(format!("{s}"), "4.0 (1.0–9.0)");
    assert_eq!(format!("{:.0}", Spread::single(7.0)), "7");
    let empty = Spread::of(&mut []);
    assert!(!empty.is_sound() && empty.rounds == 0);
    assert_eq!(format!("{}", Spread::default()), "–");
    assert!(
        !Spread {
            min: 5.0,
            ..s.clone()
        }
        .is_sound(),
        "min above the median"
    );
    assert!(
        !Spread {
            min: 0.0,
            ..s.clone()
        }
        .is_sound(),
        "0 ns is no measurement"
    );
    assert!(!Spread::single(0.0).is_sound());
    assert!(!Spread::single(f64::NAN).is_sound());
    assert_eq!(s.scaled(2.0).range(), (2.0, 18.0));
}

#[test]
fn mixes_and_their_keys_agree() {
    for (m, pct) in Mix::ALL.iter().zip([0, 25, 50, 75, 100]) {
        assert_eq!(m.percent(), pct);
        assert_eq!(m.key(), pct.to_string());
    }
    assert!(Mix::SWEEP.iter().all(|m| Mix::ALL.contains(m)));
}

#[test]
fn query_mixes_have_the_requested_share_of_members() {
    let members: KeySet = (0..1000).map(|i| format!("m{i}")).collect();
    let probes: KeySet = (0..1000).map(|i| format!("p{i}")).collect();
    for pct in Mix::ALL.map(Mix::percent) {
        let q = query_mix(&members, 1000, &probes, pct, 400, 1);
        let pos = q.iter().filter(|k| k[0] == b'm').count();
        assert_eq!(q.len(), 400);
        assert_eq!(pos, 400 * pct as usize / 100);
        assert_eq!(q, query_mix(&members, 1000, &probes, pct, 400, 1), "seeded");
    }
}
