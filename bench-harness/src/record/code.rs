//! What counts as code, and what the code does for the reports (see
//! [`mod@crate::check::provenance`] for how the reports use it).
//!
//! Code either **measures** (the filters, the harness's dataset, measure, stages, record and
//! judge modules, manifests, the Python package, scripts) or only **renders** what was measured
//! (the harness's `render`, `check` and `book` modules, its binaries other than the harness
//! itself, and the charts crate). A rendering change leaves every measured figure as it was:
//! `bench-harness render` rewrites the pages from the committed JSON, and `check`, which
//! re-renders every page and compares it byte for byte, then accepts the reports.

/// What a file of code does for the reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A change can move a measured figure or a verdict stored in the JSON: the reports must be
    /// measured again.
    Measures,
    /// A change can only change how the stored figures are shown (or checked): the pages are
    /// rendered again from the JSON, nothing is measured.
    Renders,
}

/// What `path` (relative to the repository root, `/`-separated) does for the reports; `None`
/// when it is not code (tests, fixtures, benches, examples, prose, the reports themselves).
#[must_use]
pub fn role(path: &str) -> Option<Role> {
    if !is_code(path) {
        return None;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let renders = matches!(
        parts.as_slice(),
        [
            "bench-harness",
            "src",
            "render" | "check" | "book" | "bin",
            _,
            ..
        ] | ["bench-harness", "charts", "src", ..]
    );
    Some(if renders {
        Role::Renders
    } else {
        Role::Measures
    })
}

/// Whether a change to `path` (relative to the repository root, `/`-separated) can change a
/// report: code that measures or renders ([`role`]).
#[must_use]
pub fn counts_as_code(path: &str) -> bool {
    role(path).is_some()
}

/// Whether `path` is code at all.
fn is_code(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let file = parts.last().copied().unwrap_or("");
    // Test, bench, example and fixture folders at any depth; the top-level folders of what the
    // code produces or is checked by.
    let never = ["tests", "benches", "examples", "fixtures"];
    if file.ends_with(".md")
        || file == "tests.rs"
        || file.ends_with("_tests.rs")
        || parts[..parts.len() - 1].iter().any(|d| never.contains(d))
        || matches!(parts[0], "reports" | "book" | "fuzz" | "datasets" | ".ci")
    {
        return false;
    }
    if matches!(file, "Cargo.toml" | "Cargo.lock" | "build.rs")
        || matches!(path, "rust-toolchain.toml" | ".cargo/config.toml")
    {
        return true;
    }
    match parts.as_slice() {
        ["crates", _, "src", ..]
        | ["bench-harness", "src", ..]
        | ["bench-harness", "python", ..]
        | ["bench-harness", "peers" | "charts", "src", ..]
        | ["crates", "filterlab-py", "python", ..]
        | ["scripts", ..] => true,
        ["crates", "filterlab-py", f] => *f == "pyproject.toml",
        _ => false,
    }
}

/// The files among `changed` whose [`role`] is `role`, in order.
#[must_use]
pub fn changes_that(role_of_file: Role, changed: &[String]) -> Vec<String> {
    changed
        .iter()
        .filter(|p| role(p) == Some(role_of_file))
        .cloned()
        .collect()
}
