//! `check` on the targets: stored verdicts against the ratios, the spread a small table
//! widens a bound by, the Python rows' rounds.

use super::*;

#[test]
fn a_stored_target_verdict_that_is_not_the_ratio_is_rejected() {
    use crate::judge::targets::{Conditions, Ratio, Verdict};
    let ratio = Ratio {
        what: "classic vs bloomfilter".into(),
        numerator_value: 20.0,
        numerator_samples: vec![20.0, 19.0, 21.0, 20.5, 19.5],
        denominator_value: 25.0,
        denominator_samples: vec![25.0, 24.0, 26.0, 25.5, 24.5],
        bound: crate::judge::targets::Bound::AtMost(0.7),
        ..Ratio::default()
    }
    .recomputed();
    assert_eq!(ratio.verdict, Verdict::NotMet);
    let mut r = good();
    r.ratios.push(ratio.clone());
    assert!(ratios(&r).is_empty());
    rejects("stored verdict Met", |r| {
        r.ratios.push(Ratio {
            verdict: Verdict::Met,
            ..ratio.clone()
        })
    });
    rejects("stored ratio", |r| {
        r.ratios.push(Ratio {
            ratio: 0.5,
            ..ratio.clone()
        })
    });
    rejects("stored interval", |r| {
        r.ratios.push(Ratio {
            interval: Some((0.1, 0.2)),
            ..ratio.clone()
        })
    });
    // A changed value moves the ratio; a changed round moves the interval.
    rejects("stored ratio", |r| {
        r.ratios.push(Ratio {
            numerator_value: 10.0,
            ..ratio.clone()
        })
    });
    rejects("stored interval", |r| {
        let mut x = ratio.clone();
        x.numerator_samples[0] = 5.0;
        r.ratios.push(x)
    });
    // "Same conditions" comes from the recorded conditions, not from the stored flag.
    rejects("stored conditions", |r| {
        r.ratios.push(Ratio {
            denominator_conditions: Conditions {
                hash: "SipHash-1-3".into(),
                ..Conditions::default()
            },
            ..ratio.clone()
        })
    });
}

#[test]
fn a_small_tables_own_spread_widens_the_bound_but_not_without_limit() {
    use filterlab::any::Detail;
    // 411 blocks hold 10^4 keys: one table's rate spreads by about 4% of itself, four times the
    // binomial error of a million probes. A row 5.6 binomial sigmas low (as measured once) is
    // within the combined bound; half the expected count is not.
    let small = Detail::Blocked {
        blocks: 411,
        keys_per_block: 10_000.0 / 411.0,
    };
    let big = Detail::Blocked {
        blocks: 411_000,
        keys_per_block: 10_000_000.0 / 411_000.0,
    };
    let (q_small, v_small) = (
        small.fpr_at(10_000).unwrap(),
        small.instance_variance(10_000),
    );
    let relative = v_small.sqrt() / q_small;
    assert!(
        (0.02..0.08).contains(&relative),
        "relative spread {relative}"
    );
    let v_big = big.instance_variance(10_000_000);
    assert!(
        (v_small / v_big - 1000.0).abs() < 50.0,
        "spread scales with 1/blocks"
    );
    let classic = Detail::Classic { m: 95_851, k: 7 };
    assert!(classic.instance_variance(10_000) > 0.0);
    assert_eq!(classic.instance_variance(0), 0.0);

    let with_count = |fraction_or_sigmas: Result<f64, f64>| {
        let mut r = good();
        let x = matrix_row(&mut r, Variant::Blocked);
        x.n = 10_000;
        x.shape = Some(small.clone());
        x.theoretical_fpr = q_small;
        let expected = q_small * x.probes as f64;
        let binomial = (expected * (1.0 - q_small)).sqrt();
        let fp = match fraction_or_sigmas {
            Ok(fraction) => expected * fraction,
            Err(sigmas) => expected - sigmas * binomial,
        };
        set_false_positives(x, fp.round() as u64);
        problems(&r)
    };
    let p = with_count(Err(5.6));
    assert!(!p.iter().any(|m| m.contains("sigmas off")), "{p:?}");
    assert!(with_count(Ok(0.5)).iter().any(|m| m.contains("sigmas off")));
}

#[test]
fn python_rows_on_fewer_than_five_rounds_are_rejected() {
    let python = |rounds: usize| crate::record::PeerRecord {
        name: "articles' Python".into(),
        side: crate::record::Side::Python,
        ns_negative: timing(40_000.0, rounds),
        ns_positive: timing(40_000.0, rounds),
        build_seconds: timing(20.0, rounds),
        probes: PROBES,
        ..crate::record::PeerRecord::default()
    };
    let mut r = good();
    r.peers.push(python(5));
    assert!(peers(&r, Floors::default()).is_empty());
    r.peers.last_mut().unwrap().ns_negative = timing(40_000.0, 1);
    let p = peers(&r, Floors::default());
    assert!(
        p.iter()
            .any(|x| x.contains("articles' Python: ns_negative: 1 rounds")),
        "{p:?}"
    );
}

