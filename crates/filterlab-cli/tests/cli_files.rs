//! What the commands read and write besides well-formed filters: crafted headers on sparse
//! files, FIFOs and devices, endless key sources, and a file-size limit (issue 37, items 7-9).

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs the binary with `args` under a limit of `kib` KiB of address space (`ulimit -v`), so
/// that a command that tried to hold a large file would fail rather than take the memory.
#[cfg(unix)]
fn limited(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_filterlab"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs")
}

/// A counting filter's file whose header declares a 3 GiB payload, extended (sparse) to
/// exactly that length: only its parameters can tell that it lies.
fn crafted(dir: &Path) -> PathBuf {
    let keys = write(dir, "k.txt", b"a\nb\n");
    let good = dir.join("good.bin");
    json(&build_args("counting", "100", s(&keys), s(&good)));
    let bytes = std::fs::read(&good).unwrap();
    let params = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    let at = 24 + params;
    let declared: u64 = 3 << 30;
    let mut head = bytes[..at + 8].to_vec();
    head[at..].copy_from_slice(&declared.to_le_bytes());
    let path = write(dir, "crafted.bin", &head);
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(head.len() as u64 + declared + 8).unwrap();
    path
}

/// Issue 37, item 7: under 256 MiB of address space every reader refuses the crafted file by
/// its parameters (the old reader ran out of memory reading the 3 GiB it declares, or without
/// the limit held them).
#[cfg(unix)]
#[test]
fn a_crafted_header_on_a_sparse_file_is_refused_by_its_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let path = crafted(dir.path());
    let p = s(&path);
    for args in [
        vec!["info", p],
        vec!["query", p, "a"],
        vec!["explain", p, "a"],
        vec!["add", p, "c"],
        vec!["remove", p, "a"],
    ] {
        let out = limited(256 << 10, &args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("is not a usable filterlab filter")
                && err.contains("more than the")
                && err.contains("its parameters describe"),
            "{args:?}: {err}"
        );
    }
}

/// Runs `args` and waits for it at most 30 s: a command that would hang is killed, and the
/// test fails saying so (a guard against a hang, not a measure of time).
fn run_guarded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_filterlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    for _ in 0..300 {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("{args:?} did not finish in 30 s");
}

/// Issue 37, item 8: a FIFO with no writer where a filter file is expected made `info`,
/// `query` and `explain` wait forever in the open. They refuse it at once, naming it.
#[cfg(unix)]
#[test]
fn a_fifo_for_a_filter_file_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.bin");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let f = s(&fifo);
    for args in [
        vec!["info", f],
        vec!["query", f, "a"],
        vec!["explain", f, "a"],
        vec!["add", f, "a"],
        vec!["remove", f, "a"],
    ] {
        let out = run_guarded(&args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("a FIFO, not a regular file"),
            "{args:?}: {err}"
        );
    }
}

/// Issue 37, item 8: `--keys /dev/urandom` never ended (its newlines make endless short keys)
/// and grew to the tracking limit. A device is refused as a key source; stdin is not.
#[cfg(target_os = "linux")]
#[test]
fn a_device_as_a_key_source_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.bin");
    json(&build_args("classic", "100", "-", s(&out)));
    for args in [
        build_args(
            "classic",
            "100",
            "/dev/urandom",
            s(&dir.path().join("g.bin")),
        ),
        vec!["query", s(&out), "--keys", "/dev/urandom"],
        vec!["add", s(&out), "--keys", "/dev/zero"],
    ] {
        let run = run_guarded(&args);
        let err = stderr(&run);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("it is a device, which may never end"),
            "{args:?}: {err}"
        );
    }
}

/// The key length limit `--help` documents is the one enforced: 64 KiB a key.
#[test]
fn the_documented_key_length_is_the_enforced_one() {
    let help = String::from_utf8(filterlab(&["--help"]).stdout).unwrap();
    assert!(help.contains("at most 64 KiB a key"), "{help}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.bin");
    let mut longest = vec![b'k'; 64 << 10];
    longest.push(b'\n');
    json_with_stdin(&build_args("classic", "10", "-", s(&out)), Some(&longest));
    let mut over = vec![b'k'; (64 << 10) + 1];
    over.push(b'\n');
    assert_clean_error(
        &build_args("classic", "10", "-", s(&out)),
        Some(&over),
        "line 1: a key longer than 65536 bytes",
    );
}

/// Issue 37, item 9: a save past the file-size limit (`ulimit -f`) was killed by SIGXFSZ, with
/// no message and its temporary file left behind. The signal is ignored, so the write fails,
/// the temporary file is removed and the error says what to do; an existing output is kept.
#[cfg(unix)]
#[test]
fn a_save_past_the_file_size_limit_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<u8> = (0..100_000)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    let key_file = write(dir.path(), "k.txt", &keys);
    let out = write(dir.path(), "f.bin", b"the old output");
    // 64 blocks (32 KiB or 64 KiB, as the shell counts them) against a 117 KiB filter.
    let args = build_args("classic", "100K", s(&key_file), s(&out));
    let run = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 64 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_filterlab"))
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    let err = stderr(&run);
    assert_eq!(run.status.code(), Some(2), "{:?}: {err}", run.status);
    assert!(
        err.contains("raise the file-size limit (`ulimit -f`)"),
        "{err}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}
