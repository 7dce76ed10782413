use super::*;
use crate::build::{self, Scratch};
use filter_core::testkit::{check_static_build, check_static_filter, fpr_within, hashes};
use filter_core::{HashKind, Pages};

/// Builds from `hs` and checks that every one is present; returns the filter.
fn build_checked<F: Fingerprint>(hs: &[Hash128]) -> BinaryFuse<F> {
    check_static_build(hs)
}

#[test]
fn both_widths_pass_the_static_filter_checks() {
    check_static_filter::<BinaryFuse8>(1..=3_000);
    check_static_filter::<BinaryFuse16>((1..=3_000).step_by(7));
}

fn measured_fp<F: Fingerprint>(f: &BinaryFuse<F>, probes: &[Hash128]) -> u64 {
    probes.iter().filter(|&&h| f.contains_hash(h)).count() as u64
}

#[test]
fn fpr_of_8_bit_fingerprints_is_two_to_the_minus_8() {
    let f = build_checked::<u8>(&hashes(11, 100_000));
    let probes = hashes(12, 1_000_000);
    let fp = measured_fp(&f, &probes);
    assert_eq!(f.expected_fpr(), 1.0 / 256.0);
    assert!(
        fpr_within(fp, probes.len() as u64, f.expected_fpr(), 4.0),
        "measured {fp}/{}",
        probes.len()
    );
    // The check discriminates: the same measurement is far outside the 16-bit rate's band.
    assert!(!fpr_within(fp, probes.len() as u64, 1.0 / 65536.0, 4.0));
}

#[test]
fn fpr_of_16_bit_fingerprints_is_two_to_the_minus_16() {
    let f = build_checked::<u16>(&hashes(21, 100_000));
    let probes = hashes(22, 1_000_000);
    let fp = measured_fp(&f, &probes);
    assert_eq!(f.expected_fpr(), 1.0 / 65536.0);
    assert!(
        fpr_within(fp, probes.len() as u64, f.expected_fpr(), 4.0),
        "measured {fp}/{}",
        probes.len()
    );
    assert!(!fpr_within(fp, probes.len() as u64, 1.0 / 256.0, 4.0));
    assert!(!fpr_within(0, probes.len() as u64, 1.0 / 4096.0, 4.0));
}

/// `hs` with every other hash repeated, the first one 50 times more, in a rotated order: the
/// multiset of a key set with duplicates.
fn with_repeats(hs: &[Hash128]) -> Vec<Hash128> {
    let mut v: Vec<Hash128> = hs.to_vec();
    v.extend(hs.iter().step_by(2).copied());
    v.extend(std::iter::repeat_n(hs[0], 50));
    v.rotate_left(hs.len() / 3);
    v
}

/// Builds width `F` from `hs` with repeats: it holds each distinct hash once, every one present.
fn check_repeats<F: Fingerprint>(hs: &[Hash128]) {
    let f = BinaryFuse::<F>::from_hashes(&with_repeats(hs), KeyHasher::default())
        .unwrap_or_else(|e| panic!("n = {} with repeats: {e}", hs.len()));
    assert_eq!(f.len(), hs.len() as u64);
    assert!(hs.iter().all(|&h| f.contains_hash(h)), "n = {}", hs.len());
}

/// Builds both widths from `hs` with repeats.
fn check_with_repeats(hs: &[Hash128]) {
    check_repeats::<u8>(hs);
    check_repeats::<u16>(hs);
}

/// The filter is the one a sort-first build gives, whatever the order of the hashes and their
/// repeats: the first seed tried on unsorted input, the seeds resumed after the deduplication.
/// Counts whose first seed peels, whose later seed does (attempt 1 or more), and that need a
/// segment more (11,410), each built from sorted distinct hashes, reversed, and with repeats.
#[test]
fn order_and_repeats_do_not_change_the_filter() {
    let mut later_seed = false;
    for (seed, n) in [
        (5, 1_000),
        (79, 11_410),
        (6, 3_550),
        (7, 12_000),
        (8, 40_000),
    ] {
        let mut sorted = hashes(seed, n);
        sorted.sort_by_key(|&h| key_of(h));
        let reference = build_checked::<u8>(&sorted);
        later_seed |= build::attempt_of(reference.seed()) != Some(0);
        let reversed: Vec<Hash128> = sorted.iter().rev().copied().collect();
        for input in [reversed, with_repeats(&sorted)] {
            let f = BinaryFuse::<u8>::from_hashes(&input, KeyHasher::default()).unwrap();
            assert_eq!(f, reference, "n = {n}");
            let g = BinaryFuse::<u16>::from_hashes(&input, KeyHasher::default()).unwrap();
            assert_eq!(g, build_checked::<u16>(&sorted), "n = {n}");
        }
    }
    assert!(
        later_seed,
        "no count needed a later seed: the resumption is untested"
    );
}

