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
fn a_table_of_items_has_one_row_per_item_in_order() {
    let columns = [("n", Align::Right), ("twice", Align::Right)];
    let t = Table::of(&columns, [1, 2, 3], |n| {
        [n.to_string(), (2 * n).to_string()]
    });
    assert_eq!(t.len(), 3);
    assert_eq!(
        t.render(),
        "| n | twice |\n|---:|---:|\n| 1 | 2 |\n| 2 | 4 |\n| 3 | 6 |\n"
    );
    assert!(Table::of(&columns, Vec::<u8>::new(), |n| [n.to_string()]).is_empty());
}
