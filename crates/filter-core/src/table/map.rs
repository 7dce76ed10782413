//! Anonymous mappings for large tables (Linux): aligned to 2 MiB, advised before the first
//! touch, populated up front.

use std::ptr::NonNull;

/// A transparent huge page on x86-64 and (with 4 KiB base pages) arm64.
const HUGE: usize = 2 << 20;

/// `MADV_POPULATE_WRITE` (Linux 5.14+): fault the range in, writable, reporting failure.
const MADV_POPULATE_WRITE: libc::c_int = 23;

/// Maps `bytes` (> 0) of zeroed memory starting on a 2 MiB boundary, advised `MADV_HUGEPAGE`
/// (`huge`) or `MADV_NOHUGEPAGE`, and populated. Returns the start and the mapped length (`bytes`
/// rounded up to whole pages), or `None` when the kernel refuses the mapping or its memory.
pub(super) fn zeroed(bytes: usize, huge: bool) -> Option<(NonNull<u8>, usize)> {
    let page = page_size();
    let len = bytes.checked_next_multiple_of(page)?;
    // Map 2 MiB more than needed, then give back the unaligned head and the tail: the kernel
    // places a mapping anywhere page aligned, and only a 2 MiB-aligned range can hold huge pages
    // from its first byte.
    let over = len.checked_add(HUGE)?;
    // SAFETY: a new private anonymous mapping at an address the kernel chooses: it aliases
    // nothing in this program.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            over,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return None;
    }
    let head = (raw as usize).next_multiple_of(HUGE) - raw as usize;
    let tail = over - head - len;
    let start = raw.cast::<u8>().wrapping_add(head);
    // SAFETY: `head` and `tail` are whole pages (`raw`, `HUGE` and `len` are page multiples) at
    // the two ends of the mapping just made, outside `[start, start + len)`, and nothing refers to
    // them. The advice only sets the page-size policy of `[start, start + len)`, which is ours;
    // its failure (THP compiled out) leaves ordinary pages, so its result is ignored.
    unsafe {
        if head > 0 {
            libc::munmap(raw, head);
        }
        if tail > 0 {
            libc::munmap(start.add(len).cast(), tail);
        }
        let advice = if huge {
            libc::MADV_HUGEPAGE
        } else {
            libc::MADV_NOHUGEPAGE
        };
        libc::madvise(start.cast(), len, advice);
    }
    let start = NonNull::new(start)?;
    if populate(start, len, page) {
        Some((start, len))
    } else {
        // SAFETY: the mapping made above, of `len` bytes from `start`; nothing refers to it.
        unsafe { unmap(start, len) };
        None
    }
}

/// Faults in every page of `[start, start + len)`; `false` when the kernel reports that it
/// cannot. Kernels before 5.14 do not know `MADV_POPULATE_WRITE`: then one byte per page is
/// written, and a shortage shows up as the OOM killer instead of an error.
fn populate(start: NonNull<u8>, len: usize, page: usize) -> bool {
    // SAFETY: `[start, start + len)` is a fresh writable mapping owned by the caller; populating
    // it only faults its (zero) pages in.
    if unsafe { libc::madvise(start.as_ptr().cast(), len, MADV_POPULATE_WRITE) } == 0 {
        return true;
    }
    if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
        return false;
    }
    for offset in (0..len).step_by(page) {
        // SAFETY: `offset < len`, inside the writable mapping, which nothing else refers to yet;
        // writing the zero it already holds changes no value.
        unsafe { start.as_ptr().add(offset).write_volatile(0) };
    }
    true
}

/// Releases a mapping made by [`zeroed`].
///
/// # Safety
/// `start` and `len` are those [`zeroed`] returned, and nothing refers to the mapping any more.
pub(super) unsafe fn unmap(start: NonNull<u8>, len: usize) {
    // SAFETY: the caller's promise. munmap fails only for ranges that are not page aligned, which
    // these are; there is nothing to do about a failure but leak the range.
    unsafe { libc::munmap(start.as_ptr().cast(), len) };
}

/// Unmaps the whole pages of a mapping made by [`zeroed`] that lie past its first `keep` bytes
/// (keeping at least one page), and returns its new length.
///
/// # Safety
/// `start` and `len` describe a mapping made by [`zeroed`] (or shrunk by this function), and
/// nothing refers to its bytes past `keep`.
pub(super) unsafe fn shrink(start: NonNull<u8>, len: usize, keep: usize) -> usize {
    let page = page_size();
    let keep = keep.max(1).next_multiple_of(page);
    if keep < len {
        // SAFETY: `[start + keep, start + len)` is whole pages of the mapping, unused (the
        // caller's promise); munmap of part of a mapping leaves the rest mapped.
        unsafe { libc::munmap(start.as_ptr().add(keep).cast(), len - keep) };
        keep
    } else {
        len
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the system; it has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page)
        .ok()
        .filter(|p| p.is_power_of_two())
        .unwrap_or(4096)
}
