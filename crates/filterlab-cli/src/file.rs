//! A saved filter of any variant, as the commands handle it: loaded with the path in every
//! message, saved only over a regular file, and described for `info`.

use anyhow::{anyhow, bail, Context, Result};
use filterlab::any::{Mapped, Parameter};
use filterlab::{AnyFilter, Filter, FormatError, Variant};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::fs::File;
use std::io::ErrorKind;
use std::path::Path;

mod lock;
pub use lock::{exclusive, Locked};

/// What `info` shows about a saved filter.
#[derive(Debug, Serialize)]
pub struct Info {
    /// Variant name.
    pub variant: Variant,
    /// Capacity it was sized for (a growing filter: of the stages allocated so far).
    pub capacity: u64,
    /// Items inserted.
    pub items: u64,
    /// Bytes of the tables.
    pub bytes: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// The formula's rate at the current load.
    pub expected_fpr: f64,
    /// Hash function and seed.
    pub hash: String,
    /// Seed.
    pub seed: u64,
    /// The checksum stored in the file (XXH3-64, hex).
    pub checksum: String,
    /// Whether the checksum was verified: every file that was loaded (copied) has been; one
    /// opened in place only with `info --verify`.
    pub checksum_verified: bool,
    /// The file format's version (1; 2 from the version that opens files in place; 3 for the
    /// quotient and Aleph filters' tables in blocks).
    pub format_version: u16,
    /// Whether the file opens in place (mapped, no copy): version 2 or later, a variant whose
    /// tables are flat arrays, and the table laid out as the variant saves it today.
    pub opens_in_place: bool,
    /// How the file lays out the table, for a variant whose versions differ (the quotient and
    /// Aleph filters: "blocked (format 3)", "separate arrays (format 2)"); else `null`.
    pub table_layout: Option<&'static str>,
    /// The format version a save of this filter writes.
    pub writes_version: u16,
    /// Variant parameters, by name.
    pub parameters: Params,
}

/// Named parameters, in display order; a JSON object.
#[derive(Clone, Debug, Default)]
pub struct Params(pub Vec<Parameter>);

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for p in &self.0 {
            map.serialize_entry(p.name, &p.value)?;
        }
        map.end()
    }
}

/// A saved filter read to be queried: opened in place (mapped, no copy) where the file allows
/// it, else loaded.
#[derive(Debug)]
pub enum Reading {
    /// Opened in place: O(1) checks, the whole-file checksum not verified.
    InPlace(Mapped),
    /// Loaded by copy (every check made), with the file's bytes.
    Loaded(AnyFilter, Vec<u8>),
}

impl Reading {
    /// The filter, read-only.
    pub fn filter(&self) -> &AnyFilter {
        match self {
            Reading::InPlace(m) => m,
            Reading::Loaded(f, _) => f,
        }
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Reading::InPlace(m) => m.file_bytes(),
            Reading::Loaded(_, b) => b,
        }
    }
}

/// Opens the filter at `path` in place ([`AnyFilter::open`]) or, where the file does not allow
/// it (a version 1 file, a growing variant) or is refused, loads it as [`load`] does: the load
/// is the authority for every message about the file's bytes. The mapping covers the file's own
/// length, whatever its head declares, so a damaged or crafted head reaches the load's checks;
/// a mapping that fails for itself (no address space under `ulimit -v`, a file system that
/// cannot map) is said, beside the load's own failure.
///
/// # Errors
/// As [`load`]; with the mapping's error when both failed.
pub fn read_only(path: &Path) -> Result<Reading> {
    match AnyFilter::open(path) {
        Ok(m) => Ok(Reading::InPlace(m)),
        // A format refusal (a version 1 file, a variant that does not open in place, damage):
        // the load says what it is, or loads the file.
        Err(e) if e.kind() == ErrorKind::InvalidData => {
            load(path).map(|(f, bytes)| Reading::Loaded(f, bytes))
        }
        Err(map) => load(path)
            .map(|(f, bytes)| Reading::Loaded(f, bytes))
            .map_err(|e| {
                let e = crate::output::chain(&e);
                anyhow!(
                    "{e} (opening it in place failed too: {})",
                    map_cause(&map, path)
                )
            }),
    }
}

