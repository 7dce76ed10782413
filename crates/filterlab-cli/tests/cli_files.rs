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