/// Every key count from 1 to 2,000 and every count of the C library's failure range and
/// around it (11,400–11,600): at 8 bits, and at both widths with duplicate keys (a set with
/// repeats must peel as the set of its distinct keys).
#[test]
fn every_count_to_2000_and_around_the_c_librarys_failures_builds_with_duplicates() {
    let pool = hashes(43, 11_600);
    for n in (1..=2_000).chain(11_400..=11_600) {
        build_checked::<u8>(&pool[..n]);
        check_with_repeats(&pool[..n]);
    }
}

/// The growth fallback is needed and works: at 11,410 keys (the sweep's pool) all eight seeds
/// fail at the paper's layout, as the C library's attempts did near there, and the ninth, with
/// one segment more, peels.
#[test]
fn near_the_c_librarys_failures_every_seed_fails_at_the_papers_layout_and_growth_peels() {
    let pool = hashes(79, 11_410);
    let f = build_checked::<u8>(&pool);
    assert_eq!(build::attempt_of(f.seed()), Some(build::ATTEMPTS_PER_BUMP));
    assert_eq!(f.layout(), Layout::for_keys(11_410, 1).unwrap());
    assert_ne!(f.layout(), Layout::for_keys(11_410, 0).unwrap());
}

/// Log-spaced key counts from 2,000 to 200,000 (duplicates to 50,000) and one of 700,001, at
/// both widths; the exhaustive sweeps are ignored tests (`just fuse-2m`, `just fuse-sweep`).
#[test]
fn sampled_key_counts_to_700k_build_with_and_without_duplicates() {
    let pool = hashes(43, 700_001);
    let mut n = 2_000.0f64;
    while n < 2e5 {
        n *= 1.5;
        let n = n as usize;
        build_checked::<u8>(&pool[..n]);
        build_checked::<u16>(&pool[..n]);
        if n <= 50_000 {
            check_with_repeats(&pool[..n]);
        }
    }
    build_checked::<u8>(&pool[..700_001]);
}

/// Every key count of `FUSE_SWEEP` (`FROM..=TO`; default `1..=100000`, minutes in release) builds
/// and holds its keys, the counts shared out over every core. The whole range 1..=2,000,000
/// (`just fuse-sweep`) is about 2·10^12 key placements, about a day on 2 cores: shard it with
/// `just fuse-sweep FROM TO`. The 8-bit width only: the peeling, the one step that can fail,
/// does not depend on the fingerprint width.
#[test]
#[ignore = "exhaustive: `just fuse-sweep` (release; FUSE_SWEEP=FROM..=TO)"]
fn every_key_count_builds() {
    let range = std::env::var("FUSE_SWEEP").unwrap_or_else(|_| "1..=100000".into());
    let (from, to) = range
        .split_once("..=")
        .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)))
        .unwrap_or_else(|| panic!("FUSE_SWEEP={range:?} is not FROM..=TO"));
    assert!(
        1 <= from && from <= to,
        "FUSE_SWEEP={range:?}: need 1 <= FROM <= TO"
    );
    let pool = hashes(73, to);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    std::thread::scope(|s| {
        for t in 0..threads {
            let pool = &pool;
            s.spawn(move || {
                for n in (from + t..=to).step_by(threads) {
                    build_checked::<u8>(&pool[..n]);
                }
            });
        }
    });
    println!("every key count from {from} to {to} built and holds its keys");
}

