//! The absolute goals and issue 19's ratio rows, on fixtures.

use super::super::tests::all_rows;
use super::*;
use crate::judge::targets::ratios;
use crate::record::Verdict;

fn ribbon(rows: &mut [PeerRecord]) -> &mut PeerRecord {
    rows.iter_mut()
        .find(|r| r.name == Variant::Ribbon.name())
        .expect("a ribbon row")
}

/// Rows whose ribbon measured 7.0 bits/key at 1.01%, builds of 100–120 ns/key, negative
/// batched lookups around 50 ns and positive ones above it.
fn rows() -> Vec<PeerRecord> {
    let mut rows = all_rows();
    let r = ribbon(&mut rows);
    r.n = 1_000_000;
    r.bytes = 875_000;
    r.bits_per_key = 7.0;
    r.empirical_fpr = 0.0101;
    r.build_seconds = Spread::of(&mut [0.10, 0.11, 0.12, 0.105, 0.115]);
    r.ns_negative_batched = Some(Spread::of(&mut [45.0, 48.0, 52.0, 55.0, 47.0]));
    r.ns_positive_batched = Some(Spread::of(&mut [60.0, 61.0, 62.0, 63.0, 64.0]));
    rows
}

fn goal<'a>(out: &'a [Ratio], figure: &str) -> &'a Ratio {
    out.iter()
        .find(|x| x.what.contains(figure))
        .unwrap_or_else(|| panic!("no goal row on {figure}"))
}

#[test]
fn ribbon_goals_are_judged_three_ways_on_the_spread() {
    let out = goal_rows(&rows()).unwrap();
    assert_eq!(out.len(), GOALS.len());
    let bits = goal(&out, "bits per key");
    assert_eq!((bits.ratio, bits.verdict), (7.0, Verdict::Met));
    assert!(bits.same_conditions, "{}", bits.differences);
    assert_eq!(
        bits.denominator,
        "goal: ≤ 7.2 bits per key at a measured 1%"
    );
    let build = goal(&out, "build ns per key");
    assert!((build.ratio - 110.0).abs() < 1e-6, "{}", build.ratio);
    assert_eq!(build.verdict, Verdict::Met);
    assert_eq!(goal(&out, "negative").verdict, Verdict::Undecided);
    assert_eq!(goal(&out, "positive").verdict, Verdict::NotMet);
    assert!(out.iter().all(|r| r.role == Role::Target));
}

#[test]
fn a_ribbon_above_the_bound_or_off_the_rate_is_said_so() {
    let mut rs = rows();
    ribbon(&mut rs).bits_per_key = 7.5;
    let bits = goal_rows(&rs).unwrap();
    assert_eq!(goal(&bits, "bits per key").verdict, Verdict::NotMet);

    // 7.0 bits at a measured 0.5% is not the goal's 1%: the row says what differs.
    let mut rs = rows();
    ribbon(&mut rs).empirical_fpr = 0.005;
    let out = goal_rows(&rs).unwrap();
    let bits = goal(&out, "bits per key");
    assert!(!bits.same_conditions);
    assert!(
        bits.differences.contains("achieved FP 0.5% vs 1%"),
        "{}",
        bits.differences
    );
}

#[test]
fn a_missing_figure_is_not_measured_and_a_missing_ribbon_is_an_error() {
    let mut rs = rows();
    ribbon(&mut rs).ns_negative_batched = None;
    let out = goal_rows(&rs).unwrap();
    let neg = goal(&out, "negative");
    assert_eq!(neg.verdict, Verdict::NotMeasured);
    assert!(
        neg.differences.contains("not measured"),
        "{}",
        neg.differences
    );
    let without: Vec<PeerRecord> = rows()
        .into_iter()
        .filter(|r| r.name != Variant::Ribbon.name())
        .collect();
    let err = goal_rows(&without).unwrap_err().to_string();
    assert!(err.contains(Variant::Ribbon.name()), "{err}");
}

#[test]
fn fuse_and_quotient_rows_name_their_peer_and_the_quotient_twin_is_at_equal_fp() {
    let out = ratios(&rows(), &[], 2).unwrap();
    let has = |what: &str| out.iter().find(|r| r.what == what);
    let fuse8 = Variant::BinaryFuse8.name();
    // The goals are the xxh3-64 twin's (xorf's hash); the default-hash rows are information.
    let twin8 = crate::judge::targets::Ours::Hash64(Variant::BinaryFuse8).name();
    for m in ["ns per negative lookup", "ns per positive lookup", "bytes"] {
        let r = has(&format!("{twin8} vs xorf BinaryFuse8: {m}"))
            .unwrap_or_else(|| panic!("no {twin8} row on {m}"));
        assert_eq!((r.role, r.bound), (Role::Target, Bound::AtMost(1.0)));
        let r = has(&format!("{fuse8} vs xorf BinaryFuse8: {m}"))
            .unwrap_or_else(|| panic!("no {fuse8} row on {m}"));
        assert_eq!((r.role, r.bound), (Role::Information, Bound::AtMost(1.0)));
    }
    for ours in [&twin8, fuse8] {
        assert!(has(&format!(
            "{ours} vs xorf BinaryFuse8: bits per key / log2(1/achieved FP)"
        ))
        .is_some());
    }
    let fuse16 = Variant::BinaryFuse16.name();
    let r = has(&format!("{fuse16} vs xorf BinaryFuse16: bytes")).unwrap();
    assert_eq!(r.role, Role::Information);
    let q = Variant::Quotient.name();
    for m in ["ns per negative lookup", "build seconds", "bytes"] {
        assert!(has(&format!("{q} vs qfilter: {m}")).is_some(), "{q}: {m}");
    }
    let twin = format!("{q} at qfilter's FP vs qfilter: ns per negative lookup, at equal FP");
    assert!(has(&twin).is_some(), "{twin}");
}
