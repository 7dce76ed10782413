//! Filter tables: zeroed, allocated fallibly and under an optional memory cap, and, when large,
//! mapped on their own onto transparent huge pages.
//!
//! A filter larger than the caches is probed at random, so with 4 KiB pages nearly every probe
//! also misses the TLB (and under a hypervisor a TLB miss costs a two-level page walk); 2 MiB
//! pages let the TLB cover the whole table. Advice given to memory the allocator hands out does
//! not work: glibc serves 12 MB requests from reused heap memory below its dynamic mmap
//! threshold, memory that is already faulted in on 4 KiB pages, so the advice arrives too late.
//! Hence [`Table`]: on Linux, a table of at least [`HUGE_PAGE_MIN_BYTES`] is an anonymous
//! mapping of its own, aligned to 2 MiB, advised before its first touch and populated up front.
//! Everywhere else it is a `Vec`. The advice is each filter's own ([`Pages`], a builder option
//! carried in [`TableOptions`] down to the allocation; [`Table::pages`] reports it), never a
//! process-wide setting, so two filters built side by side can differ.
//!
//! A table can also be read in place from a saved file ([`Table::in_file`], on a [`FileMap`]):
//! the file's bytes are the table, with no copy (format version 2 lays tables out for it).
//!
//! All `unsafe` code of the table lives in this module: the [`Zeroable`] and [`Plain`]
//! contracts, the raw parts of [`Table`] (`owned.rs`), the system calls (`map.rs`) and the file
//! mapping (`file.rs`).

mod file;
mod owned;
mod smaps;

#[cfg(all(target_os = "linux", not(miri)))]
mod map;

pub use file::{FileMap, Plain};
pub use owned::Table;

use crate::{Error, Result};

/// The page advice a filter's large tables are allocated with: a builder option
/// (`.pages(Pages::Small)`), so that filters built side by side in one process can differ.
/// Advice only: it changes where the table lies, never what it holds, and is not saved with a
/// filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Pages {
    /// Tables of at least [`HUGE_PAGE_MIN_BYTES`] are advised onto transparent huge pages
    /// (`MADV_HUGEPAGE`), so that the TLB covers them (the default).
    #[default]
    Huge,
    /// Such tables are advised against huge pages (`MADV_NOHUGEPAGE`), so that a benchmark
    /// compares huge pages against none at all rather than against whatever the system
    /// defaults to, or a filter sits on the 4 KiB pages its peers get.
    Small,
}

/// How a table is allocated: under which memory cap, and with which page advice. A plain
/// [`MemoryCap`] converts into options with the default advice ([`Pages::Huge`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableOptions {
    /// The memory cap.
    pub cap: MemoryCap,
    /// Page advice for large tables.
    pub pages: Pages,
}

impl From<MemoryCap> for TableOptions {
    fn from(cap: MemoryCap) -> Self {
        TableOptions {
            cap,
            pages: Pages::default(),
        }
    }
}

impl From<Pages> for TableOptions {
    /// No cap, this advice.
    fn from(pages: Pages) -> Self {
        TableOptions {
            cap: MemoryCap::NONE,
            pages,
        }
    }
}

/// Tables at least this large get a mapping of their own (on Linux), advised onto transparent
/// huge pages. Smaller ones fit a few hundred 4 KiB TLB entries and stay on the heap.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// Types for which all-zero bytes are a valid value, so a table of them can start as fresh zero
/// pages from the kernel, with no value written.
///
/// For a one-field tuple struct of a `Zeroable` type (a filter's block), implement it with
/// [`zeroable!`](crate::zeroable), which checks that shape, so that crates that forbid unsafe
/// code need not write the `unsafe impl`.
///
/// # Safety
/// The all-zero bit pattern of `size_of::<T>()` bytes must be a valid, initialised `T`.
pub unsafe trait Zeroable: Sized {}

macro_rules! zeroable_primitives {
    ($($t:ty),*) => {
        // SAFETY: integers and atomic integers are valid for every bit pattern, zero included
        // (the atomics have the layout of their integer).
        $(unsafe impl Zeroable for $t {})*
    };
}
zeroable_primitives!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);
zeroable_primitives!(
    std::sync::atomic::AtomicU8,
    std::sync::atomic::AtomicU16,
    std::sync::atomic::AtomicU32,
    std::sync::atomic::AtomicU64,
    std::sync::atomic::AtomicUsize
);

// SAFETY: an array has no bytes but its elements' (no padding between them), each valid at zero.
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}

