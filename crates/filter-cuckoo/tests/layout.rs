//! The two layouts side by side (issue 21): files written before layouts existed load byte for
//! byte and answer the same; the load each layout reaches before its first refused insert and
//! its false-positive rate against its formula, with fixed seeds and 4-sigma tolerances.

use filter_core::{math, Deletable, Filter, HashKind, KeyHasher, Persist};
use filter_cuckoo::{layout, CuckooFilter, Layout, DESIGN_LOAD};

const FIXTURE: &[u8] = include_bytes!("fixtures/cuckoo-layout1.bin");
/// The probes `probe-0` .. `probe-19999` the fixture answered `true` to when it was written.
const FIXTURE_PROBES: &str = include_str!("fixtures/cuckoo-layout1.probes");

fn hasher(seed: u64) -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, seed).unwrap()
}

/// The operations that wrote the fixture (with the code before layouts, commit d588338).
fn fixture_ops(layout: Layout) -> CuckooFilter {
    let mut f = CuckooFilter::builder()
        .capacity(600)
        .fpr(0.01)
        .hasher(hasher(2026))
        .layout(layout)
        .build()
        .unwrap();
    for i in 0..560u32 {
        f.insert(format!("fixture-{i}").as_bytes()).unwrap();
    }
    f.insert(b"fixture-7").unwrap();
    for i in (0..560u32).step_by(10) {
        f.remove(format!("fixture-{i}").as_bytes()).unwrap();
    }
    f
}

fn positive_probes(f: &CuckooFilter) -> Vec<u32> {
    (0..20_000u32)
        .filter(|i| f.contains(format!("probe-{i}").as_bytes()))
        .collect()
}

#[test]
fn a_file_written_before_layouts_loads_byte_for_byte_and_answers_the_same() {
    let f = CuckooFilter::from_bytes(FIXTURE).unwrap();
    assert_eq!(f.layout(), Layout::Spread);
    // Saves write version 2; the same filter's version 1 file is the fixture, byte for byte.
    assert_eq!(
        filter_core::format::layout::to_version_1(&f.to_bytes()).unwrap(),
        FIXTURE
    );
    assert_eq!((f.buckets(), f.len()), (164, 505));
    let recorded: Vec<u32> = FIXTURE_PROBES.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(recorded.len(), 116);
    assert_eq!(positive_probes(&f), recorded);
    for i in 0..560u32 {
        let key = format!("fixture-{i}");
        let copies = u32::from(i % 10 != 0) + u32::from(i == 7);
        assert!(f.count(key.as_bytes()) >= copies, "{key}");
    }
    // The spread layout is the old code path: the same operations write the same bytes.
    let v1 = filter_core::format::layout::to_version_1(&fixture_ops(Layout::Spread).to_bytes());
    assert_eq!(v1.unwrap(), FIXTURE);
}

#[test]
fn a_near_filter_round_trips_and_differs_from_the_old_file() {
    let f = fixture_ops(Layout::near());
    let bytes = f.to_bytes();
    assert_ne!(bytes, FIXTURE);
    let back = CuckooFilter::from_bytes(&bytes).unwrap();
    assert_eq!(back.to_bytes(), bytes);
    assert_eq!(positive_probes(&back), positive_probes(&f));
}

/// Loads at the first refused insert of `seeds` tables built for `capacity` keys, each of
/// which must have taken its capacity first.
fn first_failure_loads(layout: Layout, capacity: u64, seeds: u64) -> Vec<f64> {
    (0..seeds)
        .map(|seed| {
            let mut f = CuckooFilter::builder()
                .capacity(capacity)
                .fingerprint_bits(12)
                .hasher(hasher(seed))
                .layout(layout)
                .build()
                .unwrap();
            let mut i = 0u64;
            while f.insert(&i.to_le_bytes()).is_ok() {
                i += 1;
            }
            assert!(i > capacity, "{layout:?} seed {seed}: refused key {i}");
            f.load_factor()
        })
        .collect()
}

