//! Where the command line writes a filter: only over a regular file (or a new path), through
//! the library's atomic save (issue 16, defects 1 and 2).

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

fn keys(prefix: &str, n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| format!("{prefix}{i}@example.com\n").into_bytes())
        .collect()
}

#[cfg(unix)]
#[test]
fn only_a_regular_file_or_a_new_path_is_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let key_file = write(dir.path(), "keys.txt", &keys("k", 10));

    // A symbolic link stays a link, and its target keeps its bytes.
    let target = write(dir.path(), "target.txt", b"precious");
    let link = dir.path().join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_clean_error(
        &build_args("classic", "10", s(&key_file), s(&link)),
        None,
        "symbolic link, not a regular file",
    );
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"precious");

    // A FIFO stays a FIFO (and the build does not block on it).
    let fifo = dir.path().join("fifo.bin");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        assert_clean_error(
            &build_args("classic", "10", s(&key_file), s(&fifo)),
            None,
            "a FIFO, not a regular file",
        );
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
    }

    // A directory, and add/remove on something that is not a regular file.
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    assert_clean_error(
        &build_args("classic", "10", s(&key_file), s(&sub)),
        None,
        "a directory",
    );
    assert_clean_error(&["add", s(&link), "x"], None, "symbolic link");
    // `add` and `remove` have no -o: their refusal does not advise one (issue 37).
    for command in ["add", "remove"] {
        let run = filterlab(&[command, s(&link), "x"]);
        let err = stderr(&run);
        assert!(err.contains("give the path of a filter file"), "{err}");
        assert!(!err.contains("-o"), "{err}");
    }

    // A regular file and a new path are fine.
    let regular = write(dir.path(), "old.bin", b"old");
    let b = filterlab(&build_args("classic", "10", s(&key_file), s(&regular)));
    assert_eq!(b.status.code(), Some(0), "{}", stderr(&b));
    let fresh = dir.path().join("new.bin");
    let b = filterlab(&build_args("classic", "10", s(&key_file), s(&fresh)));
    assert_eq!(b.status.code(), Some(0), "{}", stderr(&b));
    assert_eq!(
        std::fs::read(&regular).unwrap(),
        std::fs::read(&fresh).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn a_planted_temporary_symlink_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let key_file = write(dir.path(), "keys.txt", &keys("k", 10));
    let victim = write(dir.path(), "victim.txt", b"not yours");
    let out = dir.path().join("f.bin");
    // The fixed name the command line used to write through.
    std::os::unix::fs::symlink(&victim, dir.path().join(".f.bin.tmp")).unwrap();
    let b = filterlab(&build_args("classic", "10", s(&key_file), s(&out)));
    assert_eq!(b.status.code(), Some(0), "{}", stderr(&b));
    assert_eq!(std::fs::read(&victim).unwrap(), b"not yours");
    assert!(std::fs::symlink_metadata(&out)
        .unwrap()
        .file_type()
        .is_file());
    let q = filterlab(&["query", s(&out), "k3@example.com"]);
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    // add and remove save the same way.
    let a = filterlab(&["add", s(&out), "z@example.com"]);
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(std::fs::read(&victim).unwrap(), b"not yours");
}

/// Starts a build reading its keys from stdin to `out`, and gives it `keys` without closing
/// its stdin: it saves only when the caller drops the returned pipe.
fn spawn_build(keys: &[u8], out: &Path) -> (std::process::Child, std::process::ChildStdin) {
    spawn(&build_args("classic", "2M", "-", s(out)), keys)
}

/// With the old fixed temporary name this failed in 2 of 3 runs (a build exited 0, the other
/// exited 2 with "No such file or directory", and the file held the loser's filter).
#[test]
fn two_builds_to_one_output_leave_one_complete_filter_and_tell_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let (a_keys, b_keys) = (keys("a", 20_000), keys("b", 20_000));
    let (a_ref, b_ref) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    for (k, p) in [(&a_keys, &a_ref), (&b_keys, &b_ref)] {
        let out = run_with_stdin(&build_args("classic", "2M", "-", s(p)), Some(k));
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let (a_bytes, b_bytes) = (
        std::fs::read(&a_ref).unwrap(),
        std::fs::read(&b_ref).unwrap(),
    );
    let out = dir.path().join("shared.bin");
    for round in 0..16 {
        // Both have read their keys; closing both inputs at once starts both saves together.
        let ((a, a_in), (b, b_in)) = (spawn_build(&a_keys, &out), spawn_build(&b_keys, &out));
        drop((a_in, b_in));
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let saved = std::fs::read(&out).unwrap();
        let is_a = saved == a_bytes;
        assert!(
            is_a || saved == b_bytes,
            "round {round}: a torn or foreign file"
        );
        // A build that exits 0 while the other failed must be the one saved; a failure says so.
        match (a.status.success(), b.status.success()) {
            (true, true) => {}
            (true, false) => assert!(is_a, "round {round}: {}", stderr(&b)),
            (false, true) => assert!(!is_a, "round {round}: {}", stderr(&a)),
            (false, false) => panic!("round {round}: both failed: {}", stderr(&a)),
        }
        for o in [&a, &b] {
            if !o.status.success() {
                assert!(stderr(o).starts_with("error: cannot save"), "{}", stderr(o));
            }
        }
    }
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}
