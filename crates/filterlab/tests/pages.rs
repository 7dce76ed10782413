//! The page advice is a per-filter option (`Params::pages`, the builders' `.pages`): two
//! filters built side by side in one process each get their own, and the advice is not part of
//! a saved file.

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::{Filter, Hash128, Pages, HUGE_PAGE_MIN_BYTES};

/// The variants whose builders take the advice, as the registry declares them.
fn take_pages() -> impl Iterator<Item = Variant> {
    Variant::ALL
        .iter()
        .copied()
        .filter(|v| v.capabilities().pages)
}

/// Enough items that every variant's main table passes `HUGE_PAGE_MIN_BYTES`.
const ITEMS: u64 = 6_000_000;

/// The parameters and key hashes a `v` filter is built from so that its main table passes
/// `HUGE_PAGE_MIN_BYTES`: a variant filled by inserts is sized for [`ITEMS`] and left empty; a
/// static one (sized by its key set) gets the fewest keys, in steps of 2^18, whose plan is a
/// quarter above that, at 2^-16 where it can meet that rate (fewer keys to build), else at 1%.
fn large(v: Variant) -> (Params, Vec<Hash128>) {
    if !v.capabilities().static_set {
        return (Params::new(ITEMS, 0.01), Vec::new());
    }
    let (n, p) = [1.0 / 65_536.0, 0.01]
        .into_iter()
        .find_map(|p| {
            (1..64u64).map(|i| i << 18).find_map(|n| {
                let plan = v.plan(&Params::new(n, p)).ok()?;
                (plan.bytes >= HUGE_PAGE_MIN_BYTES as u64 * 5 / 4).then_some((n, p))
            })
        })
        .unwrap();
    (
        Params::new(n, p),
        filter_core::testkit::hashes(7, n as usize),
    )
}

fn build(v: Variant, (params, hashes): &(Params, Vec<Hash128>), pages: Pages) -> AnyFilter {
    AnyFilter::build_from_hashes(v, &params.pages(pages), hashes).unwrap()
}

/// Built alternately in one process, the advised tables get huge pages and the others none.
/// Where transparent huge pages are off, nothing gets any and only the second half is checked.
/// A static filter's two builds from the same keys also give the same file.
#[cfg(target_os = "linux")]
#[test]
fn filters_built_side_by_side_keep_each_its_own_advice() {
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .is_ok_and(|mode| !mode.contains("[never]"));
    let mut measured = 0;
    assert_eq!(
        take_pages().count(),
        Variant::ALL.len(),
        "every variant takes the advice"
    );
    for v in take_pages() {
        let input = large(v);
        let (huge, small) = (
            build(v, &input, Pages::Huge),
            build(v, &input, Pages::Small),
        );
        assert!(small.size_in_bytes() >= HUGE_PAGE_MIN_BYTES);
        let (on, off) = (huge.huge_page_bytes(), small.huge_page_bytes());
        eprintln!(
            "{}: huge-page bytes advised {on:?}, not advised {off:?}",
            v.name()
        );
        // `None`: the kernel merged the table's area with a neighbour, so it cannot be told.
        assert!(
            off.is_none_or(|b| b == 0),
            "{}: {off:?} unadvised",
            v.name()
        );
        if thp {
            assert_ne!(
                on,
                Some(0),
                "{}: the advised table got no huge page",
                v.name()
            );
            measured += usize::from(on.is_some());
        }
        if v.capabilities().static_set {
            assert_eq!(huge.to_bytes(), small.to_bytes(), "{}", v.name());
        }
    }
    assert!(!thp || measured > 0, "no advised table could be measured");
}

/// The same keys give the same file whatever the advice: it is not saved.
#[test]
fn the_advice_is_not_part_of_the_file() {
    let hashes: Vec<_> = (0..2_000u32)
        .map(|i| Params::default().hasher.hash(&i.to_le_bytes()))
        .collect();
    for v in take_pages() {
        let files = [Pages::Huge, Pages::Small].map(|pages| {
            let p = Params::new(ITEMS, 0.01).pages(pages);
            if !v.capabilities().timed {
                return AnyFilter::build_from_hashes(v, &p, &hashes)
                    .unwrap()
                    .to_bytes();
            }
            // A window counted in time takes its inserts at a time: one a tick.
            let mut f = AnyFilter::build(v, &p).unwrap();
            for (t, &h) in hashes.iter().enumerate() {
                f.insert_hash_at(h, filterlab::Timestamp(t as u64)).unwrap();
            }
            f.to_bytes()
        });
        assert_eq!(files[0], files[1], "{}", v.name());
    }
}