/// Issue 19's absolute goals (the ribbon filter's) are rows like any ratio: `check` recomputes
/// their interval and verdict from their rounds and rejects a stored verdict that is not theirs;
/// a variant measured beside the peers missing from the comparison is a problem.
#[test]
fn a_goal_row_is_recomputed_and_a_missing_ribbon_row_is_rejected() {
    use crate::judge::targets::{goal_rows, Verdict};
    let mut r = good();
    let ribbon = r
        .peers
        .iter_mut()
        .find(|p| p.name == Variant::Ribbon.name())
        .expect("the fixture has a ribbon row");
    ribbon.n = 1_000;
    ribbon.bytes = 900;
    ribbon.bits_per_key = 7.2;
    ribbon.build_seconds = Spread::of(&mut [1.0e-4, 1.1e-4, 0.9e-4]);
    ribbon.ns_negative_batched = Some(Spread::of(&mut [20.0, 21.0, 19.0]));
    ribbon.ns_positive_batched = Some(Spread::of(&mut [25.0, 26.0, 24.0]));
    let goals = goal_rows(&r.peers).unwrap();
    assert!(goals.iter().all(|g| g.verdict != Verdict::NotMeasured));
    r.ratios.extend(goals.iter().cloned());
    assert!(ratios(&r).is_empty(), "{:#?}", ratios(&r));
    let bits = goals
        .iter()
        .find(|g| g.what.contains("bits per key"))
        .unwrap()
        .clone();
    assert_eq!(bits.verdict, Verdict::Met);
    rejects("stored verdict", |r| {
        r.ratios.push(crate::record::Ratio {
            numerator_value: 7.3,
            numerator_samples: vec![7.3],
            ratio: 7.3,
            ..bits.clone()
        })
    });
    rejects("peers: ribbon is missing", |r| {
        r.peers.retain(|p| p.name != Variant::Ribbon.name())
    });
}

#[test]
fn a_stored_yes_over_a_twin_recorded_with_the_default_hash_is_rejected() {
    use crate::judge::targets::{Conditions, Ratio};
    use crate::record::conditions::OurHash;
    // The fuse goal's row as the targets compute it: our xxh3-64 twin against xorf's
    // BinaryFuse8, both xxh3-64, alike.
    let xxh3_64 = Conditions {
        achieved_fpr: Some(0.0039),
        hash: OurHash::Xxh3_64.name().into(),
        ..Conditions::default()
    };
    let ratio = Ratio {
        what: "binary-fuse8 with xxh3-64 vs xorf BinaryFuse8: ns per negative lookup".into(),
        numerator_value: 20.0,
        numerator_samples: vec![20.0, 19.0, 21.0],
        denominator_value: 25.0,
        denominator_samples: vec![25.0, 24.0, 26.0],
        bound: crate::judge::targets::Bound::AtMost(1.0),
        numerator_conditions: xxh3_64.clone(),
        denominator_conditions: xxh3_64,
        ..Ratio::default()
    }
    .recomputed();
    assert!(ratio.same_conditions, "{ratio:?}");
    let mut r = good();
    r.ratios.push(ratio.clone());
    assert!(ratios(&r).is_empty());
    // The same stored "yes" over a numerator recorded with xxh3-128.
    rejects("hash xxh3-128 vs xxh3-64", |r| {
        let mut x = ratio.clone();
        x.numerator_conditions.hash = OurHash::Xxh3_128.name().into();
        r.ratios.push(x)
    });
}

#[test]
fn a_ratio_of_a_sampled_figure_over_a_full_size_one_is_refused() {
    use crate::judge::targets::{Conditions, Ratio, Terms};
    let at = |keys| Conditions {
        achieved_fpr: Some(0.01),
        keys: Some(keys),
        ..Conditions::default()
    };
    let ratio = |numerator_keys, terms| {
        Ratio {
            what: "speed-up of classic over the articles' Python: build seconds".into(),
            numerator_value: 1.7,
            numerator_samples: vec![1.7, 1.72, 1.69],
            denominator_value: 0.05,
            denominator_samples: vec![0.05, 0.051, 0.049],
            bound: crate::judge::targets::Bound::AtLeast(20.0),
            terms,
            numerator_conditions: at(numerator_keys),
            denominator_conditions: at(10_000_000),
            ..Ratio::default()
        }
        .recomputed()
    };
    // Recomputed honestly (the difference is listed), and still refused.
    let sampled = ratio(1_000_000, Terms::AlikeFp);
    assert!(sampled.differences.contains("1000000 vs 10000000 keys"));
    rejects(
        "compares a figure taken at 1000000 keys with one taken at 10000000",
        |r| {
            r.ratios.push(sampled.clone());
        },
    );
    // The same sizes pass; a growth row compares one filter at two sizes by design.
    let mut r = good();
    r.ratios.push(ratio(10_000_000, Terms::AlikeFp));
    r.ratios.push(ratio(1_000_000, Terms::Growth));
    assert_eq!(ratios(&r), Vec::<String>::new());
}
