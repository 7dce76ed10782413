//! The `filterlab` binary the stages that run the CLI time.

use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::Command;

/// The `filterlab` binary beside the harness's own, built first (`cargo build --release -p
/// filterlab-cli`; up to date, it costs a second).
///
/// # Errors
/// The build fails, or the binary is not beside the harness's after it.
pub fn cli_binary() -> Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(&cargo)
        .args(["build", "--release", "--quiet", "-p", "filterlab-cli"])
        .status()
        .context("running cargo build for the filterlab binary")?;
    anyhow::ensure!(
        status.success(),
        "cargo build -p filterlab-cli failed: {status}"
    );
    let bin = std::env::current_exe()?
        .parent()
        .context("the harness's directory")?
        .join("filterlab");
    anyhow::ensure!(
        bin.is_file(),
        "{} is not there after the build (is the harness a release build?)",
        bin.display()
    );
    Ok(bin)
}
