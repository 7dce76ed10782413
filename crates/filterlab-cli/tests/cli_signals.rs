//! Killed writers (issue 51): a writer stopped by SIGTERM or SIGINT removes its temporary file
//! (`.NAME.tmp-PID-N`, up to the filter's size) and dies of the signal, the file untouched; one
//! killed by SIGKILL cannot, and the next writer of the file removes what it left, at once
//! rather than after a minute of quiet.
#![cfg(target_os = "linux")]

mod common;
use common::*;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A temporary file as a save by `pid` names it, beside `path`.
fn temporary(path: &Path, pid: u32) -> PathBuf {
    let name = path.file_name().unwrap().to_str().unwrap();
    let tmp = path.with_file_name(format!(".{name}.tmp-{pid}-0"));
    std::fs::write(&tmp, vec![7u8; 4096]).unwrap();
    tmp
}

/// Waits (at most 10 s) until the process `pid` blocks SIGINT and SIGTERM, which it does once
/// its signal thread takes them (a process that never does is killed by the signal's default
/// action, as before).
fn wait_for_signal_thread(pid: u32) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let blocked = status
            .lines()
            .find_map(|l| l.strip_prefix("SigBlk:"))
            .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
            .unwrap_or(0);
        let (int, term) = (1 << (2 - 1), 1 << (15 - 1));
        if blocked & (int | term) == int | term {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sigterm_and_sigint_remove_the_writer_s_temporary_file() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let path = dir.path().join("f.bin");
    json(&build_args("counting", "1000", s(&keys), s(&path)));
    let before = std::fs::read(&path).unwrap();
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        // An `add` reading its keys from stdin, held open: it holds the file's lock, and a
        // temporary file of its pid stands for the save it would be writing.
        let (mut child, stdin) = spawn(&["add", s(&path)], b"bob@example.com\n");
        wait_for_signal_thread(child.id());
        let tmp = temporary(&path, child.id());
        let sent = std::process::Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
        assert!(!tmp.exists(), "SIG{signal} left {}", tmp.display());
        assert_eq!(std::fs::read(&path).unwrap(), before, "SIG{signal}");
    }
}

#[test]
fn the_next_writer_removes_what_a_killed_writer_left() {
    let (dir, keys) = keys_file(b"alice@example.com\n");
    let path = dir.path().join("f.bin");
    json(&build_args("classic", "1000", s(&keys), s(&path)));
    // A writer that is gone (as after SIGKILL), its temporary file written a moment ago; and
    // one of a process that runs (this test), which may still be saving: kept.
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dead = temporary(&path, gone.id());
    let live = temporary(&path, std::process::id());
    let add = filterlab(&["add", s(&path), "carol@example.com"]);
    assert_eq!(add.status.code(), Some(0), "{}", stderr(&add));
    assert!(
        !dead.exists(),
        "the killed writer's temporary file is still there"
    );
    assert!(
        live.exists(),
        "a running process's temporary file was removed"
    );
    // And `build -o` over the file does the same.
    let dead = temporary(&path, gone.id());
    json(&build_args("classic", "1000", s(&keys), s(&path)));
    assert!(
        !dead.exists(),
        "build left the killed writer's temporary file"
    );
}
