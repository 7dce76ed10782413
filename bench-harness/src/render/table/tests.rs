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

#[test]
fn a_cell_escapes_bars_outside_math_and_draws_them_inside() {
    assert_eq!(cell("A | B (3 keys)"), "A \\| B (3 keys)");
    assert_eq!(cell("`a|b` x<y"), "`a\\|b` x&lt;y");
    assert_eq!(cell("$|A \\cap B| < n$"), "$\\vert A \\cap B\\vert  < n$");
    assert_eq!(cell("costs $5 | more"), "costs $5 \\| more");
    assert_eq!(cell("two\nlines"), "two lines");
}

#[test]
fn cells_are_counted_as_markdown_splits_them() {
    assert_eq!(cells("| a | b |"), 2);
    assert_eq!(cells("| a \\| b | c |"), 2);
    assert_eq!(cells("| a | b | c |"), 3);
    assert_eq!(cells("|---|---:|:-:|"), 3);
    assert_eq!(cells("| a |  |"), 2);
}

/// The failure the issue found: a case label with a bare `|` shifts its row's numbers.
#[test]
fn misshapen_finds_a_row_a_bare_bar_split() {
    let bad = "x\n\n| case | measured | verdict |\n|---|---:|---|\n| A | B | 1% | holds |\n| C | 2% | holds |\n";
    let found = misshapen(bad);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("line 5: 4 cells under a header of 3"),
        "{found:?}"
    );
    let mut t = Table::new(&[
        ("case", Align::Left),
        ("measured", Align::Right),
        ("verdict", Align::Left),
    ]);
    t.row(["A | B", "1%", "holds"])
        .row(["|I| = 3", "2%", "holds"]);
    assert_eq!(misshapen(&t.render()), Vec::<String>::new());
}

#[test]
fn a_head_written_as_markdown_gives_the_same_table() {
    let mut t = Table::with_head("| name | value | ok |\n|---|---:|:-:|");
    t.row(["a", "1.5", "yes"]);
    assert_eq!(
        t.render(),
        "| name | value | ok |\n|---|---:|:-:|\n| a | 1.5 | yes |\n"
    );
}
