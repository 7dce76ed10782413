//! `filterlab convert` and `filterlab build --to guava` (issue 40, item 4): exact where the
//! formats place keys alike, refused with the reason otherwise, rebuilt from keys each checked
//! against the input.

mod common;

use common::{assert_clean_error, filterlab, json, s, stderr};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::{AnyFilter, Filter};
use std::path::{Path, PathBuf};

const N: u64 = 4_000;

fn key(i: u64) -> String {
    format!("member-{i}@example.com")
}

fn keys_file(dir: &Path) -> PathBuf {
    let text: String = (0..N).map(|i| key(i) + "\n").collect();
    common::write(dir, "keys.txt", text.as_bytes())
}

/// `filterlab build` of the lines of `keys` at 1% into `out`, as `flag value` says (`--to
/// guava`, `--variant cuckoo`).
fn build_at_1pct(flag: &str, value: &str, keys: &Path, out: &Path) {
    filterlab(&[
        "build",
        flag,
        value,
        "--fpr",
        "1%",
        "--keys",
        s(keys),
        "-o",
        s(out),
    ]);
}

/// A key the filter reports absent (a non-member that is not a false positive).
fn absent_from(contains: impl Fn(&[u8]) -> bool) -> String {
    (0..)
        .map(|i| format!("stranger-{i}@example.org"))
        .find(|k| !contains(k.as_bytes()))
        .unwrap()
}

#[test]
fn build_to_guava_writes_what_guava_create_and_put_write() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path());
    for (arg, strategy) in [
        ("mitz64", Strategy::Murmur128Mitz64),
        ("mitz32", Strategy::Murmur128Mitz32),
    ] {
        let out = dir.path().join(format!("{arg}.guava"));
        let built = json(&[
            "build",
            "--to",
            "guava",
            "--guava-strategy",
            arg,
            "--n",
            "5000",
            "--fpr",
            "1%",
            "--keys",
            s(&keys),
            "-o",
            s(&out),
        ]);
        assert_eq!(built["format"], "guava");
        assert_eq!(built["inserted"], N);
        // The library's Guava filter is bit-exact with Guava 31.1 (filter-interop's
        // guava_peer tests); the CLI's file must be that filter's bytes.
        let mut want = GuavaBloom::new(5_000, 0.01, strategy).unwrap();
        (0..N).for_each(|i| want.insert(key(i).as_bytes()).unwrap());
        assert_eq!(std::fs::read(&out).unwrap(), want.to_bytes(), "{arg}");
    }
    // Flags Guava has no place for.
    let out = dir.path().join("x.guava");
    for extra in [
        &["--variant", "cuckoo"][..],
        &["--seed", "7"],
        &["--hash", "murmur3"],
    ] {
        let mut args = vec![
            "build",
            "--to",
            "guava",
            "--fpr",
            "1%",
            "--keys",
            s(&keys),
            "-o",
            s(&out),
        ];
        args.extend_from_slice(extra);
        assert_clean_error(&args, None, "--to guava");
    }
    assert!(!out.exists());
}

#[test]
fn exact_conversions_keep_every_answer_and_upgrade_version_1_files() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path());
    // A Guava file re-encoded: the same bytes.
    let g = dir.path().join("a.guava");
    build_at_1pct("--to", "guava", &keys, &g);
    let g2 = dir.path().join("b.guava");
    let v = json(&["convert", s(&g), s(&g2), "--to", "guava"]);
    assert_eq!(v["method"], "exact");
    assert_eq!(std::fs::read(&g).unwrap(), std::fs::read(&g2).unwrap());
    // A version 1 filterlab file re-saved as version 2: it now opens in place, and answers
    // every probe as the old one.
    let flt = dir.path().join("c.flt");
    build_at_1pct("--variant", "cuckoo", &keys, &flt);
    let old = AnyFilter::load(&flt).unwrap();
    let v1 = dir.path().join("v1.flt");
    std::fs::write(&v1, old.to_bytes_version_1().unwrap()).unwrap();
    assert!(
        AnyFilter::open(&v1).is_err(),
        "a version 1 file does not open in place"
    );
    let v2 = dir.path().join("v2.flt");
    let v = json(&["convert", s(&v1), s(&v2), "--to", "filterlab"]);
    assert_eq!(v["method"], "exact");
    let mapped = AnyFilter::open(&v2).unwrap();
    for i in 0..2 * N {
        let k = if i < N { key(i) } else { format!("probe-{i}") };
        assert_eq!(
            mapped.contains(k.as_bytes()),
            old.contains(k.as_bytes()),
            "{k}"
        );
    }
}

#[test]
fn conversions_that_cannot_be_exact_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path());
    let g = dir.path().join("a.guava");
    build_at_1pct("--to", "guava", &keys, &g);
    let blocked = dir.path().join("b.flt");
    build_at_1pct("--variant", "blocked", &keys, &blocked);
    let classic = dir.path().join("c.flt");
    build_at_1pct("--variant", "classic", &keys, &classic);
    let out = dir.path().join("out");
    let cases: [(&Path, &str, &[&str], &str); 4] = [
        (&g, "filterlab", &[], "different hashes and index sequences"),
        (
            &classic,
            "guava",
            &[],
            "different hashes and index sequences",
        ),
        (&blocked, "guava", &[], "fingerprints or blocks"),
        (
            &g,
            "guava",
            &["--guava-strategy", "mitz32"],
            "two strategies",
        ),
    ];
    for (input, to, extra, reason) in cases {
        let mut args = vec!["convert", s(input), s(&out), "--to", to];
        args.extend_from_slice(extra);
        assert_clean_error(&args, None, reason);
        assert_clean_error(&args, None, "--keys");
        assert!(!out.exists(), "nothing written for {args:?}");
    }
}

