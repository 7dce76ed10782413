//! Unit tests of `stages/course/hashing.rs`.

use super::*;

#[test]
fn modulo_bias_formula_reduces_to_the_classic_one() {
    // m dividing 2^b: uniform positions, the classic approximation.
    let (m, n, k) = (1u64 << 16, 5000, 7);
    assert!((fpr_modulo_bias(20, m, n, k) / math::classic_fpr(m, n, k) - 1.0).abs() < 1e-9);
    // m beyond 2^b: only 2^b bits reachable.
    assert!(
        (fpr_modulo_bias(16, 1 << 18, n, k) / math::classic_fpr(1 << 16, n, k) - 1.0).abs() < 1e-9
    );
    // Uneven coverage raises the rate.
    let uneven = fpr_modulo_bias(20, 234_000, 24_000, 7);
    assert!(uneven > math::classic_fpr(234_000, 24_000, 7));
}
