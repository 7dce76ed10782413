//! Tables read in place from a file mapping: [`FileMap`], the read-only mapping of a saved
//! filter, and [`Plain`], the element types whose every bit pattern is a value (so that any
//! bytes of a file are a table of them).
//!
//! A [`Table`] made by [`Table::in_file`] borrows its elements from the mapping (it holds the
//! mapping alive) and never writes to it: the mapping is read-only (`PROT_READ`), and the one
//! way to write through a table, `DerefMut`, first copies a file-backed table into memory of its
//! own (see `owned.rs`). The facade's mapped filter offers no mutation at all, so that copy is
//! only a guard against a variant's own bug, never a path a caller takes.
//!
//! # What a mapping trusts
//! The pages are the file's: another process that truncates the file while it is mapped makes
//! the next read of a lost page raise `SIGBUS`, and one that writes into it changes the
//! answers. filterlab's own saves never do either: they write a new file and rename it over
//! the old one ([`crate::write_atomically_with`]), and a mapping keeps the old file (its inode)
//! until it is dropped. Other writers must do the same.

use super::owned::Table;
use std::fs::File;
use std::io;
use std::sync::Arc;

/// Element types for which every bit pattern of `size_of::<T>()` bytes is a valid, initialised
/// value, so that a file's bytes can be read as a table of them with no check.
///
/// For a one-field tuple struct of a `Plain` type (a filter's block), implement it with
/// [`plain!`](crate::plain), which checks that shape.
///
/// # Safety
/// Every bit pattern of `size_of::<T>()` bytes must be a valid `T`, and `T` must have no
/// interior mutability (a mapped table is shared, read-only, by every reader of the file).
pub unsafe trait Plain: super::Zeroable {}

macro_rules! plain_primitives {
    ($($t:ty),*) => {
        // SAFETY: integers are valid for every bit pattern and have no interior mutability.
        $(unsafe impl Plain for $t {})*
    };
}
plain_primitives!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

// SAFETY: an array's bytes are its elements', each valid for every bit pattern.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// Implements [`Plain`] (and [`Zeroable`](crate::Zeroable)) for a tuple struct with exactly one
/// field, of a `Plain` type, in the module that defines the struct:
///
/// ```
/// #[repr(C, align(32))]
/// struct Block([u32; 8]);
/// filter_core::plain!(Block([u32; 8]));
/// ```
/// A field that is not valid for every bit pattern:
/// ```compile_fail
/// struct Flag(bool);
/// filter_core::plain!(Flag(bool));
/// ```
#[macro_export]
macro_rules! plain {
    ($t:ident($inner:ty)) => {
        $crate::zeroable!($t($inner));
        const _: () = {
            #[allow(dead_code)]
            fn inner_is_plain() {
                fn check<P: $crate::Plain>() {}
                check::<$inner>();
            }
        };
        // SAFETY: `$t` is a struct whose only field is of a `Plain` type (checked above and by
        // `zeroable!`), so any bytes are that field's valid value plus padding.
        unsafe impl $crate::Plain for $t {}
    };
}

/// A saved filter's file, mapped read-only into memory and shared by every table read from it
/// (each holds it alive), with the open file it maps. Cloning is cheap (a reference count).
///
/// The filter may start at a page-aligned offset of a larger file (a gate snapshot's filter
/// follows its header: [`FileMap::new_at`]); [`FileMap::bytes`] and every offset its methods
/// take are then the filter's, counted from that offset.
#[derive(Clone, Debug)]
pub struct FileMap(Arc<(memmap2::Mmap, File, u64)>);

impl FileMap {
    /// Maps the whole of `file` (opened for reading), read-only, and keeps it. The file must
    /// not be empty (an empty mapping is refused by the system): the caller checks its length
    /// first.
    ///
    /// # Errors
    /// The system's refusal of the mapping.
    pub fn new(file: File) -> io::Result<FileMap> {
        // SAFETY: the mapping is read-only and private to this process's view; the hazard of
        // every file mapping remains, that another process truncates or rewrites the file
        // under it (a `SIGBUS` on a lost page, or changed bytes). Saves replace a filter file
        // by rename, which leaves this mapping on the old file; the module documentation
        // states it for other writers. No `&mut` to the mapped bytes is ever made.
        let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
        Ok(FileMap(Arc::new((map, file, 0))))
    }

