//! The deletion rule (remove from the newest matching stage) against a model of counts, the
//! fixtures showing the first-match rule loses keys, and merges, which must keep the rule sound.

use super::*;

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
        } else if insert_or_refuse_copy(f, &key(i)) {
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

/// Inserts `key`; `false` when the insert was refused as one copy too many (nothing changed).
/// With the short fingerprints of [`colliding`], other keys' entries can fill a pair with the
/// key's identity too, so the model runs meet this refusal.
fn insert_or_refuse_copy(f: &mut ExpandableCuckoo, key: &[u8]) -> bool {
    let before = f.clone();
    match f.insert(key) {
        Ok(()) => true,
        Err(Error::TooManyCopies { copies }) => {
            assert!(copies == 8 || copies == 4, "{copies}");
            assert_eq!(*f, before, "a refused copy changed the filter");
            false
        }
        Err(e) => panic!("insert: {e}"),
    }
}

/// Issue 51: 72 inserts of one key took 975 MB (a new, doubled stage for every 8 copies).
/// Now the ninth copy is refused, and memory stays that of one stage.
#[test]
fn a_repeated_key_never_grows_the_filter() {
    let mut f = small(1_000, 0.01);
    let bytes = f.size_in_bytes();
    let refused = (0..72)
        .filter(|_| match f.insert(b"again") {
            Ok(()) => false,
            Err(Error::TooManyCopies { copies: 8 }) => true,
            Err(e) => panic!("{e}"),
        })
        .count();
    assert_eq!(refused, 64);
    assert_eq!((f.stages(), f.size_in_bytes(), f.len()), (1, bytes, 8));
    for left in (0..8).rev() {
        f.remove(b"again").unwrap();
        assert!(left == 0 || f.contains(b"again"), "lost, {left} left");
    }
    assert_eq!(f.remove(b"again"), Err(Error::NotPresent));
}

/// A key takes at most 8 copies per stage: once other keys have grown the filter, the newest
/// stage takes 8 more, and every copy comes back out.
#[test]
fn copies_are_bounded_per_stage_and_all_come_back_out() {
    let mut f = small(100, 0.01);
    let copies =
        |f: &mut ExpandableCuckoo| (0..40).take_while(|_| f.insert(b"again").is_ok()).count();
    assert_eq!(copies(&mut f), 8);
    testkit::check_no_false_negatives(&mut f, &testkit::keys("grow", 400));
    let stages = f.stages();
    assert!(stages >= 2);
    let more = copies(&mut f);
    assert!(
        (1..=8 * stages).contains(&more),
        "{more} more copies in {stages} stages"
    );
    assert_eq!(f.stages(), stages, "copies made a stage");
    let held = 8 + more;
    assert_eq!(f.count(b"again") as usize, held);
    for left in (0..held).rev() {
        f.remove(b"again").unwrap();
        assert!(left == 0 || f.contains(b"again"), "lost, {left} left");
    }
    assert_eq!(f.remove(b"again"), Err(Error::NotPresent));
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
        if insert_or_refuse_copy(f, format!("merge-{i}").as_bytes()) {
            *model.entry(i).or_default() += 1;
        }
    }
    let stages = a.stages() + b.stages();
    a.merge(&b).unwrap();
    let held: u64 = model.values().map(|&c| u64::from(c)).sum();
    assert_eq!((a.stages(), a.len()), (stages, held));
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
