//! When a committed run may reuse the venv's wheel.

use super::*;

fn changed(files: &[&str]) -> impl FnOnce(&str) -> std::io::Result<Vec<String>> {
    let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
    move |_| Ok(files)
}

#[test]
fn a_wheel_built_at_the_same_code_is_reused_and_any_other_is_not() {
    // Only tests, prose and the harness changed since: the wheel is the package's code.
    let same = [
        "crates/filterlab-py/tests/test_api.py",
        "README.md",
        "bench-harness/src/lib.rs",
    ];
    assert_eq!(
        judge(Some("abc1234\n"), "def5678", changed(&same)),
        Ok("abc1234".into())
    );
    for (why, stamp, commit, files) in [
        (
            "the package's source",
            Some("abc1234"),
            "def5678",
            vec!["crates/filterlab-py/src/lib.rs"],
        ),
        (
            "a filter crate it builds on",
            Some("abc1234"),
            "def5678",
            vec!["crates/filter-core/src/hash.rs"],
        ),
        (
            "the lock file",
            Some("abc1234"),
            "def5678",
            vec!["Cargo.lock"],
        ),
        (
            "the pins",
            Some("abc1234"),
            "def5678",
            vec!["scripts/python.sh"],
        ),
        (
            "a wheel built from uncommitted code",
            Some("dirty"),
            "def5678",
            vec![],
        ),
        ("no stamp", None, "def5678", vec![]),
        (
            "this run uncommitted",
            Some("abc1234"),
            "def5678-dirty",
            vec![],
        ),
    ] {
        let files: Vec<&str> = files;
        assert!(
            judge(stamp, commit, changed(&files)).is_err(),
            "{why} was reused"
        );
    }
    let err = judge(Some("abc1234"), "def5678", |_| {
        Err(std::io::Error::other("bad object"))
    })
    .unwrap_err();
    assert!(err.contains("bad object"), "{err}");
}
