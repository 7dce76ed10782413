use super::*;
use filter_core::{Error, Filter};
use std::time::Duration;

fn param(r: filter_core::Result<impl std::fmt::Debug>) -> &'static str {
    match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected an invalid parameter, got {other:?}"),
    }
}

#[test]
fn builders_reject_bad_parameters_with_their_names() {
    assert_eq!(param(ItemWindow::builder().window(0).build()), "window");
    assert_eq!(param(ItemWindow::builder().fpr(1.0).build()), "fpr");
    assert_eq!(
        param(ItemWindow::builder().generations(5).build()),
        "generations"
    );
    let time = || TimeWindow::builder().window(100).items_per_window(100);
    assert_eq!(
        param(time().items_per_window(0).build()),
        "items_per_window"
    );
    assert_eq!(param(time().window(6).build()), "window");
    assert_eq!(param(time().fpr(f64::NAN).build()), "fpr");
    assert_eq!(param(Apbf::builder().k(0).build()), "k, l");
    assert_eq!(param(Apbf::builder().k(40).l(30).build()), "k, l");
    assert_eq!(param(Apbf::builder().k(u32::MAX).build()), "k, l");
    assert_eq!(param(Apbf::builder().window(0).build()), "capacity");
    assert_eq!(param(InstantClock::new(Duration::ZERO)), "tick");
}

#[test]
fn oversized_windows_are_errors_not_panics() {
    let huge = ItemWindow::builder().window(u64::MAX).fpr(1e-12).build();
    assert!(matches!(huge, Err(Error::SizeOverflow { .. })), "{huge:?}");
    let paper = Apbf::builder()
        .window(u64::MAX)
        .sizing(ApbfSizing::Paper)
        .build();
    assert!(
        matches!(paper, Err(Error::SizeOverflow { .. })),
        "{paper:?}"
    );
    let capped = ItemWindow::builder().max_bytes(1_000).build();
    assert!(matches!(capped, Err(Error::MemoryCap { .. })), "{capped:?}");
    let capped = Apbf::builder().max_bytes(1_000).build();
    assert!(matches!(capped, Err(Error::MemoryCap { .. })), "{capped:?}");
}

/// Late timestamps are filed into the current slice, and far-future ones empty the filter,
/// without arithmetic overflow at the ends of the clock.
#[test]
fn time_window_takes_any_timestamp() {
    let mut f = TimeWindow::builder()
        .window(70)
        .items_per_window(100)
        .build()
        .unwrap();
    f.insert_at(b"a", Timestamp(u64::MAX - 5)).unwrap();
    f.insert_at(b"b", Timestamp(0)).unwrap();
    assert!(f.contains_at(b"b", Timestamp(u64::MAX)));
    assert!(f.contains_at(b"a", Timestamp(3)));
    assert_eq!(f.len_at(Timestamp(u64::MAX)), 2);
    let mut g = TimeWindow::builder()
        .window(70)
        .items_per_window(100)
        .build()
        .unwrap();
    assert!(!g.contains_at(b"a", Timestamp(0)), "empty filter");
    g.insert_at(b"a", Timestamp(0)).unwrap();
    g.insert_at(b"b", Timestamp(u64::MAX)).unwrap();
    assert!(!g.contains_at(b"a", Timestamp(u64::MAX)));
    assert!(g.contains_at(b"b", Timestamp(u64::MAX)));
}

/// `forgets_all_at` is true exactly where a query finds nothing of what the window held.
#[test]
fn forgets_all_at_marks_the_jump_that_empties_the_window() {
    let mut f = TimeWindow::builder()
        .window(70)
        .items_per_window(100)
        .build()
        .unwrap();
    assert!(!f.forgets_all_at(Timestamp(u64::MAX)), "nothing to forget");
    f.insert_at(b"a", Timestamp(1_000)).unwrap();
    let last_kept = (1_000..10_000)
        .take_while(|&t| !f.forgets_all_at(Timestamp(t)))
        .last()
        .unwrap();
    assert!(f.contains_at(b"a", Timestamp(last_kept)));
    assert_eq!(f.len_at(Timestamp(last_kept + 1)), 0);
    assert!(f.forgets_all_at(Timestamp(last_kept + 1)));
    assert!(last_kept >= 1_000 + 70, "kept a whole window");
    assert!(!f.forgets_all_at(Timestamp(0)), "the past forgets nothing");
}

#[test]
fn instant_clock_counts_whole_ticks() {
    let origin = std::time::Instant::now();
    let clock = InstantClock::with_origin(origin, Duration::from_millis(10)).unwrap();
    assert_eq!(clock.at(origin + Duration::from_millis(25)), Timestamp(2));
    assert_eq!(clock.at(origin), Timestamp(0));
}

#[test]
fn paper_sizing_builds_the_paper_filter() {
    let f = Apbf::builder()
        .window(8_000)
        .sizing(ApbfSizing::Paper)
        .build()
        .unwrap();
    assert_eq!(
        f.plan().m,
        11_584,
        "ceil(8 * 1000 / ln 2) = 11542, rounded to words"
    );
    assert_eq!(f.size_in_bytes(), 16 * 11_584 / 8);
    assert_eq!(f.name(), "apbf");
}

/// The builders' page advice reaches the tables (a mapping of their own past
/// `HUGE_PAGE_MIN_BYTES`, on Linux): huge pages by default, none when told.
#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn the_page_advice_reaches_the_tables() {
    use filter_core::Pages;
    // About 16 bits (lanes) and 23.5 bits (slices) per in-window item at 1%: past 4 MiB.
    let window = 4_000_000;
    for pages in [Pages::Huge, Pages::Small] {
        let items = ItemWindow::builder().window(window).pages(pages);
        let time = TimeWindow::builder().items_per_window(window).pages(pages);
        let apbf = Apbf::builder().window(window).pages(pages);
        let tables = [
            items.build().unwrap().lanes.words,
            time.build().unwrap().lanes.words,
            apbf.build().unwrap().words,
        ];
        for t in tables {
            assert!(t.len() * 8 >= filter_core::HUGE_PAGE_MIN_BYTES);
            assert_eq!(t.pages(), Some(pages));
        }
    }
    // The default is the advice.
    let default = ItemWindow::builder().window(window).build().unwrap();
    assert_eq!(default.lanes.words.pages(), Some(Pages::Huge));
}
