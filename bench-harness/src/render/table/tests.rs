//! Unit tests of `render/table.rs`.

use super::*;

#[test]
fn renders_headers_alignment_and_padded_rows() {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("value", Align::Right),
        ("ok", Align::Center),
    ]);
    t.row(["a", "1.5", "yes"]).row(["b|c"]);
    assert_eq!(t.len(), 2);
    assert_eq!(
        t.render(),
        "| name | value | ok |\n|---|---:|:-:|\n| a | 1.5 | yes |\n| b\\|c |  |  |\n"
    );
    assert!(Table::new(&[("x", Align::Left)]).is_empty());
}
