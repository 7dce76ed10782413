//! Filter tables: zeroed, allocated fallibly and under an optional memory cap, and advised onto
//! transparent huge pages where that helps.

use crate::{Error, Result};
use std::sync::atomic::{AtomicBool, Ordering};

static HUGE_PAGES: AtomicBool = AtomicBool::new(true);

/// Turns the transparent-huge-page advice of [`try_zeroed_table`] on or off for tables built from
/// now on (on by default). Meant for benchmarks that measure what the advice gains.
pub fn set_huge_pages(enabled: bool) {
    HUGE_PAGES.store(enabled, Ordering::Relaxed);
}

/// Tables at least this large are advised to use transparent huge pages.
pub const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

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
/// platform cannot address, that exceeds `cap`, or that the allocator refuses is an error, never
/// an abort.
///
/// On Linux the kernel over-commits memory, so a request it accepts can still fail later when
/// its pages are touched; this function touches every page while zeroing, so a failure shows up
/// here rather than during inserts, and the cap is the dependable guard for a server that must
/// not be killed (see `Error::MemoryCap`).
///
/// On Linux, a table of at least [`HUGE_PAGE_MIN_BYTES`] is put on 2 MiB transparent huge
/// pages (`madvise` with `MADV_HUGEPAGE`, then `MADV_COLLAPSE`, before it is zeroed): a filter larger than the caches
/// is probed at random, so with 4 KiB pages nearly every probe also misses the TLB, and under a
/// hypervisor a TLB miss costs a two-level page walk. The harness measures the gain. Elsewhere,
/// or when the kernel declines, this is a plain zeroed `Vec`.
///
/// # Errors
/// [`Error::SizeOverflow`], [`Error::MemoryCap`] or [`Error::OutOfMemory`]; nothing is allocated
/// then.
pub fn try_zeroed_table<T: Clone + Default>(
    len: usize,
    cap: MemoryCap,
    what: &'static str,
) -> Result<Vec<T>> {
    let bytes = len
        .checked_mul(std::mem::size_of::<T>())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::SizeOverflow {
            what,
            hint: format!("{len} elements do not fit this platform's address space"),
        })?;
    cap.check(what, 0, bytes as u64)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| Error::OutOfMemory {
        what,
        bytes: bytes as u64,
    })?;
    // Advise before the first touch, so the zeroing below already faults in huge pages.
    advise_huge_pages(v.spare_capacity_mut());
    v.resize(len, T::default());
    Ok(v)
}

/// As [`try_zeroed_table`] without a cap, for callers that have already checked the size.
///
/// # Panics
/// When the allocation fails; filters use [`try_zeroed_table`].
pub fn zeroed_table<T: Clone + Default>(len: usize) -> Vec<T> {
    try_zeroed_table(len, MemoryCap::NONE, "table").expect("table allocation")
}

/// The 2 MiB-aligned part `[first, last)` of the region `[start, start + bytes)`, if the region
/// is large enough to be worth advising. Separate from the system call so that Miri runs it.
fn huge_page_range(start: usize, bytes: usize) -> Option<(usize, usize)> {
    const HUGE: usize = 2 << 20;
    if bytes < HUGE_PAGE_MIN_BYTES {
        return None;
    }
    let first = start.checked_next_multiple_of(HUGE)?;
    let last = start.checked_add(bytes)? / HUGE * HUGE;
    (last > first).then_some((first, last))
}

fn advise_huge_pages<T>(region: &mut [T]) {
    if !HUGE_PAGES.load(Ordering::Relaxed) {
        return;
    }
    let start = region.as_mut_ptr() as usize;
    if let Some((first, last)) = huge_page_range(start, std::mem::size_of_val(region)) {
        debug_assert!(first >= start && last <= start + std::mem::size_of_val(region));
        madvise_huge(region, first - start, last - first);
    }
}

/// Advises `len` bytes of `region` from byte `offset` (2 MiB aligned) onto huge pages.
#[cfg(all(target_os = "linux", not(miri)))]
#[allow(unsafe_code)]
fn madvise_huge<T>(region: &mut [T], offset: usize, len: usize) {
    // Linux's MADV_COLLAPSE (6.1+): collapse the range into huge pages now. The allocator may
    // hand out memory that was already touched (glibc reuses freed chunks below its dynamic
    // mmap threshold), where MADV_HUGEPAGE alone only takes effect on future page faults.
    const MADV_COLLAPSE: libc::c_int = 25;
    assert!(offset + len <= std::mem::size_of_val(region));
    let addr = region.as_mut_ptr().cast::<u8>().wrapping_add(offset);
    // SAFETY: [addr, addr + len) lies inside `region` (asserted above), memory this function
    // borrows mutably, so nothing else reads or writes it meanwhile. MADV_HUGEPAGE only sets the
    // kernel's page-size policy for the range; MADV_COLLAPSE moves its contents into huge pages
    // while preserving them byte for byte (the kernel copies and remaps; the range stays valid
    // and readable throughout). Failures (older kernels, THP disabled) leave ordinary pages with
    // the same contents, so their results are ignored. The region may be a vector's spare
    // capacity, not yet initialised: the program reads none of it here, and the kernel keeps
    // whatever bytes are there.
    unsafe {
        libc::madvise(addr.cast(), len, libc::MADV_HUGEPAGE);
        libc::madvise(addr.cast(), len, MADV_COLLAPSE);
    }
}

/// Miri cannot call foreign functions such as `madvise`, and other platforms have no such
/// advice: the table keeps its ordinary pages.
#[cfg(not(all(target_os = "linux", not(miri))))]
fn madvise_huge<T>(_region: &mut [T], _offset: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_page_range_stays_inside_the_region() {
        const M: usize = 2 << 20;
        assert_eq!(huge_page_range(0, HUGE_PAGE_MIN_BYTES - 1), None);
        assert_eq!(huge_page_range(M, 4 * M), Some((M, 5 * M)));
        assert_eq!(huge_page_range(M + 1, 4 * M), Some((2 * M, 5 * M)));
        assert_eq!(huge_page_range(usize::MAX - M, 4 * M), None);
        for start in [1usize, 4095, M - 1, 3 * M + 7] {
            let (first, last) = huge_page_range(start, 5 * M).unwrap();
            assert!(first >= start && last <= start + 5 * M && first % M == 0 && last % M == 0);
        }
    }

    #[test]
    fn impossible_tables_are_errors_not_aborts() {
        // 2^59 bytes fits the address space arithmetic but no machine's memory.
        assert!(matches!(
            try_zeroed_table::<u64>(1 << 56, MemoryCap::NONE, "test"),
            Err(Error::OutOfMemory { .. })
        ));
        assert!(matches!(
            try_zeroed_table::<u64>(usize::MAX / 4, MemoryCap::NONE, "test"),
            Err(Error::SizeOverflow { .. })
        ));
        assert!(matches!(
            try_zeroed_table::<u64>(1000, MemoryCap(Some(7999)), "test"),
            Err(Error::MemoryCap {
                bytes: 8000,
                cap: 7999,
                ..
            })
        ));
        let t = try_zeroed_table::<u64>(1000, MemoryCap(Some(8000)), "test").unwrap();
        assert!(t.len() == 1000 && t.iter().all(|&w| w == 0));
    }

    #[test]
    fn large_tables_are_zeroed_after_the_advice() {
        let t = try_zeroed_table::<u64>(HUGE_PAGE_MIN_BYTES, MemoryCap::NONE, "test").unwrap();
        assert!(t.iter().all(|&w| w == 0));
    }
}
