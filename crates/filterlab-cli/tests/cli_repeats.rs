//! Issue 51: repeated keys through the command line. A scalable filter given keys it already
//! holds changes nothing (it filled a stage per repeat before); an expandable cuckoo filter
//! refuses a copy its newest stage cannot take, with the reason, instead of doubling its memory
//! every 8 copies.

mod common;
use common::*;

fn lines(prefix: &str, n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| format!("{prefix}{i}@example.com\n").into_bytes())
        .collect()
}

#[test]
fn adding_held_keys_to_a_scalable_filter_changes_nothing() {
    let (dir, keys) = keys_file(&lines("user", 1_000));
    let out = dir.path().join("users.bin");
    // Declared for 100: the 1,000 keys already take several stages.
    json(&build_args("scalable", "100", s(&keys), s(&out)));
    let built = std::fs::read(&out).unwrap();
    // The same 1,000 users come back, twice, as events.
    for _ in 0..2 {
        let added = filterlab(&["add", s(&out), "--keys", s(&keys)]);
        assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    }
    let again = filterlab(&["add", s(&out), "user7@example.com", "user7@example.com"]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        built,
        "keys the filter held changed the file"
    );
}

#[test]
fn an_expandable_filter_refuses_a_ninth_copy_with_the_reason() {
    let (dir, keys) = keys_file(&lines("k", 10));
    let out = dir.path().join("sessions.bin");
    json(&build_args("expandable", "1000", s(&keys), s(&out)));
    let size = std::fs::metadata(&out).unwrap().len();
    let mut accepted = 0;
    for _ in 0..12 {
        let o = filterlab(&["add", s(&out), "token@example.com"]);
        match o.status.code() {
            Some(0) => accepted += 1,
            Some(2) => {
                let err = stderr(&o);
                assert!(err.contains("already stored 8 times"), "{err}");
                assert_eq!(err.trim_end().lines().count(), 1, "{err}");
            }
            other => panic!("exit {other:?}: {}", stderr(&o)),
        }
    }
    assert_eq!(accepted, 8);
    assert_eq!(
        std::fs::metadata(&out).unwrap().len(),
        size,
        "copies grew the file"
    );
}
