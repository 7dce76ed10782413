//! [`Persist`]: saving to and loading from the stable format of [`format`](mod@crate::format), in
//! memory, through a reader or writer, or to a file replaced atomically.

use crate::file::{self, DEFAULT_READ_LIMIT};
use crate::{auth, format, Error, FileKind, FileMap, FormatError, Result};

/// The "Files" section of a filter type's page, after its other sections
/// (`#[doc = filter_core::files_doc!()]`): [`Persist`] comes to the variants through a blanket
/// implementation over [`format::Codec`], which rustdoc lists last, under "Blanket
/// Implementations", while the page should say how to save and load where a reader looks.
#[macro_export]
macro_rules! files_doc {
    () => {
        "\n# Files\n\nSaved and loaded through [`Persist`](filter_core::Persist) (listed under \
         \"Blanket Implementations\": it comes through the type's \
         [`Codec`](filter_core::format::Codec)): [`save`](filter_core::Persist::save) writes a \
         new file and renames it over the path (the old file or the new one, never a torn \
         mix), [`load`](filter_core::Persist::load) checks every section and the checksum \
         before it answers, and `to_bytes`/`from_bytes`, `write_to`/`read_from` do the same in \
         memory or on a stream. The format is versioned ([`format`](filter_core::format)); \
         `filterlab info FILE` reads any file."
    };
}

/// Saving to and loading from the stable format described in [`format`](mod@format).
pub trait Persist: Sized {
    /// The kind written in the header.
    const KIND: FileKind;

    /// The filter as bytes. The buffer is allocated infallibly (a failure aborts the process,
    /// as any `Vec` does): for a large filter prefer [`Persist::try_to_bytes`],
    /// [`Persist::write_to`] or [`Persist::save`], which stream it.
    fn to_bytes(&self) -> Vec<u8>;

    /// [`Persist::to_bytes`] with the memory reserved fallibly.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the bytes (or, for a filter saved from a snapshot, the
    /// snapshot) cannot be allocated; nothing is changed.
    fn try_to_bytes(&self) -> Result<Vec<u8>> {
        let mut out = file::FallibleVec::default();
        match self.write_to(&mut out) {
            Ok(()) => Ok(out.bytes),
            Err(_) => Err(Error::OutOfMemory {
                what: "saved filter",
                bytes: out.wanted,
            }),
        }
    }

    /// The filter's file in format version 1, which builds before version 2 read (and load
    /// to the same filter): for a file an older build must read, and for tests of the version 1
    /// path. Saves write version 2.
    ///
    /// # Errors
    /// Those of [`format::layout::to_version_1`], through which the default converts
    /// [`Persist::to_bytes`] (a [`format::Codec`] writes version 1 directly, and cannot fail).
    fn to_bytes_version_1(&self) -> Result<Vec<u8>, FormatError> {
        format::layout::to_version_1(&self.to_bytes())
    }

    /// Loads a filter saved by [`Persist::to_bytes`].
    ///
    /// # Errors
    /// Truncated, corrupted, wrong-variant or newer-version bytes, or parameters that do not
    /// describe a valid filter.
    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError>;

    /// Writes the filter's file to `w`. The variants stream it: header, sections and checksum
    /// go out through a 64 KiB buffer, so the table is never copied (a filter shared between
    /// threads writes from one snapshot of its table, allocated fallibly).
    ///
    /// # Errors
    /// I/O errors of `w`; `OutOfMemory` when a buffer or snapshot cannot be allocated.
    fn write_to<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Reads all of `r`, at most [`DEFAULT_READ_LIMIT`] bytes, and loads it.
    ///
    /// # Errors
    /// As [`Persist::read_from_limited`].
    fn read_from<R: std::io::Read>(r: R) -> std::io::Result<Self> {
        Self::read_from_limited(r, DEFAULT_READ_LIMIT)
    }

