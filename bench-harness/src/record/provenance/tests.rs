use super::*;
use std::process::Command;

#[test]
fn sources_manifests_scripts_and_the_python_package_count_as_code() {
    for p in [
        "Cargo.toml",
        "Cargo.lock",
        "crates/filter-core/Cargo.toml",
        "crates/filter-core/src/math.rs",
        "crates/filter-blocked/src/kernel.rs",
        "crates/filterlab-py/build.rs",
        "crates/filterlab-py/pyproject.toml",
        "crates/filterlab-py/python/filterlab/pybloom_compat.py",
        "bench-harness/src/stages/builds.rs",
        "bench-harness/src/check/reports/a_new_checker.rs",
        "bench-harness/src/dataset/cultures.txt",
        "bench-harness/peers/src/lib.rs",
        "bench-harness/charts/src/lib.rs",
        "bench-harness/python/bench.py",
        "scripts/python.sh",
        "rust-toolchain.toml",
    ] {
        assert!(counts_as_code(p), "{p} should count as code");
    }
}

#[test]
fn tests_fixtures_benches_examples_and_prose_do_not() {
    for p in [
        "bench-harness/src/check/tests.rs",
        "bench-harness/src/check/tests/floor.rs",
        "bench-harness/src/check/reports/expansion_tests.rs",
        "crates/filter-expand/src/tests/batch.rs",
        "crates/filter-core/tests/conformance.rs",
        "crates/filterlab-cli/tests/common/mod.rs",
        "crates/filterlab-py/tests/test_pybloom_compat.py",
        "bench-harness/benches/filters.rs",
        "bench-harness/examples/blocked_lookups.rs",
        "crates/filterlab/examples/huge_pages.rs",
        "fuzz/fuzz_targets/load.rs",
        "fuzz/Cargo.toml",
        "README.md",
        "crates/filter-core/src/README.md",
        "reports/results.json",
        "justfile",
        ".ci/run",
        "datasets/manifest.json",
    ] {
        assert!(!counts_as_code(p), "{p} should not count as code");
    }
}

/// A repository whose answers are given.
struct Fixed {
    ancestor: bool,
    changed: Vec<&'static str>,
}

impl Repo for Fixed {
    fn is_ancestor(&self, _: &str) -> std::io::Result<bool> {
        Ok(self.ancestor)
    }
    fn changed_between(&self, _: &str, _: &str) -> std::io::Result<Vec<String>> {
        Ok(self.changed.iter().map(|s| s.to_string()).collect())
    }
}

#[test]
fn the_main_report_is_stale_only_after_a_code_change() {
    let tests_only = Fixed {
        ancestor: true,
        changed: vec!["crates/filter-core/tests/a.rs", "README.md"],
    };
    assert!(main_report("abc1234", &tests_only).is_empty());
    let src = Fixed {
        ancestor: true,
        changed: vec!["README.md", "crates/filter-core/src/math.rs"],
    };
    let p = main_report("abc1234", &src);
    assert!(p[0].contains("stale") && p[0].contains("math.rs"), "{p:?}");
    let elsewhere = Fixed {
        ancestor: false,
        changed: vec![],
    };
    assert!(main_report("abc1234", &elsewhere)[0].contains("not an ancestor"));
}

#[test]
fn an_older_study_lists_the_code_changed_and_a_foreign_one_is_a_problem() {
    let older = Fixed {
        ancestor: true,
        changed: vec!["bench-harness/src/a.rs", "bench-harness/src/tests.rs"],
    };
    assert_eq!(
        study("abc1234", "def5678", &older),
        Ok(vec!["bench-harness/src/a.rs".to_string()])
    );
    let tests_only = Fixed {
        ancestor: true,
        changed: vec!["bench-harness/src/tests.rs"],
    };
    assert_eq!(study("abc1234", "def5678", &tests_only), Ok(vec![]));
    let foreign = Fixed {
        ancestor: false,
        changed: vec![],
    };
    let p = study("abc1234", "def5678", &foreign).unwrap_err();
    assert!(p.contains("not in HEAD's history"), "{p}");
    // The main report's own commit needs no git.
    assert_eq!(study("def5678", "def5678", &foreign), Ok(vec![]));
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn commit_file(dir: &Path, path: &str, text: &str) -> String {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", path]);
    git(dir, &["rev-parse", "--short", "HEAD"])
}

/// A real repository: a commit that touches only a test keeps the run current, one that
/// touches a crate's src/ makes it stale.
#[test]
fn real_git_a_test_commit_keeps_the_reports_and_a_src_commit_does_not() {
    let tmp = tempdir();
    let dir = tmp.as_path();
    git(dir, &["init", "-q"]);
    let measured = commit_file(dir, "crates/filter-x/src/lib.rs", "pub fn f() {}\n");
    let repo = Git(dir);
    assert!(main_report(&measured, &repo).is_empty());
    commit_file(dir, "crates/filter-x/tests/t.rs", "#[test] fn t() {}\n");
    commit_file(dir, "crates/filter-x/src/tests.rs", "// a unit test\n");
    assert!(main_report(&measured, &repo).is_empty(), "tests alone");
    commit_file(
        dir,
        "crates/filter-x/src/lib.rs",
        "pub fn f() { let _ = 1; }\n",
    );
    let p = main_report(&measured, &repo);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("crates/filter-x/src/lib.rs"), "{p:?}");
    let head = git(dir, &["rev-parse", "--short", "HEAD"]);
    assert_eq!(
        study(&measured, &head, &repo),
        Ok(vec!["crates/filter-x/src/lib.rs".to_string()])
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A fresh directory under the system's temp dir.
fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "filterlab-provenance-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_harness_render_check_and_book_code_only_renders() {
    for p in [
        "bench-harness/src/render/headline.rs",
        "bench-harness/src/render/mod.rs",
        "bench-harness/src/check/reports/a_new_checker.rs",
        "bench-harness/src/book/examples.rs",
        "bench-harness/src/bin/mdbook-filterlab.rs",
        "bench-harness/charts/src/lib.rs",
    ] {
        assert_eq!(role(p), Some(Role::Renders), "{p}");
    }
    for p in [
        "bench-harness/src/main.rs",
        "bench-harness/src/lib.rs",
        "bench-harness/src/render.rs",
        "bench-harness/src/stages/builds.rs",
        "bench-harness/src/judge/targets/growth.rs",
        "bench-harness/src/measure/rounds.rs",
        "bench-harness/src/record/results.rs",
        "bench-harness/charts/Cargo.toml",
        "crates/filter-core/src/math.rs",
        "scripts/python.sh",
    ] {
        assert_eq!(role(p), Some(Role::Measures), "{p}");
    }
    assert_eq!(role("bench-harness/src/render/tests.rs"), None);
}

#[test]
fn a_change_that_only_renders_keeps_the_reports_and_is_listed() {
    let render_only = Fixed {
        ancestor: true,
        changed: vec!["README.md", "bench-harness/src/render/headline.rs"],
    };
    assert!(main_report("abc1234", &render_only).is_empty());
    assert_eq!(
        rendered_since("abc1234", &render_only),
        ["bench-harness/src/render/headline.rs"]
    );
    assert_eq!(study("abc1234", "def5678", &render_only), Ok(vec![]));
    // A measuring change beside it: stale, and the message names the measuring file only.
    let both = Fixed {
        ancestor: true,
        changed: vec![
            "bench-harness/src/render/headline.rs",
            "bench-harness/src/stages/builds.rs",
        ],
    };
    let p = main_report("abc1234", &both);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("builds.rs") && !p[0].contains("headline.rs"),
        "{p:?}"
    );
}
