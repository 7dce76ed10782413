//! Unit tests of `record/mod.rs`.

use super::*;

fn mismatch(again: &[u32], stored: &[u32]) -> Option<String> {
    first_mismatch(
        again,
        stored,
        PartialEq::eq,
        ("goals", "the records"),
        |x| ("row".to_string(), x.to_string()),
    )
}

#[test]
fn first_mismatch_names_the_first_differing_row_then_the_counts() {
    assert_eq!(mismatch(&[1, 2, 3], &[1, 2, 3]), None);
    assert_eq!(
        mismatch(&[1, 5, 6], &[1, 2, 3]).as_deref(),
        Some("row: stored 2, the records give 5")
    );
    assert_eq!(
        mismatch(&[1, 2], &[1, 2, 3]).as_deref(),
        Some("3 goals stored, the records give 2")
    );
    assert_eq!(
        mismatch(&[1, 2, 3], &[]).as_deref(),
        Some("0 goals stored, the records give 3")
    );
}
