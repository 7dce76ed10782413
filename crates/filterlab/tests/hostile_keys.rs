//! Keys chosen by an adversary. The hashes are public code and the default seed is 0, so an
//! attacker can search offline for keys that all land in one block or one cuckoo bucket pair:
//! the block saturates (every probe there is a false positive) and the cuckoo table refuses
//! inserts while nearly empty. With a secret seed (`KeyHasher::secret`) the same keys are
//! ordinary keys. The attack uses a fixed seed; the "secret" side uses fixed seeds the attack did
//! not target (for reproducible binomial bounds). That `KeyHasher::secret` draws a fresh seed
//! each time is checked on its own.

use filterlab::{math, reduce, BlockedBloom, CuckooFilter, Error, Filter, HashKind, KeyHasher};

const KNOWN: u64 = 0;

fn hasher(seed: u64) -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, seed).unwrap()
}

/// `n` keys that all fall in block 0 of a `blocks`-block filter hashed with `known`.
fn keys_for_one_block(known: KeyHasher, blocks: u64, n: usize) -> Vec<Vec<u8>> {
    (0u64..)
        .map(|i| format!("attack-{i}@example.com").into_bytes())
        .filter(|k| reduce(known.hash(k).hi, blocks) == 0)
        .take(n)
        .collect()
}

#[test]
fn crafted_keys_pile_into_one_block_only_under_the_known_seed() {
    let build = |seed| {
        BlockedBloom::builder()
            .capacity(2000)
            .fpr(0.01)
            .hasher(hasher(seed))
            .build()
            .unwrap()
    };
    let blocks = build(KNOWN).blocks();
    let n = 300;
    let crafted = keys_for_one_block(hasher(KNOWN), blocks, n);
    let in_block_0 = |h: KeyHasher| {
        crafted
            .iter()
            .filter(|k| reduce(h.hash(k).hi, blocks) == 0)
            .count() as f64
    };
    // Against seeds the attacker did not know: Binomial(n, 1/blocks), within 4 sigma.
    let p = 1.0 / blocks as f64;
    let (mean, sigma) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
    for seed in [0x5ec2e7, 0xfeed_beef, 0x1234_5678_9abc] {
        let got = in_block_0(hasher(seed));
        assert!(
            (got - mean).abs() <= 4.0 * sigma + 1.0,
            "seed {seed:#x}: {got} vs {mean}"
        );
    }
    // The damage, measured on ordinary probes (not chosen by block): the same 300 keys, inserted
    // under each seed. Under the seeds the attacker did not know, the rate is the formula's
    // for 300 keys (4-sigma binomial). Under the known seed every key sits in block 0, which
    // saturates: nearly every probe that lands there (1/blocks of them) is a false positive,
    // far above the formula.
    let probes: Vec<Vec<u8>> = (0..40_000)
        .map(|i| format!("probe-{i}@example.org").into_bytes())
        .collect();
    let false_positives = |seed| {
        let mut f = build(seed);
        crafted.iter().for_each(|k| f.insert(k).unwrap());
        probes.iter().filter(|k| f.contains(k)).count() as u64
    };
    let formula = math::split_block_fpr(blocks, n as u64);
    let trials = probes.len() as u64;
    for seed in [0x5ec2e7, 0xfeed_beef] {
        let fp = false_positives(seed);
        filter_core::testkit::assert_fpr_near("unknown seed", fp, trials, formula, 4.0);
    }
    let attacked = false_positives(KNOWN) as f64 / trials as f64;
    let floor = 0.5 / blocks as f64;
    assert!(
        attacked > floor && attacked > formula + 10.0 * math::binomial_sigma(formula, trials),
        "known seed: rate {attacked} should exceed half the block share {floor} and the formula {formula}"
    );
}

/// Keys whose (bucket, fingerprint) pair is the same under `known`: they share both buckets.
fn keys_for_one_bucket_pair(known: KeyHasher, f: &CuckooFilter, n: usize) -> Vec<Vec<u8>> {
    let fp_values = (1u64 << f.fingerprint_bits()) - 1;
    let target = |k: &[u8]| {
        let h = known.hash(k);
        (reduce(h.lo, f.buckets()), 1 + reduce(h.hi, fp_values))
    };
    let first = target(b"attack-0");
    (0u64..)
        .map(|i| format!("attack-{i}").into_bytes())
        .filter(|k| target(k) == first)
        .take(n)
        .collect()
}

#[test]
fn crafted_keys_fill_a_cuckoo_bucket_pair_only_under_the_known_seed() {
    let build = |h| {
        CuckooFilter::builder()
            .capacity(400)
            .fingerprint_bits(6)
            .hasher(h)
            .build()
            .unwrap()
    };
    let f = build(hasher(KNOWN));
    let crafted = keys_for_one_bucket_pair(hasher(KNOWN), &f, 20);
    // Known seed: two buckets of four slots take 8 copies; the 9th insert is refused while the
    // table is about 2% full. The crafted keys share one fingerprint and one bucket pair, so the
    // filter cannot tell them apart: the refusal is that of a ninth copy of one key.
    let mut victim = build(hasher(KNOWN));
    let accepted = crafted
        .iter()
        .take_while(|k| victim.insert(k).is_ok())
        .count();
    assert_eq!(accepted, 8);
    assert!(matches!(
        victim.insert(&crafted[8]),
        Err(Error::TooManyCopies { copies: 8 })
    ));
    // Seeds the attacker did not know: the same 20 keys all go in.
    for h in [hasher(0x5ec2e7), hasher(0xfeed_beef)] {
        let mut safe = build(h);
        for k in &crafted {
            safe.insert(k).unwrap();
        }
        assert!(crafted.iter().all(|k| safe.contains(k)));
    }
}

#[test]
fn a_secret_seed_is_saved_with_the_filter() {
    use filterlab::Persist;
    let h = KeyHasher::secret(HashKind::Xxh3_128);
    let mut f = CuckooFilter::builder()
        .capacity(100)
        .hasher(h)
        .build()
        .unwrap();
    f.insert(b"k").unwrap();
    let back = CuckooFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(back.hasher(), h);
    assert!(back.contains(b"k"));
}

#[test]
fn secret_seeds_differ_from_call_to_call() {
    // Two draws agree with probability 2^-64 per pair.
    let seeds: Vec<KeyHasher> = (0..4)
        .map(|_| KeyHasher::secret(HashKind::Xxh3_128))
        .collect();
    for (i, a) in seeds.iter().enumerate() {
        assert!(
            seeds[i + 1..].iter().all(|b| b != a),
            "a secret seed repeated"
        );
        assert_ne!(*a, hasher(KNOWN));
    }
}
