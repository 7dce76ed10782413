//! Unit tests of `filters.rs`.

use super::*;

#[test]
fn every_kind_builds_a_filter_of_its_own_name_that_dispatches() {
    for kind in crate::filters::measured() {
        let mut f = crate::filters::build(kind, 1000, 0.01).unwrap();
        assert_eq!(f.name(), kind.name());
        f.insert(b"x@example.com").unwrap();
        assert!(f.contains(b"x@example.com"));
        assert_eq!(f.len(), 1);
    }
    let mut names: Vec<&str> = crate::filters::measured()
        .iter()
        .map(|k| k.name())
        .collect();
    names.dedup();
    assert_eq!(names.len(), crate::filters::measured().len());
}

#[test]
fn the_recorded_theory_is_the_filters_own_expected_rate() {
    // `check` recomputes a record's theoretical rate from its typed parameters: that must
    // be the filter's `expected_fpr`, or every row of the variant is refused (a cuckoo
    // record once used the large-table limit instead of the filter's exact form).
    for kind in crate::filters::measured() {
        let mut f = crate::filters::build(kind, 2000, 0.01).unwrap();
        for i in 0..1500u32 {
            f.insert(format!("k{i}@example.com").as_bytes()).unwrap();
        }
        let theory = f.shape().unwrap().theory(f.len()).unwrap();
        let own = f.expected_fpr();
        assert!(
            (theory - own).abs() <= 1e-12 * own,
            "{}: recorded theory {theory} but expected_fpr {own}",
            kind.name()
        );
    }
}