    /// Reads a filter's file from `r`, header first, into memory reserved fallibly chunk by
    /// chunk, and loads it: the reading stops at a bad magic or version, and otherwise reads
    /// exactly the length the header declares, refused if above `limit` (an endless reader
    /// costs 24 bytes, not `limit`); a byte after the declared end is refused.
    ///
    /// # Errors
    /// I/O errors (`FileTooLarge` past `limit`, `OutOfMemory`), or the format errors of
    /// [`Persist::from_bytes`] as `InvalidData`.
    fn read_from_limited<R: std::io::Read>(r: R, limit: u64) -> std::io::Result<Self> {
        let bytes = file::read_declared(r, file::Limit::Stream(limit), &Self::check_head)?;
        Self::from_bytes(&bytes)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Saves the filter to `path` safely: streamed ([`Persist::write_to`]) into a new
    /// temporary file in the same directory (a unique name, created exclusively), synced to the
    /// disk, then renamed over `path` (and the directory synced, on Unix). A crash at any point
    /// leaves the old file or the new one, never a torn mix; temporary files that earlier saves
    /// to `path` left behind when killed are removed (see
    /// [`write_atomically_with`](crate::write_atomically_with)).
    ///
    /// # Errors
    /// I/O errors; `path` is then untouched.
    fn save(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        file::write_atomically_with(path.as_ref(), |f| self.write_to(f))
    }

    /// Saves the filter as [`Persist::save`] does, inside an authenticated file: a keyed MAC
    /// (HMAC-SHA256) over the whole file, for files that cross a trust boundary. The plain
    /// file's checksum is not a MAC: anyone can alter `m`, `k` or the seed and recompute it,
    /// and the filter then loads and gives false negatives. See [`auth`].
    ///
    /// # Errors
    /// A key shorter than 16 bytes (`InvalidInput`); the I/O errors of [`Persist::save`].
    fn save_authenticated(
        &self,
        path: impl AsRef<std::path::Path>,
        key: &[u8],
    ) -> std::io::Result<()> {
        file::write_atomically_with(path.as_ref(), |f| auth::write_authenticated(self, key, f))
    }

    /// Loads a file saved by [`Persist::save_authenticated`], checking its tag with `key`
    /// before reading any field of the filter.
    ///
    /// # Errors
    /// I/O errors; as `InvalidData`: a file that is not authenticated, a tag that does not
    /// match (altered file or wrong key), or the format errors of [`Persist::from_bytes`].
    fn load_authenticated(path: impl AsRef<std::path::Path>, key: &[u8]) -> std::io::Result<Self> {
        let bytes = file::read_authenticated_file(path.as_ref())?;
        auth::read_authenticated(&bytes, key)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// What a reader checks with a file's head before it reads the payload ([`Self::load`],
    /// [`Self::read_from_limited`]): for a [`format::Codec`], its variant id and a payload
    /// length its parameters allow ([`format::check_payload`]); nothing by default.
    ///
    /// # Errors
    /// The check's refusal.
    fn check_head(head: &format::Head<'_>) -> Result<(), FormatError> {
        let _ = head;
        Ok(())
    }

    /// The format version saves write ([`format::Codec::WRITE_VERSION`]; 2 by default).
    fn write_version() -> u16 {
        format::DEFAULT_WRITE_VERSION
    }

    /// How a file of format `version` lays out the table ([`format::Codec::table_layout`];
    /// `None` by default: alike in every version).
    fn table_layout(version: u16) -> Option<&'static str> {
        let _ = version;
        None
    }

    /// Loads the filter of a mapped version 2 file ([`format::mapped::read_or_map`]) with
    /// every check of [`Persist::from_bytes`]. A [`format::Codec`] reads each table from the
    /// file straight into its own memory ([`format::mapped::decode_streamed`]), so the load
    /// holds one copy of the filter; by default, the mapping's bytes are decoded as
    /// [`Persist::from_bytes`] decodes them (the file's pages then count as this process's
    /// memory until the mapping is dropped).
    ///
    /// # Errors
    /// As [`Persist::from_bytes`].
    fn from_mapped(map: &FileMap) -> Result<Self, FormatError> {
        Self::from_bytes(map.bytes())
    }

    /// The filter of a file as [`format::mapped::read_or_map`] read it: its bytes
    /// ([`Persist::from_bytes`]) or its mapping ([`Persist::from_mapped`]).
    ///
    /// # Errors
    /// As [`Persist::from_bytes`].
    fn from_file_bytes(file: &format::mapped::FileBytes) -> Result<Self, FormatError> {
        match file {
            format::mapped::FileBytes::Read(bytes) => Self::from_bytes(bytes),
            format::mapped::FileBytes::Mapped(map) => Self::from_mapped(map),
        }
    }

    /// Loads a filter saved by [`Persist::save`] (or any file holding [`Persist::to_bytes`]).
    /// The payload length the header declares is checked against the parameters
    /// ([`Self::check_head`]) before a byte of the payload is read, so a crafted header costs
    /// the header, not the length it declares. A version 2 file is then loaded with one copy
    /// of its tables, read from the file straight into the filter's memory
    /// ([`Persist::from_mapped`]: the peak is the filter, not the file plus the filter); a
    /// version 1 file is read whole into memory reserved fallibly (so a file larger than
    /// memory is an error, not an abort), then decoded.
    ///
    /// # Errors
    /// I/O errors (`OutOfMemory` for a file that does not fit), or the format errors of
    /// [`Persist::from_bytes`] as `InvalidData`.
    fn load(path: impl AsRef<std::path::Path>) -> std::io::Result<Self> {
        let path = path.as_ref();
        let f = std::fs::File::open(path)?;
        let read = format::mapped::read_or_map(&f, &Self::check_head)
            .map_err(|e| file::with_path(e, path))?;
        Self::from_file_bytes(&read)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

impl<C: format::Codec> Persist for C {
    const KIND: FileKind = C::KIND;

    fn to_bytes(&self) -> Vec<u8> {
        format::encode(self)
    }

    fn try_to_bytes(&self) -> Result<Vec<u8>> {
        format::try_encode(self)
    }

    fn to_bytes_version_1(&self) -> Result<Vec<u8>, FormatError> {
        Ok(format::layout::encode_version_1(self))
    }

    fn write_to<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        format::write_to(self, &mut w)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        format::decode_with(bytes)
    }

    fn from_mapped(map: &FileMap) -> Result<Self, FormatError> {
        format::mapped::decode_streamed(map)
    }

    fn check_head(head: &format::Head<'_>) -> Result<(), FormatError> {
        format::check_payload::<C>(head)
    }

    fn write_version() -> u16 {
        C::WRITE_VERSION
    }

    fn table_layout(version: u16) -> Option<&'static str> {
        C::table_layout(version)
    }
}
