use super::*;
use crate::build::Band;
use crate::math::ribbon_slots as slots_for;
use filter_core::testkit::{check_static_filter, fpr_within, hashes};

mod fpr;

fn build_checked(hs: &[Hash128], fpr: f64) -> Ribbon {
    let f = Ribbon::builder()
        .fpr(fpr)
        .build_from_hashes(hs)
        .unwrap_or_else(|e| panic!("construction failed for n = {}: {e}", hs.len()));
    assert_eq!(f.len(), hs.len() as u64);
    let missing = hs.iter().filter(|&&h| !f.contains_hash(h)).count();
    assert_eq!(missing, 0, "false negatives at n = {}", hs.len());
    f
}

#[test]
fn passes_the_static_filter_checks() {
    check_static_filter::<Ribbon>(1..=3_000);
}

#[test]
fn fpr_meets_the_target_with_fractional_columns() {
    let members = hashes(11, 50_000);
    let probes = hashes(12, 400_000);
    for (target, r) in [(0.01, 6), (0.1, 3), (0.003, 8), (0.3, 1)] {
        let f = build_checked(&members, target);
        assert_eq!(f.result_bits(), r);
        let expected = f.expected_fpr();
        assert!(
            expected <= target && expected > 0.99 * target,
            "{expected} for {target}"
        );
        let fp = probes.iter().filter(|&&h| f.contains_hash(h)).count() as u64;
        let trials = probes.len() as u64;
        assert!(
            fpr_within(fp, trials, expected, 4.0),
            "target {target}: measured {fp}/{trials}"
        );
        // The check discriminates: the rate of r or r + 1 whole columns is outside the band.
        let whole = (-f64::from(r)).exp2();
        assert!(!fpr_within(fp, trials, whole, 4.0), "{target}");
        assert!(!fpr_within(fp, trials, whole / 2.0, 4.0), "{target}");
    }
}

#[test]
fn columns_follow_the_formula() {
    let (r, f) = Ribbon::builder().fpr(0.01).columns().unwrap();
    assert_eq!(r, 6);
    assert!((f - 0.72).abs() < 1e-12);
    assert_eq!(Ribbon::builder().fpr(0.125).columns().unwrap(), (3, 0.0));
    assert_eq!(Ribbon::builder().fpr(0.6).columns().unwrap(), (1, 0.0));
    assert_eq!(
        Ribbon::builder().fpr(1.0 / 65536.0).columns().unwrap(),
        (16, 0.0)
    );
    let f16 = build_checked(&hashes(13, 2_000), 1.0 / 65536.0);
    assert_eq!((f16.result_bits(), f16.boundary()), (16, 0));
}

#[test]
fn construction_succeeds_on_a_sweep_up_to_2m() {
    let pool = hashes(41, 2_000_000);
    for n in [11_500, 65_536, 262_144, 2_000_000] {
        build_checked(&pool[..n], 0.01);
    }
}

#[test]
fn bits_per_key_are_under_7_2_at_one_percent_for_large_sets() {
    let f = build_checked(&hashes(61, 1_000_000), 0.01);
    let bpk = f.bits_per_key();
    assert!((6.8..=7.0).contains(&bpk), "{bpk} bits/key");
    let slots = slots_for(1_000_000, 0).unwrap();
    assert_eq!(f.slots(), slots, "first attempt's sizing");
    let starts = slots - 127;
    let boundary = (0.72 * starts as f64).ceil() as u64;
    assert_eq!(f.boundary(), boundary);
    let extra = (boundary + 127).div_ceil(64) * 64;
    assert_eq!(f.size_in_bytes() as u64 * 8, slots * 6 + extra);
    assert!((f.expected_fpr() - 0.01).abs() < 1e-6);
}

/// Banding accepts an equation the rows imply (a repeated key) and refuses one that contradicts
/// them (same band, other fingerprint): the fixture for the retry loop's condition.
#[test]
fn banding_refuses_contradictions_and_accepts_repeats() {
    let mut band = Band::new(256, Pages::Huge).unwrap();
    let row = row_of(12345, 129, 7);
    assert!(band.add(row));
    assert!(band.add(row));
    let other = Row {
        result: row.result ^ 1,
        ..row
    };
    assert!(!band.add(other));
}