#[test]
fn a_rebuild_checks_every_key_against_the_input_first() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path());
    let g = dir.path().join("a.guava");
    build_at_1pct("--to", "guava", &keys, &g);
    let guava = GuavaBloom::load(&g).unwrap();
    // A key the input reports absent: refused, nothing written.
    let stranger = absent_from(|k| guava.contains(k));
    let mut text = std::fs::read_to_string(&keys).unwrap();
    text.push_str(&stranger);
    let wrong = common::write(dir.path(), "wrong.txt", text.as_bytes());
    let out = dir.path().join("rebuilt.flt");
    let args = [
        "convert",
        s(&g),
        s(&out),
        "--to",
        "filterlab",
        "--keys",
        s(&wrong),
    ];
    assert_clean_error(&args, None, &format!("1 of {} keys are absent", N + 1));
    assert_clean_error(&args, None, &stranger);
    assert!(!out.exists());
    // The right keys: every one held by the rebuilt filter, sized at the input's rate.
    let args = [
        "convert",
        s(&g),
        s(&out),
        "--to",
        "filterlab",
        "--keys",
        s(&keys),
        "--variant",
        "blocked",
    ];
    let done = filterlab(&args);
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let v = json(&["info", s(&out)]);
    assert_eq!(v["variant"], "blocked");
    assert_eq!(v["items"], N);
    let rebuilt = AnyFilter::load(&out).unwrap();
    assert!((0..N).all(|i| rebuilt.contains(key(i).as_bytes())));
    let rate = rebuilt.expected_fpr();
    assert!((rate / guava.estimated_fpr() - 1.0).abs() < 0.2, "{rate}");
}

#[test]
fn build_to_redisbloom_adds_the_lines_in_order_as_bf_add_does() {
    use filterlab::interop::redisbloom::{RedisBloom, Scaling};
    let dir = tempfile::tempdir().unwrap();
    // Repeats included: BF.ADD of a key already in the chain adds nothing.
    let text: String = (0..N).chain(0..100).map(|i| key(i) + "\n").collect();
    let keys = common::write(dir.path(), "keys.txt", text.as_bytes());
    let out = dir.path().join("users.rbloom");
    let built = json(&[
        "build",
        "--to",
        "redisbloom",
        "--n",
        "1000",
        "--fpr",
        "1%",
        "--keys",
        s(&keys),
        "-o",
        s(&out),
    ]);
    assert_eq!(built["format"], "redisbloom");
    assert_eq!(built["duplicates"], 100);
    // BF.RESERVE users 0.01 1000 EXPANSION 2, then BF.ADD of each line: the library's chain is
    // bit-exact with RedisBloom 2.8.2 (filter-interop's redisbloom_peer tests).
    let mut want = RedisBloom::reserve(0.01, 1000, Scaling::Expand(2)).unwrap();
    (0..N)
        .chain(0..100)
        .for_each(|i| want.insert(key(i).as_bytes()).unwrap());
    assert_eq!(std::fs::read(&out).unwrap(), want.to_bytes());
    assert_eq!(built["inserted"], want.len());
    // Re-encoded exactly; rebuilt into Guava from the keys; a blocked filter refused.
    let again = dir.path().join("again.rbloom");
    let v = json(&["convert", s(&out), s(&again), "--to", "redisbloom"]);
    assert_eq!(v["method"], "exact");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    let g = dir.path().join("users.guava");
    let v = json(&[
        "convert",
        s(&out),
        s(&g),
        "--to",
        "guava",
        "--keys",
        s(&keys),
    ]);
    assert_eq!(v["method"], "rebuilt");
    assert_eq!(v["keys"], N);
    let guava = GuavaBloom::load(&g).unwrap();
    assert!((0..N).all(|i| guava.contains(key(i).as_bytes())));
    assert_clean_error(
        &["convert", s(&g), s(&again), "--to", "redisbloom"],
        None,
        "MurmurHash64A",
    );
}

#[test]
fn a_parquet_file_is_not_taken_as_one_filter() {
    let dir = tempfile::tempdir().unwrap();
    let keys = keys_file(dir.path());
    let p = dir.path().join("k.parquet");
    let built = filterlab(&[
        "build",
        "--to",
        "parquet",
        "--fpr",
        "1%",
        "--keys",
        s(&keys),
        "-o",
        s(&p),
    ]);
    assert_eq!(built.status.code(), Some(0), "{}", stderr(&built));
    let out = dir.path().join("out.flt");
    assert_clean_error(
        &["convert", s(&p), s(&out), "--to", "filterlab"],
        None,
        "one filter per column chunk",
    );
    assert!(!out.exists());
}
