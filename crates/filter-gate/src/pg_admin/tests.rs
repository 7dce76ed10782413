use super::*;

#[test]
fn copy_lines_escape_backslashes() {
    let mut out = Vec::new();
    copy_text_escape("a\\b@x.org", &mut out);
    assert_eq!(out, b"a\\\\b@x.org\n");
}