#[test]
fn bad_rates_are_refused() {
    for p in [0.0, 1.0, -0.5, f64::NAN, 1e-6] {
        assert!(
            Ribbon::builder().fpr(p).build_from_hashes(&[]).is_err(),
            "{p}"
        );
    }
}

#[test]
fn an_empty_set_builds_one_band() {
    let f = Ribbon::from_hashes(&[], KeyHasher::default()).unwrap();
    assert_eq!(f.slots(), 128);
    assert_eq!(f.name(), "ribbon");
}

/// Every n from 1 to 20,000 and a step through 2M (minutes in debug).
#[test]
#[ignore = "heavy: run with --ignored --release"]
fn construction_succeeds_for_every_n_up_to_20k_and_steps_to_2m() {
    let pool = hashes(71, 2_000_000);
    for n in 1..=20_000 {
        build_checked(&pool[..n], 0.01);
    }
    for n in (20_000..=2_000_000).step_by(49_999) {
        build_checked(&pool[..n], 0.01);
    }
}

/// The one-pass banding of both systems gives the extra column the solution its own system
/// has (banded alone over the keys below the boundary); without the marks of the rows the
/// later keys placed in its slots, their meaningless top result bits would enter it.
#[test]
fn one_pass_banding_solves_the_extra_column_as_its_own_system() {
    use crate::build::band_all;
    let r = 6;
    let mut keys: Vec<u64> = hashes(81, 20_000)
        .iter()
        .map(|&h| derive(key_of(h), 5))
        .collect();
    keys.sort_unstable();
    let slots = slots_for(keys.len() as u64, 2).unwrap();
    let starts = slots - 127;
    let boundary = (0.72 * starts as f64).ceil() as u64;
    let extra_slots = (boundary + 127).div_ceil(64) * 64;
    let mut band = Band::new(slots as usize, Pages::Huge).unwrap();
    let late = band_all(&keys, r, starts, boundary, extra_slots, &mut band)
        .unwrap()
        .expect("bands at 2 bumps");
    assert!(late.iter().any(|&w| w != 0), "the fixture has late rows");
    let mut alone = Band::new(extra_slots as usize, Pages::Huge).unwrap();
    for &d in &keys {
        let row = row_of(d, starts, r + 1);
        if row.start < boundary {
            assert!(alone.add(Row {
                result: row.result >> r,
                ..row
            }));
        }
    }
    let one_pass = band.solve_rows(extra_slots as usize, 1, r, &late).unwrap();
    assert_eq!(one_pass, alone.solve(1).unwrap());
    let unmarked = band.solve_rows(extra_slots as usize, 1, r, &[]).unwrap();
    assert_ne!(unmarked, one_pass, "the marks matter");
    // The fused back substitution the build uses writes both tables as the two passes do.
    let (table, extra) = band.solve_both(r, extra_slots as usize, &late).unwrap();
    assert_eq!(table, band.solve(r).unwrap());
    assert_eq!(extra, one_pass);
    let (_, unmarked_fused) = band.solve_both(r, extra_slots as usize, &[]).unwrap();
    assert_eq!(unmarked_fused, unmarked);
}

/// Batched answers are the single answers, and prefetching reads inside the tables for every
/// key (members, whose starts reach the last block, and others).
#[test]
fn batched_lookups_answer_as_single_ones() {
    let members = hashes(91, 3_000);
    let f = build_checked(&members, 0.01);
    let probes: Vec<Hash128> = members.iter().copied().chain(hashes(92, 30_000)).collect();
    let mut out = Vec::new();
    f.contains_hash_batch(&probes, &mut out);
    let single: Vec<bool> = probes.iter().map(|&h| f.contains_hash(h)).collect();
    assert_eq!(out, single);
    assert!(out[..members.len()].iter().all(|&b| b));
    // The pipelined path (taken for tables past the caches), on batches shorter and longer
    // than the distance it looks ahead.
    for len in [0, 1, filter_core::PREFETCH_AHEAD, 1_000, probes.len()] {
        let mut ahead = vec![true; 3];
        ahead.clear();
        f.answer_ahead(&probes[..len], &mut ahead);
        assert_eq!(ahead, single[..len], "{len}");
    }
    for &h in &probes {
        f.prefetch_hash(h);
    }
}