    /// Maps `file` from `offset` to its end, read-only: a filter saved inside a larger file.
    /// The offset must be a multiple of 4096 (a page on every system filterlab reads files in
    /// place on), so that the filter's aligned tables stay aligned in memory, and below the
    /// file's length.
    ///
    /// # Errors
    /// `InvalidInput` for an offset off a page or at or past the end; the system's refusal of
    /// the mapping.
    pub fn new_at(file: File, offset: u64) -> io::Result<FileMap> {
        let len = file.metadata()?.len();
        if offset % 4096 != 0 || offset >= len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a filter at byte {offset} of a {len}-byte file: a mapped filter starts on a 4096-byte boundary inside the file"),
            ));
        }
        // SAFETY: as in `new`; the mapping starts on a page of the file.
        let map = unsafe { memmap2::MmapOptions::new().offset(offset).map(&file)? };
        Ok(FileMap(Arc::new((map, file, offset))))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0 .0
    }

    /// Reads the whole file (from the mapping's offset) from its open descriptor (the file the
    /// mapping shows, whatever its path names now), in chunks handed to `each` in order: a pass over every byte that
    /// leaves the pages in the page cache only, not mapped into this process (reading them
    /// through [`FileMap::bytes`] would make them all part of its resident memory).
    ///
    /// # Errors
    /// Read errors, and `UnexpectedEof` for a file shorter than the mapping (truncated since).
    pub fn read_chunks(&self, mut each: impl FnMut(&[u8])) -> io::Result<()> {
        #[cfg(unix)]
        {
            // Positional reads: threads that verify one file at once share no file offset.
            use std::os::unix::fs::FileExt;
            // A mapping of its own rather than heap memory: given back to the system when
            // dropped, where a freed heap block may stay resident (glibc serves 1 MiB from the
            // heap once larger blocks have been freed), so that a load's peak, this buffer
            // first and then the tables, is the tables'.
            let mut buf = memmap2::MmapMut::map_anon(1 << 20)?;
            let len = self.bytes().len() as u64;
            let mut at = 0u64;
            while at < len {
                let n = (len - at).min(buf.len() as u64) as usize;
                self.0 .1.read_exact_at(&mut buf[..n], self.0 .2 + at)?;
                each(&buf[..n]);
                at += n as u64;
            }
        }
        #[cfg(not(unix))]
        self.bytes().chunks(1 << 20).for_each(each);
        Ok(())
    }

    /// Reads `dst.len()` bytes of the file from `offset`, by positional reads from its open
    /// descriptor (not through the mapping: the pages are not made part of this process's
    /// resident memory).
    ///
    /// # Errors
    /// Read errors, and `UnexpectedEof` past the file's end (truncated since it was mapped).
    pub fn read_exact_at(&self, dst: &mut [u8], offset: u64) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            let at = offset
                .checked_add(self.0 .2)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            self.0 .1.read_exact_at(dst, at)
        }
        #[cfg(not(unix))]
        {
            let src = usize::try_from(offset)
                .ok()
                .and_then(|at| self.bytes().get(at..)?.get(..dst.len()))
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
            dst.copy_from_slice(src);
            Ok(())
        }
    }

    /// Advises the kernel that the mapping will be read at random (no read-ahead): a filter's
    /// probes are random, and read-ahead around each would read pages no probe wants. Advice
    /// only; its failure changes nothing.
    pub fn advise_random(&self) {
        #[cfg(unix)]
        let _ = self.0 .0.advise(memmap2::Advice::Random);
    }
}

