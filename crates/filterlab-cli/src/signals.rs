//! SIGINT and SIGTERM: a command stopped while it saves leaves no temporary file behind.
//!
//! A save writes `.NAME.tmp-PID-N` beside the file and renames it over the file (the library's
//! atomic save). Killed by the default action of SIGINT (Ctrl-C) or SIGTERM (`kill`, a service
//! manager, a CI timeout), the process left that file behind, up to the filter's size. Both
//! signals are blocked in every thread from the start of `main` and taken by one thread with
//! `sigwait`, outside any signal handler: it removes this process's temporary files of the file
//! being written ([`writing`]), then dies of the same signal, as before (the shell still sees a
//! process killed by SIGINT or SIGTERM, and the file is the old one, whole: a rename that had
//! not happened does not happen). SIGKILL cannot be caught: the next writer of the file removes
//! what such a process left (`crate::file::remove_killed_saves`).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file a writing command saves to, once it is known.
static WRITING: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Records that this process may save to `path`: its temporary files there are removed if the
/// process is stopped by SIGINT or SIGTERM.
pub fn writing(path: &Path) {
    if let Ok(mut w) = WRITING.lock() {
        *w = Some(path.to_path_buf());
    }
}

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread it starts) and starts the
/// thread that takes them. Called first thing in `main`, before any other thread exists.
#[cfg(unix)]
#[allow(unsafe_code)]
pub fn install() {
    // SAFETY: `sigset_t` is plain data, initialised by `sigemptyset` before use; the calls
    // change only this thread's signal mask, before any other thread exists.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || wait_and_die(set));
    if spawned.is_err() {
        // No thread to take them: the default actions again, as before this module.
        // SAFETY: as above, this thread's mask only.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
pub fn install() {}

/// Waits for SIGINT or SIGTERM, removes this process's temporary files, then dies of the
/// signal.
#[cfg(unix)]
#[allow(unsafe_code)]
fn wait_and_die(set: libc::sigset_t) {
    let mut signal: libc::c_int = 0;
    // SAFETY: `set` is an initialised signal set and `signal` a valid out-pointer.
    if unsafe { libc::sigwait(&set, &mut signal) } != 0 {
        return;
    }
    // A poisoned lock still holds the path: the cleanup matters more than the panic.
    let path = match WRITING.lock() {
        Ok(w) => w.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    if let Some(path) = path {
        remove_own_temporaries(&path);
    }
    // SAFETY: restores the default action and unblocks the signal in this thread only, then
    // raises it at this thread: the process terminates as the signal's default action does.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(signal);
    }
    // Not reached; should the signal be ignored after all, end as the shell would report it.
    std::process::exit(128 + signal);
}

/// Removes the temporary files of this process's saves to `path`: `.NAME.tmp-PID-N`, this pid,
/// regular files only.
pub fn remove_own_temporaries(path: &Path) {
    let Some(name) = path.file_name() else { return };
    let prefix = format!(".{}.tmp-{}-", name.to_string_lossy(), std::process::id());
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let ours = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .is_some_and(|counter| {
                !counter.is_empty() && counter.bytes().all(|b| b.is_ascii_digit())
            });
        if ours && entry.metadata().is_ok_and(|m| m.is_file()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
