//! Safe saves: a filter file is replaced whole or not at all.

use crate::format::Head;
use crate::FormatError;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

mod lock;
pub use lock::{lock_for_writing, try_lock, wait_for_lock, WriteLock};

/// Writes `bytes` to `path` atomically: [`write_atomically_with`] with one write.
///
/// # Errors
/// Any I/O error of these steps.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |f| f.write_all(bytes))
}

/// Writes a file at `path` through `write` so that a crash or a full disk at any moment leaves
/// either the old file or the new one, never a mix: `write` fills a temporary file in the same
/// directory (a rename is atomic only within one file system) under a name no other save uses
/// (`.<name>.tmp-<pid>-<counter>`, created with `O_EXCL`, so a planted file or symlink there
/// is an error, never followed), which is flushed to the disk (`fsync`) and then renamed over
/// `path`; on Unix the directory is synced too, so that the rename itself survives a power
/// cut. On error the temporary file is removed and `path` is untouched.
///
/// A save killed half way leaves its temporary file behind; each save first removes those of
/// earlier saves to the same `path` ([`remove_stale_temporaries`]).
///
/// Only a regular file is replaced: a device (`/dev/null`), a FIFO, a directory or a symlink
/// at `path` is refused (`InvalidInput`), since the rename would replace the node itself.
///
/// # Errors
/// `path` exists and is not a regular file; any I/O error of these steps, or of `write`.
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} is not a regular file ({}); refusing to replace it with a filter",
                    path.display(),
                    describe(&meta.file_type())
                ),
            ))
        }
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let _ = remove_stale_temporaries(path, STALE_AFTER);
    // A name taken (by a file planted there, say) is never opened: the next one is tried.
    let (tmp, mut f) = (0..16)
        .map(|_| {
            let tmp = temporary_sibling(path)?;
            let f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            Ok((tmp, f))
        })
        .find(|r: &io::Result<_>| !matches!(r, Err(e) if e.kind() == io::ErrorKind::AlreadyExists))
        .unwrap_or_else(|| {
            Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                "16 temporary names in a row were taken",
            ))
        })?;
    let written = (|| {
        write(&mut f)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(path)
}

/// A word for a file type that is not a regular file.
fn describe(t: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// How long a temporary file must have gone unmodified before another save may remove it.
/// A live save writes continuously (its file's modification time keeps moving), so only one
/// that stopped writing is ever this old: killed, or hung.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// How long a temporary file must have gone unmodified before it is removed even though a
/// process with its writer's pid runs (the pid may have been reused, or the file written by
/// another machine sharing the directory).
const ABANDONED_AFTER: Duration = Duration::from_secs(24 * 3600);

/// Removes the temporary files that saves to `path` left behind when they were killed, and
/// returns how many it removed. Only files of `path`'s own temporary pattern are considered:
/// in `path`'s directory, named `.<name>.tmp-<pid>-<counter>` with decimal `pid` and
/// `counter`, regular files (never a symlink, directory or device), and not modified for
/// `quiet`. Of those, a file whose writer (`pid`) no longer runs is removed; one whose pid runs
/// is kept unless unmodified for a day (the pid may have been reused). On systems where a pid
/// cannot be checked (other than Linux), only the day rule applies. A file of this process's
/// own pid is never removed (another thread may be saving). Errors of individual removals are
/// ignored: the next save tries again.
///
/// # Errors
/// The directory cannot be read.
pub fn remove_stale_temporaries(path: &Path, quiet: Duration) -> io::Result<usize> {
    let Some(name) = path.file_name() else {
        return Ok(0);
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".tmp-");
    let prefix = prefix.to_string_lossy().into_owned();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut removed = 0;
    for entry in fs::read_dir(dir)?.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(writer_pid)
        else {
            continue;
        };
        // `DirEntry::metadata` does not follow symlinks: a symlink is not a regular file.
        let Ok(meta) = entry.metadata() else { continue };
        let idle = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or(Duration::ZERO);
        let stale = meta.is_file()
            && pid != std::process::id()
            && idle >= quiet
            && (idle >= ABANDONED_AFTER || process_is_gone(pid));
        if stale && fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    Ok(removed)
}

/// The pid of a temporary name's `<pid>-<counter>` tail, if it is exactly that.
fn writer_pid(tail: &str) -> Option<u32> {
    let (pid, counter) = tail.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(counter) {
        return None;
    }
    pid.parse().ok()
}

#[cfg(target_os = "linux")]
fn process_is_gone(pid: u32) -> bool {
    !Path::new("/proc").join(pid.to_string()).exists() && Path::new("/proc/self").exists()
}

#[cfg(not(target_os = "linux"))]
fn process_is_gone(_pid: u32) -> bool {
    false
}

/// A `Write` into a vector whose every growth is reserved fallibly: a failed reservation is an
/// `OutOfMemory` error, with `wanted` the bytes the vector would have needed.
#[derive(Debug, Default)]
pub(crate) struct FallibleVec {
    pub(crate) bytes: Vec<u8>,
    pub(crate) wanted: u64,
}

impl Write for FallibleVec {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.wanted = self.bytes.len() as u64 + buf.len() as u64;
        self.bytes.try_reserve(buf.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("{} bytes do not fit in memory", self.wanted),
            )
        })?;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The most [`crate::Persist::read_from`] reads, and [`crate::Persist::load`] reads from
/// something that is not a regular file (a pipe, a device): 4 GiB, above any filter the test
/// suite or the harness saves. [`crate::Persist::read_from_limited`] takes another limit.
pub const DEFAULT_READ_LIMIT: u64 = 1 << 32;

/// Bytes read per step: the buffer grows by fallible reservations of at most this much, so
/// an endless reader costs at most `limit` bytes before it is refused.
const CHUNK: usize = 64 << 10;

/// What a reader checks with a file's [`Head`] before it reads the payload: for a known variant,
/// [`check_payload`](crate::format::check_payload) (the `Persist::check_head` of its type);
/// [`no_check`] when the variant is not known.
pub type HeadCheck<'a> = &'a dyn Fn(&Head<'_>) -> Result<(), FormatError>;

/// The [`HeadCheck`] that accepts every head: the read is then bounded by the file's size (or
/// the stream limit) only.
///
/// # Errors
/// None.
pub fn no_check(_: &Head<'_>) -> Result<(), FormatError> {
    Ok(())
}

/// Reads a saved filter's file into memory reserved fallibly, header first: the reading stops
/// at a bad magic or version (8 and 10 bytes in: `/dev/zero` costs 24 bytes, not 4 GiB), and
/// otherwise reads exactly the length the header declares, which must be a regular file's own
/// size (a file shorter or longer than it declares is refused before its payload is read), or
/// for anything else (a pipe, a device) at most [`DEFAULT_READ_LIMIT`]. A parameter section
/// longer than [`MAX_PARAMS_LEN`](crate::format::MAX_PARAMS_LEN) is refused before it is read.
///
/// This knows no variant, so it cannot check the payload length against the parameters: a file
/// whose header declares its own (sparse, huge) size is read whole. The loaders
/// ([`crate::Persist::load`], `filterlab::AnyFilter::load`) check it first, through
/// [`read_fallibly_from`].
///
/// # Errors
/// I/O errors, `OutOfMemory` when the file does not fit, `FileTooLarge` when a stream declares
/// more than the limit, `InvalidData` (holding the [`FormatError`]) for a file shorter or
/// longer than it declares. A file that fails the magic or version check is returned as read
/// so far, for the loader to name.
pub fn read_fallibly(path: &Path) -> io::Result<Vec<u8>> {
    read_path(path, DEFAULT_READ_LIMIT, &no_check)
}

pub(crate) fn read_path(
    path: &Path,
    stream_limit: u64,
    check: HeadCheck<'_>,
) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    read_open(&file, stream_limit, check).map_err(|e| with_path(e, path))
}

/// `e` with `path` in its message, unless it holds a [`FormatError`] (which a caller may
/// want to match, and which the loaders report without the path, as `from_bytes`'s).
pub(crate) fn with_path(e: io::Error, path: &Path) -> io::Error {
    if e.get_ref().is_some_and(|i| i.is::<FormatError>()) {
        return e;
    }
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Opens the file at `path` to read a filter from, refusing anything but a regular file
/// (`InvalidInput`, naming what is there): a FIFO without a writer would block the open and the
/// read forever, and a device such as `/dev/urandom` never ends. The open itself does not wait
/// for a FIFO's writer (`O_NONBLOCK`, which changes nothing for a regular file).
///
/// # Errors
/// The open's error (`NotFound`, `PermissionDenied`, ...), or `InvalidInput` for something
/// other than a regular file.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} is {}, not a regular file: give the path of a saved filter",
                path.display(),
                describe(&kind)
            ),
        ));
    }
    Ok(file)
}

