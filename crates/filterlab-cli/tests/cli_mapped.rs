//! `info` and `query` on files that open in place (issue 39): the format version and whether
//! the file opens in place, `info --verify`, and the same answers from version 1 files (loaded
//! by copy) as from version 2 files (opened in place).

mod common;

use common::*;
use filter_core::format;

#[test]
fn info_tells_the_version_and_verify_reads_the_whole_file() {
    let (dir, keys) = keys_file(b"alice@example.com\nbob@example.com\ncarol@example.com\n");
    let out = dir.path().join("f.bin");
    json(&build_args("blocked", "1000", s(&keys), s(&out)));
    let info = json(&["info", s(&out)]);
    assert_eq!(
        (&info["format_version"], &info["opens_in_place"]),
        (&2.into(), &true.into())
    );
    assert_eq!(info["checksum_verified"], false);
    let text = String::from_utf8(filterlab(&["info", s(&out)]).stdout).unwrap();
    assert!(
        text.contains("format        version 2, opens in place\n"),
        "{text}"
    );
    assert!(text.contains("(not verified: opened in place"), "{text}");
    assert_eq!(
        json(&["info", "--verify", s(&out)])["checksum_verified"],
        true
    );

    // A flipped payload bit: info opens it (the payload is not read), --verify refuses it.
    let mut bytes = std::fs::read(&out).unwrap();
    let last = bytes.len() - 9;
    bytes[last] ^= 0x10;
    let damaged = write(dir.path(), "damaged.bin", &bytes);
    assert_eq!(json(&["info", s(&damaged)])["items"], 3);
    assert_clean_error(&["info", "--verify", s(&damaged)], None, "checksum");

    // The same filter as version 1: loaded by copy (and so verified), the same answers.
    let v1 = format::layout::to_version_1(&std::fs::read(&out).unwrap()).unwrap();
    let old = write(dir.path(), "v1.bin", &v1);
    let info = json(&["info", s(&old)]);
    assert_eq!(
        (&info["format_version"], &info["opens_in_place"]),
        (&1.into(), &false.into())
    );
    assert_eq!(info["checksum_verified"], true);
    let text = String::from_utf8(filterlab(&["info", s(&old)]).stdout).unwrap();
    assert!(
        text.contains("version 1, loads by copy; save it again"),
        "{text}"
    );
    let probe = ["alice@example.com", "dave@example.com", "x", "y", "z"];
    for f in [&out, &old] {
        let mut args = vec!["query", "--json", s(f)];
        args.extend(probe);
        // Exit status 1: some key is certainly absent.
        let q = filterlab(&args);
        assert_eq!(q.status.code(), Some(1), "{}", stderr(&q));
        let answers: Vec<bool> = serde_json::from_slice::<serde_json::Value>(&q.stdout)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["maybe_present"].as_bool().unwrap())
            .collect();
        assert!(answers[0], "a false negative in {}", f.display());
        assert_eq!(answers.len(), probe.len());
    }
    let q = |f: &std::path::Path| filterlab(&["query", s(f), "alice@example.com", "dave@x"]).stdout;
    assert_eq!(q(&out), q(&old));
}

#[test]
fn a_growing_filter_is_loaded_and_says_why() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let out = dir.path().join("s.bin");
    json(&build_args("scalable", "1000", s(&keys), s(&out)));
    let info = json(&["info", s(&out)]);
    assert_eq!(info["opens_in_place"], false);
    assert_eq!(info["checksum_verified"], true);
    let text = String::from_utf8(filterlab(&["info", s(&out)]).stdout).unwrap();
    assert!(
        text.contains("version 2, loads by copy (the scalable filter does not open in place)"),
        "{text}"
    );
    let q = filterlab(&["query", s(&out), "alice@example.com"]);
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
}

/// Issue 52: `info` tells a quotient file's table layout: a version 2 file (separate arrays,
/// the committed fixture) is loaded by copy into blocks and says so; saved again it is
/// version 3, blocked, and opens in place. Both answer alike.
#[test]
fn info_tells_a_quotient_file_s_table_layout() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../filterlab/tests/data/v2/quotient.bin");
    let info = json(&["info", s(&fixture)]);
    assert_eq!(
        (
            &info["format_version"],
            &info["table_layout"],
            &info["opens_in_place"]
        ),
        (
            &2.into(),
            &"separate arrays (format 2)".into(),
            &false.into()
        )
    );
    let text = String::from_utf8(filterlab(&["info", s(&fixture)]).stdout).unwrap();
    assert!(
        text.contains("table layout  separate arrays (format 2)\n"),
        "{text}"
    );
    assert!(text.contains("save it again to write version 3"), "{text}");
    let (dir, keys) = keys_file(b"alice@example.com\nbob@example.com\n");
    let out = dir.path().join("q.bin");
    json(&build_args("quotient", "1000", s(&keys), s(&out)));
    let info = json(&["info", s(&out)]);
    assert_eq!(
        (
            &info["format_version"],
            &info["table_layout"],
            &info["opens_in_place"]
        ),
        (&3.into(), &"blocked (format 3)".into(), &true.into())
    );
    let text = String::from_utf8(filterlab(&["info", s(&out)]).stdout).unwrap();
    assert!(
        text.contains("format        version 3, opens in place\n"),
        "{text}"
    );
    assert!(
        text.contains("table layout  blocked (format 3)\n"),
        "{text}"
    );
}
