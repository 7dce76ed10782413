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

/// Reads a whole file into memory reserved fallibly for its size.
///
/// # Errors
/// I/O errors, and `OutOfMemory` when the file does not fit.
pub fn read_fallibly(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let mut bytes = Vec::new();
    usize::try_from(size)
        .ok()
        .and_then(|n| bytes.try_reserve_exact(n).ok())
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!(
                    "{} is {size} bytes, more than fits in memory",
                    path.display()
                ),
            )
        })?;
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
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
}
