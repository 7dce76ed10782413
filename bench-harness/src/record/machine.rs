//! The machine a run was on: CPU, cores, memory, compiler, commit, date.

use serde::{Deserialize, Serialize};
use std::process::Command;

/// Where and how the run happened.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model from /proc/cpuinfo.
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Memory from /proc/meminfo.
    pub memory: String,
    /// `rustc --version`.
    pub rustc: String,
    /// `git rev-parse --short HEAD`, with `-dirty` for uncommitted changes to code.
    pub commit: String,
    /// UTC start of the run.
    pub date: String,
    /// Seconds the whole run took.
    pub wall_seconds: f64,
    /// The command line.
    pub command: String,
}

fn first_line_of(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    })
}

impl Machine {
    /// Reads the machine's description (everything but the wall time).
    pub fn detect(command: String) -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map_or_else(
                || std::env::consts::ARCH.to_string(),
                |s| s.trim().to_string(),
            );
        let memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                let kb: f64 = m.lines().next()?.split_whitespace().nth(1)?.parse().ok()?;
                Some(format!("{:.1} GiB", kb / 1024.0 / 1024.0))
            })
            .unwrap_or_else(|| "unknown".into());
        let mut commit = first_line_of("git", &["rev-parse", "--short", "HEAD"])
            .unwrap_or_else(|| "unknown".into());
        if code_is_dirty() {
            commit.push_str("-dirty");
        }
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            memory,
            rustc: first_line_of("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()),
            commit,
            date: utc_now(),
            wall_seconds: 0.0,
            command,
        }
    }
}

/// Whether the work tree holds an uncommitted change to code ([`super::code::counts_as_code`]):
/// a change to a test or to prose does not make the run's commit a lie.
fn code_is_dirty() -> bool {
    let Ok(out) = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
    else {
        return false;
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.get(3..))
        .flat_map(|paths| paths.split(" -> "))
        .any(super::code::counts_as_code)
}

/// The current UTC time as `YYYY-MM-DD HH:MM:SS UTC`, without a date crate.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}