/// [`read_fallibly`] of a file already open (one whose lock the caller holds, say: what is
/// read is the file it locked, not whatever the path names by then), from its current offset,
/// with `check` run on the head before a byte of the payload is read: a loader passes its
/// variant's check, so that a header declaring more payload than its parameters describe is
/// refused having cost the header.
///
/// # Errors
/// As [`read_fallibly`], and the error of `check` as `InvalidData` (holding the
/// [`FormatError`]). The messages do not name the file: the caller knows it.
pub fn read_fallibly_from(file: &File, check: HeadCheck<'_>) -> io::Result<Vec<u8>> {
    read_open(file, DEFAULT_READ_LIMIT, check)
}

fn read_open(file: &File, stream_limit: u64, check: HeadCheck<'_>) -> io::Result<Vec<u8>> {
    let meta = file.metadata()?;
    let limit = if meta.is_file() {
        Limit::FileSize(meta.len())
    } else {
        Limit::Stream(stream_limit)
    };
    read_declared(file, limit, check)
}

/// Reads an authenticated file ([`crate::auth`]): its first 8 bytes, and the rest only if they
/// are the authenticated magic, up to the file's size (a regular file) or
/// [`DEFAULT_READ_LIMIT`], into memory reserved fallibly.
pub(crate) fn read_authenticated_file(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let meta = file.metadata()?;
    let limit = if meta.is_file() {
        meta.len()
    } else {
        DEFAULT_READ_LIMIT
    };
    let mut bytes = Vec::new();
    read_more(&mut file, &mut bytes, crate::auth::AUTH_MAGIC.len() as u64)?;
    if bytes[..] == crate::auth::AUTH_MAGIC {
        // A stream longer than the limit is cut there, and its tag then fails to verify.
        read_more(&mut file, &mut bytes, limit.saturating_sub(8))?;
    }
    Ok(bytes)
}

