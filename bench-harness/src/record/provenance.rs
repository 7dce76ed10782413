//! Whether a report was measured at the code it describes.
//!
//! "Code" is what can change a report: the crates' and the harness's `src/` (the generator's
//! word lists included), build scripts, every `Cargo.toml` and `Cargo.lock`, the Python package
//! and the harness's Python scripts, and `scripts/` (which start the servers and pin the Python
//! peers' versions). Tests, fixtures, benches, examples, fuzz targets and Markdown are not: a
//! commit that touches only them leaves every report valid ([`counts_as_code`]). Of the code,
//! some only renders ([`Role::Renders`]: the harness's `render`, `check` and `book` modules, its
//! binaries, the charts crate); the rest measures.
//!
//! The main report must be measured at the measuring code of HEAD: its commit an ancestor of
//! HEAD with no measuring change since ([`main_report`]). A change that only renders needs no
//! new measurement: `bench-harness render` rewrites the pages from the JSON, and `check`
//! re-renders each page with HEAD's code and compares it byte for byte ([`rendered_since`] lists
//! such changes for the reader). A study may be older: its commit must be in HEAD's history, and
//! a measuring change between it and the main report's commit is listed in the index and by
//! `check`, not a failure ([`study`]).

pub use super::code::{changes_that, counts_as_code, role, Role};
use std::path::Path;
use std::process::Command;

/// What the checks ask of the repository.
pub trait Repo {
    /// Whether `commit` is HEAD or one of its ancestors.
    ///
    /// # Errors
    /// git could not be asked.
    fn is_ancestor(&self, commit: &str) -> std::io::Result<bool>;
    /// The files that differ between commits `a` and `b` (`HEAD` names HEAD).
    ///
    /// # Errors
    /// git could not be asked, or does not know a commit.
    fn changed_between(&self, a: &str, b: &str) -> std::io::Result<Vec<String>>;
}

/// The git repository in `dir`.
pub struct Git<'a>(pub &'a Path);

impl Git<'_> {
    fn run(&self, args: &[&str]) -> std::io::Result<std::process::Output> {
        Command::new("git").current_dir(self.0).args(args).output()
    }
}

impl Repo for Git<'_> {
    fn is_ancestor(&self, commit: &str) -> std::io::Result<bool> {
        Ok(self
            .run(&["merge-base", "--is-ancestor", commit, "HEAD"])?
            .status
            .success())
    }

    fn changed_between(&self, a: &str, b: &str) -> std::io::Result<Vec<String>> {
        let out = self.run(&["diff", "--name-only", a, b, "--"])?;
        if !out.status.success() {
            return Err(std::io::Error::other(format!(
                "git diff {a} {b}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect())
    }
}

/// At most `shown` of `files`, then how many more.
#[must_use]
pub fn listed(files: &[String], shown: usize) -> String {
    let mut s = files
        .iter()
        .take(shown)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if files.len() > shown {
        s.push_str(&format!(" and {} more", files.len() - shown));
    }
    s
}

/// The main report's problems: its commit not in HEAD's history, or code changed since.
#[must_use]
pub fn main_report(commit: &str, repo: &dyn Repo) -> Vec<String> {
    match repo.is_ancestor(commit) {
        Ok(true) => {}
        Ok(false) => {
            return vec![format!(
                "the run recorded commit {commit}, which is not an ancestor of HEAD"
            )]
        }
        Err(e) => return vec![format!("provenance not checked: git merge-base: {e}")],
    }
    match repo.changed_between(commit, "HEAD") {
        Ok(changed) => {
            let code = changes_that(Role::Measures, &changed);
            if code.is_empty() {
                Vec::new()
            } else {
                vec![format!(
                    "code that measures changed since the recorded commit {commit} ({}): the \
                     reports are stale; rerun `just bench` (a change to the harness's render, \
                     check or book code alone needs only `just render`)",
                    listed(&code, 5)
                )]
            }
        }
        Err(e) => vec![format!("provenance not checked: git diff: {e}")],
    }
}

/// The code that only renders and changed since `commit` (the pages `check` compares were then
/// rendered by HEAD's code, not the run's); empty when git cannot say (then [`main_report`]
/// reports the problem).
#[must_use]
pub fn rendered_since(commit: &str, repo: &dyn Repo) -> Vec<String> {
    repo.changed_between(commit, "HEAD")
        .map(|changed| changes_that(Role::Renders, &changed))
        .unwrap_or_default()
}

/// A study measured at `commit`, beside the main report measured at `main`: the measuring code
/// files that changed between the two (empty: the same measuring code), or the problem when the study's commit
/// is not in HEAD's history (or git cannot say).
///
/// # Errors
/// The problem, in words.
pub fn study(commit: &str, main: &str, repo: &dyn Repo) -> Result<Vec<String>, String> {
    if commit == main {
        return Ok(Vec::new());
    }
    match repo.is_ancestor(commit) {
        Ok(true) => {}
        Ok(false) => {
            return Err(format!(
                "measured at commit {commit}, which is not in HEAD's history"
            ))
        }
        Err(e) => return Err(format!("provenance not checked: git merge-base: {e}")),
    }
    repo.changed_between(commit, main)
        .map(|changed| changes_that(Role::Measures, &changed))
        .map_err(|e| format!("provenance not checked: git diff: {e}"))
}

#[cfg(test)]
mod tests;
