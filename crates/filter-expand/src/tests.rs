use super::*;
use filter_core::testkit::{self, Op};
use filter_core::{format, FormatError, HashKind, Persist, Prefetch};
use std::collections::HashMap;

/// SplitMix64: a seeded stream for the randomised tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn small(capacity: u64, fpr: f64) -> ExpandableCuckoo {
    ExpandableCuckoo::builder()
        .capacity(capacity)
        .fpr(fpr)
        .build()
        .unwrap()
}

/// A filter whose fingerprints are short (5 bits in stage 0, one more per stage), so keys
/// collide across stages all the time: the case the deletion rule exists for.
fn colliding() -> ExpandableCuckoo {
    ExpandableCuckoo::builder()
        .capacity(8)
        .fpr(0.9)
        .tightening_period(1)
        .build()
        .unwrap()
}

#[test]
fn conformance_suite() {
    let mut f = small(300, 0.01);
    let keys = testkit::keys("conf", 2000);
    assert_eq!(testkit::check_no_false_negatives(&mut f, &keys), 2000);
    assert!(f.stages() > 1);
    let probes = testkit::keys("probe", 2000);
    testkit::check_round_trip(&f, &probes);
    testkit::check_rejects_bad_bytes(&f);
    assert!(testkit::check_decoder_validates(&f) > 0);
    let (mut a, mut b) = (small(100, 0.05), small(100, 0.05));
    let new = testkit::check_insert_if_absent(&mut a, &mut b, &testkit::keys("ifabsent", 800));
    assert!(new > 700, "{new}");
}

