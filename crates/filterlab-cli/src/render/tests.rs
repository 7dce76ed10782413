use super::*;

#[test]
fn info_prints_parameters_by_kind_and_the_checksum_flag() {
    use crate::file::Params;
    use filterlab::any::Parameter;
    let i = Info {
        variant: filterlab::Variant::Cuckoo,
        capacity: 100,
        items: 95,
        bytes: 1_000,
        file_bytes: 1_100,
        expected_fpr: 0.01,
        hash: "xxh3-128".into(),
        seed: 7,
        checksum: "00000000deadbeef".into(),
        checksum_verified: true,
        format_version: 2,
        opens_in_place: false,
        table_layout: None,
        writes_version: 2,
        parameters: Params(vec![
            Parameter::design("buckets", Value::Count(26)),
            Parameter::running("load", Value::Ratio(0.95)),
            Parameter::design("bound", Value::Rate(0.01)),
        ]),
    };
    let text = info(&i);
    assert!(
        text.contains("checksum      00000000deadbeef (verified)\n"),
        "{text}"
    );
    assert!(text.contains("buckets       26\n"), "{text}");
    assert!(
        text.contains(
            "format        version 2, loads by copy (the cuckoo filter does not open in place)\n"
        ),
        "{text}"
    );
    assert!(text.contains("load          0.9500\n"), "{text}");
    assert!(text.contains("bound         1.0000%\n"), "{text}");
    let json = serde_json::to_value(&i).unwrap();
    assert_eq!(json["parameters"]["buckets"], 26);
    assert_eq!(json["parameters"]["load"], 0.95);
    assert_eq!(json["checksum_verified"], true);
}

#[test]
fn removals_list_the_absent_keys_escaped() {
    let c = Changed {
        filter: "f.bin".into(),
        changed: 1,
        absent: 2,
        absent_keys: vec![escape(b"x\x1b"), escape(b"\xff")],
        empty: 0,
        items: 4,
        capacity: 10,
        expected_fpr: 0.001,
        warnings: Vec::new(),
        added: false,
    };
    let text = changed(&c);
    assert!(text.starts_with("removed 1 keys"), "{text}");
    assert!(
        text.contains("2 keys certainly absent, not removed:\nabsent\tx\\x1b\nabsent\t\\xff\n"),
        "{text}"
    );
}

#[test]
fn query_lines_escape_control_characters() {
    assert_eq!(
        answer_line(b"\x1b]0;owned\x07", false),
        "absent\t\\x1b]0;owned\\x07\n"
    );
    assert_eq!(answer_line(b"a@x.org", true), "maybe-present\ta@x.org\n");
}
