//! Unit tests of `dataset/keyfile.rs`.

use super::*;

fn parse(text: &[u8], limit: usize) -> Result<(KeySet, Dropped)> {
    read_from(text, limit, None, &mut HashSet::new())
}

#[test]
fn lines_end_in_lf_or_crlf_and_empty_lines_are_skipped() {
    let (keys, dropped) = parse(b"a@x.org\r\nb@x.org\n\nc d\nb@x.org\nlast", usize::MAX).unwrap();
    let got: Vec<&[u8]> = keys.iter().collect();
    assert_eq!(got, [&b"a@x.org"[..], b"b@x.org", b"c d", b"last"]);
    assert_eq!((dropped.repeated, dropped.empty), (1, 1));
}

#[test]
fn a_byte_order_mark_is_dropped_as_the_command_line_drops_it() {
    let (keys, _) = parse(b"\xEF\xBB\xBFalice\nbob\n", usize::MAX).unwrap();
    assert_eq!(keys.iter().next(), Some(&b"alice"[..]));
}

#[test]
fn a_double_carriage_return_is_rejected_with_its_line() {
    let err = parse(b"a\nb\r\r\nc\n", usize::MAX).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains("line 2") && msg.contains("carriage return"),
        "{msg}"
    );
    assert!(
        parse(b"a\rb\n", usize::MAX).is_err(),
        "a lone \\r inside a line"
    );
}

#[test]
fn non_utf8_keys_are_rejected_before_measuring() {
    let msg = format!("{:#}", parse(b"ok\n\xff\xfe\n", usize::MAX).unwrap_err());
    assert!(msg.contains("line 2") && msg.contains("not UTF-8"), "{msg}");
}

#[test]
fn the_limit_caps_the_keys_read() {
    let text: String = (0..1000).map(|i| format!("k{i}\n")).collect();
    let (keys, _) = parse(text.as_bytes(), 200).unwrap();
    assert_eq!(keys.len(), 200);
}

#[test]
fn too_few_keys_and_no_probes_are_errors() {
    let dir = std::env::temp_dir().join(format!("filterlab-keyfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let few = dir.join("few.txt");
    std::fs::write(&few, "a\nb\nc\na\n").unwrap();
    let err = load(&few, None, usize::MAX, |_| KeySet::default()).unwrap_err();
    assert!(err.to_string().contains("3 distinct keys"), "{err}");

    let keys = dir.join("keys.txt");
    std::fs::write(&keys, "a\nb\nc\nd\ne\n").unwrap();
    let probes = dir.join("probes.txt");
    std::fs::write(&probes, "a\nb\n").unwrap();
    let err = load(&keys, Some(&probes), usize::MAX, |_| KeySet::default()).unwrap_err();
    assert!(err.to_string().contains("no probes left"), "{err}");

    std::fs::write(&probes, "a\nz\ny\nz\n").unwrap();
    let ds = load(&keys, Some(&probes), usize::MAX, |_| KeySet::default()).unwrap();
    assert_eq!((ds.members.len(), ds.non_members.len()), (5, 2));
    let missing = load(&dir.join("absent.txt"), None, usize::MAX, |_| {
        KeySet::default()
    });
    assert!(missing.is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