/// What bounds a read: a regular file's size, or a limit on a stream.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Limit {
    FileSize(u64),
    Stream(u64),
}

fn invalid_data(e: FormatError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// Checks a complete head: `check`, then the declared length against a regular file's size.
fn check_declared(
    head: &Head<'_>,
    declared: u64,
    limit: Limit,
    check: HeadCheck<'_>,
) -> io::Result<()> {
    check(head).map_err(invalid_data)?;
    match limit {
        Limit::FileSize(size) if declared > size => Err(invalid_data(FormatError::Truncated {
            needed: declared,
            available: size,
        })),
        Limit::FileSize(size) if declared < size => {
            Err(invalid_data(FormatError::TrailingBytes(size - declared)))
        }
        Limit::Stream(max) if declared > max => Err(io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("the header declares {declared} bytes, above the limit of {max}"),
        )),
        _ => Ok(()),
    }
}

/// Reads a filter's file from `r` as far as its header declares ([`read_fallibly`]), running
/// `check` on the head before the payload is read. A regular file too short for its header or
/// parameters is read to its end (a few bytes), for the loader to name.
pub(crate) fn read_declared<R: Read>(
    r: R,
    limit: Limit,
    check: HeadCheck<'_>,
) -> io::Result<Vec<u8>> {
    read_declared_until(r, limit, check, &|_| false).map(|(bytes, _)| bytes)
}

