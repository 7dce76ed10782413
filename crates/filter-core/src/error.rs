//! Errors shared by every filter.
//!
//! Each message says what was wrong *and* how to fix the call, so that a user reading a log line
//! does not have to open the source.

use std::fmt;

/// Everything a filter operation can refuse.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// A construction parameter is outside its domain.
    InvalidParameter {
        /// The builder method that received the value (for example `"fpr"`).
        name: &'static str,
        /// The value as the caller passed it, formatted.
        value: String,
        /// What a valid value looks like.
        expected: &'static str,
    },
    /// The requested size does not fit in memory addressing on this platform.
    SizeOverflow {
        /// What was being sized (for example `"bit array"`).
        what: &'static str,
        /// How to make the request smaller.
        hint: String,
    },
    /// The allocator (for a large table on Linux, the kernel) refused the memory for a table;
    /// nothing was allocated or changed.
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// Bytes requested.
        bytes: u64,
    },
    /// A table would take the filter past the memory cap set on its builder; nothing was
    /// allocated or changed.
    MemoryCap {
        /// What was being allocated.
        what: &'static str,
        /// Bytes the filter's tables would take.
        bytes: u64,
        /// The cap.
        cap: u64,
    },
    /// An insert could not be placed; the filter is exactly as it was before the call.
    Full {
        /// Items stored when the insert failed.
        len: u64,
        /// Load factor (stored items / slots) when the insert failed.
        load_factor: f64,
    },
    /// An insert of a key that the filter already holds as many times as one key can be stored
    /// (a cuckoo-style bucket pair full of entries with the key's fingerprint); the filter is
    /// exactly as it was. A larger filter would not help: every copy of a key goes to the same
    /// two buckets.
    TooManyCopies {
        /// The entries with the key's fingerprint in its two buckets (the most they hold).
        copies: u32,
    },
    /// An insert would take the filter's item count past the most it can count; nothing was
    /// changed.
    TooManyItems {
        /// The most items the filter counts.
        limit: u64,
    },
    /// A removal was refused because the filter proves the key is absent.
    NotPresent,
    /// Two filters cannot be combined (different sizes, hash functions or seeds).
    Incompatible(String),
    /// Bytes could not be loaded as a filter.
    Format(FormatError),
    /// The variant has no such operation (a classic filter cannot remove, a static filter
    /// cannot insert): asked of a filter whose variant is known only at run time. Nothing was
    /// changed.
    Unsupported {
        /// The filter's variant.
        variant: &'static str,
        /// What was asked (for example `"remove keys"`).
        operation: &'static str,
        /// The variants that can, comma-separated.
        supported_by: String,
    },
    /// A thread panicked while it held this shard of a
    /// [`Sharded`](crate::concurrent::Sharded) filter, perhaps half way through a relocation
    /// chain or a removal: the shard may have lost keys, so it is no longer used.
    Poisoned {
        /// The shard's index.
        shard: usize,
    },
}

/// `value` if `ok`, else the [`Error::InvalidParameter`] that names the parameter, the value
/// given and what it should be: the one shape of every builder's and loader's parameter check.
///
/// # Errors
/// [`Error::InvalidParameter`] when `ok` is false.
pub fn accept_if<T: fmt::Display + 'static>(
    ok: bool,
    name: &'static str,
    value: T,
    expected: &'static str,
) -> Result<T> {
    if ok {
        return Ok(value);
    }
    // A float as people read it: `1e-300`, not `0.` and 299 more digits (`f64`'s Display).
    let shown = match (&value as &dyn std::any::Any).downcast_ref::<f64>() {
        Some(&x) => crate::math::format_real(x),
        None => value.to_string(),
    };
    Err(Error::InvalidParameter {
        name,
        value: shown,
        expected,
    })
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter {
                name,
                value,
                expected,
            } => write!(f, "invalid `{name}` = {value}: expected {expected}"),
            Error::SizeOverflow { what, hint } => {
                write!(f, "the {what} would be too large to allocate: {hint}")
            }
            Error::OutOfMemory { what, bytes } => write!(
                f,
                "could not allocate {bytes} bytes for the {what}: lower the capacity or raise the \
                 fpr; nothing was changed"
            ),
            Error::MemoryCap { what, bytes, cap } => write!(
                f,
                "the {what} would take the filter to {bytes} bytes, above its memory cap of {cap} \
                 bytes: raise the cap (`max_bytes`) or lower the capacity; nothing was changed"
            ),
            Error::Full { len, load_factor } => write!(
                f,
                "filter is full: could not place the item after the maximum number of relocations \
                 ({len} items stored, load factor {load_factor:.4}); nothing was changed. \
                 Build a larger filter (higher capacity) or use a scalable filter"
            ),
            Error::TooManyCopies { copies } => write!(
                f,
                "the key is already stored {copies} times, the most one key can be (every copy \
                 goes to the same two buckets, which hold {copies} entries; keys the filter cannot \
                 tell from it count too); nothing was changed. A larger filter would not help: \
                 to count repeats use a counting filter, to keep one copy use insert_if_absent"
            ),
            Error::TooManyItems { limit } => write!(
                f,
                "the filter already counts {limit} items, the most it can; nothing was changed. \
                 Remove items or build a larger filter"
            ),
            Error::NotPresent => write!(
                f,
                "refused to remove a key the filter proves absent (one of its counters or \
                 fingerprints is missing); removing it would create false negatives"
            ),
            Error::Incompatible(why) => write!(f, "filters are incompatible: {why}"),
            Error::Format(e) => write!(f, "{e}"),
            Error::Unsupported {
                variant,
                operation,
                supported_by,
            } => write!(
                f,
                "a {variant} filter cannot {operation} (variants that can: {supported_by}); \
                 nothing was changed"
            ),
            Error::Poisoned { shard } => write!(
                f,
                "shard {shard} was damaged by a thread that panicked while holding it (an insert \
                 or removal may have stopped half way); rebuild the filter from its keys"
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Format(e) => Some(e),
            _ => None,
        }
    }
}

