use super::*;

fn all(input: &[u8], max: usize) -> Result<(Vec<Vec<u8>>, LineCounts), KeyLineError> {
    let mut r = KeyLines::new(input, max);
    let mut keys = Vec::new();
    while let Some((_, k)) = r.next_key()? {
        keys.push(k.to_vec());
    }
    Ok((keys, r.counts()))
}

#[test]
fn lf_and_crlf_end_lines_and_empty_lines_are_counted() {
    let (keys, c) = all(b"a\r\nb\n\n\r\nc", 16).unwrap();
    assert_eq!(keys, [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
    assert_eq!((c.lines, c.empty, c.inner_cr), (5, 2, 0));
}

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_key() {
    let (keys, c) = all(b"\xEF\xBB\xBFalice\nbob\n", 16).unwrap();
    assert_eq!(keys[0], b"alice");
    assert!(c.bom);
    // Only at the start of the file.
    let (keys, _) = all(b"a\n\xEF\xBB\xBFb\n", 16).unwrap();
    assert_eq!(keys[1], b"\xEF\xBB\xBFb");
    // A BOM alone is an empty line.
    assert_eq!(all(b"\xEF\xBB\xBF\n", 16).unwrap().1.empty, 1);
}

#[test]
fn cr_only_line_endings_are_one_key_and_warned() {
    let mut r = KeyLines::new(&b"a\rb\rc\r"[..], 64);
    assert_eq!(r.next_key().unwrap().unwrap().1, b"a\rb\rc\r");
    assert!(r.next_key().unwrap().is_none());
    let w = r.counts().cr_warning().unwrap();
    assert!(w.contains("line 1") && w.contains("CR-only"), "{w}");
    let mut clean = KeyLines::new(&b"a\r\n"[..], 64);
    while clean.next_key().unwrap().is_some() {}
    assert!(clean.counts().cr_warning().is_none());
}

#[test]
fn a_key_longer_than_the_limit_is_an_error_at_its_line() {
    assert_eq!(all(b"abcd\r\nabce\nabcf", 4).unwrap().0.len(), 3);
    assert_eq!(all(b"\xEF\xBB\xBFabcd\r\n", 4).unwrap().0[0], b"abcd");
    let e = all(b"abcd\nabcde\n", 4).unwrap_err();
    assert!(e.to_string().contains("line 2: a key longer than 4"), "{e}");
    let endless = io::BufReader::new(io::repeat(b'x'));
    let mut r = KeyLines::new(endless, 4);
    assert!(matches!(
        r.next_key(),
        Err(KeyLineError::TooLong { line: 1, .. })
    ));
}

#[test]
fn escaped_keys_are_printable_and_distinct() {
    assert_eq!(escape(b"alice@example.com"), "alice@example.com");
    assert_eq!(escape("zoë".as_bytes()), "zoë");
    assert_eq!(escape(b"\x1b[31mred\t\\"), "\\x1b[31mred\\t\\\\");
    assert_eq!(escape(b"a\xffb"), "a\\xffb");
    assert_eq!(escape("\u{85}".as_bytes()), "\\u{85}");
    // The backslash is escaped, so a key spelling an escape differs from the escaped byte.
    assert_ne!(escape(b"\\xff"), escape(b"\xff"));
    assert_eq!(hex(b"\x00\xffA"), "00ff41");
    for s in [escape(b"\x07\x1b\x7f"), escape("\u{9b}x".as_bytes())] {
        assert!(s.chars().all(|c| !c.is_control()), "{s:?}");
    }
}
