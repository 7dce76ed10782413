//! Keys chosen by an adversary. The hashes are public code and the default seed is 0, so an
//! attacker can search offline for keys that all land in one block or one cuckoo bucket pair:
//! the block saturates (every probe there is a false positive) and the cuckoo table refuses
//! inserts while nearly empty. With a secret seed (`KeyHasher::secret`) the same keys are
//! ordinary keys. The attack uses fixed seeds; the "secret" side uses fixed seeds the attack did
//! not target (for reproducible binomial bounds) and one truly secret seed.

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
    // Against the seed they were crafted for: all of them.
    assert_eq!(in_block_0(hasher(KNOWN)), n as f64);
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
    // The damage: under the known seed block 0 fills up, and random probes that land there
    // are false positives far more often than the formula's rate for 300 keys.
    let mut f = build(KNOWN);
    crafted.iter().for_each(|k| f.insert(k).unwrap());
    let probes = keys_for_one_block(hasher(KNOWN), blocks, 2000)
        .into_iter()
        .map(|mut k| {
            k.extend_from_slice(b".probe");
            k
        })
        .filter(|k| reduce(hasher(KNOWN).hash(k).hi, blocks) == 0)
        .collect::<Vec<_>>();
    let fp = probes.iter().filter(|k| f.contains(k)).count() as f64 / probes.len() as f64;
    assert!(fp > 0.5, "block 0 should be saturated: {fp}");
    assert!(math::split_block_fpr(blocks, n as u64) < 0.01);
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
    // table is about 2% full.
    let mut victim = build(hasher(KNOWN));
    let accepted = crafted
        .iter()
        .take_while(|k| victim.insert(k).is_ok())
        .count();
    assert_eq!(accepted, 8);
    assert!(matches!(
        victim.insert(&crafted[8]),
        Err(Error::Full { .. })
    ));
    // A seed the attacker did not know, fixed and truly secret: the same 20 keys all go in.
    for h in [hasher(0x5ec2e7), KeyHasher::secret(HashKind::Xxh3_128)] {
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