/// [`read_declared`], stopping as soon as the head has passed its checks if `stop` says so of
/// the bytes read by then (the head, and perhaps a little more): then returns them with `true`.
pub(crate) fn read_declared_until<R: Read>(
    mut r: R,
    limit: Limit,
    check: HeadCheck<'_>,
    stop: &dyn Fn(&[u8]) -> bool,
) -> io::Result<(Vec<u8>, bool)> {
    let mut bytes = Vec::new();
    let mut checked = false;
    while let Some(declared) = crate::format::declared_len(&bytes) {
        let have = bytes.len() as u64;
        if !checked {
            if let Some(head) = Head::parse(&bytes).map_err(invalid_data)? {
                check_declared(&head, declared, limit, check)?;
                checked = true;
                if stop(&bytes) {
                    return Ok((bytes, true));
                }
            }
        }
        if let Limit::FileSize(size) = limit {
            if declared > size {
                // Only before the head is complete: the header or parameters are cut short.
                read_more(&mut r, &mut bytes, size.saturating_sub(have))?;
                return Ok((bytes, false));
            }
        }
        if declared <= have {
            let mut one = [0u8; 1];
            return match read_retrying(&mut r, &mut one)? {
                0 => Ok((bytes, false)),
                _ => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("more bytes than the {declared} the filter's header declares"),
                )),
            };
        }
        if read_more(&mut r, &mut bytes, declared - have)? < declared - have {
            return Ok((bytes, false)); // ended early: the loader reports the truncation
        }
    }
    Ok((bytes, false))
}

fn read_retrying<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match r.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Appends up to `n` bytes of `r` to `bytes`, reserving at most [`CHUNK`] at a time, fallibly;
/// returns how many it read (fewer at the end of `r`).
fn read_more<R: Read>(r: &mut R, bytes: &mut Vec<u8>, n: u64) -> io::Result<u64> {
    let mut got = 0;
    while got < n {
        let step = (n - got).min(CHUNK as u64) as usize;
        bytes.try_reserve(step).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("{} bytes do not fit in memory", bytes.len() + step),
            )
        })?;
        let at = bytes.len();
        bytes.resize(at + step, 0);
        let read = read_retrying(r, &mut bytes[at..]);
        let k = *read.as_ref().unwrap_or(&0);
        bytes.truncate(at + k);
        if read? == 0 {
            break;
        }
        got += k as u64;
    }
    Ok(got)
}

/// Reads all of `r`, at most `limit` bytes, into memory reserved fallibly: first `hint` bytes
/// at once, then in chunks.
///
/// # Errors
/// I/O errors of `r`, `OutOfMemory` when a reservation fails, `FileTooLarge` when `r` holds
/// more than `limit` bytes.
pub fn read_limited<R: Read>(mut r: R, hint: u64, limit: u64) -> io::Result<Vec<u8>> {
    let too_large = || {
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!("more than the limit of {limit} bytes to read"),
        )
    };
    let oom = |n: u64| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            format!("{n} bytes do not fit in memory"),
        )
    };
    let mut bytes = Vec::new();
    let hint = hint.min(limit);
    usize::try_from(hint)
        .ok()
        .and_then(|n| bytes.try_reserve_exact(n).ok())
        .ok_or_else(|| oom(hint))?;
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if bytes.len() as u64 + n as u64 > limit {
            return Err(too_large());
        }
        bytes
            .try_reserve(n)
            .map_err(|_| oom(bytes.len() as u64 + n as u64))?;
        bytes.extend_from_slice(&chunk[..n]);
    }
}

/// A fresh name next to `path`: `.name.tmp-<pid>-<counter>`.
static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temporary_sibling(path: &Path) -> io::Result<PathBuf> {
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}-{unique}", std::process::id()));
    Ok(path.with_file_name(tmp_name))
}

#[cfg(unix)]
fn sync_parent(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_parent(_path: &Path) -> io::Result<()> {
    // Windows cannot open a directory as a file to sync it; the rename is flushed by NTFS's
    // journal.
    Ok(())
}

#[cfg(test)]
mod tests;
