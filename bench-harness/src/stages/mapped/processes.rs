//! Whole processes: several readers of one file at once and their proportional memory (PSS,
//! where a page shared by k processes counts 1/k to each), and `filterlab query` of one key,
//! its process start included, timed and its peak memory read by `wait4`.

use super::reader::parse_ready;
use super::Access;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Readers of one file that held it at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcessRun {
    /// How each read the file.
    pub access: Access,
    /// Random lookups each made before its memory was read.
    pub lookups: u64,
    /// Each one's PSS, bytes (`Pss` of /proc/PID/smaps_rollup).
    pub pss: Vec<u64>,
    /// Each one's resident memory, bytes (`Rss` of the same file).
    pub rss: Vec<u64>,
}

impl ProcessRun {
    /// Their PSS summed: the memory the readers cost together.
    #[must_use]
    pub fn total_pss(&self) -> u64 {
        self.pss.iter().sum()
    }
}

/// Children that are killed and reaped if the measurement stops early.
struct Readers(Vec<Child>);

impl Drop for Readers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A field of /proc/PID/smaps_rollup, bytes.
fn rollup(pid: u32, field: &str) -> Result<u64> {
    let path = format!("/proc/{pid}/smaps_rollup");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    crate::measure::memory::parse_status(&text, field)
        .with_context(|| format!("{path} has no {field} line"))
}

/// Starts `count` readers (`exe mapped-reader`) of `path` at once, waits until each has made
/// its lookups, reads their memory while all of them hold the file, then lets them go.
///
/// # Errors
/// A reader that cannot start, fails, or says something other than its ready line.
pub fn readers(
    exe: &Path,
    path: &Path,
    access: Access,
    count: usize,
    lookups: u64,
) -> Result<ProcessRun> {
    let mut group = Readers(Vec::with_capacity(count));
    for i in 0..count {
        let child = Command::new(exe)
            .arg("mapped-reader")
            .arg(path)
            .args(["--access", access.word(), "--lookups", &lookups.to_string()])
            .args(["--seed", &i.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {}", exe.display()))?;
        group.0.push(child);
    }
    for c in &mut group.0 {
        let mut line = String::new();
        let out = c.stdout.as_mut().context("a reader without stdout")?;
        std::io::BufReader::new(out).read_line(&mut line)?;
        if parse_ready(&line).is_none() {
            bail!(
                "a {} reader said {line:?}, not its ready line",
                access.word()
            );
        }
    }
    let (mut pss, mut rss) = (Vec::new(), Vec::new());
    for c in &group.0 {
        pss.push(rollup(c.id(), "Pss")?);
        rss.push(rollup(c.id(), "Rss")?);
    }
    for mut c in std::mem::take(&mut group.0) {
        drop(c.stdin.take());
        let status = c.wait()?;
        anyhow::ensure!(
            status.success(),
            "a {} reader ended with {status}",
            access.word()
        );
    }
    Ok(ProcessRun {
        access,
        lookups,
        pss,
        rss,
    })
}

/// `filterlab query FILE KEY`, run again and again: cold (the file's pages evicted before each)
/// and warm (right after, the pages it touched cached). Each run is started by a small process
/// that times it and reads its peak memory ([`super::reader::spawn_measured`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CliRuns {
    /// Wall milliseconds from the spawn to the exit, cold.
    pub cold_ms: Vec<f64>,
    /// The same, warm.
    pub warm_ms: Vec<f64>,
    /// Peak resident memory of each cold run, bytes (`ru_maxrss`).
    pub cold_peak_rss: Vec<u64>,
    /// The same, warm.
    pub warm_peak_rss: Vec<u64>,
}

/// One `filterlab query` run, started and measured by a small process of its own
/// ([`super::reader::spawn_measured`]): (wall ms, peak RSS bytes). The key must be a member: a
/// run that does not exit with 0 (every key present) fails the study.
fn query_once(bin: &Path, path: &Path, key: &[u8]) -> Result<(f64, u64)> {
    use std::os::unix::ffi::OsStrExt;
    let exe = std::env::current_exe()?;
    let out = Command::new(&exe)
        .arg("mapped-spawn")
        .arg(bin)
        .arg("query")
        .arg(path)
        .arg(std::ffi::OsStr::from_bytes(key))
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting {}", exe.display()))?;
    let line = String::from_utf8_lossy(&out.stdout);
    let m = super::reader::Measured::parse(&line)
        .with_context(|| format!("the spawner said {line:?}"))?;
    anyhow::ensure!(
        m.code == Some(0),
        "filterlab query of a member did not exit with 0 ({:?})",
        m.code
    );
    Ok((m.wall_ms, m.peak_rss))
}

/// `runs` cold and warm runs of `filterlab query` on `path` for `key` (a member).
///
/// # Errors
/// Those of a run, or an eviction refused.
pub fn cli(bin: &Path, path: &Path, key: &[u8], runs: usize) -> Result<CliRuns> {
    let mut r = CliRuns::default();
    for _ in 0..runs {
        super::open::evict(path)?;
        let (ms, rss) = query_once(bin, path, key)?;
        r.cold_ms.push(ms);
        r.cold_peak_rss.push(rss);
        let (ms, rss) = query_once(bin, path, key)?;
        r.warm_ms.push(ms);
        r.warm_peak_rss.push(rss);
    }
    Ok(r)
}
