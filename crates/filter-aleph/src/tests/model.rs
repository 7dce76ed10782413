//! The model test of deletes: random sequences of inserts, deletes and doublings against an
//! exact multiset, with short fingerprints so that entries run out and void groups form. After
//! every step every key the multiset holds must be present, and `len` must equal its total. A
//! filter deleting by the wrong rule (the shortest match) must fail it.

use super::*;
use crate::delete::Rule;
use std::collections::HashMap;

/// SplitMix64: a fixed, seeded sequence (no dependence on a crate's generator).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What went wrong first in one sequence.
#[derive(Debug)]
#[allow(dead_code)] // read through Debug, in the panic message
enum Failure {
    FalseNegative { step: usize, key: u64 },
    Len { step: usize, len: u64, model: u64 },
    Refused { step: usize, key: u64 },
}

/// One sequence of `steps` operations on keys `0..universe`, deleting by `rule`.
/// Returns the doublings made and the most void entries seen.
fn run(
    seed: u64,
    steps: usize,
    universe: u64,
    rule: Rule,
) -> std::result::Result<(u32, u64), Failure> {
    let mut rng = Mix(seed);
    let mut f = AlephFilter::builder()
        .capacity(64)
        .fpr(0.3)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, seed).unwrap())
        .build()
        .unwrap();
    let mut model: HashMap<u64, u32> = HashMap::new();
    let mut held: Vec<u64> = Vec::new();
    let mut voids = 0;
    for step in 0..steps {
        let roll = rng.below(100);
        if roll < 55 {
            let k = rng.below(universe);
            f.insert(&key(k)).unwrap();
            *model.entry(k).or_default() += 1;
            held.push(k);
        } else if roll < 97 && !held.is_empty() {
            let k = held.swap_remove(rng.below(held.len() as u64) as usize);
            if f.remove_by(f.hasher().hash(&key(k)), rule).is_err() {
                return Err(Failure::Refused { step, key: k });
            }
            *model.get_mut(&k).unwrap() -= 1;
        } else if f.quotients() < 1 << 13 {
            // A doubling before the table is full (at most seven from 64 quotients).
            f.expand().unwrap();
        }
        voids = voids.max(f.void_entries());
        if step % 25 == 0 || step + 1 == steps {
            check(&f, &model, step)?;
        }
    }
    Ok((f.expansions(), voids))
}

fn check(
    f: &AlephFilter,
    model: &HashMap<u64, u32>,
    step: usize,
) -> std::result::Result<(), Failure> {
    let total: u64 = model.values().map(|&c| u64::from(c)).sum();
    if f.len() != total {
        return Err(Failure::Len {
            step,
            len: f.len(),
            model: total,
        });
    }
    match model.iter().find(|&(&k, &c)| c > 0 && !f.contains(&key(k))) {
        Some((&k, _)) => Err(Failure::FalseNegative { step, key: k }),
        None => Ok(()),
    }
}

#[test]
fn deletes_agree_with_an_exact_multiset_through_doublings_and_void_entries() {
    let (mut deepest, mut voids) = (0, 0);
    for seed in 0..40 {
        match run(seed, 3_000, 1_500, Rule::Longest) {
            Ok((k, v)) => (deepest, voids) = (deepest.max(k), voids.max(v)),
            Err(e) => panic!("seed {seed}: {e:?}"),
        }
    }
    assert!(voids > 0, "no sequence made a void entry");
    // At 30% the first generation has 2 bits: the sequences reach void entries and their copies.
    assert!(deepest >= 5, "the sequences grew only {deepest} times");
}

#[test]
fn the_model_test_catches_a_filter_that_deletes_the_shortest_match() {
    let caught = (0..40)
        .filter(|&seed| run(seed, 3_000, 1_500, Rule::Shortest).is_err())
        .count();
    assert!(caught > 0, "no sequence caught the wrong rule");
}
