//! The servers of the systems stage: PostgreSQL and Redis with RedisBloom, started through the
//! project's scripts (`scripts/pg.sh`, `scripts/redis.sh`) unless the environment already names
//! them (`FILTERLAB_PG`, `FILTERLAB_REDIS`, as `.ci/run` exports), and stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A server this run uses: its connection string, and the directory to stop if we started it.
#[derive(Debug)]
pub struct Server {
    /// Connection string (libpq style for PostgreSQL, a `redis://` URL for Redis).
    pub conn: String,
    started: Option<(PathBuf, String)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some((script, dir)) = &self.started {
            let _ = Command::new("bash")
                .arg(script)
                .args(["stop", dir])
                .status();
        }
    }
}

/// Why a server is missing from the report.
pub type Absent = String;

/// Uses `$env_conn` if set, otherwise runs `scripts/<script> start` and reads its exports.
pub fn obtain(root: &Path, script: &str, env_conn: &str, env_dir: &str) -> Result<Server, Absent> {
    if let Ok(conn) = std::env::var(env_conn) {
        if !conn.is_empty() {
            return Ok(Server {
                conn,
                started: None,
            });
        }
    }
    let path = root.join("scripts").join(script);
    let out = Command::new("bash")
        .arg(&path)
        .arg("start")
        .output()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
        return Err(format!("{script} start failed: {last}"));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let conn = export_value(&text, env_conn).ok_or(format!("{script} printed no {env_conn}"))?;
    let dir = export_value(&text, env_dir).ok_or(format!("{script} printed no {env_dir}"))?;
    Ok(Server {
        conn,
        started: Some((path, dir)),
    })
}

/// The value of `export NAME='value'` in a script's output.
fn export_value(text: &str, name: &str) -> Option<String> {
    let prefix = format!("export {name}=");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(|v| v.trim_matches('\'').to_owned())
}

#[cfg(test)]
mod tests;
