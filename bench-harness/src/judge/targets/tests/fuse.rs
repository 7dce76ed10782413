//! The binary fuse goals against xorf: the numerator is our filter built with xorf's hash
//! (xxh3-64), so "same conditions" holds; the default-hash rows stay as information.

use super::*;
use crate::record::conditions::OurHash;
use crate::record::Side as Whose;
use crate::stages::peers::{hash_twin_name, HASH_TWINS};

/// [`all_rows`] with the peers marked as peers, so each side's hash is its own.
fn rows_with_peers() -> Vec<PeerRecord> {
    let mut rows = all_rows();
    for r in &mut rows {
        if PeerKind::ALL.iter().any(|k| k.name() == r.name) {
            r.side = Whose::Peer;
        }
    }
    rows
}

fn pick<'a>(r: &'a [Ratio], what: &str) -> &'a Ratio {
    r.iter()
        .find(|x| x.what == what)
        .unwrap_or_else(|| panic!("no row {what:?}"))
}

#[test]
fn the_numerator_names_the_variant_or_its_hash_twin() {
    assert_eq!(Ours::Variant(Variant::BinaryFuse8).name(), "binary-fuse8");
    assert_eq!(
        Ours::Hash64(Variant::BinaryFuse8).name(),
        "binary-fuse8 with xxh3-64"
    );
    assert_eq!(
        Ours::Hash64(Variant::BinaryFuse16).name(),
        hash_twin_name(Variant::BinaryFuse16, OurHash::Xxh3_64)
    );
    // Every hash twin a target names is built by the peers stage, with xxh3-64.
    for t in TARGETS {
        if let Ours::Hash64(v) = t.0 {
            assert!(
                HASH_TWINS.contains(&(v, OurHash::Xxh3_64)),
                "{v:?} has no hash twin"
            );
        }
    }
    // The goal rows against xorf's BinaryFuse8 are the xxh3-64 twin's; the xxh3-128 filter's
    // rows against it are information.
    let against_fuse8 = |t: &&Target| t.2 == Against::Peers(&[PeerKind::BinaryFuse8]);
    let goals: Vec<_> = TARGETS
        .iter()
        .filter(against_fuse8)
        .filter(|t| t.6 == Role::Target && t.0 != Ours::Variant(Variant::Blocked))
        .collect();
    assert_eq!(goals.len(), 3);
    assert!(goals
        .iter()
        .all(|t| t.0 == Ours::Hash64(Variant::BinaryFuse8)));
    assert!(TARGETS
        .iter()
        .filter(against_fuse8)
        .filter(|t| t.0 == Ours::Variant(Variant::BinaryFuse8))
        .all(|t| t.6 == Role::Information));
}

#[test]
fn the_xxh3_64_twin_against_xorf_is_alike_and_the_default_hash_is_not() {
    let r = ratios(&rows_with_peers(), &[], 2).unwrap();
    for metric in ["ns per negative lookup", "ns per positive lookup", "bytes"] {
        let twin = pick(
            &r,
            &format!("binary-fuse8 with xxh3-64 vs xorf BinaryFuse8: {metric}"),
        );
        assert_eq!(twin.numerator_conditions.hash, "xxh3-64");
        assert_eq!(twin.denominator_conditions.hash, "xxh3-64");
        assert!(
            twin.same_conditions && twin.differences.is_empty(),
            "{twin:?}"
        );
        assert_eq!(twin.role, Role::Target);
        let default = pick(&r, &format!("binary-fuse8 vs xorf BinaryFuse8: {metric}"));
        assert!(!default.same_conditions, "{default:?}");
        assert!(
            default.differences.contains("hash xxh3-128 vs xxh3-64"),
            "{default:?}"
        );
        assert_eq!(default.role, Role::Information);
        let wide = pick(
            &r,
            &format!("binary-fuse16 with xxh3-64 vs xorf BinaryFuse16: {metric}"),
        );
        assert!(wide.same_conditions, "{wide:?}");
        assert_eq!(wide.role, Role::Information);
    }
    // The bits-per-key row at each side's achieved rate follows the same numerator.
    let eq = pick(
        &r,
        "binary-fuse8 with xxh3-64 vs xorf BinaryFuse8: bits per key / log2(1/achieved FP)",
    );
    assert_eq!(eq.numerator_conditions.hash, "xxh3-64");
}

#[test]
fn a_twin_recorded_with_the_default_hash_is_not_the_same_conditions() {
    let mut rows = rows_with_peers();
    let name = hash_twin_name(Variant::BinaryFuse8, OurHash::Xxh3_64);
    for hash in [Some(OurHash::Xxh3_128), None] {
        rows.iter_mut().find(|r| r.name == name).unwrap().hash = hash;
        let r = ratios(&rows, &[], 2).unwrap();
        let twin = pick(
            &r,
            "binary-fuse8 with xxh3-64 vs xorf BinaryFuse8: ns per negative lookup",
        );
        assert!(!twin.same_conditions, "{twin:?}");
        assert_eq!(twin.differences, "hash xxh3-128 vs xxh3-64");
    }
}

#[test]
fn a_run_without_the_hash_twin_fails_loudly() {
    let mut rows = all_rows();
    rows.retain(|r| r.name != "binary-fuse8 with xxh3-64");
    let e = ratios(&rows, &[], 2).unwrap_err().to_string();
    assert!(e.contains("binary-fuse8 with xxh3-64"), "{e}");
}

#[test]
fn records_without_a_hash_load_as_the_default_and_others_keep_theirs() {
    // A record of a results.json written before the field: no `hash` key.
    let mut old = serde_json::to_value(rec("binary-fuse8", 10.0, 0.01)).unwrap();
    assert!(old.get("hash").is_none(), "{old}");
    old.as_object_mut().unwrap().remove("hash");
    let back: PeerRecord = serde_json::from_value(old).unwrap();
    assert_eq!(back.hash, None);
    assert_eq!(Metric::Negative.conditions(&back).hash, "xxh3-128");
    let twin = PeerRecord {
        hash: Some(OurHash::Xxh3_64),
        ..rec("binary-fuse8 with xxh3-64", 10.0, 0.01)
    };
    let json = serde_json::to_value(&twin).unwrap();
    assert_eq!(json["hash"], "xxh3_64");
    let back: PeerRecord = serde_json::from_value(json).unwrap();
    assert_eq!(Metric::Bytes.conditions(&back).hash, "xxh3-64");
}