/// Mean, standard error of the mean, and minimum.
fn summary(name: &str, loads: &[f64]) -> (f64, f64, f64) {
    let n = loads.len() as f64;
    let mean = loads.iter().sum::<f64>() / n;
    let var = loads.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let min = loads.iter().copied().fold(1.0, f64::min);
    println!(
        "{name}: first refusal at mean load {mean:.4} (sd {:.4}, min {min:.4}, {} tables)",
        var.sqrt(),
        loads.len()
    );
    (mean, (var / n).sqrt(), min)
}

#[test]
fn both_layouts_fill_past_the_design_load_and_the_near_one_stays_within_two_points() {
    let spread = summary("spread", &first_failure_loads(Layout::Spread, 50_000, 8));
    let near = summary("near", &first_failure_loads(Layout::near(), 50_000, 8));
    for (mean, se, min) in [spread, near] {
        assert!(mean - 4.0 * se > DESIGN_LOAD, "{mean} ± {se}");
        assert!(min > DESIGN_LOAD, "{min}");
    }
    let (diff, se) = (spread.0 - near.0, spread.1.hypot(near.1));
    // The near layout's default bound on kicks is 2,000 (500 for the spread one).
    println!("near loses {diff:.4} ± {se:.4}");
    assert!(diff + 4.0 * se < 0.02, "{diff} ± {se}");
}

/// Heavy (about a minute in a debug build), prints the figures the docs quote:
/// `cargo test -p filter-cuckoo --test layout -- --ignored --nocapture million`.
#[test]
#[ignore]
fn a_million_key_table_of_either_layout_fills_past_95_percent() {
    for layout in [Layout::Spread, Layout::near()] {
        let (mean, se, min) = summary(
            &format!("{layout:?}, 1M"),
            &first_failure_loads(layout, 1_000_000, 3),
        );
        assert!(min > DESIGN_LOAD && mean - 4.0 * se > DESIGN_LOAD);
    }
}

/// Heavy (a few minutes in a debug build): one table of ten million keys per layout.
#[test]
#[ignore]
fn ten_million_key_tables_of_either_layout_fill_past_95_percent() {
    for layout in [Layout::Spread, Layout::near()] {
        let loads = first_failure_loads(layout, 10_000_000, 1);
        println!("{layout:?}, 10M: first refusal at load {:.4}", loads[0]);
        assert!(loads[0] > DESIGN_LOAD);
    }
}

/// The share of keys whose two buckets start in the same `page`-byte page of a table of ten
/// million keys at 1% (10-bit fingerprints, 5-byte buckets), the table taken as page-aligned.
fn same_page_share(layout: Layout, page: u64) -> (f64, u64) {
    use filter_core::{Explain, Positions};
    let f = CuckooFilter::builder()
        .capacity(10_000_000)
        .fpr(0.01)
        .hasher(hasher(31))
        .layout(layout)
        .build()
        .unwrap();
    assert_eq!(f.fingerprint_bits(), 10);
    let keys = 100_000u64;
    let same = (0..keys)
        .filter(|i| match f.positions(&i.to_le_bytes()) {
            Positions::Buckets {
                primary, alternate, ..
            } => primary * 5 / page == alternate * 5 / page,
            other => panic!("{other:?}"),
        })
        .count();
    (same as f64 / keys as f64, keys)
}

/// The share of keys whose two buckets start in one `page`-byte page when the offset is an
/// odd number of 5-byte buckets uniform below 1,024 and the first bucket's place in its page
/// is uniform: the mean and standard deviation over offsets of `max(0, 1 - 5·off/page)`.
fn predicted_share(page: f64) -> (f64, f64) {
    let g: Vec<f64> = (1..1024u32)
        .step_by(2)
        .map(|off| (1.0 - 5.0 * f64::from(off) / page).max(0.0))
        .collect();
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    let var = g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / g.len() as f64;
    (mean, var.sqrt())
}

