//! Unit tests of `judge/claims.rs`.

use super::*;

fn users_row(n: u64, fp: u64) -> Record {
    Record {
        scenario: Scenario::Users,
        variant: "classic".into(),
        n,
        capacity: USERS,
        false_positives: fp,
        probes: 1_000_000,
        empirical_fpr: fp as f64 / 1e6,
        ..Record::default()
    }
}

fn verdict(claims: &[Claim], start: &str) -> Verdict {
    claims
        .iter()
        .find(|c| c.claim.starts_with(start))
        .unwrap_or_else(|| panic!("no claim {start}"))
        .verdict
}

#[test]
fn formula_claims_are_computed() {
    let c = claims(&Results::default());
    assert_eq!(
        verdict(&c, "10M e-mails at 1%"),
        Verdict::NotMet,
        "11.98 MB is not 1.20 MB"
    );
    assert_eq!(verdict(&c, "k = 7"), Verdict::NotMet, "int() gives 6");
    assert_eq!(verdict(&c, "FP 0.97%"), Verdict::Met);
    assert_eq!(verdict(&c, "for 1M users"), Verdict::Met);
    assert_eq!(
        verdict(&c, "the Python filter answers"),
        Verdict::NotMeasured
    );
    assert_eq!(verdict(&c, "a counting"), Verdict::NotMeasured);
}

#[test]
fn measured_claims_follow_the_numbers() {
    let mut r = Results {
        records: vec![users_row(USERS, 10_050), users_row(2 * USERS, 160_000)],
        ..Results::default()
    };
    let c = claims(&r);
    assert_eq!(verdict(&c, "the filter \"rejects"), Verdict::Met);
    assert_eq!(verdict(&c, "… and keeps"), Verdict::NotMet);
    r.records[0] = users_row(USERS, 11_000); // 10 sigmas above 1%
    assert_eq!(
        verdict(&claims(&r), "the filter \"rejects"),
        Verdict::NotMet
    );
}

fn matrix_row(kind: Variant, bits_per_key: f64, fp: u64) -> Record {
    Record {
        scenario: Scenario::Matrix,
        variant: kind.name().into(),
        target_fpr: 0.01,
        bits_per_key,
        false_positives: fp,
        probes: 1_000_000,
        empirical_fpr: fp as f64 / 1e6,
        ..Record::default()
    }
}

#[test]
fn no_false_positive_is_not_a_rate_of_zero() {
    // 0 false positives made bits / log2(1/0) = 0 and the claim held at any size.
    let r = Results {
        records: vec![
            matrix_row(Variant::Classic, 9.6, 10_000),
            matrix_row(Variant::Cuckoo, 40.0, 0),
        ],
        ..Results::default()
    };
    assert_eq!(verdict(&claims(&r), "a cuckoo"), Verdict::NotMet);
    assert_eq!(bits_over_bound(9.6, 0, 0), None);
    let zero = bits_over_bound(9.6, 0, 1_000_000).unwrap();
    assert!(zero > 0.4 && zero < 0.6, "{zero}");
}

fn growth_row(kind: Variant, fp: u64) -> Record {
    Record {
        scenario: Scenario::Growth,
        step: Some(4),
        n: 400_000,
        capacity: 100_000,
        ..matrix_row(kind, 10.0, fp)
    }
}

#[test]
fn a_scalable_rate_well_above_target_fails_even_if_its_interval_is_wide() {
    let mut r = Results {
        records: vec![
            growth_row(Variant::Scalable, 10_300),
            growth_row(Variant::Classic, 90_000),
        ],
        ..Results::default()
    };
    assert_eq!(verdict(&claims(&r), "a scalable"), Verdict::Met);
    // 5 sigmas above 1% on 1M probes, with a stored interval whose low end says 0: the old
    // test read that stored figure (`fpr_ci_low <= target`) and held.
    r.records[0] = growth_row(Variant::Scalable, 10_500);
    r.records[0].fpr_ci_low = 0.0;
    assert_eq!(verdict(&claims(&r), "a scalable"), Verdict::NotMet);
    r.records[0].probes = 0;
    assert_eq!(
        verdict(&claims(&r), "a scalable"),
        Verdict::NotMet,
        "no probes"
    );
}

#[test]
fn the_table_has_a_row_per_claim() {
    let c = claims(&Results::default());
    let t = crate::render::tables::claims_table(&c);
    assert_eq!(t.lines().count(), c.len() + 2);
    assert!(t.contains("| **no** |"));
}