impl From<FormatError> for Error {
    fn from(e: FormatError) -> Self {
        Error::Format(e)
    }
}

/// Why a byte string could not be loaded as a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// The input ended before the structure it announced.
    Truncated {
        /// Bytes needed to continue.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// The input does not start with the filterlab magic bytes.
    BadMagic,
    /// The file was written by a newer (or unknown) format version.
    UnsupportedVersion {
        /// Version found in the header.
        found: u16,
        /// Highest version this build reads.
        supported: u16,
    },
    /// The file holds another kind of filter.
    WrongVariant {
        /// The variant the caller asked to load.
        expected: &'static str,
        /// The variant id in the header (`filterlab::any::Variant::from_id` names it).
        found_id: u8,
    },
    /// The header names a hash function this build does not know.
    UnknownHash(u8),
    /// The stored checksum does not match the content: the bytes were corrupted.
    ChecksumMismatch {
        /// Checksum stored in the file.
        stored: u64,
        /// Checksum computed over the content.
        computed: u64,
    },
    /// The bytes are well formed but describe an impossible filter.
    Invalid(String),
    /// Bytes were left over after the filter.
    TrailingBytes(u64),
    /// An authenticated file's MAC does not match: the file was altered, or the key is not the
    /// one it was saved with.
    AuthenticationFailed,
    /// The header declares a payload longer than its parameters allow: refused before the
    /// payload is read.
    PayloadTooLarge {
        /// The length the header declares.
        declared: u64,
        /// The most its parameters allow.
        allowed: u64,
    },
    /// The allocator refused the memory for the loaded filter's tables; nothing was loaded.
    OutOfMemory {
        /// Bytes requested.
        bytes: u64,
    },
    /// The file cannot be opened in place (read through a mapping, with no copy), for the
    /// reason given; it can still be loaded by copy.
    NotInPlace(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Truncated { needed, available } => write!(
                f,
                "truncated filter data: needed {needed} more bytes, only {available} left"
            ),
            FormatError::BadMagic => write!(f, "not a filterlab filter (bad magic bytes)"),
            FormatError::UnsupportedVersion {
                found: 0,
                supported,
            } => write!(
                f,
                "filter format version 0 does not exist (versions start at 1; this build reads up \
                 to {supported}): the file is damaged or was not written by filterlab"
            ),
            FormatError::UnsupportedVersion { found, supported } => write!(
                f,
                "filter format version {found} is newer than this build reads (up to {supported}); \
                 upgrade filterlab"
            ),
            FormatError::WrongVariant { expected, found_id } => write!(
                f,
                "the data holds a filter of variant id {found_id}, not a {expected} filter; load it \
                 with the matching type (or with filterlab::any::AnyFilter, which takes any)"
            ),
            FormatError::UnknownHash(id) => write!(f, "unknown hash function id {id}"),
            FormatError::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): \
                 the data is corrupted"
            ),
            FormatError::Invalid(why) => write!(f, "invalid filter data: {why}"),
            FormatError::TrailingBytes(n) => {
                write!(f, "{n} unexpected bytes after the end of the filter")
            }
            FormatError::AuthenticationFailed => write!(
                f,
                "the file's authentication tag does not match: it was altered, or the key is not \
                 the one it was saved with"
            ),
            FormatError::PayloadTooLarge { declared, allowed } => write!(
                f,
                "the header declares a payload of {declared} bytes, more than the {allowed} its \
                 parameters describe: the file is damaged or crafted"
            ),
            FormatError::OutOfMemory { bytes } => {
                write!(f, "could not allocate {bytes} bytes to load the filter")
            }
            FormatError::NotInPlace(why) => write!(
                f,
                "cannot open the filter in place: {why}; load it instead (a copy in memory), \
                 or save it again with this version to write a file that opens in place"
            ),
        }
    }
}

impl std::error::Error for FormatError {}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
