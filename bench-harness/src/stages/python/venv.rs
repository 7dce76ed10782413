//! The project's virtual environment for the Python section: made by `scripts/python.sh
//! --no-tests` (the peers from PyPI, the wheel built from this checkout with maturin, minutes on
//! two cores). A committed run measures the package built from the code it describes; it reuses
//! a venv whose wheel was built from that very code (the commit `scripts/python.sh` stamps into
//! the venv, with no change to the package's code since), and makes a fresh one otherwise.

use crate::record::provenance::{Git, Repo};
use std::path::Path;
use std::process::Command;

/// The file `scripts/python.sh` writes into the venv: the commit its wheel was built at, or
/// `dirty` when the wheel's sources differed from that commit.
pub const STAMP: &str = "filterlab-wheel-commit";

/// Where the wheel's code lives (what `scripts/python.sh` checks clean before it stamps).
pub const WHEEL_PATHS: [&str; 4] = ["crates/", "Cargo.toml", "Cargo.lock", "scripts/python.sh"];

/// Whether a changed file can change the wheel: code ([`crate::record::code::counts_as_code`])
/// under [`WHEEL_PATHS`].
#[must_use]
pub fn changes_the_wheel(path: &str) -> bool {
    WHEEL_PATHS
        .iter()
        .any(|p| path.starts_with(p) || path.ends_with(p))
        && crate::record::code::counts_as_code(path)
}

/// Whether the wheel stamped `stamp` is the one the code at `commit` (the run's, `-dirty` when
/// its code is uncommitted) builds, given the files changed between the stamp's commit and
/// HEAD (`changed`, asked only for a clean stamp): `Ok(stamp's commit)`, or why not.
///
/// # Errors
/// Why the venv must be made afresh.
pub fn judge(
    stamp: Option<&str>,
    commit: &str,
    changed: impl FnOnce(&str) -> std::io::Result<Vec<String>>,
) -> Result<String, String> {
    let stamp = stamp.map(str::trim).unwrap_or_default();
    if commit.ends_with("-dirty") {
        return Err("this run's code is uncommitted".into());
    }
    if stamp.is_empty() || stamp == "dirty" {
        return Err(format!(
            "the venv's wheel is stamped {stamp:?}, not a commit"
        ));
    }
    let changed = changed(stamp).map_err(|e| format!("git cannot compare {stamp}: {e}"))?;
    let code: Vec<String> = changed
        .into_iter()
        .filter(|p| changes_the_wheel(p))
        .collect();
    if code.is_empty() {
        Ok(stamp.to_string())
    } else {
        Err(format!(
            "the wheel was built at {stamp}; the package's code changed since in {}",
            crate::record::provenance::listed(&code, 3)
        ))
    }
}

/// [`judge`] on the venv of `python` (its stamp beside `bin/`) and this checkout's git.
///
/// # Errors
/// Why the venv must be made afresh.
pub fn wheel_is_current(python: &Path, commit: &str) -> Result<String, String> {
    let stamp = python
        .parent()
        .and_then(Path::parent)
        .map(|venv| venv.join(STAMP))
        .and_then(|p| std::fs::read_to_string(p).ok());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    judge(stamp.as_deref(), commit, |c| {
        Git(&root).changed_between(c, "HEAD")
    })
}

/// Runs `bash scripts/python.sh --no-tests` (a fresh venv with the peers, the wheel built from
/// this checkout); a failure (no python3, no network) is reported and left to the check that
/// follows, which then says what is missing.
pub fn make(root: &Path) {
    eprintln!("   the Python venv: bash scripts/python.sh --no-tests");
    let status = Command::new("bash")
        .arg(root.join("scripts/python.sh"))
        .arg("--no-tests")
        .current_dir(root)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => eprintln!("note: scripts/python.sh --no-tests failed ({s})"),
        Err(e) => eprintln!("note: scripts/python.sh could not run: {e}"),
    }
}

#[cfg(test)]
mod tests;