#[test]
fn near_buckets_share_a_page_as_the_window_predicts() {
    // 4 KiB pages: offsets past 819 buckets always leave the page, shorter ones stay with
    // probability 1 - 5·off/4096: 40% of keys. 2 MiB pages: 99.88%. The 1,023 fingerprint
    // values take a fixed sample of offsets, which adds sd(g)/sqrt(1023) to the binomial sigma.
    for page in [4096.0, f64::from(1 << 21)] {
        let (share, n) = same_page_share(Layout::near(), page as u64);
        let (expected, sd) = predicted_share(page);
        let sigma = math::binomial_sigma(expected, n).hypot(sd / 1023f64.sqrt());
        println!(
            "near, {page}-byte pages: {share:.4} of keys in one page (predicted {expected:.4} ± {sigma:.4})"
        );
        assert!((share - expected).abs() < 4.0 * sigma.max(1e-4), "{share}");
    }
    // Spread: about 2·4096/13.2 MB, 0.06%.
    let (spread, _) = same_page_share(Layout::Spread, 4096);
    println!("spread, 4096-byte pages: {spread:.4} of keys in one page");
    assert!(spread < 0.002);
}

/// The measured rate of a table for `capacity` keys filled to 95% with `bits`-bit
/// fingerprints, its formula and its binomial sigma.
fn measured_fpr(layout: Layout, capacity: u64, bits: u32, seed: u64) -> (f64, f64, f64) {
    let mut f = CuckooFilter::builder()
        .capacity(capacity)
        .fingerprint_bits(bits)
        .hasher(hasher(seed))
        .layout(layout)
        .build()
        .unwrap();
    let keys = (0.95 * (f.buckets() * 4) as f64) as u64;
    for i in 0..keys {
        f.insert(format!("member-{i}").as_bytes()).unwrap();
    }
    let probes = 1_000_000u64;
    let hits = (0..probes)
        .filter(|i| f.contains(format!("probe-{i}").as_bytes()))
        .count();
    let exact = f.expected_fpr();
    assert_eq!(
        exact,
        layout::fpr_exact(f.layout(), bits, f.buckets(), keys)
    );
    (
        hits as f64 / probes as f64,
        exact,
        math::binomial_sigma(exact, probes),
    )
}

#[test]
fn both_layouts_match_their_rate_at_95_percent_load() {
    for (layout, seed) in [(Layout::Spread, 21), (Layout::near(), 22)] {
        let (rate, exact, sigma) = measured_fpr(layout, 20_000, 6, seed);
        println!("{layout:?}, f = 6, 95% load: measured {rate:.5}, formula {exact:.5} (sigma {sigma:.1e})");
        assert!(
            (rate - exact).abs() < 4.0 * sigma,
            "{layout:?}: {rate} vs {exact}"
        );
        assert!((exact - math::cuckoo_fpr(6, 4, 0.95)).abs() < 1e-3);
    }
}

#[test]
fn a_two_bucket_near_table_matches_its_formula_not_the_spread_one() {
    // Every key of a two-bucket near table has the pair {0, 1}: 1 - (14/15)^6 = 33.9%, where
    // the spread formula (a self-paired bucket half the time) says 26.2%. One filter holds a
    // fixed handful of fingerprints, so each trial is a fresh filter (its own seed) and one
    // probe: independent Bernoulli trials, 50 sigma apart at 100,000.
    let trials = 100_000u64;
    let hits = (0..trials)
        .filter(|&t| {
            let mut f = CuckooFilter::builder()
                .capacity(4)
                .fingerprint_bits(4)
                .hasher(hasher(t))
                .layout(Layout::near())
                .build()
                .unwrap();
            assert_eq!(f.buckets(), 2);
            for i in 0..6u8 {
                f.insert(&[b'm', i]).unwrap();
            }
            f.contains(b"probe")
        })
        .count();
    let rate = hits as f64 / trials as f64;
    let exact = layout::fpr_exact(Layout::near(), 4, 2, 6);
    let spread = layout::fpr_exact(Layout::Spread, 4, 2, 6);
    let sigma = math::binomial_sigma(exact, trials);
    println!(
        "near, 2 buckets, 6 keys: measured {rate:.4}, formula {exact:.4}, spread's {spread:.4}"
    );
    assert!((rate - exact).abs() < 4.0 * sigma, "{rate} vs {exact}");
    assert!((rate - spread).abs() > 4.0 * sigma);
}