#[test]
fn construction_succeeds_at_powers_of_two_and_at_2m() {
    let pool = hashes(41, 2_000_000);
    for n in [4_096, 65_536, 262_144, 2_000_000] {
        build_checked::<u8>(&pool[..n]);
    }
}

#[test]
fn an_empty_set_builds_a_filter_of_one_segment() {
    let f = BinaryFuse8::from_hashes(&[], KeyHasher::default()).unwrap();
    assert_eq!(f.layout().array_length, 12);
}

#[test]
fn bits_per_key_approach_nine_for_8_bits_and_eighteen_for_16() {
    let hs = hashes(61, 1_000_000);
    let f8 = build_checked::<u8>(&hs);
    let bpk = f8.bits_per_key();
    assert!((9.0..9.1).contains(&bpk), "8-bit: {bpk} bits/key");
    // A successful first attempt uses exactly the formula's layout.
    assert_eq!(f8.layout(), Layout::for_keys(1_000_000, 0).unwrap());
    let f16 = build_checked::<u16>(&hs[..300_000]);
    let l16 = Layout::for_keys(300_000, 0).unwrap();
    assert_eq!(f16.size_in_bytes(), 2 * l16.array_length as usize);
    assert!(
        (18.0..18.6).contains(&f16.bits_per_key()),
        "16-bit: {}",
        f16.bits_per_key()
    );
}

/// The success check can fail: 40 keys cannot all be peeled into 12 slots under any seed,
/// while a layout sized for them peels (a fixture for the retry loop's condition).
#[test]
fn peeling_reports_failure_when_the_array_is_too_small() {
    let keys: Vec<u64> = hashes(81, 40).iter().map(|&h| key_of(h)).collect();
    let tiny = Layout::for_keys(1, 0).unwrap();
    let mut scratch = Scratch::new(tiny, keys.len(), Pages::Huge).unwrap();
    assert!((1..20).all(|seed| !scratch.peel(&keys, seed, tiny)));
    let fitting = Layout::for_keys(40, 0).unwrap();
    let mut scratch = Scratch::new(fitting, keys.len(), Pages::Huge).unwrap();
    assert!((1..20).any(|seed| scratch.peel(&keys, seed, fitting)));
}

#[test]
fn names_and_hasher_are_reported() {
    let hasher = KeyHasher::new(filter_core::HashKind::Murmur3X64_128, 7).unwrap();
    let keys: Vec<&[u8]> = vec![b"a", b"b", b"c"];
    let f = BinaryFuse16::from_keys_with(&keys, hasher).unwrap();
    assert_eq!((f.name(), f.hasher()), ("fuse16", hasher));
    assert!(keys.iter().all(|k| f.contains(k)));
    assert_eq!(BinaryFuse8::from_keys(&keys).unwrap().name(), "fuse8");
}

/// Every hash kind, with seeds that exercise the seeded paths (MurmurHash3 takes 32 bits).
fn every_hasher() -> Vec<KeyHasher> {
    let kinds = [
        HashKind::Xxh3_64,
        HashKind::Xxh3_128,
        HashKind::Murmur3X64_128,
    ];
    let seeds = [0, 1, 0x9E37_79B9, u64::MAX];
    kinds
        .iter()
        .flat_map(|&k| seeds.iter().filter_map(move |&s| KeyHasher::new(k, s).ok()))
        .collect()
}

