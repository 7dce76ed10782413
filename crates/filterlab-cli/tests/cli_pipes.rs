//! Keys from a source that cannot be read twice (issue 51, item 1): stdin, `/dev/stdin`, a
//! named FIFO. Without `--n` the keys used to be counted by a first read and inserted by a
//! second, which found the pipe empty: an empty filter saved with exit 0, or a FIFO that hung.
//! A build that reads no key at all is refused, and nothing is saved.

mod common;
use common::*;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// One key a line: `k1@x.org` .. `kN@x.org`.
fn key_lines(n: u32) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("k{i}@x.org\n"))
        .collect::<String>()
        .into_bytes()
}

/// Runs the binary with `args` and no stdin of its own, failing the test (not hanging it) when
/// it has not finished within a minute.
fn run_within_a_minute(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filterlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after 60 s (a source read twice?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// Every key of the first `n` answers maybe-present in the filter at `path`.
fn holds_every_key(path: &Path, n: u32) {
    let keys = key_lines(n);
    let q = run_with_stdin(&["query", s(path)], Some(&keys));
    assert_eq!(
        q.status.code(),
        Some(0),
        "a key reported absent: {}",
        stderr(&q)
    );
}

#[test]
fn a_build_from_stdin_without_n_reads_the_keys_once_and_holds_them() {
    let dir = tempfile::tempdir().unwrap();
    let keys = key_lines(1000);
    for (i, source) in ["/dev/stdin", "-"].into_iter().enumerate() {
        // Every variant whose capacity may be counted (a window counted in time needs --n).
        let counted = filterlab::Variant::ALL
            .iter()
            .filter(|v| !v.capabilities().timed);
        for variant in counted.map(|v| v.name()) {
            let out = dir.path().join(format!("{variant}-{i}.bin"));
            let args = [
                "build",
                "--variant",
                variant,
                "--fpr",
                "1%",
                "--keys",
                source,
                "-o",
                s(&out),
            ];
            let b = json_with_stdin(&args, Some(&keys));
            // A filter that skips a key it already reports present (a false positive in a
            // scalable filter) counts a few less than the lines; an empty one counted none.
            assert_eq!(b["lines"], 1000, "{variant} from {source}: {b}");
            let inserted = b["inserted"].as_u64().unwrap();
            assert!(inserted > 990, "{variant} from {source}: {b}");
            // Sized for the 1000 lines counted (a variant may round its capacity up).
            assert_eq!(b["capacity_counted"], true, "{variant}: {b}");
            assert!(b["capacity"].as_u64().unwrap() >= 1000, "{variant}: {b}");
            holds_every_key(&out, 1000);
        }
    }
}

#[test]
fn guava_and_redisbloom_builds_from_a_pipe_hold_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let keys = key_lines(1000);
    for to in ["guava", "redisbloom"] {
        let out = dir.path().join(format!("f.{to}"));
        let args = [
            "build",
            "--to",
            to,
            "--fpr",
            "1%",
            "--keys",
            "/dev/stdin",
            "-o",
            s(&out),
        ];
        let b = json_with_stdin(&args, Some(&keys));
        assert_eq!(
            (b["lines"].as_u64(), b["inserted"].as_u64()),
            (Some(1000), Some(1000)),
            "{to}: {b}"
        );
        holds_every_key(&out, 1000);
    }
}

#[cfg(unix)]
#[test]
fn a_build_from_a_named_fifo_finishes_and_holds_every_key() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("keys.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let out = dir.path().join("f.bin");
    // The writer opens the FIFO once, as `seq > fifo` does; a reader that opened it a second
    // time would wait for a writer forever.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            let _ = w.write_all(&key_lines(1000));
        })
    };
    let args = [
        "build",
        "--variant",
        "classic",
        "--fpr",
        "1%",
        "--keys",
        s(&fifo),
        "-o",
        s(&out),
        "--json",
    ];
    let o = run_within_a_minute(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    writer.join().unwrap();
    let b: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(b["inserted"], 1000, "{b}");
    holds_every_key(&out, 1000);
}

#[test]
fn a_source_that_yields_no_key_is_refused_or_said() {
    let dir = tempfile::tempdir().unwrap();
    let blank = write(dir.path(), "blank.txt", b"\n\n");
    let out = dir.path().join("f.bin");
    for (keys, stdin) in [("/dev/stdin", Some(&b""[..])), (s(&blank), None)] {
        // Keys expected: without --n, or under --strict. Nothing is saved.
        for (n, strict) in [(None, false), (Some("1000"), true)] {
            let mut own = vec!["build", "--variant", "classic", "--fpr", "1%"];
            let mut foreign = vec![];
            for to in ["guava", "redisbloom", "parquet"] {
                foreign.push(vec!["build", "--to", to, "--fpr", "1%"]);
            }
            for args in std::iter::once(&mut own).chain(foreign.iter_mut()) {
                args.extend(n.map(|n| ["--n", n]).into_iter().flatten());
                args.extend(strict.then_some("--strict"));
                args.extend(["--keys", keys, "-o", s(&out)]);
                assert_clean_error(args, stdin, "no keys");
                assert!(!out.exists(), "{args:?}: a filter of no keys was saved");
            }
        }
        // With --n, an empty filter (to fill with `add`) is built, and said to be empty.
        let args = [
            "build",
            "--variant",
            "classic",
            "--n",
            "1000",
            "--fpr",
            "1%",
            "--keys",
            keys,
            "-o",
            s(&out),
        ];
        let o = run_with_stdin(&args, stdin);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stderr(&o).contains("warning: "), "{}", stderr(&o));
        assert!(stderr(&o).contains("yielded no keys"), "{}", stderr(&o));
        std::fs::remove_file(&out).unwrap();
    }
}