/// Implements [`Zeroable`] for a tuple struct with exactly one field, of a `Zeroable` type, in
/// the module that defines the struct. Anything else does not compile:
///
/// ```
/// #[repr(C, align(32))]
/// struct Block([u32; 8]);
/// filter_core::zeroable!(Block([u32; 8]));
/// let t = filter_core::zeroed_table::<Block>(4);
/// assert!(t.iter().all(|b| b.0 == [0; 8]));
/// ```
/// A second field:
/// ```compile_fail
/// struct Two(u32, bool);
/// filter_core::zeroable!(Two(u32));
/// ```
/// Another field type than the one named:
/// ```compile_fail
/// struct Flag(bool);
/// filter_core::zeroable!(Flag(u8));
/// ```
/// A field that is not valid at zero (a reference):
/// ```compile_fail
/// struct Ref(&'static u8);
/// filter_core::zeroable!(Ref(&'static u8));
/// ```
#[macro_export]
macro_rules! zeroable {
    ($t:ident($inner:ty)) => {
        const _: () = {
            // Compiles only if `$t(..)` is an irrefutable pattern with one field, of `$inner`.
            #[allow(dead_code)]
            fn only_field(x: $t) -> $inner {
                let $t(inner) = x;
                inner
            }
            #[allow(dead_code)]
            fn inner_is_zeroable() {
                fn check<Z: $crate::Zeroable>() {}
                check::<$inner>();
            }
        };
        // SAFETY: `$t` is a struct whose only field is of a `Zeroable` type (checked above), so
        // its zero bytes are that field's valid zero value plus padding, which may hold anything.
        unsafe impl $crate::Zeroable for $t {}
    };
}

/// An optional bound on the bytes a filter's tables may take. Builders refuse, with
/// [`Error::MemoryCap`], any table that would exceed it; a scalable filter refuses a new stage
/// that would take its stages past it (and the insert that needed it changes nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryCap(pub Option<u64>);

impl MemoryCap {
    /// No cap: only what the allocator can give.
    pub const NONE: MemoryCap = MemoryCap(None);

    /// Refuses `bytes` more for `what` when `already` bytes are in use.
    ///
    /// # Errors
    /// [`Error::MemoryCap`] when `already + bytes` is above the cap.
    pub fn check(self, what: &'static str, already: u64, bytes: u64) -> Result<()> {
        match self.0 {
            Some(cap) if already.saturating_add(bytes) > cap => Err(Error::MemoryCap {
                what,
                bytes: already.saturating_add(bytes),
                cap,
            }),
            _ => Ok(()),
        }
    }
}

/// A zeroed table of `len` elements for `what` (named in errors), allocated fallibly: a size the
/// platform cannot address, that exceeds `cap`, or that the system refuses is an error, never an
/// abort. The one entry point for every filter table, the atomic ones included.
///
/// On Linux (outside Miri), a table of at least [`HUGE_PAGE_MIN_BYTES`] is an anonymous mapping
/// of its own, aligned to 2 MiB and advised `MADV_HUGEPAGE` before its first touch (see
/// [`TableOptions::pages`], [`Pages::Small`] advises `MADV_NOHUGEPAGE` instead), so that its pages are 2 MiB from the first fault on; its zero pages come
/// from the kernel, with no memset. It is then populated up front (`MADV_POPULATE_WRITE`, Linux
/// 5.14+, else a write to each page): the kernel over-commits memory, so a request it accepts can
/// still fail when its pages are touched, and populating moves that failure here, where
/// `MADV_POPULATE_WRITE` reports it as [`Error::OutOfMemory`] rather than during inserts. The
/// fallback write cannot report it; the cap is the dependable guard for a server that must not be
/// killed (see `Error::MemoryCap`). [`Table::huge_page_bytes`] measures what the kernel gave.
///
/// Smaller tables, other platforms and Miri get a zeroed `Vec`, each page written while zeroing.
///
/// # Errors
/// [`Error::SizeOverflow`], [`Error::MemoryCap`] or [`Error::OutOfMemory`]; nothing is allocated
/// then.
pub fn try_zeroed_table<T: Zeroable>(
    len: usize,
    options: impl Into<TableOptions>,
    what: &'static str,
) -> Result<Table<T>> {
    let options = options.into();
    let cap = options.cap;
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::SizeOverflow {
            what,
            hint: format!("{len} elements do not fit this platform's address space"),
        })?;
    cap.check(what, 0, bytes as u64)?;
    let out_of_memory = || Error::OutOfMemory {
        what,
        bytes: bytes as u64,
    };
    #[cfg(all(target_os = "linux", not(miri)))]
    if bytes >= HUGE_PAGE_MIN_BYTES {
        return Table::mapped(len, options.pages).ok_or_else(out_of_memory);
    }
    Table::heap(len).ok_or_else(out_of_memory)
}

/// As [`try_zeroed_table`] without a cap, for callers that have already checked the size.
///
/// # Panics
/// When the allocation fails; filters use [`try_zeroed_table`].
pub fn zeroed_table<T: Zeroable>(len: usize) -> Table<T> {
    try_zeroed_table(len, MemoryCap::NONE, "table").expect("table allocation")
}

#[cfg(test)]
mod tests;

/// A vector of `len` copies of `value`, its memory reserved fallibly: scratch space of a
/// construction (for tables, [`try_zeroed_table`]).
///
/// # Errors
/// [`Error::OutOfMemory`] naming `what` when the memory cannot be had.
pub fn try_filled<T: Clone>(len: usize, value: T, what: &'static str) -> crate::Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| crate::Error::OutOfMemory {
            what,
            bytes: (len as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    v.resize(len, value);
    Ok(v)
}