impl<T: Plain> Table<T> {
    /// The elements at `bytes`, a part of `map`, in place: no copy; the table holds `map`
    /// alive. `None` when `bytes` is not inside `map`, its length is not a whole number of
    /// elements, or its start is not aligned for `T`: the caller reports the file as damaged.
    /// Only on little-endian targets, where the file's little-endian words are the values;
    /// elsewhere always `None`.
    pub fn in_file(map: &FileMap, bytes: &[u8]) -> Option<Table<T>> {
        if cfg!(target_endian = "big") || std::mem::size_of::<T>() == 0 {
            return None;
        }
        let whole = map.bytes().as_ptr_range();
        let part = bytes.as_ptr_range();
        let inside = whole.start <= part.start && part.end <= whole.end;
        let size = std::mem::size_of::<T>();
        if !inside
            || bytes.len() % size != 0
            || (part.start as usize) % std::mem::align_of::<T>() != 0
        {
            return None;
        }
        // SAFETY: `bytes` lies inside the mapping (checked), which the table keeps alive through
        // its own reference; its start is aligned for `T` and it holds `len` whole elements
        // (checked); every bit pattern is a `T` (`T: Plain`), so the file's bytes are valid
        // elements whatever they hold.
        Some(unsafe { Table::from_file(map.clone(), part.start.cast::<T>(), bytes.len() / size) })
    }
}

impl<T: Plain> Table<T> {
    /// Overwrites every element with the file's bytes from `offset` (`size_of_val` of the
    /// table's elements, taken as they lie in the file: little-endian on the targets that read
    /// files in place), by positional reads from the open file straight into the table's own
    /// memory: a load's one copy of the table, with no buffer between and no page of the file
    /// mapped into this process.
    ///
    /// # Errors
    /// Read errors, `UnexpectedEof` past the file's end, and `InvalidInput` for a table that
    /// lies in a file mapping itself (read-only). Elements not reached keep their old bytes.
    pub fn fill_from_file(&mut self, map: &FileMap, offset: u64) -> io::Result<()> {
        if self.is_in_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a table read in place from a file cannot be filled",
            ));
        }
        let bytes = std::mem::size_of_val::<[T]>(self);
        let start = self.as_mut_ptr().cast::<u8>();
        // SAFETY: `[start, start + bytes)` is the table's own writable memory (not a file
        // mapping: checked above), borrowed mutably through `self` for this call. Whatever
        // bytes the reads write there make valid elements (`T: Plain`); they are written
        // through a raw pointer, so no reference to them (or to padding inside `T`) is made.
        unsafe { read_into(map, start, bytes, offset) }
    }
}

/// Reads `len` bytes of `map`'s file from `offset` into `dst`.
///
/// # Safety
/// `[dst, dst + len)` is writable memory that nothing else reads or writes during the call.
unsafe fn read_into(map: &FileMap, dst: *mut u8, len: usize, offset: u64) -> io::Result<()> {
    let mut done = 0usize;
    while done < len {
        // At most 1 GiB a call: Linux reads at most 2 GiB less a page in one anyway.
        let want = (len - done).min(1 << 30);
        let at = offset
            .checked_add(done as u64)
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        #[cfg(unix)]
        let n = {
            use std::os::fd::AsRawFd;
            let at = libc::off_t::try_from(at).map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidInput, "a file offset beyond off_t")
            })?;
            // SAFETY: `dst + done` has `want` writable bytes (the caller's range, `done + want
            // <= len`); the descriptor is the open file `map` holds.
            match unsafe { libc::pread(map.0 .1.as_raw_fd(), dst.add(done).cast(), want, at) } {
                n if n < 0 => match io::Error::last_os_error() {
                    e if e.kind() == io::ErrorKind::Interrupted => continue,
                    e => return Err(e),
                },
                n => n as usize,
            }
        };
        #[cfg(not(unix))]
        let n = {
            let src = usize::try_from(at)
                .ok()
                .and_then(|at| map.bytes().get(at..))
                .map_or(&[][..], |b| &b[..b.len().min(want)]);
            // SAFETY: `dst + done` has `want >= src.len()` writable bytes, apart from the
            // mapping (the caller's memory is not the file's).
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst.add(done), src.len()) };
            src.len()
        };
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file ended before the table (truncated since it was opened?)",
            ));
        }
        done += n;
    }
    Ok(())
}
