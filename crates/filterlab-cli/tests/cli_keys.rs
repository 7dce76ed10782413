//! Keys in and out: the one key-line reader (BOM, CR-only, empty lines), escaped echoes, the
//! streaming query, `add`, `remove`, `explain FILE KEY` and `build`'s hashing flags (issue 16).

mod common;

use common::*;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn a_byte_order_mark_is_not_part_of_the_first_key() {
    let (dir, keys) = keys_file(b"\xEF\xBB\xBFalice@example.com\r\nbob@example.com\r\n");
    let out = dir.path().join("f.bin");
    json_with_stdin(&build_args("classic", "100", s(&keys), s(&out)), None);
    let q = filterlab(&["query", s(&out), "alice@example.com"]);
    assert_eq!(
        q.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&q.stdout)
    );
    // And a query file with a BOM asks about "alice", not "\u{feff}alice".
    let q = filterlab(&["query", s(&out), "--keys", s(&keys)]);
    assert_eq!(
        q.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&q.stdout)
    );
}

#[test]
fn cr_only_line_endings_are_warned_in_text_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let keys = write(dir.path(), "mac.txt", b"a@x.org\rb@x.org\rc@x.org\r");
    let out = dir.path().join("f.bin");
    let b = filterlab(&build_args("classic", "100", s(&keys), s(&out)));
    assert_eq!(b.status.code(), Some(0));
    assert!(
        stderr(&b).contains("warning: 1 key(s) hold a carriage return"),
        "{}",
        stderr(&b)
    );
    assert!(stderr(&b).contains("CR-only"));
    let j = json_with_stdin(&build_args("classic", "100", s(&keys), s(&out)), None);
    assert!(
        j["warnings"][0].as_str().unwrap().contains("CR-only"),
        "{j}"
    );
    let q = filterlab(&["query", s(&out), "--keys", s(&keys)]);
    assert!(stderr(&q).contains("CR-only"), "{}", stderr(&q));
}

#[test]
fn query_escapes_control_characters_and_echoes_bytes_exactly() {
    let (dir, keys) = keys_file(b"plain\n");
    let out = dir.path().join("f.bin");
    json_with_stdin(&build_args("classic", "100", s(&keys), s(&out)), None);
    // A terminal escape (clear screen, set title) never reaches stdout raw.
    let hostile = write(
        dir.path(),
        "q.txt",
        b"\x1b[2J\x1b]0;owned\x07\n\xff\xferaw\ttab\\\n",
    );
    let q = filterlab(&["query", s(&out), "--keys", s(&hostile)]);
    let text = String::from_utf8(q.stdout.clone()).expect("the echo is UTF-8");
    assert!(!text.bytes().any(|b| b == 0x1b || b == 0x07), "{text:?}");
    assert!(text.contains("\\x1b[2J\\x1b]0;owned\\x07\n"), "{text:?}");
    assert!(text.contains("\\xff\\xferaw\\ttab\\\\\n"), "{text:?}");
    // JSON: UTF-8 keys as they are (JSON escapes them), others escaped and in hex.
    let q = filterlab(&["query", s(&out), "--keys", s(&hostile), "--json"]);
    let answers: Value = serde_json::from_slice(&q.stdout).expect("a JSON array");
    assert_eq!(answers[0]["key"], "\u{1b}[2J\u{1b}]0;owned\u{7}");
    assert!(answers[0].get("key_hex").is_none());
    assert_eq!(answers[1]["key"], "\\xff\\xferaw\\ttab\\\\");
    assert_eq!(answers[1]["key_hex"], "fffe726177097461625c");
}

