//! Peak resident memory: of the harness, stage by stage, and of the processes it starts.
//!
//! The harness's own peak is `VmHWM` of /proc/self/status, reset at each stage's start
//! (`clear_refs` 5) so that every stage gets its own peak; the run's peak is the largest of them.
//! A child's peak cannot be taken from `getrusage(RUSAGE_CHILDREN)`: Linux counts into a child's
//! `ru_maxrss` the high-water mark of the memory it was forked from, so a child of a 3 GB
//! harness "peaked" at 3 GB whatever it did. A child is watched instead: its `VmRSS` sampled
//! every [`SAMPLE`] while it runs ([`watch`]), a lower bound that misses only spikes shorter
//! than that.

use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How often a watched child's resident memory is read.
pub const SAMPLE: Duration = Duration::from_millis(10);

/// Peak resident memory of a run, bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PeakRss {
    /// The harness process: the largest of its stages' peaks (and of what came before them).
    pub harness: u64,
    /// The largest process it started and watched (0 when it started none): `VmRSS` sampled
    /// every [`SAMPLE`].
    pub children: u64,
}

/// The harness's peaks read before each reset, bytes: what the resets would otherwise lose.
static HARNESS_PEAK: AtomicU64 = AtomicU64::new(0);
/// The largest `VmRSS` any watched child was seen with, bytes.
static CHILD_PEAK: AtomicU64 = AtomicU64::new(0);

/// A field of a /proc status file in bytes (the file gives kB).
fn status_bytes(path: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(path).ok()?;
    parse_status(&status, field)
}

/// `field` of a /proc status text in bytes.
pub(crate) fn parse_status(status: &str, field: &str) -> Option<u64> {
    let kb: u64 = status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// This process's high-water mark since the last reset, bytes.
fn own_hwm() -> Option<u64> {
    let hwm = status_bytes("/proc/self/status", "VmHWM")?;
    HARNESS_PEAK.fetch_max(hwm, Ordering::Relaxed);
    Some(hwm)
}

/// Starts a stage's peak: keeps the peak so far, then resets the high-water mark to the
/// current resident memory. Without the reset (an older kernel), the stage's peak is the
/// process's so far, an upper bound.
pub fn start_stage() {
    let _ = own_hwm();
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The peak resident memory since [`start_stage`], bytes; `None` where the system does not say.
#[must_use]
pub fn stage_peak() -> Option<u64> {
    own_hwm()
}

/// The run's peak resident memory so far; `None` where the system does not say.
#[must_use]
pub fn peak_rss() -> Option<PeakRss> {
    own_hwm()?;
    Some(PeakRss {
        harness: HARNESS_PEAK.load(Ordering::Relaxed),
        children: CHILD_PEAK.load(Ordering::Relaxed),
    })
}

/// Samples a child's resident memory until dropped (drop it after waiting for the child).
pub struct Watch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Watches process `pid`: its `VmRSS`, every [`SAMPLE`], into the run's child peak.
#[must_use]
pub fn watch(pid: u32) -> Watch {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let path = format!("/proc/{pid}/status");
    let thread = std::thread::Builder::new()
        .name(format!("watch {pid}"))
        .spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                match status_bytes(&path, "VmRSS") {
                    Some(rss) => CHILD_PEAK.fetch_max(rss, Ordering::Relaxed),
                    // Gone (or not Linux): nothing more to see.
                    None => break,
                };
                std::thread::sleep(SAMPLE);
            }
        })
        .ok();
    Watch { stop, thread }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs `command` to completion like [`std::process::Command::output`], its memory watched.
///
/// # Errors
/// The command cannot start.
pub fn output(command: &mut std::process::Command) -> std::io::Result<std::process::Output> {
    use std::process::Stdio;
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let _watch = watch(child.id());
    child.wait_with_output()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_bytes_and_by_whole_name() {
        let status = "VmHWMX:\t 1 kB\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(parse_status(status, "VmHWM"), Some(2048 * 1024));
        assert_eq!(parse_status(status, "VmRSS"), Some(1024 * 1024));
        assert_eq!(parse_status(status, "VmSwap"), None);
        assert_eq!(parse_status("VmHWM:\tmany kB\n", "VmHWM"), None);
    }

    #[test]
    fn a_stage_sees_its_own_peak_and_the_run_keeps_the_largest() {
        if own_hwm().is_none() {
            return; // not Linux: nothing to read
        }
        start_stage();
        let big = vec![1u8; 256 << 20];
        std::hint::black_box(&big);
        let with = stage_peak().expect("read before");
        drop(big);
        start_stage();
        let without = stage_peak().expect("read after");
        // The reset forgot the 256 MiB (other tests may allocate meanwhile, hence the margin);
        // the run's peak did not.
        assert!(with >= 256 << 20, "{with}");
        assert!(peak_rss().expect("read").harness >= with);
        assert!(without + (128 << 20) < with, "{without} vs {with}");
    }

    #[test]
    fn a_watched_child_is_seen_with_its_own_memory() {
        if own_hwm().is_none()
            || std::process::Command::new("sh")
                .arg("-c")
                .arg("true")
                .status()
                .is_err()
        {
            return;
        }
        // A shell that holds ~80 MB in a variable for a moment.
        let out = output(
            std::process::Command::new("sh")
                .arg("-c")
                .arg("x=$(head -c 80000000 /dev/zero | tr '\\0' a); sleep 0.2; echo ${#x}"),
        )
        .expect("sh runs");
        assert!(out.status.success());
        assert!(CHILD_PEAK.load(Ordering::Relaxed) >= 80_000_000);
    }
}