/// The parity in bit 63 is the parity of the ones, on words with every count of ones from 0
/// to 64 (all 16 nibbles odd, the carries' worst case, included) and on mixed words.
#[test]
fn parity_in_the_top_bit_counts_the_ones() {
    use crate::build::parity64;
    let mut words: Vec<u64> = (0..=64)
        .map(|k| u64::MAX.checked_shr(64 - k).unwrap_or(0))
        .collect();
    words.extend([
        0x1111_1111_1111_1111,
        0x8888_8888_8888_8888,
        0x7777_7777_7777_7777,
    ]);
    words.extend(hashes(131, 10_000).iter().map(|h| h.lo));
    for y in words {
        assert_eq!(parity64(y), u64::from(y.count_ones() % 2), "{y:#x}");
    }
}

/// The builder's page advice reaches the solution's table and the band it is solved from (each
/// a mapping of its own past `HUGE_PAGE_MIN_BYTES`, on Linux), and changes nothing it holds.
#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn the_page_advice_reaches_the_tables() {
    // 2^-16: 16 columns, 2 bytes per slot and no extra column, so 4 MiB from about 2^21 keys.
    let hs = hashes(5, 2_200_000);
    let build = |pages| {
        Ribbon::builder()
            .fpr(1.0 / 65_536.0)
            .pages(pages)
            .build_from_hashes(&hs)
            .unwrap()
    };
    let (huge, small) = (build(Pages::Huge), build(Pages::Small));
    assert!(small.table.len() * 8 >= filter_core::HUGE_PAGE_MIN_BYTES);
    assert_eq!(huge.table.pages(), Some(Pages::Huge));
    assert_eq!(small.table.pages(), Some(Pages::Small));
    assert_eq!(huge, small);
    // 2^19 slots: 8 MiB of coefficients.
    let band = Band::new(1 << 19, Pages::Small).unwrap();
    assert_eq!(band.coeff.pages(), Some(Pages::Small));
}

/// A digest of everything a build writes (seed, shape, both tables) at three rates and two
/// sizes (one past the sort's small-set cutoff, with repeats): pinned from the build before
/// issue 19's speed work, so that a faster build is shown to write the same filter, and saved
/// files to answer as before.
#[test]
fn builds_write_the_same_filters_as_before() {
    let digest = |f: &Ribbon| {
        let words = [f.seed, f.slots, f.boundary, f.len, u64::from(f.r)];
        let all = words.iter().chain(f.table.iter()).chain(f.extra.iter());
        all.fold(0u64, |acc, &w| {
            fmix(acc ^ w).wrapping_add(0x9e37_79b9_7f4a_7c15)
        })
    };
    let mut got = Vec::new();
    for (n, fpr) in [(700, 0.01), (50_000, 0.01), (50_000, 0.003), (50_000, 0.3)] {
        let mut hs = hashes(93, n);
        hs.extend_from_within(..n / 10);
        got.push(digest(&build_checked_distinct(&hs, fpr, n)));
    }
    assert_eq!(got, PINNED);
}

const PINNED: [u64; 4] = [
    0x9d37_5330_03d8_1f17,
    0xf515_f3a1_ae8a_86b3,
    0xf9a2_ccfe_6a42_20ae,
    0xd322_1674_bba0_1592,
];

fn build_checked_distinct(hs: &[Hash128], fpr: f64, distinct: usize) -> Ribbon {
    let f = Ribbon::builder().fpr(fpr).build_from_hashes(hs).unwrap();
    assert_eq!(f.len(), distinct as u64);
    f
}
