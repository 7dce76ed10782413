//! Issue 39: opening a filter in place copies no table. A test binary of its own, so that no
//! other test allocates while it measures this process's memory.

#![cfg(target_os = "linux")]

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::Filter;

/// The anonymous resident memory of this process (`RssAnon` of `/proc/self/status`): a copy
/// of a table is anonymous memory; a mapped file's pages are the page cache's (`RssFile`),
/// shared with every process that maps the file.
fn anonymous_resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("RssAnon:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

fn key(i: u64) -> Vec<u8> {
    format!("memory{i}@example.com").into_bytes()
}

/// Every variant that opens in place, with a table above `HUGE_PAGE_MIN_BYTES` (so that a copy
/// would be a fresh mapping, not heap memory a dropped filter left to reuse): the open grows
/// the anonymous memory by a small fraction of the table; the load, the control, by the table.
#[test]
fn an_open_copies_no_table() {
    let dir = std::env::temp_dir().join(format!("filterlab-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for &v in Variant::ALL.iter().filter(|v| v.capabilities().in_place) {
        let (capacity, keys) = if v.capabilities().static_set {
            (6_000_000, 6_000_000)
        } else {
            (5_000_000, 1000)
        };
        let params = Params::new(capacity, 0.01);
        let hashes: Vec<_> = (0..keys).map(|i| params.hasher.hash(&key(i))).collect();
        let f = AnyFilter::build_from_hashes(v, &params, &hashes).unwrap();
        drop(hashes);
        let table = f.size_in_bytes() as u64;
        assert!(
            table > filterlab::HUGE_PAGE_MIN_BYTES as u64,
            "{v}: {table}"
        );
        let path = dir.join(format!("{v}.bin"));
        f.save(&path).unwrap();
        drop(f);

        let before = anonymous_resident_bytes();
        let m = AnyFilter::open(&path).unwrap();
        assert!((0..1000).all(|i| m.contains(&key(i))), "{v}");
        let grown = anonymous_resident_bytes().saturating_sub(before);
        assert!(
            grown < table / 8,
            "{v}: an open grew anonymous memory by {grown} bytes"
        );
        drop(m);
        let before = anonymous_resident_bytes();
        let loaded = AnyFilter::load(&path).unwrap();
        let grown = anonymous_resident_bytes().saturating_sub(before);
        assert!(
            grown > table / 2,
            "{v}: a load grew it by {grown} bytes only"
        );
        drop(loaded);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
