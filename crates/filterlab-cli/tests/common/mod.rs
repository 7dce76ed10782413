//! Helpers shared by the command-line tests: run the binary, read its output.
#![allow(dead_code)] // Each test file uses a part.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn filterlab(args: &[&str]) -> Output {
    run_with_stdin(args, None)
}

pub fn run_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filterlab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("RUST_BACKTRACE", "1")
        .spawn()
        .expect("the binary runs");
    let mut pipe = child.stdin.take().expect("stdin piped");
    // A command that fails before reading its input closes the pipe: not the test's failure.
    match pipe.write_all(stdin.unwrap_or_default()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("stdin: {e}"),
        _ => {}
    }
    drop(pipe);
    child.wait_with_output().expect("the binary finishes")
}

/// Runs `args --json`, expecting success; its output parsed.
pub fn json(args: &[&str]) -> Value {
    json_with_stdin(args, None)
}

/// As [`json`], with `stdin` piped to the command.
pub fn json_with_stdin(args: &[&str], stdin: Option<&[u8]>) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = run_with_stdin(&a, stdin);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The contract for every error: exit code 2 and one clear line, never a panic or a backtrace.
pub fn assert_clean_error(args: &[&str], stdin: Option<&[u8]>, mentions: &str) {
    let out = run_with_stdin(args, stdin);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "{args:?}: not one line: {err}"
    );
    assert!(err.starts_with("error"), "{args:?}: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{args:?}: {err}"
    );
    assert!(
        err.to_lowercase().contains(&mentions.to_lowercase()),
        "{args:?}: {err} lacks {mentions:?}"
    );
}

/// Exit 2 and exactly one JSON object, with an `error`, on stderr; nothing on stdout.
pub fn assert_json_error(args: &[&str], stdin: Option<&[u8]>, mentions: &str) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = run_with_stdin(&a, stdin);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        out.stdout.is_empty(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    let v: Value = serde_json::from_str(&err).unwrap_or_else(|e| panic!("{args:?}: {e}: {err}"));
    let message = v["error"].as_str().expect("an error field");
    assert!(
        message.to_lowercase().contains(&mentions.to_lowercase()),
        "{message}"
    );
    v
}

/// The `nearest` command lines of a JSON refusal; each is run (without its leading
/// `filterlab`) and must succeed, under `--json`, with a recommendation.
pub fn suggestions_run(refusal: &Value) -> Vec<String> {
    let lines: Vec<String> = refusal["nearest"]
        .as_array()
        .unwrap_or_else(|| panic!("no suggestions: {refusal}"))
        .iter()
        .map(|l| l.as_str().expect("a command line").to_string())
        .collect();
    assert!(!lines.is_empty(), "{refusal}");
    for line in &lines {
        let args: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(args[0], "filterlab", "{line}");
        let answer = json(&args[1..]);
        assert!(answer["plan"]["variant"].is_string(), "{line}: {answer}");
    }
    lines
}

/// `recommend --n 10M --fpr 1%` followed by `extra`.
pub fn recommend_10m<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["recommend", "--n", "10M", "--fpr", "1%"];
    a.extend_from_slice(extra);
    a
}

/// `build --variant V --n N --fpr 1% --keys KEYS -o OUT` (and `--at 0` for a window counted
/// in time, whose keys take a time).
pub fn build_args<'a>(variant: &'a str, n: &'a str, keys: &'a str, out: &'a str) -> Vec<&'a str> {
    let mut args = vec![
        "build",
        "--variant",
        variant,
        "--n",
        n,
        "--fpr",
        "1%",
        "--keys",
        keys,
        "-o",
        out,
    ];
    if filterlab::Variant::from_name(variant).is_some_and(|v| v.capabilities().timed) {
        args.extend(["--at", "0"]);
    }
    args
}

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// JSON floats parse back to within an ulp or two of what was printed.
pub fn same(v: &Value, want: f64) {
    let got = v.as_f64().expect("a number");
    assert!((got - want).abs() <= 1e-15 * want.abs(), "{got} vs {want}");
}

/// Every variant's name, from the registry.
pub fn variant_names() -> Vec<&'static str> {
    filterlab::Variant::ALL.iter().map(|v| v.name()).collect()
}

/// A fresh temporary folder holding `k.txt` with `contents` (a key file for `--keys`): the
/// folder, which lives as long as the returned handle, and the file's path.
pub fn keys_file(contents: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let keys = write(dir.path(), "k.txt", contents);
    (dir, keys)
}

/// Starts `args` with `input` written to its stdin, which stays open until the caller drops the
/// returned pipe (so that two writers have both read their keys before either saves).
pub fn spawn(args: &[&str], input: &[u8]) -> (std::process::Child, std::process::ChildStdin) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filterlab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin piped");
    stdin.write_all(input).expect("keys written");
    (child, stdin)
}

/// `filterlab query FILE member` answers "maybe-present" (exit 0), and `filterlab query FILE
/// --json others...` answers each of `others` as `contains` does (exit 1: one is absent): a
/// foreign file queried through the CLI answers as the library's reader of it. The answers.
pub fn assert_queries_answer_as(
    path: &str,
    member: &str,
    others: &[String],
    contains: impl Fn(&[u8]) -> bool,
) -> Vec<Value> {
    let out = filterlab(&["query", path, member]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("maybe-present\t{member}\n")
    );
    let mut args = vec!["query", path, "--json"];
    args.extend(others.iter().map(String::as_str));
    let out = filterlab(&args);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let answers: Value = serde_json::from_slice(&out.stdout).unwrap();
    let answers = answers.as_array().unwrap().clone();
    for (key, a) in others.iter().zip(&answers) {
        assert_eq!(a["maybe_present"], contains(key.as_bytes()), "{key}");
    }
    answers
}
