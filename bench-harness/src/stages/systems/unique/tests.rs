//! Unit tests of `stages/systems/unique.rs`.

use super::*;

#[test]
fn filter_plus_exact_is_exact_and_the_filter_alone_never_overcounts() {
    let r = run(60_000, 20_000, 7, &[1000]).unwrap();
    assert_eq!(r.hashset_bytes_at.len(), 1);
    assert_eq!(r.reset.cuckoo_left, 0);
    let by = |m| r.methods.iter().find(|x| x.method == m).unwrap();
    assert_eq!(by(Method::ExactHashSet).counted, r.true_uniques);
    assert_eq!(by(Method::FilterPlusExact).counted, r.true_uniques);
    assert_eq!(by(Method::FilterPlusExact).max_rel_error, 0.0);
    assert!(by(Method::FilterAlone).counted <= r.true_uniques);
    assert!(by(Method::HyperLogLog).max_rel_error < 0.1);
}