#[test]
fn inline_hash_is_the_hashers() {
    // Lengths through every xxh3 input path: 0, 1-3, 4-8, 9-16, 17-128, 129-240, and past
    // 240 (the long loop, with a derived secret when seeded).
    let bytes: Vec<u8> = (0..1200u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let hashers = every_hasher();
    assert_eq!(hashers.len(), 11, "three kinds, four seeds, one refused");
    for h in hashers {
        for len in (0..=300).chain([511, 512, 1024, 1200]) {
            let key = &bytes[len / 3..len / 3 + len.min(bytes.len() - len / 3)];
            assert_eq!(
                hash_inline(h, key),
                h.hash(key),
                "{h:?}, {} bytes",
                key.len()
            );
        }
    }
}

#[test]
fn contains_answers_as_contains_hash_of_the_hashers_hash() {
    let members: Vec<String> = (0..5_000).map(|i| format!("user{i}@example.com")).collect();
    let refs: Vec<&[u8]> = members.iter().map(|k| k.as_bytes()).collect();
    for h in every_hasher() {
        let f8 = BinaryFuse8::from_keys_with(&refs, h).unwrap();
        let f16 = BinaryFuse16::from_keys_with(&refs, h).unwrap();
        let mut fp = 0;
        let outsiders = (5_000..40_000).map(|i| format!("other{i}@example.org"));
        for key in members.iter().cloned().chain(outsiders) {
            let hash = h.hash(key.as_bytes());
            let answer = f8.contains(key.as_bytes());
            assert_eq!(answer, f8.contains_hash(hash), "{h:?} {key}");
            assert_eq!(
                f16.contains(key.as_bytes()),
                f16.contains_hash(hash),
                "{h:?} {key}"
            );
            fp += usize::from(answer && key.starts_with("other"));
        }
        // The comparison saw both answers: members (true) and some false positives (2^-8).
        assert!(fp > 0, "{h:?}: no false positive among 35,000 non-members");
    }
}

/// Counts either side of each change of segment length and of the size factor's floor.
const WINDOW: u64 = 100;

/// A stride through the counts past the exhaustive range.
const STRIDE: usize = 9_973;

/// The counts past `every`, up to `to`, where construction failures would cluster: every count
/// within [`WINDOW`] of each change of segment length ([`math::fuse_segment_steps`]) and of the
/// size factor's floor (`n = 10^6`); both counts at every change of layout (the last count of a
/// layout is its fullest: the highest load `n / slots` for its segments); and a stride.
fn tight_counts(every: usize, to: usize) -> Vec<usize> {
    let mut spots = math::fuse_segment_steps(to as u64);
    spots.push(1_000_000);
    let mut counts: Vec<usize> = spots
        .iter()
        .flat_map(|&s| s.saturating_sub(WINDOW)..=s + WINDOW)
        .map(|n| n as usize)
        .collect();
    let layout = |n: usize| Layout::for_keys(n as u64, 0).unwrap();
    let mut before = layout(every);
    for n in every + 1..=to {
        let here = layout(n);
        if here != before {
            counts.extend([n - 1, n]);
        }
        before = here;
    }
    counts.extend((every + 1..=to).step_by(STRIDE));
    counts.retain(|&n| n > every && n <= to);
    counts.sort_unstable();
    counts.dedup();
    counts
}

/// What a sweep needed: how many builds took each number of attempts (index 0: the first
/// seed), and the counts whose every seed at the paper's layout failed (built after a bump).
struct Tally {
    attempts: Vec<u64>,
    bumped: Vec<usize>,
}

/// Builds fuse8 filters of `pool[..n]` for every `n` of `counts`, on `threads` threads.
fn tally_builds(pool: &[Hash128], counts: &[usize], threads: usize) -> Tally {
    let parts: Vec<Tally> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut tally = Tally {
                        attempts: vec![0; build::MAX_ATTEMPTS as usize],
                        bumped: Vec::new(),
                    };
                    for &n in counts.iter().skip(t).step_by(threads) {
                        let f = build_checked::<u8>(&pool[..n]);
                        let attempt = build::attempt_of(f.seed()).expect("a seed of the loop");
                        tally.attempts[attempt as usize] += 1;
                        if attempt >= build::ATTEMPTS_PER_BUMP {
                            tally.bumped.push(n);
                        }
                    }
                    tally
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let mut all = Tally {
        attempts: (0..build::MAX_ATTEMPTS as usize)
            .map(|a| parts.iter().map(|t| t.attempts[a]).sum())
            .collect(),
        bumped: parts.into_iter().flat_map(|t| t.bumped).collect(),
    };
    all.bumped.sort_unstable();
    all
}

/// The attempts a tally needed, for the log: `attempts: builds` where any, and the counts
/// built after a bump (the first and last 20).
fn show(tally: &Tally) -> String {
    let parts: Vec<String> = (0..tally.attempts.len())
        .filter(|&a| tally.attempts[a] > 0)
        .map(|a| format!("{}: {}", a + 1, tally.attempts[a]))
        .collect();
    let b = &tally.bumped;
    let ends = if b.len() <= 40 {
        format!("{b:?}")
    } else {
        format!("{:?} … {:?}", &b[..20], &b[b.len() - 20..])
    };
    format!(
        "{}; {} built after a bump: {ends}",
        parts.join(", "),
        b.len()
    )
}

/// Every key count from 1 to `FUSE_EVERY` (default 200,000), then up to 2,000,000 the counts of
/// [`tight_counts`] (`FUSE_TO` lowers that end), at 8 bits (the peeling, the one step that can fail, does not depend on the
/// width), on `FUSE_THREADS` threads (default 1); prints how many attempts the builds needed.
#[test]
#[ignore = "minutes in release: `just fuse-2m` (FUSE_EVERY=N to shorten the exhaustive part)"]
fn every_count_to_200k_and_the_tight_spots_to_2m_build() {
    let var = |name: &str, default: usize| {
        std::env::var(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v:?} is not a count"))
        })
    };
    let to = var("FUSE_TO", 2_000_000).clamp(1, 2_000_000);
    let every = var("FUSE_EVERY", 200_000).clamp(1, to);
    let threads = var("FUSE_THREADS", 1).max(1);
    let pool = hashes(79, to);
    let exhaustive: Vec<usize> = (1..=every).collect();
    let first = tally_builds(&pool, &exhaustive, threads);
    println!("every count 1..={every}: attempts {}", show(&first));
    let tight = tight_counts(every, to);
    let second = tally_builds(&pool, &tight, threads);
    println!(
        "{} counts in {}..={to} (windows at {:?} and 10^6, every change of layout, every {STRIDE}th): attempts {}",
        tight.len(),
        every + 1,
        math::fuse_segment_steps(to as u64)
            .into_iter()
            .filter(|&s| s as usize + WINDOW as usize > every)
            .collect::<Vec<_>>(),
        show(&second)
    );
}

