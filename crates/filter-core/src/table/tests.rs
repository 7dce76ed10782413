use super::*;
use std::sync::atomic::AtomicU64;

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

/// Writes a pattern, then checks every way out of and back into a table against a `Vec`.
fn check_round_trips(mut t: Table<u64>) {
    let n = t.len();
    assert!(t.iter().all(|&w| w == 0), "zeroed");
    for (i, w) in t.iter_mut().enumerate() {
        *w = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let expected: Vec<u64> = (0..n as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    assert_eq!(*t, *expected);
    let copy = t.clone();
    assert_eq!(copy, t);
    assert_eq!(Table::from(expected.clone()), t);
    let atomic: Table<AtomicU64> = t.convert(AtomicU64::new);
    let back: Vec<u64> = atomic.convert(AtomicU64::into_inner).into();
    assert_eq!(back, expected);
    let mut copy = copy;
    copy[n - 1] ^= 1;
    assert_ne!(Vec::from(copy), expected, "a changed copy must differ");
}

#[test]
fn small_tables_are_zeroed_writable_clonable_and_convertible() {
    // The heap path (every platform, and the one Miri checks).
    check_round_trips(try_zeroed_table(1000, MemoryCap::NONE, "test").unwrap());
    check_round_trips(Table::from(vec![0u64; 3]));
    let mut small = Table::from(vec![1u8, 2, 3]);
    small.truncate(1);
    assert_eq!(*small, [1]);
    let empty: Table<u8> = try_zeroed_table(0, MemoryCap::NONE, "test").unwrap();
    assert!(empty.is_empty() && empty.huge_page_bytes().is_none());
}

#[test]
fn large_tables_are_zeroed_writable_clonable_and_convertible() {
    let t: Table<u64> = try_zeroed_table(HUGE_PAGE_MIN_BYTES, MemoryCap::NONE, "test").unwrap();
    assert_eq!(
        t.is_own_mapping(),
        cfg!(all(target_os = "linux", not(miri))),
        "large tables are mappings of their own on Linux only"
    );
    check_round_trips(t);
}

/// THP mode from sysfs, or why the huge-page test cannot run here.
#[cfg(all(target_os = "linux", not(miri)))]
fn thp_usable() -> std::result::Result<(), String> {
    let path = "/sys/kernel/mm/transparent_hugepage/enabled";
    let mode = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    if mode.contains("[never]") {
        return Err(format!("{path} is `{}`", mode.trim()));
    }
    Ok(())
}

#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn large_tables_advised_arrive_on_huge_pages_and_unadvised_do_not() {
    if let Err(why) = thp_usable() {
        eprintln!("skipped: transparent huge pages are off on this machine ({why})");
        return;
    }
    const BYTES: usize = 16 << 20;
    let advised: Table<u8> = try_zeroed_table(BYTES, MemoryCap::NONE, "test").unwrap();
    let off = TableOptions {
        cap: MemoryCap::NONE,
        pages: Pages::Small,
    };
    let unadvised = try_zeroed_table::<u8>(BYTES, off, "test").unwrap();
    let on = advised.huge_page_bytes().expect("measurable on Linux");
    let off = unadvised.huge_page_bytes().expect("measurable on Linux");
    eprintln!("huge-page bytes: advised {on} of {BYTES}, not advised {off}");
    assert!(on > 0 && on <= BYTES as u64, "{on}");
    assert_eq!(off, 0);
    assert!(advised.iter().chain(unadvised.iter()).all(|&b| b == 0));
}

/// Two large tables allocated side by side carry each its own advice (no process-wide state);
/// a small one, a `Vec`'s buffer, carries none.
#[test]
fn each_table_keeps_the_advice_it_was_allocated_with() {
    let with = |pages| TableOptions {
        cap: MemoryCap::NONE,
        pages,
    };
    let huge: Table<u8> = try_zeroed_table(HUGE_PAGE_MIN_BYTES, with(Pages::Huge), "t").unwrap();
    let small: Table<u8> = try_zeroed_table(HUGE_PAGE_MIN_BYTES, with(Pages::Small), "t").unwrap();
    let heap: Table<u8> = try_zeroed_table(4096, with(Pages::Small), "t").unwrap();
    let default: Table<u8> = try_zeroed_table(HUGE_PAGE_MIN_BYTES, MemoryCap::NONE, "t").unwrap();
    if cfg!(all(target_os = "linux", not(miri))) {
        assert_eq!(huge.pages(), Some(Pages::Huge));
        assert_eq!(small.pages(), Some(Pages::Small));
        assert_eq!(default.pages(), Some(Pages::Huge));
    } else {
        assert_eq!((huge.pages(), small.pages()), (None, None));
    }
    assert_eq!(heap.pages(), None);
}

#[test]
fn convert_keeps_a_vec_buffer() {
    let v = vec![1u32, 2, 3];
    let at = v.as_ptr() as usize;
    let t: Table<std::sync::atomic::AtomicU32> = Table::from(v).convert(Into::into);
    assert_eq!(t.as_ptr() as usize, at);
    let v: Vec<u32> = t.convert(std::sync::atomic::AtomicU32::into_inner).into();
    assert_eq!((v.as_ptr() as usize, v), (at, vec![1, 2, 3]));
}

#[test]
fn large_tables_are_zeroed_and_truncate_as_vecs_do() {
    let mut t: Table<u32> = try_zeroed_table(HUGE_PAGE_MIN_BYTES, MemoryCap::NONE, "test").unwrap();
    let mut v = vec![0u32; t.len()];
    for (i, (a, b)) in t.iter_mut().zip(&mut v).enumerate() {
        (*a, *b) = (i as u32, i as u32);
    }
    for len in [t.len() + 1, t.len() - 1, 5000, 1, 0] {
        t.truncate(len);
        v.truncate(len);
        assert_eq!(*t, *v, "after truncating to {len}");
    }
}
