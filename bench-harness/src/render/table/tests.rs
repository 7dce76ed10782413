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

#[test]
fn a_bare_type_is_shown_and_a_code_span_kept() {
    let mut t = Table::new(&[("name", Align::Left)]);
    t.row(["std HashSet<String>"])
        .row(["exact `HashSet<String>` (a < b)"]);
    assert_eq!(
        t.render(),
        "| name |\n|---|\n| std HashSet&lt;String&gt; |\n| exact `HashSet<String>` (a &lt; b) |\n"
    );
}
