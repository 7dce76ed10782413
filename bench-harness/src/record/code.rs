//! What counts as code: the files whose change can change a measured figure (see
//! [`mod@crate::check::provenance`] for how the reports use it).

/// Whether a change to `path` (relative to the repository root, `/`-separated) can change a
/// measured figure.
#[must_use]
pub fn counts_as_code(path: &str) -> bool {
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

/// The code files among `changed`, in order.
#[must_use]
pub fn code_changes(changed: &[String]) -> Vec<String> {
    changed
        .iter()
        .filter(|p| counts_as_code(p))
        .cloned()
        .collect()
}
