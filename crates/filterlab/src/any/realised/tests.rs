use super::super::{AnyFilter, Params, Variant};
use super::*;
use crate::{Filter, Hash128, KeyHasher};

fn hashes(n: u64) -> Vec<Hash128> {
    let h = KeyHasher::default();
    (0..n).map(|i| h.hash(format!("k{i}").as_bytes())).collect()
}

/// Every row (but the windowed ones, whose load is not their item count) built for `cap` at
/// `p` holding `n` keys.
fn built(cap: u64, p: f64, n: u64) -> Vec<AnyFilter> {
    let keys = hashes(n);
    Variant::ALL
        .iter()
        .filter(|v| !v.capabilities().windowed)
        .filter_map(|&v| {
            let cap = if v.capabilities().static_set { n } else { cap };
            let f = AnyFilter::build_from_hashes(v, &Params::new(cap, p), &keys);
            // A static row that cannot meet `p` (binary-fuse8 below 2^-8) is refused.
            assert!(f.is_ok() || v.capabilities().static_set, "{v}: {f:?}");
            f.ok()
        })
        .collect()
}

fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

/// `f`'s detail, after checking it gives the rate the filter reports at its load.
fn detail_matching(f: &AnyFilter) -> Detail {
    let d = f.detail().unwrap();
    let q = d.fpr_at(f.len()).unwrap();
    assert!(
        same(q, f.expected_fpr()),
        "{}: {q} vs {}",
        f.name(),
        f.expected_fpr()
    );
    d
}

#[test]
fn the_detail_gives_what_the_filter_expects_at_its_load() {
    for (cap, n) in [(20_000, 20_000), (20_000, 7_000)] {
        for f in built(cap, 0.01, n) {
            let d = detail_matching(&f);
            assert!(d.approx_fpr(f.len()).is_some_and(|a| a > 0.0 && a < 1.0));
            assert!(d.instance_variance(f.len()) >= 0.0);
        }
    }
}

#[test]
fn a_grown_filter_is_described_by_its_stages() {
    let keys = hashes(9_000);
    for &v in Variant::ALL.iter().filter(|v| v.capabilities().grows) {
        let f = AnyFilter::build_from_hashes(v, &Params::new(1_000, 0.01), &keys).unwrap();
        assert!(f.stages().unwrap() > 1, "{}", f.name());
        let d = detail_matching(&f);
        // Stages that do not add up to the load describe another filter; the Aleph filter's
        // one table describes any count it can hold, and none past it.
        let past = match d {
            Detail::Aleph { quotients, .. } => (quotients as f64 * 0.95) as u64 + 1,
            _ => f.len() + 1,
        };
        assert_eq!(d.fpr_at(past), None, "{}", f.name());
        // A plan lists no stages: it cannot stand for a built filter. (An Aleph plan is one
        // table, first generation only: its rate is that of a table declared that large.)
        if v != Variant::Aleph {
            assert_eq!(f.plan().unwrap().detail.fpr_at(f.len()), None);
        }
    }
}

#[test]
fn only_bloom_shaped_filters_have_an_exact_sum() {
    for f in built(20_000, 0.01, 20_000) {
        let d = f.detail().unwrap();
        let bloom = matches!(d, Detail::Classic { .. } | Detail::Counting { .. });
        assert_eq!(d.exact_fpr(f.len()).is_some(), bloom, "{}", f.name());
    }
}

#[test]
fn a_table_of_no_slots_has_no_rate() {
    let d = Detail::Ribbon {
        result_bits: 7,
        slots: 3,
        boundary: 0,
    };
    assert_eq!(d.fpr_at(10), None);
}

#[cfg(feature = "serde")]
#[test]
fn a_detail_reads_back_as_written() {
    let keys = hashes(3_000);
    let grown = Variant::ALL
        .iter()
        .filter(|v| v.capabilities().grows)
        .map(|&v| AnyFilter::build_from_hashes(v, &Params::new(500, 0.01), &keys).unwrap());
    for f in built(3_000, 0.01, 3_000).into_iter().chain(grown) {
        let d = f.detail().unwrap();
        let text = serde_json::to_string(&d).unwrap();
        let back: Detail = serde_json::from_str(&text).unwrap();
        assert_eq!(back, d, "{text}");
    }
}
