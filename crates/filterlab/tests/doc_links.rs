//! `.ci/run` builds the docs with `RUSTDOCFLAGS="-D warnings"` so that a broken intra-doc link
//! fails CI instead of rendering as literal text. This checks that the flag does that with the
//! toolchain in use: a fixture crate (tests/data/doc-links) documented with a link to an item
//! that does not exist must fail `cargo doc`, naming the link; the same crate with the item
//! present must pass.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo doc` of the fixture with `lib` as its src/lib.rs (in a copy under the target
/// directory): whether it passed, and its stderr.
fn doc(name: &str, lib: &str) -> (bool, String) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/doc-links");
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("doc-links");
    let dir = target.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(fixture.join("Cargo.toml"), dir.join("Cargo.toml")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["doc", "--no-deps", "--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target.join("target"))
        .env("RUSTDOCFLAGS", "-D warnings")
        .output()
        .expect("running cargo doc");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_broken_intra_doc_link_fails_the_docs_build() {
    let broken = "//! See [`Sharded`](crate::concurrent::Sharded).\n\npub mod concurrent {}\n";
    let (passed, stderr) = doc("broken", broken);
    assert!(!passed, "a broken link passed:\n{stderr}");
    assert!(
        stderr.contains("unresolved link to `crate::concurrent::Sharded`"),
        "{stderr}"
    );
    let fixed = "//! See [`Sharded`](crate::concurrent::Sharded).\n\npub mod concurrent {\n    \
                 /// A shard.\n    pub struct Sharded;\n}\n";
    let (passed, stderr) = doc("fixed", fixed);
    assert!(passed, "the fixed crate failed:\n{stderr}");
}
