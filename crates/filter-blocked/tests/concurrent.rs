//! The lock-free split-block filter: the generic lock-free checks and its sizing errors.

use filter_blocked::BlockedBloom;
use filter_core::testkit::{check_lock_free, check_sizing_refusals};
use filter_core::{Filter, HashKind, KeyHasher};

fn builder() -> filter_blocked::BlockedBuilder {
    BlockedBloom::builder()
        .capacity(80_000)
        .fpr(0.01)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, 42).unwrap())
}

#[test]
fn passes_the_lock_free_checks() {
    check_lock_free(
        || builder().build_atomic().unwrap(),
        || builder().build().unwrap(),
    );
}

#[test]
fn bad_sizes_are_errors() {
    check_sizing_refusals(
        BlockedBloom::builder().capacity(0).build_atomic(),
        BlockedBloom::builder()
            .capacity(1 << 60)
            .fpr(0.5)
            .build_atomic(),
        BlockedBloom::builder()
            .capacity(1_000_000)
            .max_bytes(1000)
            .build_atomic(),
    );
}

/// `.pages(Pages::Small)` reaches the table of both forms: a 10 MB table gets no huge page.
/// (Where THP is on, the advised default gets them: the core's table tests check that side.)
#[cfg(target_os = "linux")]
#[test]
fn the_pages_option_reaches_the_table() {
    let big = || {
        BlockedBloom::builder()
            .capacity(12_000_000)
            .pages(filter_core::Pages::Small)
    };
    let single = big().build().unwrap();
    let shared = big().build_atomic().unwrap();
    for bytes in [single.huge_page_bytes(), shared.huge_page_bytes()] {
        assert!(bytes.is_none_or(|b| b == 0), "{bytes:?} huge bytes");
    }
    assert!(single.size_in_bytes() >= 2 * filter_core::HUGE_PAGE_MIN_BYTES);
}