/// A mapping's error without the path the library puts in front of it (the message names it).
fn map_cause(e: &std::io::Error, path: &Path) -> String {
    let text = e.to_string();
    let prefix = format!("{}: ", path.display());
    text.strip_prefix(&prefix).unwrap_or(&text).to_string()
}

/// Reads and loads a saved filter; with its bytes.
///
/// # Errors
/// A missing file or something other than a regular file at `path` (a FIFO, a device: see
/// [`open_regular`]), a file that cannot be read, or any format error, with the path in the
/// message.
pub fn load(path: &Path) -> Result<(AnyFilter, Vec<u8>)> {
    let file = open_regular(path)?
        .ok_or_else(|| anyhow!("cannot read {}: no such file", path.display()))?;
    read(&file, path)
}

/// [`load`] of the file a writer has locked: what was locked is what is read, whatever the
/// path names by now.
///
/// # Errors
/// As [`load`].
pub fn load_locked(locked: &Locked) -> Result<(AnyFilter, Vec<u8>)> {
    read(locked.file(), locked.path())
}

fn read(file: &File, path: &Path) -> Result<(AnyFilter, Vec<u8>)> {
    // Memory reserved fallibly, a header declaring more than its parameters describe or more
    // than the file holds refused before the payload is read.
    let bytes = match AnyFilter::read_file(file) {
        Ok(b) => b,
        Err(e) => match e.get_ref().and_then(|i| i.downcast_ref::<FormatError>()) {
            Some(_) if is_python_bloom(file) => bail!(python_bloom(path)),
            Some(format) => bail!(
                "{} is not a usable filterlab filter: {format}",
                path.display()
            ),
            // The library counts the bytes it had reserved when memory ran out; the file's
            // size is the number that matters.
            None if e.kind() == ErrorKind::OutOfMemory => {
                let len = file.metadata().map_or(0, |m| m.len());
                bail!(
                    "cannot read {}: its {len} bytes do not fit in this process's memory; raise \
                     the memory limit (`ulimit -v`) or free memory",
                    path.display()
                )
            }
            None => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        },
    };
    match AnyFilter::from_bytes(&bytes) {
        Ok(f) => Ok((f, bytes)),
        Err(_) if bytes.starts_with(filterlab::PYTHON_BLOOM_MAGIC) => bail!(python_bloom(path)),
        Err(e) => bail!("{} is not a usable filterlab filter: {e}", path.display()),
    }
}

/// The refusal of a file saved by the Python package's `filterlab.Bloom`.
fn python_bloom(path: &Path) -> String {
    format!(
        "{} is a filterlab.Bloom file (the Python package's rbloom-compatible class): its keys \
         are the integers its hash_func returned, which this command cannot compute; load it in \
         Python with filterlab.Bloom.load(path, hash_func)",
        path.display()
    )
}

/// Whether `file` opens with [`filterlab::PYTHON_BLOOM_MAGIC`] (read from its start, whatever
/// was read of it before).
fn is_python_bloom(mut file: &File) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let mut head = [0u8; 16];
    file.seek(SeekFrom::Start(0)).is_ok()
        && file.read_exact(&mut head).is_ok()
        && &head == filterlab::PYTHON_BLOOM_MAGIC
}