#[test]
fn tight_counts_cover_the_windows_and_every_change_of_layout() {
    let counts = tight_counts(200_000, 2_000_000);
    // 413,310 and 1,376,322 are where the segment length doubles (3.33^(j - 2.25)).
    let steps = math::fuse_segment_steps(2_000_000);
    assert_eq!(steps[steps.len() - 2..], [413_310, 1_376_322]);
    for spot in [413_310usize, 1_000_000, 1_376_322] {
        assert!(
            (spot - 100..=spot + 100).all(|n| counts.binary_search(&n).is_ok()),
            "{spot}"
        );
    }
    let l = |n: usize| Layout::for_keys(n as u64, 0).unwrap();
    let change = (200_001..2_000_000).find(|&n| l(n) != l(n - 1)).unwrap();
    assert!(counts.binary_search(&(change - 1)).is_ok() && counts.binary_search(&change).is_ok());
    // Fixture: a count in the middle of a layout, off the stride and the windows, is left out.
    let inside = change + 5;
    assert!(l(inside) == l(change) && counts.binary_search(&inside).is_err());
    assert!(counts.iter().all(|&n| n > 200_000 && n <= 2_000_000));
}

/// The builder's page advice reaches the table (a mapping of its own past
/// `HUGE_PAGE_MIN_BYTES`, on Linux) and changes nothing it holds.
#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn the_page_advice_reaches_the_table() {
    // About 2.25 bytes per key: 4 MiB from about 1.9M keys.
    let hs = hashes(5, 2_000_000);
    let build = |pages| {
        BinaryFuse16::builder()
            .pages(pages)
            .build_from_hashes(&hs)
            .unwrap()
    };
    let (huge, small) = (build(Pages::Huge), build(Pages::Small));
    assert!(small.size_in_bytes() >= filter_core::HUGE_PAGE_MIN_BYTES);
    assert_eq!(huge.fingerprints.pages(), Some(Pages::Huge));
    assert_eq!(small.fingerprints.pages(), Some(Pages::Small));
    assert_eq!(huge, small);
    assert_eq!(
        BinaryFuse16::from_hashes(&hs, KeyHasher::default()).unwrap(),
        huge
    );
}
