//! The harness's one module with unsafe code: thin wrappers of three Linux calls that the
//! mapped-files study needs and std does not offer. Each call takes only values it checks or
//! buffers it owns.

use std::os::fd::AsRawFd;

/// Drops the cached pages of `file` (`posix_fadvise(DONTNEED)`; clean pages that no process
/// maps are dropped).
///
/// # Errors
/// The advice refused, with its error number.
pub fn drop_cached(file: &std::fs::File) -> std::io::Result<()> {
    // SAFETY: a valid open descriptor; the call only advises the page cache.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    match rc {
        0 => Ok(()),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// The share of the pages of `bytes` (a mapping, page-aligned) that are in memory (`mincore`);
/// `None` for an empty or misaligned slice, or where the call fails.
#[must_use]
pub fn resident_share(bytes: &[u8]) -> Option<f64> {
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    if bytes.is_empty() || page == 0 || bytes.as_ptr() as usize % page != 0 {
        return None;
    }
    let pages = bytes.len().div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: the range is page-aligned and `bytes` borrows it for the call; mincore fails
    // (ENOMEM) rather than faults on a range that is not mapped; `vec` has one byte a page.
    let rc = unsafe { libc::mincore(bytes.as_ptr() as *mut _, bytes.len(), vec.as_mut_ptr()) };
    (rc == 0).then(|| vec.iter().filter(|&&b| b & 1 == 1).count() as f64 / pages as f64)
}

/// How a child ended and its peak resident memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended {
    /// Its exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Its peak resident memory, bytes (`ru_maxrss`).
    pub peak_rss: u64,
}

/// Waits for `child` (not waited for before) and reads its resource usage (`wait4`).
///
/// # Errors
/// The wait failing.
pub fn wait_with_usage(child: std::process::Child) -> std::io::Result<Ended> {
    let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct; wait4 fills it in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not reaped yet: `child` is consumed here and never
    // waited for by std.
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if rc != pid {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Ended {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        peak_rss: u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_s_exit_code_and_memory_are_read() {
        let ok = std::process::Command::new("true").spawn().unwrap();
        let ended = wait_with_usage(ok).unwrap();
        assert_eq!(ended.code, Some(0));
        assert!(ended.peak_rss > 0);
        let failed = std::process::Command::new("false").spawn().unwrap();
        assert_eq!(wait_with_usage(failed).unwrap().code, Some(1));
    }

    #[test]
    fn misaligned_or_empty_bytes_have_no_resident_share() {
        assert_eq!(resident_share(&[]), None);
        let v = vec![0u8; 3 * 4096];
        let start = v.as_ptr() as usize % 4096;
        // One byte past a page boundary.
        let at = (4096 - start) % 4096 + 1;
        assert_eq!(resident_share(&v[at..]), None);
    }
}
