use super::*;
use crate::any::{Params, Variant};

#[test]
fn every_variant_has_formulas_with_its_numbers_and_a_shape() {
    for &v in Variant::ALL {
        let p = v.plan(&Params::new(10_000, 0.01)).unwrap();
        let fs = formulas(&p);
        assert!(fs.len() >= 2, "{v}: no formulas of its own");
        assert!(fs[0].substituted.contains("10000"), "{}", fs[0].substituted);
        assert!(!p.detail_lines().is_empty(), "{v}");
    }
    let classic = Variant::Classic.plan(&Params::new(10_000, 0.01)).unwrap();
    let (m, k) = math::classic_shape(10_000, 0.01).unwrap();
    assert_eq!(classic.detail_lines(), [format!("m = {m} bits, k = {k}")]);
}
