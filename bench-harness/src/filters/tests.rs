//! Unit tests of `filters.rs`.

use super::*;
use filterlab::Filter;

#[test]
fn every_kind_builds_a_filter_of_its_own_name_that_dispatches() {
    for kind in crate::filters::measured() {
        let mut f = crate::filters::build(kind, 1000, 0.01, Pages::Huge).unwrap();
        assert_eq!(f.name(), kind.name());
        f.insert(b"x@example.com").unwrap();
        assert!(f.contains(b"x@example.com"));
        assert_eq!(f.len(), 1);
    }
    let mut names: Vec<&str> = crate::filters::in_matrix()
        .iter()
        .map(|k| k.name())
        .collect();
    names.dedup();
    assert_eq!(names.len(), crate::filters::in_matrix().len());
}

#[test]
fn the_matrix_holds_every_row_but_the_windowed_ones() {
    let matrix = in_matrix();
    for &v in Variant::ALL {
        assert_eq!(matrix.contains(&v), !v.capabilities().windowed, "{v}");
        let by_insert = !v.capabilities().windowed && !v.capabilities().static_set;
        assert_eq!(measured().contains(&v), by_insert, "{v}");
    }
    assert!(matrix.iter().any(|v| v.capabilities().static_set));
}

fn keys(n: usize) -> crate::dataset::KeySet {
    let mut set = crate::dataset::KeySet::new();
    for i in 0..n {
        set.push(format!("k{i}@example.com").as_bytes());
    }
    set
}

#[test]
fn the_recorded_theory_is_the_filters_own_expected_rate() {
    // `check` recomputes a record's theoretical rate from its recorded detail: that must be
    // the filter's `expected_fpr`, or every row of the variant is refused (a cuckoo record
    // once used the large-table limit instead of the filter's exact form).
    let keys = keys(1500);
    for kind in in_matrix() {
        if !buildable(kind, 1500, 0.01) {
            continue;
        }
        let cap = if kind.capabilities().static_set {
            1500
        } else {
            2000
        };
        let mut f = build(kind, cap, 0.01, Pages::Huge).unwrap();
        if kind.capabilities().static_set {
            f = build_from_keys(kind, &keys, 1500, 0.01, Pages::Huge).unwrap();
        } else {
            for i in 0..1500 {
                f.insert(keys.get(i)).unwrap();
            }
        }
        let theory = f.detail().unwrap().fpr_at(f.len()).unwrap();
        let own = f.expected_fpr();
        assert!(
            (theory - own).abs() <= 1e-12 * own,
            "{}: recorded theory {theory} but expected_fpr {own}",
            kind.name()
        );
    }
}

#[test]
fn a_static_row_is_built_from_its_keys_and_an_8_bit_fuse_refuses_a_tight_rate() {
    let keys = keys(3000);
    for kind in in_matrix()
        .into_iter()
        .filter(|v| v.capabilities().static_set)
    {
        let f = build_from_keys(kind, &keys, 3000, 0.01, Pages::Huge).unwrap();
        assert_eq!(f.len(), 3000, "{kind}");
        assert!(
            (0..3000).all(|i| f.contains(keys.get(i))),
            "{kind}: false negative"
        );
    }
    let fuse8 = Variant::from_name("binary-fuse8").unwrap();
    assert!(buildable(fuse8, 3000, 0.01));
    assert!(!buildable(fuse8, 3000, 0.001));
    assert!(build_from_keys(fuse8, &keys, 3000, 0.001, Pages::Huge).is_err());
}

#[test]
fn the_near_cuckoo_contender_is_built_with_its_layout_and_named_for_it() {
    let names: Vec<&str> = contenders().iter().map(|c| c.name()).collect();
    let at = names.iter().position(|&n| n == "cuckoo").unwrap();
    assert_eq!(names[at + 1], "cuckoo-near");
    assert_eq!(names.len(), in_matrix().len() + 1);
    assert_eq!(Contender::from_name("cuckoo-near"), Some(CUCKOO_NEAR));
    let near = build(CUCKOO_NEAR, 100_000, 0.01, Pages::Huge).unwrap();
    let spread = build(Variant::Cuckoo, 100_000, 0.01, Pages::Huge).unwrap();
    assert_eq!(
        (row_name(&near), row_name(&spread)),
        ("cuckoo-near", "cuckoo")
    );
    assert!(matches!(
        near.detail().unwrap(),
        filterlab::any::Detail::Cuckoo {
            near_window: Some(1024),
            ..
        }
    ));
    assert!(buildable(CUCKOO_NEAR, 100_000, 0.001));
}

#[test]
fn a_design_leaves_out_the_running_figures_and_stays_put_through_inserts() {
    for &v in Variant::ALL {
        if v.capabilities().static_set || v.capabilities().timed {
            continue;
        }
        let mut f = crate::filters::build(v, 1000, 0.01, Pages::Huge).unwrap();
        let before = f.design();
        for i in 0..500u32 {
            f.insert(&i.to_le_bytes()).unwrap();
        }
        assert_eq!(f.design(), before, "{v}");
        for p in f.parameters().iter().filter(|p| p.is_running()) {
            assert!(!before.contains(&format!("{}=", p.name)), "{v}: {before}");
        }
        if v.name() == "item-window" {
            // The window's counter is in its parameters, not in its design (window.md).
            assert!(f.params().contains("inserted=500"), "{}", f.params());
            assert!(!before.contains("inserted="), "{before}");
            assert!(before.starts_with("window=1000 generations="), "{before}");
        }
    }
}

/// The plan's rate at n is what the built, filled filter's `expected_fpr()` gives, for every
/// fixed-size variant; a growing one has none (its rate depends on the stages it makes).
#[test]
fn the_planned_rate_is_the_filled_filters_expected_rate() {
    let keys: KeySet = (0..20_000).map(|i| format!("k{i}@example.net")).collect();
    for kind in contenders() {
        let planned = planned_fpr(kind, 20_000, 0.01);
        if kind.capabilities().grows || kind.capabilities().static_set {
            continue;
        }
        let mut f = build(kind, 20_000, 0.01, Pages::Huge).unwrap();
        crate::measure::time_batch_inserts(&mut f, &keys, 0..20_000).unwrap();
        let expected = f.expected_fpr();
        let planned = planned.unwrap_or_else(|| panic!("{} has no planned rate", kind.name()));
        if kind.variant == Variant::Vqf {
            // The plan cannot know which overflow bits the inserts will set: it takes the
            // share of random marking, an upper bound of what the filter measures on itself.
            assert!(
                planned >= expected && planned < 1.1 * expected,
                "{planned} {expected}"
            );
            continue;
        }
        assert!(
            (planned - expected).abs() <= 1e-12 * expected.max(1e-300),
            "{}: planned {planned}, filled {expected}",
            kind.name()
        );
    }
    assert_eq!(planned_fpr(Variant::Scalable, 20_000, 0.01), None);
}