/// Opens the filter file at `path` for reading ([`filterlab::open_regular`]: only a regular
/// file, and without waiting on a FIFO); `None` when nothing is there.
///
/// # Errors
/// Something other than a regular file at `path`, or an error opening it.
pub fn open_regular(path: &Path) -> Result<Option<File>> {
    match filterlab::open_regular(path) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == ErrorKind::InvalidInput => bail!("{e}"),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Saves with the library's atomic save (a fresh temporary name opened with `O_EXCL`, synced,
/// renamed over `path`, the directory synced), after checking that `path` is a regular file or
/// missing.
///
/// # Errors
/// Anything but a regular file at `path`, or an I/O error (`path` is then untouched).
pub fn save(filter: &AnyFilter, path: &Path, role: Role) -> Result<()> {
    check_output(path, role)?;
    match filter.save(path) {
        Ok(()) => Ok(()),
        // EFBIG: past the process's file-size limit (SIGXFSZ is ignored, see `main`).
        Err(e) if e.kind() == ErrorKind::FileTooLarge => bail!(
            "cannot save {}: the filter's file is larger than this process may write ({e}); \
             raise the file-size limit (`ulimit -f`) or build a smaller filter; nothing was \
             changed",
            path.display()
        ),
        Err(e) => Err(e).with_context(|| format!("cannot save {}", path.display())),
    }
}

/// Removes, while this process holds the file's write lock, the temporary files that writers of
/// it left when they were killed mid-save (SIGKILL, a crash: SIGINT and SIGTERM are handled,
/// see `crate::signals`), whose processes no longer run. The library's own sweep before every
/// save waits until such a file has gone unmodified for a minute
/// ([`filterlab::remove_stale_temporaries`] with its `STALE_AFTER`), in case a writer on
/// another machine sharing the directory is still writing it; under the lock no other writer
/// of the file is saving, so one that is gone left it for good (a pid that runs is kept).
pub fn remove_killed_saves(locked: &Locked) {
    let _ = filterlab::remove_stale_temporaries(locked.path(), std::time::Duration::ZERO);
}

/// How a command names the file it writes, for the advice of a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `build -o FILE`: any regular file or a new path will do.
    Output,
    /// `add FILE` and `remove FILE`: a saved filter, edited in place.
    Edited,
}

impl Role {
    fn advice(self) -> &'static str {
        match self {
            Role::Output => "give -o a regular file or a new path",
            Role::Edited => "give the path of a filter file that `filterlab build` saved",
        }
    }
}

/// Refuses to replace anything at `path` but a regular file: a symlink, FIFO, device,
/// socket or directory stays as it is.
///
/// # Errors
/// Something else at `path`, or metadata that cannot be read.
pub fn check_output(path: &Path, role: Role) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot inspect {}", path.display())),
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a directory"
    } else {
        special_kind(&kind)
    };
    bail!(
        "refusing to replace {}: it is {what}, not a regular file; {}",
        path.display(),
        role.advice()
    )
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// What `info` shows of a filter read by [`read_only`]; `verified`: whether the checksum of a
/// filter opened in place was verified.
pub fn info(r: &Reading, verified: bool) -> Info {
    let (f, file) = (r.filter(), r.bytes());
    let format_version = filterlab::format::peek_version(file).unwrap_or(1);
    let (writes_version, table_layout) = AnyFilter::table_layout(f.variant(), format_version);
    // A table laid out otherwise than today's (a version 2 quotient file) is converted.
    let current = table_layout == AnyFilter::table_layout(f.variant(), writes_version).1;
    let hasher = f.hasher();
    let tail: [u8; 8] = file[file.len().saturating_sub(8)..]
        .try_into()
        .unwrap_or_default();
    Info {
        variant: f.variant(),
        capacity: f.capacity(),
        items: f.len(),
        bytes: f.size_in_bytes() as u64,
        file_bytes: file.len() as u64,
        expected_fpr: f.expected_fpr(),
        hash: hasher.kind().name().into(),
        seed: hasher.seed(),
        checksum: format!("{:016x}", u64::from_le_bytes(tail)),
        checksum_verified: verified || matches!(r, Reading::Loaded(..)),
        format_version,
        opens_in_place: format_version >= filterlab::format::IN_PLACE_VERSION
            && f.capabilities().in_place
            && current,
        table_layout,
        writes_version,
        parameters: Params(f.parameters()),
    }
}

#[cfg(test)]
mod tests;
