use super::*;

fn needs(n: u64, fpr: f64) -> Needs {
    Needs::new(n, fpr)
}

#[test]
fn capabilities_pick_the_variant() {
    assert_eq!(
        recommend(&needs(10_000_000, 0.01)).unwrap().plan.variant,
        Variant::Classic
    );
    let d = Needs {
        deletes: true,
        ..needs(1000, 0.01)
    };
    assert_eq!(recommend(&d).unwrap().plan.variant, Variant::Cuckoo);
    let g = Needs {
        growth: true,
        ..needs(1000, 0.01)
    };
    assert_eq!(recommend(&g).unwrap().plan.variant, Variant::Scalable);
    let t = Needs {
        threads: 8,
        ..needs(1000, 0.01)
    };
    assert_eq!(recommend(&t).unwrap().plan.variant, Variant::Blocked);
    // At 0.01% the cuckoo filter is smaller than the classic one.
    assert_eq!(
        recommend(&needs(1000, 1e-4)).unwrap().plan.variant,
        Variant::Cuckoo
    );
    let both = Needs {
        deletes: true,
        growth: true,
        ..needs(1000, 0.01)
    };
    assert_eq!(recommend(&both).unwrap().plan.variant, Variant::Expandable);
    // A fixed set: the smallest static filter that meets the rate (a ribbon filter's
    // fractional result bits beat 1.125 F bits of a binary fuse filter), with its reason.
    for p in [0.01, 0.004, 1e-4] {
        let fixed = recommend(&Needs {
            fixed_set: true,
            ..needs(1_000_000, p)
        })
        .unwrap();
        assert_eq!(fixed.plan.variant, Variant::Ribbon, "{p}");
        assert!(
            fixed.plan.bits_per_key < sized(Variant::Classic, 1_000_000, p).unwrap().bits_per_key
        );
        assert!(fixed.why.iter().any(|w| w.contains("known and fixed")));
        assert!(fixed.notes.iter().any(|n| n.contains("built once")));
    }
}

#[test]
fn what_if_shows_the_rate_rising_with_an_underestimate() {
    let r = recommend(&needs(1_000_000, 0.01)).unwrap();
    let at = |m| {
        r.what_if
            .iter()
            .find(|w| w.multiple == m)
            .unwrap()
            .fpr
            .unwrap()
    };
    assert!(at(2) > r.plan.expected_fpr && at(10) > at(2));
}

#[test]
fn a_small_budget_is_refused_with_a_request_that_fits() {
    let n = 10_000_000;
    let r = recommend(&Needs {
        max_memory: Some(4 << 20),
        ..needs(n, 0.01)
    })
    .unwrap_err();
    assert!(r.reason.contains("budget"), "{}", r.reason);
    assert!(
        r.nearest.contains("--fpr") && r.nearest.contains("--n"),
        "{}",
        r.nearest
    );
    // The nearest rate really fits and is not far from the edge.
    let fpr: f64 = r
        .nearest
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let at = |p| sized(Variant::Classic, n, p).unwrap().bytes;
    assert!(at(fpr) <= 4 << 20 && at(fpr * 0.99) > 4 << 20, "{fpr}");
    assert!(recommend(&Needs {
        max_memory: Some(64 << 20),
        ..needs(n, 0.01)
    })
    .is_ok());
}
