//! Safe saves: a filter file is replaced whole or not at all.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` so that a crash or a full disk at any moment leaves either the old
/// file or the new one, never a mix: the bytes go to a temporary file in the same directory
/// (a rename is atomic only within one file system), which is flushed to the disk (`fsync`) and
/// then renamed over `path`; on Unix the directory is synced too, so that the rename itself
/// survives a power cut. On error the temporary file is removed and `path` is untouched.
///
/// # Errors
/// Any I/O error of these steps.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary_sibling(path)?;
    let written = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    sync_parent(path)
}

/// The most [`crate::Persist::read_from`] reads, and [`crate::Persist::load`] reads from
/// something that is not a regular file (a pipe, a device): 4 GiB, above any filter the test
/// suite or the harness saves. [`crate::Persist::read_from_limited`] takes another limit.
pub const DEFAULT_READ_LIMIT: u64 = 1 << 32;

/// Bytes read per step: the buffer grows by fallible reservations of at most this much, so
/// an endless reader costs at most `limit` bytes before it is refused.
const CHUNK: usize = 64 << 10;

/// Reads a whole file into memory reserved fallibly. A regular file is read up to the size its
/// metadata gives (a file that grows meanwhile is refused); anything else (a pipe, a device)
/// up to [`DEFAULT_READ_LIMIT`].
///
/// # Errors
/// I/O errors, `OutOfMemory` when the file does not fit, `FileTooLarge` past the limit.
pub fn read_fallibly(path: &Path) -> io::Result<Vec<u8>> {
    read_path(path, DEFAULT_READ_LIMIT)
}

fn read_path(path: &Path, stream_limit: u64) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    let (hint, limit) = if meta.is_file() {
        (meta.len(), meta.len())
    } else {
        (0, stream_limit)
    };
    read_limited(file, hint, limit)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
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
fn temporary_sibling(path: &Path) -> io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
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
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_files_and_leaves_no_temporary_behind() {
        let dir = std::env::temp_dir().join(format!("filterlab-file-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        write_atomically(&path, b"first version, longer").unwrap();
        write_atomically(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        let missing = dir.join("no-such-dir").join("f.bin");
        assert!(write_atomically(&missing, b"x").is_err());
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.bin"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn endless_readers_stop_at_the_limit() {
        let e = read_limited(io::repeat(0), 0, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        // Exactly the limit is fine; one byte more is not.
        assert_eq!(read_limited(&[7u8; 1000][..], 0, 1000).unwrap(), [7; 1000]);
        let e = read_limited(&[7u8; 1001][..], 1001, 1000).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    }

    #[cfg(all(target_os = "linux", not(miri)))] // Miri isolates the file system.
    #[test]
    fn devices_are_read_up_to_the_stream_limit() {
        let e = read_path(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("/dev/zero"), "{e}");
        let dir = std::env::temp_dir().join(format!("filterlab-read-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.bin");
        fs::write(&path, [1, 2, 3]).unwrap();
        assert_eq!(read_fallibly(&path).unwrap(), [1, 2, 3]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
