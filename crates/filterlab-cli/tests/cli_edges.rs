//! Edges found by issue 51 outside the key sources: an empty key argument, error causes
//! printed once, `explain` of a huge filter without building it.

mod common;
use common::*;

#[test]
fn an_empty_key_argument_is_an_error_and_an_empty_key_line_a_note() {
    let (dir, keys) = keys_file(b"alice@example.com\n\nbob@example.com\n");
    let out = dir.path().join("f.bin");
    json(&build_args("classic", "1000", s(&keys), s(&out)));
    let before = std::fs::read(&out).unwrap();
    for args in [
        vec!["query", s(&out), ""],
        vec!["query", s(&out), "alice@example.com", ""],
        vec!["query", s(&out), "", "--json"],
        vec!["add", s(&out), "carol@example.com", ""],
    ] {
        let o = filterlab(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            o.stdout.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert!(stderr(&o).contains("is empty"), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(std::fs::read(&out).unwrap(), before, "add changed the file");
    // In a key file, an empty line is skipped and counted, as before.
    let q = filterlab(&["query", s(&out), "--keys", s(&keys)]);
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    assert!(
        stderr(&q).contains("1 empty lines skipped"),
        "{}",
        stderr(&q)
    );
}

/// The parts of an error line, split where a cause was joined on.
fn repeated_cause(message: &str) -> Option<String> {
    let parts: Vec<&str> = message.split(": ").collect();
    parts
        .windows(2)
        .find(|w| w[0] == w[1])
        .map(|w| w[0].to_string())
}

#[test]
fn every_cause_of_an_error_is_printed_once() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let out = dir.path().join("f.bin");
    json(&build_args("classic", "1000", s(&keys), s(&out)));
    let d = s(dir.path());
    let commands: Vec<Vec<&str>> = vec![
        vec![
            "build",
            "--variant",
            "classic",
            "--fpr",
            "1%",
            "--keys",
            d,
            "-o",
            "x.bin",
        ],
        vec![
            "build",
            "--variant",
            "classic",
            "--n",
            "9",
            "--fpr",
            "1%",
            "--keys",
            d,
            "-o",
            "x.bin",
        ],
        vec![
            "build", "--to", "guava", "--fpr", "1%", "--keys", d, "-o", "x.bin",
        ],
        vec![
            "build", "--to", "parquet", "--fpr", "1%", "--keys", d, "-o", "x.bin",
        ],
        vec!["query", s(&out), "--keys", d],
        vec!["add", s(&out), "--keys", d],
        vec!["info", d],
        vec![
            "build",
            "--variant",
            "classic",
            "--fpr",
            "1%",
            "--keys",
            s(&keys),
            "-o",
            d,
        ],
    ];
    for args in &commands {
        for json in [false, true] {
            let mut a = args.clone();
            if json {
                a.push("--json");
            }
            let o = filterlab(&a);
            assert_eq!(o.status.code(), Some(2), "{a:?}: {}", stderr(&o));
            let err = stderr(&o);
            assert_eq!(repeated_cause(err.trim_end()), None, "{a:?}: {err}");
            assert!(err.matches("(os error").count() <= 1, "{a:?}: {err}");
        }
    }
}

/// `explain --variant V --n 2^32 KEY` placed the key by building the whole filter (1.7 GB and
/// 14 s): under a 1 GiB address-space limit that build fails. From the plan, the Bloom
/// variants place it without one; the others refuse a filter that large with the reason.
#[cfg(unix)]
#[test]
fn explain_places_a_key_at_n_2_pow_32_without_building_the_filter() {
    let bin = env!("CARGO_BIN_EXE_filterlab");
    let mut placed = Vec::new();
    for variant in variant_names() {
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 1048576 && exec '{bin}' explain --variant {variant} --n 4294967296 \
                 --fpr 1% alice@example.com --json"
            ))
            .output()
            .expect("sh runs");
        let err = stderr(&o);
        if o.status.code() == Some(0) {
            let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
            assert!(v["touch"]["kind"].is_string(), "{variant}: {v}");
            assert_eq!(v["plan"]["n"], 4_294_967_296u64, "{variant}");
            placed.push(variant);
        } else {
            // Refused (by its sizing, or as too large to build), never failing in a build.
            assert_eq!(o.status.code(), Some(2), "{variant}: {err}");
            let failed_build = err.contains("explain builds") || err.contains("could not allocate");
            assert!(!failed_build, "{variant}: {err}");
        }
    }
    // The Bloom variants: m bits or counters and k probes, or blocks of lanes.
    assert!(placed.len() >= 3, "{placed:?}");
}

/// Issue 51: a file saved by the Python package's `filterlab.Bloom` (16 bytes of marker, then a
/// classic filter's file keyed by its `hash_func`'s integers) was "not a filterlab filter (bad
/// magic bytes)". Every command that reads a filter names the class that loads it.
#[test]
fn a_python_bloom_file_is_named_with_the_class_that_loads_it() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let classic = dir.path().join("f.bin");
    json(&build_args("classic", "1000", s(&keys), s(&classic)));
    let mut saved = filterlab::PYTHON_BLOOM_MAGIC.to_vec();
    saved.extend(std::fs::read(&classic).unwrap());
    let path = write(dir.path(), "rbloom.bin", &saved);
    let p = s(&path);
    for args in [
        vec!["info", p],
        vec!["query", p, "alice@example.com"],
        vec!["add", p, "bob@example.com"],
        vec!["explain", p],
        vec!["convert", p, "out.bin", "--to", "filterlab"],
    ] {
        assert_clean_error(&args, None, "filterlab.Bloom.load");
    }
    assert_eq!(std::fs::read(&path).unwrap(), saved);
}

/// Issue 51: a file that could not be mapped (no address space under `ulimit -v`) was read
/// whole instead, and that failure reported a byte count that was neither the file's size nor
/// anything the user could act on ("33620052 bytes do not fit in memory" for a 47,968,880-byte
/// file). The message gives the file's size and why the mapping failed.
#[cfg(target_os = "linux")]
#[test]
fn a_file_that_cannot_be_mapped_is_reported_with_its_size_and_the_mapping_s_error() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let path = dir.path().join("big.bin");
    json(&build_args("classic", "40M", s(&keys), s(&path)));
    let len = std::fs::metadata(&path).unwrap().len();
    assert!(len > 40 << 20, "{len}");
    let bin = env!("CARGO_BIN_EXE_filterlab");
    for command in ["info", "query --keys /dev/null"] {
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v 40000 && exec '{bin}' {command} '{}'",
                s(&path)
            ))
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{command}: {err}");
        assert!(
            err.contains(&format!("its {len} bytes")),
            "{command}: {err}"
        );
        assert!(
            err.contains("opening it in place failed too"),
            "{command}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{command}: {err}");
    }
}