#[test]
fn query_answers_stdin_as_it_streams() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let out = dir.path().join("f.bin");
    json_with_stdin(&build_args("classic", "100", s(&keys), s(&out)), None);
    let mut child = Command::new(env!("CARGO_BIN_EXE_filterlab"))
        .args(["query", s(&out)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    stdin.write_all(b"alice@example.com\n").unwrap();
    stdin.flush().unwrap();
    // The answer comes while stdin is still open: the keys are not all kept first.
    let first = rx.recv_timeout(Duration::from_secs(60));
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(first.as_deref(), Ok("maybe-present\talice@example.com\n"));
    assert_eq!(status.code(), Some(0));
}

#[test]
fn add_and_remove_change_the_saved_filter_on_deletable_variants_only() {
    let (dir, keys) = keys_file(b"alice@example.com\nbob@example.com\n");
    for variant in ["counting", "cuckoo"] {
        let out = dir.path().join(format!("{variant}.bin"));
        json_with_stdin(&build_args(variant, "1000", s(&keys), s(&out)), None);
        let a = filterlab(&["add", s(&out), "carol@example.com", "dave@example.com"]);
        assert_eq!(a.status.code(), Some(0), "{variant}: {}", stderr(&a));
        let more = b"erin@example.com\n\nfrank@example.com\n";
        let a = json_with_stdin(&["add", s(&out)], Some(more));
        assert_eq!(
            (a["changed"].as_u64(), a["empty"].as_u64()),
            (Some(2), Some(1))
        );
        assert_eq!(json(&["info", s(&out)])["items"], 6, "{variant}");
        let q = filterlab(&["query", s(&out), "carol@example.com", "frank@example.com"]);
        assert_eq!(q.status.code(), Some(0), "{variant}");

        let r = json_with_stdin(&["remove", s(&out), "carol@example.com"], None);
        assert_eq!(r["changed"], 1, "{variant}");
        assert_eq!(json(&["info", s(&out)])["items"], 5, "{variant}");
        // A key the filter proves absent is not removed: exit 1, the others saved. (Five keys
        // in a table for 1000: the stranger is a false positive with probability below 1e-4.)
        let r = filterlab(&[
            "remove",
            s(&out),
            "dave@example.com",
            "never-inserted-zz@example.org",
        ]);
        let text = String::from_utf8_lossy(&r.stdout);
        assert_eq!(r.status.code(), Some(1), "{variant}: {text}");
        assert!(
            text.contains("absent\tnever-inserted-zz@example.org"),
            "{text}"
        );
        assert_eq!(json(&["info", s(&out)])["items"], 4, "{variant}");
    }
    let classic = dir.path().join("classic.bin");
    json_with_stdin(&build_args("classic", "1000", s(&keys), s(&classic)), None);
    let before = std::fs::read(&classic).unwrap();
    assert_clean_error(
        &["remove", s(&classic), "alice@example.com"],
        None,
        "cannot remove keys",
    );
    assert_eq!(std::fs::read(&classic).unwrap(), before);
    let a = filterlab(&["add", s(&classic), "zed@example.com"]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(
        filterlab(&["query", s(&classic), "zed@example.com"])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn build_counts_the_keys_without_n_and_takes_its_hashing_flags() {
    let (dir, keys) = keys_file(b"a@x.org\n\nb@x.org\nc@x.org\nc@x.org\n");
    let out = dir.path().join("f.bin");
    let args = [
        "build",
        "--variant",
        "classic",
        "--fpr",
        "1%",
        "--keys",
        s(&keys),
        "-o",
        s(&out),
    ];
    let b = json_with_stdin(&args, None);
    assert_eq!(
        (b["capacity"].as_u64(), b["capacity_counted"].as_bool()),
        (Some(4), Some(true))
    );
    // Stdin cannot be read twice: its keys are read once, held, and counted.
    let from_stdin = [
        "build",
        "--variant",
        "classic",
        "--fpr",
        "1%",
        "--keys",
        "-",
        "-o",
        s(&out),
    ];
    let b = json_with_stdin(&from_stdin, Some(b"a\nb\na\n"));
    assert_eq!(
        (b["capacity"].as_u64(), b["inserted"].as_u64()),
        (Some(3), Some(2))
    );

    let mut seeded = args.to_vec();
    seeded.extend(["--seed", "7", "--hash", "murmur3"]);
    json_with_stdin(&seeded, None);
    let info = json(&["info", s(&out)]);
    assert_eq!(
        (info["seed"].as_u64(), info["hash"].as_str()),
        (Some(7), Some("murmur3-x64-128"))
    );
    assert_eq!(
        filterlab(&["query", s(&out), "c@x.org"]).status.code(),
        Some(0)
    );

    let mut short = args.to_vec();
    short[2] = "blocked";
    short.extend(["--hash", "xxh3-64"]);
    json_with_stdin(&short, None);
    let info = json(&["info", s(&out)]);
    assert_eq!(info["hash"].as_str(), Some("xxh3-64"));
    assert_eq!(
        filterlab(&["query", s(&out), "c@x.org"]).status.code(),
        Some(0)
    );

    let mut secret = args.to_vec();
    secret.push("--secret-seed");
    json_with_stdin(&secret, None);
    let first = json(&["info", s(&out)])["seed"].as_u64().unwrap();
    json_with_stdin(&secret, None);
    let second = json(&["info", s(&out)])["seed"].as_u64().unwrap();
    assert_ne!(first, second, "two secret seeds are unrelated");

    let mut bad = args.to_vec();
    bad.extend(["--hash", "murmur3", "--seed", "8589934592"]);
    assert_clean_error(&bad, None, "32-bit seed");
}

#[test]
fn explain_reads_parameters_and_seed_from_the_file() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    for variant in variant_names() {
        let out = dir.path().join(format!("{variant}.bin"));
        json_with_stdin(&build_args(variant, "1000", s(&keys), s(&out)), None);
        if variant
            .parse::<filterlab::Variant>()
            .unwrap()
            .capabilities()
            .static_set
        {
            // Sized by its key set, not by --n: only the file says where a key lands.
            let e = json(&["explain", s(&out), "alice@example.com"]);
            assert_eq!(e["touch"]["kind"], "xor", "{e}");
            continue;
        }
        let from_file = json(&["explain", s(&out), "alice@example.com"]);
        let sized = json(&[
            "explain",
            "--variant",
            variant,
            "--n",
            "1000",
            "--fpr",
            "1%",
            "alice@example.com",
        ]);
        assert_eq!(from_file["touch"], sized["touch"], "{variant}");
        assert_eq!(
            from_file["plan"]["bytes"], sized["plan"]["bytes"],
            "{variant}"
        );

        let mut seeded = build_args(variant, "1000", s(&keys), s(&out));
        seeded.extend(["--seed", "99"]);
        json_with_stdin(&seeded, None);
        let e = json(&["explain", s(&out), "alice@example.com"]);
        assert_eq!(e["seed"], 99, "{variant}");
        assert_ne!(
            e["touch"], sized["touch"],
            "{variant}: the file's seed moves the key"
        );
    }
    assert_clean_error(&["explain"], None, "explain needs a saved filter");
}

/// Issue 37: a full filter was reported as "cannot read the keys of FILE" (or "cannot read
/// FILE"), as if the key file were at fault. It says the filter is full, and nothing else.
#[test]
fn a_full_filter_is_reported_as_full_not_as_a_read_error() {
    let keys: Vec<u8> = (0..300)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    let (dir, key_file) = keys_file(&keys);
    let out = dir.path().join("c.bin");
    let build = build_args("cuckoo", "100", s(&key_file), s(&out));
    for args in [build.clone(), vec!["add", s(&out), "--keys", s(&key_file)]] {
        if args[0] == "add" {
            json(&build_args("cuckoo", "100", "-", s(&out)));
        }
        let run = filterlab(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("the filter is full after"), "{args:?}: {err}");
        assert!(!err.contains("cannot read"), "{args:?}: {err}");
    }
    // A key file that cannot be read still says so.
    let long = write(dir.path(), "long.txt", &[b'x'; 70_000]);
    assert_clean_error(
        &build_args("cuckoo", "100", s(&long), s(&out)),
        None,
        "cannot read the keys of",
    );
}

/// Issue 37: a static filter given more keys than --n was silently sized for all of them
/// (exit 0, even under --strict). It says so, and --strict refuses it.
#[test]
fn a_static_filter_given_more_keys_than_its_n_says_so() {
    let keys: Vec<u8> = (0..2000)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    let (dir, key_file) = keys_file(&keys);
    let out = dir.path().join("f.bin");
    let statics = filterlab::Variant::ALL
        .iter()
        .filter(|v| v.capabilities().static_set)
        .map(|v| v.name());
    for v in statics {
        let args = build_args(v, "100", s(&key_file), s(&out));
        let run = filterlab(&args);
        assert_eq!(run.status.code(), Some(0), "{v}: {}", stderr(&run));
        assert!(
            stderr(&run).contains("2000 distinct keys exceed --n 100"),
            "{v}: {}",
            stderr(&run)
        );
        let _ = std::fs::remove_file(&out);
        let mut strict = args.clone();
        strict.push("--strict");
        assert_clean_error(&strict, None, "not saved (--strict)");
        assert!(!out.exists(), "{v}");
        // Enough --n, or none: no word.
        let quiet = filterlab(&build_args(v, "2000", s(&key_file), s(&out)));
        assert!(quiet.stderr.is_empty(), "{v}: {}", stderr(&quiet));
    }
}