#[test]
fn damaged_files_are_refused() {
    let mut f = small(4, 0.05);
    for k in testkit::keys("dmg", 8) {
        f.insert(&k).unwrap();
    }
    let dir = std::env::temp_dir().join(format!("filter-expand-dmg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let loaded = testkit::check_damaged_files(&f, &dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(loaded, 0);
}

#[test]
fn deletable_against_the_testkit_model() {
    for seed in 1..=2u64 {
        let mut rng = Rng(seed);
        let ops: Vec<Op> = (0..1000)
            .map(|step| {
                let key = rng.below(20 + step / 20) as u16;
                if rng.below(10) < 6 {
                    Op::Insert(key)
                } else {
                    Op::Remove(key)
                }
            })
            .collect();
        testkit::check_deletable_against_model(&mut colliding(), &ops);
    }
}

/// Which stage a removal takes its entry from.
#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// The filter's rule: the newest stage that matches.
    Newest,
    /// The dynamic cuckoo filter's rule: the first stage that matches.
    First,
}

fn remove_first_matching(f: &mut ExpandableCuckoo, hash: Hash128) -> Result<()> {
    let places: Vec<Place> = f.stage_places(hash).map(|(_, p)| p).collect();
    for (i, p) in places.into_iter().enumerate() {
        if f.stages[i].remove(p) {
            f.len -= 1;
            return Ok(());
        }
    }
    Err(Error::NotPresent)
}

/// Random inserts (with duplicates) and removals of held keys from a pool that widens as the
/// run goes on, so the filter grows while it deletes; checked against a `HashMap` of counts
/// every 250 steps and at the end. Returns the first false negative, if any.
fn run_model(f: &mut ExpandableCuckoo, seed: u64, steps: u64, rule: Rule) -> Option<String> {
    let mut rng = Rng(seed);
    let mut model: HashMap<u64, u32> = HashMap::new();
    let key = |i: u64| format!("pool-{seed}-{i}").into_bytes();
    for step in 0..steps {
        let i = rng.below(50 + step / 3);
        let held = model.get(&i).copied().unwrap_or(0);
        if held > 0 && rng.below(10) < 4 {
            let h = f.hasher().hash(&key(i));
            if match rule {
                Rule::Newest => f.remove_hash(h),
                Rule::First => remove_first_matching(f, h),
            }
            .is_err()
            {
                // A held key refused: the filter lost it (a false negative).
                return Some(format!(
                    "seed {seed}, step {step}: removing key {i} refused"
                ));
            }
            model.insert(i, held - 1);
        } else {
            f.insert(&key(i)).unwrap();
            *model.entry(i).or_default() += 1;
        }
        if step % 250 == 249 || step + 1 == steps {
            let total: u64 = model.values().map(|&c| u64::from(c)).sum();
            assert_eq!(f.len(), total, "len disagrees with the model");
            for (&i, &c) in model.iter().filter(|(_, &c)| c > 0) {
                if !f.contains(&key(i)) {
                    return Some(format!("seed {seed}, step {step}: key {i} held {c} times"));
                }
                if f.count(&key(i)) < c {
                    return Some(format!("seed {seed}, step {step}: key {i} undercounted"));
                }
            }
        }
    }
    None
}

#[test]
fn no_false_negative_over_random_inserts_and_removals() {
    for seed in 1..=2 {
        let mut f = colliding();
        assert_eq!(run_model(&mut f, seed, 5000, Rule::Newest), None);
        assert!(f.stages() >= 5, "seed {seed}: only {} stages", f.stages());
        let mut f = small(50, 0.01);
        assert_eq!(run_model(&mut f, seed, 5000, Rule::Newest), None);
    }
}

/// The fixture that shows the model test can fail: the same runs with the first-match rule
/// lose keys.
#[test]
fn removing_from_the_first_matching_stage_loses_keys() {
    let lost = (1..=2)
        .filter(|&seed| run_model(&mut colliding(), seed, 5000, Rule::First).is_some())
        .count();
    assert_eq!(
        lost, 2,
        "the first-match rule lost keys in only {lost} of 2 runs"
    );
}

#[test]
fn duplicates_beyond_a_bucket_pair_go_elsewhere_and_all_come_back_out() {
    let mut f = small(100, 0.01);
    for _ in 0..40 {
        f.insert(b"again").unwrap();
    }
    assert!(f.count(b"again") >= 40);
    assert!(
        f.stages() >= 2,
        "40 copies need more than one stage's 8 slots"
    );
    for left in (0..40).rev() {
        f.remove(b"again").unwrap();
        assert!(
            left == 0 || f.contains(b"again"),
            "lost with {left} copies left"
        );
    }
    assert_eq!(f.len(), 0);
    assert_eq!(f.remove(b"again"), Err(Error::NotPresent));
}

/// Whether `fp` false positives in `probes` are consistent with a rate at or under `target`:
/// the lower end of the Wilson interval at z = 4 is at most the target.
fn at_or_under(fp: u64, probes: u64, target: f64) -> bool {
    filter_core::math::wilson_interval(fp, probes, 4.0).0 <= target
}

/// The fixture for [`at_or_under`]: 1.4% measured over 50,000 probes is refused against 1%,
/// 1.1% is within the tolerance, 0.8% passes.
#[test]
fn the_rate_check_refuses_a_rate_above_the_target() {
    assert!(!at_or_under(700, 50_000, 0.01));
    assert!(at_or_under(550, 50_000, 0.01));
    assert!(at_or_under(400, 50_000, 0.01));
}

/// Grows from 1,000 keys to 255,812 (eight stages) at 1%: at every doubling (each time a stage
/// fills), the measured rate over 30,000 fresh probes is at or under the target (the Wilson
/// interval's lower end, z = 4, at most 1%) and agrees with `expected_fpr` within 4 sigma. At
/// the end, the bits per key are those of [`math::bits_per_key`]: every stage full, 14 bits per
/// slot at a 95% load, 14/0.95.
#[test]
fn rate_stays_under_the_target_at_every_doubling() {
    let hasher = KeyHasher::new(HashKind::Xxh3_128, 19).unwrap();
    let mut f = ExpandableCuckoo::builder()
        .capacity(1000)
        .fpr(0.01)
        .hasher(hasher)
        .build()
        .unwrap();
    let (mut inserted, mut full, mut report) = (0u64, 0u64, Vec::new());
    for stage in 0..8 {
        full += math::stage_capacity(math::initial_buckets(1000) << stage);
        while inserted < full {
            f.insert(format!("m-{inserted}").as_bytes()).unwrap();
            inserted += 1;
        }
        let probes = 30_000u64;
        let fp = (0..probes)
            .filter(|i| f.contains(format!("p-{stage}-{i}").as_bytes()))
            .count() as u64;
        let expected = f.expected_fpr();
        assert!(
            at_or_under(fp, probes, 0.01),
            "{inserted} keys: {fp}/{probes} is above 1%"
        );
        testkit::assert_fpr_near("expandable", fp, probes, expected, 4.0);
        assert!(expected <= f.fpr_bound() && f.fpr_bound() <= 0.01);
        report.push(format!(
            "{inserted}: {fp}/{probes} (expected {expected:.5})"
        ));
    }
    assert_eq!((f.stages(), inserted), (8, 255_812), "{report:?}");
    let bits = f.size_in_bytes() as f64 * 8.0 / inserted as f64;
    let formula = math::bits_per_key(1000, 0.01, 1, DEFAULT_PERIOD, inserted).unwrap();
    assert_eq!(bits, formula);
    assert!((bits - 14.0 / 0.95).abs() < 0.01, "{bits}");
    let at_10m = math::bits_per_key(1000, 0.01, 1, DEFAULT_PERIOD, 10_000_000).unwrap();
    report.push(format!(
        "bits/key {bits:.2}; at 10M by the formula {at_10m:.2}"
    ));
    eprintln!("{}", report.join("\n"));
}

#[test]
fn builder_rejects_bad_input() {
    let b = ExpandableCuckoo::builder;
    for g in [0, 1, 3, 6, 32] {
        assert!(matches!(
            b().growth(g).build(),
            Err(Error::InvalidParameter { name: "growth", .. })
        ));
    }
    for k in [0, 65] {
        assert!(matches!(
            b().tightening_period(k).build(),
            Err(Error::InvalidParameter {
                name: "tightening_period",
                ..
            })
        ));
    }
    for kicks in [0, MAX_KICKS + 1] {
        assert!(b().max_kicks(kicks).build().is_err());
    }
    for p in [0.0, 1.0, f64::NAN, 1e-30] {
        assert!(matches!(
            b().fpr(p).build(),
            Err(Error::InvalidParameter { name: "fpr", .. })
        ));
    }
    assert!(b().capacity(0).build().is_err());
    assert!(matches!(
        b().capacity(1 << 62).build(),
        Err(Error::SizeOverflow { .. })
    ));
    assert!(b()
        .capacity(u64::MAX / 2)
        .max_bytes(1 << 20)
        .build()
        .is_err());
    let f = b().capacity(1).growth(16).fpr(0.5).build().unwrap();
    assert_eq!((f.growth(), f.stages()), (16, 1));
}

#[test]
fn growth_stops_at_the_memory_cap_and_changes_nothing() {
    let mut f = ExpandableCuckoo::builder()
        .capacity(100)
        .fpr(0.01)
        .max_bytes(400)
        .build()
        .unwrap();
    let keys = testkit::keys("cap", 1000);
    let mut stored = 0;
    for k in &keys {
        let before = f.clone();
        match f.insert(k) {
            Ok(()) => stored += 1,
            Err(Error::MemoryCap { cap: 400, .. }) => {
                assert_eq!(f, before, "a refused growth changed the filter");
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    // 27 buckets of 14-bit slots (197 bytes), then 54 buckets (386 bytes) exceed 400 bytes.
    assert_eq!(stored, 102);
    assert!(keys[..stored].iter().all(|k| f.contains(k)));
    let bytes = f.to_bytes();
    assert!(matches!(
        ExpandableCuckoo::from_bytes_capped(&bytes, 100),
        Err(Error::MemoryCap { cap: 100, .. })
    ));
    let mut capped = ExpandableCuckoo::from_bytes_capped(&bytes, 400).unwrap();
    assert!(capped.insert(&keys[stored]).is_err());
    f.set_max_bytes(None);
    f.insert(&keys[stored]).unwrap();
    assert_eq!(f.stages(), 2);
}

/// Files with a valid checksum but impossible contents: each field changed and re-sealed.
#[test]
fn crafted_files_are_refused() {
    let mut f = small(10, 0.05);
    for k in testkit::keys("crafted", 60) {
        f.insert(&k).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(bytes[10], 13, "the header carries id 13");
    let stage_count_at = 24 + 8 + 8 + 4 + 4 + 4;
    let edits: [(usize, &[u8]); 8] = [
        (24, &(1u64 << 62).to_le_bytes()), // capacity: stages no longer the derived shape
        (32, &2.0f64.to_le_bytes()),       // fpr outside (0, 1)
        (40, &7u32.to_le_bytes()),         // growth 2^7
        (44, &0u32.to_le_bytes()),         // period 0
        (stage_count_at, &60u32.to_le_bytes()), // stages beyond the payload
        (stage_count_at, &300u32.to_le_bytes()), // more stages than a filter may have
        (stage_count_at + 4 + 8, &1u32.to_le_bytes()), // stage 0 at level 1
        (stage_count_at + 4 + 8 + 4, &u64::MAX.to_le_bytes()), // stage 0's item count
    ];
    for (at, value) in edits {
        let mut bad = bytes.clone();
        bad[at..at + value.len()].copy_from_slice(value);
        format::reseal(&mut bad);
        assert!(
            ExpandableCuckoo::from_bytes(&bad).is_err(),
            "edit at {at} accepted"
        );
    }
    // Stage 0's item count off by one: the occupied slots no longer match it.
    let len_at = stage_count_at + 4 + 8 + 4;
    let mut bad = bytes.clone();
    bad[len_at] ^= 1;
    format::reseal(&mut bad);
    assert!(matches!(
        ExpandableCuckoo::from_bytes(&bad),
        Err(FormatError::Invalid(_))
    ));
}

/// The growth test at a larger scale (1,000 to 4.1M keys, twelve stages), then half the keys
/// removed: no false negative among the rest, and the rate at every doubling at or under 1%.
/// Run with `cargo test --release -p filter-expand -- --ignored`.
#[test]
#[ignore = "heavy: 4.1M keys"]
fn grows_to_four_million_and_deletes_half() {
    let mut f = small(1000, 0.01);
    let (mut inserted, mut full) = (0u64, 0u64);
    for stage in 0..12 {
        full += math::stage_capacity(math::initial_buckets(1000) << stage);
        while inserted < full {
            f.insert(format!("m-{inserted}").as_bytes()).unwrap();
            inserted += 1;
        }
        let probes = 200_000u64;
        let fp = (0..probes)
            .filter(|i| f.contains(format!("p-{stage}-{i}").as_bytes()))
            .count() as u64;
        assert!(
            at_or_under(fp, probes, 0.01),
            "{inserted} keys: {fp}/{probes}"
        );
        testkit::assert_fpr_near("expandable", fp, probes, f.expected_fpr(), 4.0);
        eprintln!(
            "{inserted}: {fp}/{probes}, expected {:.5}",
            f.expected_fpr()
        );
    }
    assert_eq!(f.stages(), 12);
    for i in (0..inserted).step_by(2) {
        f.remove(format!("m-{i}").as_bytes()).unwrap();
    }
    assert_eq!(f.len(), inserted / 2);
    let lost = (1..inserted)
        .step_by(2)
        .filter(|i| !f.contains(format!("m-{i}").as_bytes()))
        .count();
    assert_eq!(lost, 0);
}

/// Removes every held copy in a seeded random order, checking every 50 removals that each key
/// still held is present. Returns the first false negative (or refused removal), if any.
fn drain(
    f: &mut ExpandableCuckoo,
    model: &mut HashMap<u64, u32>,
    seed: u64,
    rule: Rule,
) -> Option<String> {
    let key = |i: u64| format!("merge-{i}").into_bytes();
    let mut held: Vec<u64> = model
        .iter()
        .flat_map(|(&i, &c)| std::iter::repeat_n(i, c as usize))
        .collect();
    held.sort_unstable();
    let mut rng = Rng(seed);
    for n in (1..held.len()).rev() {
        held.swap(n, rng.below(n as u64 + 1) as usize);
    }
    for (n, i) in held.into_iter().enumerate() {
        let h = f.hasher().hash(&key(i));
        let removed = match rule {
            Rule::Newest => f.remove_hash(h),
            Rule::First => remove_first_matching(f, h),
        };
        if removed.is_err() {
            return Some(format!("removal {n}: key {i} refused"));
        }
        *model.get_mut(&i).expect("held") -= 1;
        if n % 50 == 0 {
            if let Some((i, _)) = model.iter().find(|(&i, &c)| c > 0 && !f.contains(&key(i))) {
                return Some(format!("removal {n}: key {i} lost"));
            }
        }
    }
    assert_eq!(f.len(), 0);
    None
}

/// Two colliding filters fed overlapping keys with duplicates, merged.
fn merged_pair(seed: u64) -> (ExpandableCuckoo, HashMap<u64, u32>) {
    let (mut a, mut b) = (colliding(), colliding());
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut rng = Rng(seed);
    for step in 0..3000u64 {
        let i = rng.below(700);
        let f = if step % 3 == 0 { &mut b } else { &mut a };
        f.insert(format!("merge-{i}").as_bytes()).unwrap();
        *model.entry(i).or_default() += 1;
    }
    let stages = a.stages() + b.stages();
    a.merge(&b).unwrap();
    assert_eq!((a.stages(), a.len()), (stages, 3000));
    (a, model)
}

#[test]
fn merged_filters_hold_both_sets_and_delete_without_false_negatives() {
    for seed in 1..=2 {
        let (mut f, mut model) = merged_pair(seed);
        let levels: Vec<u32> = f.stages.iter().map(|s| s.index).collect();
        assert!(levels.windows(2).all(|w| w[0] <= w[1]), "{levels:?}");
        testkit::check_round_trip(&f, &testkit::keys("merged-probe", 500));
        for i in 0..200u64 {
            f.insert(format!("merge-{}", 1000 + i).as_bytes()).unwrap();
            *model.entry(1000 + i).or_default() += 1;
        }
        assert_eq!(drain(&mut f, &mut model, seed, Rule::Newest), None);
    }
    let lost = (1..=2)
        .filter(|&seed| {
            let (mut f, mut model) = merged_pair(seed);
            drain(&mut f, &mut model, seed, Rule::First).is_some()
        })
        .count();
    assert_eq!(
        lost, 2,
        "the first-match rule lost keys in only {lost} of 2 merged runs"
    );
}

#[test]
fn merge_refuses_other_parameters_and_adds_the_rates() {
    let (mut a, b) = (small(500, 0.01), small(500, 0.02));
    let before = a.clone();
    assert!(matches!(a.merge(&b), Err(Error::Incompatible(_))));
    assert_eq!(a, before);
    let mut b = small(500, 0.01);
    for k in testkit::keys("ma", 3000) {
        a.insert(&k).unwrap();
    }
    for k in testkit::keys("mb", 3000) {
        b.insert(&k).unwrap();
    }
    let (ra, rb, bound) = (a.expected_fpr(), b.expected_fpr(), a.fpr_bound());
    a.merge(&b).unwrap();
    assert!(testkit::keys("ma", 3000).iter().all(|k| a.contains(k)));
    assert!(testkit::keys("mb", 3000).iter().all(|k| a.contains(k)));
    assert!((a.expected_fpr() - (1.0 - (1.0 - ra) * (1.0 - rb))).abs() < 1e-12);
    assert!(a.fpr_bound() > bound && a.expected_fpr() <= a.fpr_bound());
    let mut capped = b.clone();
    capped.set_max_bytes(Some(capped.size_in_bytes() as u64 + 10));
    assert!(matches!(capped.merge(&b), Err(Error::MemoryCap { .. })));
    assert_eq!(capped.len(), 3000);
}

/// The batch methods (prefetching the large stages) answer as the single-key ones do.
#[test]
fn batches_agree_with_single_keys() {
    let mut batched = small(40_000, 0.01);
    let mut single = batched.clone();
    let members = testkit::keys("batch", 60_000);
    let refs: Vec<&[u8]> = members.iter().map(Vec::as_slice).collect();
    batched.insert_batch(&refs).unwrap();
    for k in &members {
        single.insert(k).unwrap();
    }
    assert_eq!(batched, single);
    assert!(batched.stages() == 2 && batched.lines_per_key() == 4);
    let probes = testkit::keys("batch-probe", 20_000);
    let mixed: Vec<&[u8]> = probes
        .iter()
        .chain(&members[..20_000])
        .map(Vec::as_slice)
        .collect();
    let mut out = Vec::new();
    batched.contains_batch(&mixed, &mut out);
    let want: Vec<bool> = mixed.iter().map(|k| single.contains(k)).collect();
    assert_eq!(out, want);
    assert!(out[20_000..].iter().all(|&b| b));
}

/// The batch lookup's own pipeline (places computed once, kept in a ring, prefetched ahead) is
/// taken by a filter above the prefetch threshold, grown through many stages, and answers as
/// single lookups do, before and after deleting most of the keys of the oldest stages.
#[test]
fn pipelined_batches_agree_with_single_keys_on_a_large_filter() {
    // Long fingerprints, so that a few stages pass the threshold of a multi-line filter.
    let mut f = small(1_000, 1e-10);
    let members = testkit::keys("pipelined", 650_000);
    let refs: Vec<&[u8]> = members.iter().map(Vec::as_slice).collect();
    f.insert_batch(&refs).unwrap();
    let bytes = f.size_in_bytes();
    assert!(
        filter_core::worth_prefetching(bytes, f.lines_per_key()),
        "{bytes}"
    );
    assert!(f.stages() >= 9 && f.lines_per_key() >= 4, "{}", f.stages());
    let probes = testkit::keys("pipelined-probe", 30_000);
    let mixed: Vec<&[u8]> = probes
        .iter()
        .chain(members.iter().step_by(14))
        .map(Vec::as_slice)
        .collect();
    let mut out = Vec::new();
    for round in 0..2 {
        f.contains_batch(&mixed, &mut out);
        let want: Vec<bool> = mixed.iter().map(|k| f.contains(k)).collect();
        assert_eq!(out, want, "round {round}");
        let kept = |i: usize| round == 0 || i * 14 >= 30_000;
        let members_out = &out[probes.len()..];
        assert!((0..members_out.len()).all(|i| members_out[i] || !kept(i)));
        for k in members[..30_000].iter().step_by(2).filter(|_| round == 0) {
            f.remove(k).unwrap();
        }
    }
    assert!(out[probes.len()..].iter().filter(|&&b| !b).count() > 0);
}

/// The space figures of the crate docs ("Space"): peaks just after each growth, troughs with
/// every stage full, grown from 1,000 keys at 1% (growth 2, period 8).
#[test]
fn space_sawtooth_matches_the_docs() {
    let bpk = |n| math::bits_per_key(1_000, 0.01, 1, 8, n).unwrap();
    let (mut held, mut peaks, mut troughs) = (0u64, Vec::new(), Vec::new());
    for i in 0..14 {
        let capacity = math::stage_capacity(264 << i);
        peaks.push((held + 1, bpk(held + 1)));
        held += capacity;
        troughs.push(bpk(held));
    }
    let round = |x: f64| (x * 10.0).round() / 10.0;
    assert_eq!((peaks[1].0, round(peaks[1].1)), (1_004, 44.3));
    assert_eq!((peaks[2].0, round(peaks[2].1)), (3_010, 34.4));
    let later: Vec<f64> = peaks[3..].iter().map(|p| p.1).collect();
    assert!(
        later.iter().all(|&b| (29.5..31.7).contains(&b)),
        "{later:?}"
    );
    assert_eq!((peaks[13].0, round(peaks[13].1)), (8_217_206, 31.5));
    assert!(
        troughs.iter().all(|&b| (14.735..15.775).contains(&b)),
        "{troughs:?}"
    );
    assert_eq!(round(bpk(10_000_000)), 25.9);
    // The floor: 14 stages of 13 bits bound the rate above 1%.
    assert!(math::schedule_bound(13, 64, 14) > 0.01);
}
