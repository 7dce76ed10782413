//! The refusals' reasons name what differs between the formats.

use super::Inexact;

#[test]
fn each_reason_names_what_differs() {
    assert!(Inexact::Positions
        .reason()
        .contains("without the key that set it"));
    assert!(Inexact::Strategy.reason().contains("MITZ_32"));
    assert!(Inexact::Layout.reason().contains("fingerprints"));
}
