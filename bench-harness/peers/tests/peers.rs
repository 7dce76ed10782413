//! Sanity checks for every peer: no false negatives, a false-positive rate that is not absurd,
//! a non-zero size, and reproducible answers where the peer is seeded.
//!
//! These are other people's filters, so the FP bound is a loose sanity bound (5%), not a claim
//! that a peer meets its target; the measured rates are printed (`--nocapture`) for the report.

use filterlab_peers::{bloomfilter_seed, fastbloom_atomic_parallel_build, Peer, PeerKind};

const N: usize = 20_000;
const P: f64 = 0.01;
const PROBES: usize = 100_000;

/// Distinct members; non-members differ in prefix and domain, so the two sets are disjoint.
fn members() -> Vec<Vec<u8>> {
    (0..N)
        .map(|i| format!("member.{i}@example.com").into_bytes())
        .collect()
}

fn non_members() -> Vec<Vec<u8>> {
    (0..PROBES)
        .map(|i| format!("stranger.{i}@example.org").into_bytes())
        .collect()
}

fn fp_rate(contains: impl Fn(&[u8]) -> bool, probes: &[Vec<u8>]) -> f64 {
    probes.iter().filter(|k| contains(k)).count() as f64 / probes.len() as f64
}

fn check(kind: PeerKind) {
    let keys = members();
    let (peer, refused) = Peer::build(kind, N, P, keys.iter().map(Vec::as_slice)).unwrap();
    assert_eq!(peer.kind(), kind);

    // A refused cuckoofilter insert keeps the refused key but drops some other key's
    // fingerprint, so each refusal may cost one member; every other peer refuses nothing.
    let missing = keys.iter().filter(|k| !peer.contains(k)).count() as u64;
    if !matches!(kind, PeerKind::Cuckoofilter | PeerKind::CuckoofilterXxh3) {
        assert_eq!(refused, 0, "{kind}: only cuckoofilter refuses inserts");
    }
    assert!(
        missing <= refused,
        "{kind}: {missing} false negatives with {refused} refused inserts"
    );

    let fp = fp_rate(|k| peer.contains(k), &non_members());
    let size = peer.size_in_bytes();
    println!(
        "{:<28} n={N} p={P}: FP {:.4}% ({} of {PROBES}), {} bytes = {:.2} bits/key, refused {refused}",
        kind.name(),
        fp * 100.0,
        (fp * PROBES as f64).round(),
        size,
        size as f64 * 8.0 / N as f64,
    );
    assert!(
        fp < 0.05,
        "{kind}: FP rate {fp} is above the 5% sanity bound"
    );
    if matches!(kind, PeerKind::HashSet | PeerKind::HashSetBytes) {
        assert_eq!(fp, 0.0, "a HashSet is exact");
    }
    assert!(size > 0, "{kind}: size_in_bytes is 0");
    assert!(!kind.quirks().is_empty());
}

macro_rules! per_kind {
    ($($test:ident => $kind:ident,)*) => {$(
        #[test]
        fn $test() {
            check(PeerKind::$kind);
        }
    )*};
}

per_kind! {
    fastbloom_default_finds_members_and_rejects_most_strangers => FastbloomDefault,
    fastbloom_foldhash_finds_members_and_rejects_most_strangers => FastbloomFoldhash,
    bloomfilter_finds_members_and_rejects_most_strangers => Bloomfilter,
    cuckoofilter_finds_members_except_refusals_and_rejects_most_strangers => Cuckoofilter,
    growable_bloom_finds_members_and_rejects_most_strangers => GrowableBloom,
    probabilistic_collections_finds_members_and_rejects_most_strangers => ProbabilisticCollections,
    binary_fuse8_finds_members_and_rejects_most_strangers => BinaryFuse8,
    binary_fuse16_finds_members_and_rejects_most_strangers => BinaryFuse16,
    qfilter_finds_members_and_rejects_most_strangers => Qfilter,
    hash_set_finds_members_and_rejects_every_stranger => HashSet,
    cuckoofilter_xxh3_finds_members_except_refusals_and_rejects_most_strangers => CuckoofilterXxh3,
    byte_hash_set_finds_members_and_rejects_every_stranger => HashSetBytes,
}

#[test]
fn all_lists_every_kind_once_with_a_distinct_name() {
    let mut names: Vec<_> = PeerKind::ALL.iter().map(|k| k.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PeerKind::ALL.len());
}

/// Seeded peers must give the same answers on every build; cuckoofilter is left out because
/// its eviction walk draws from `thread_rng`, and HashSet because it is exact anyway.
#[test]
fn seeded_peers_answer_identically_across_builds() {
    let keys = members();
    let probes = non_members();
    for kind in PeerKind::ALL {
        if matches!(
            kind,
            PeerKind::Cuckoofilter
                | PeerKind::CuckoofilterXxh3
                | PeerKind::HashSet
                | PeerKind::HashSetBytes
        ) {
            continue;
        }
        let build = || {
            Peer::build(kind, N, P, keys.iter().map(Vec::as_slice))
                .unwrap()
                .0
        };
        let (a, b) = (build(), build());
        let differ = probes[..20_000]
            .iter()
            .filter(|k| a.contains(k) != b.contains(k))
            .count();
        assert_eq!(differ, 0, "{kind}: two builds disagree on {differ} probes");
    }
}

#[test]
fn atomic_parallel_build_finds_every_member_and_matches_sequential_bits() {
    let keys = members();
    let slices: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let (atomic, secs) = fastbloom_atomic_parallel_build(&slices, N, P, 2).unwrap();
    // 20,000 inserts take some time: zero or a non-number means the clock was not read.
    assert!(secs > 0.0 && secs.is_finite(), "insert time {secs}");
    assert!(
        slices.iter().all(|k| atomic.contains(k)),
        "parallel build lost a key"
    );

    // Setting bits is an OR, so the order of inserts cannot matter: same seed, same bits.
    let (seq, _) = Peer::build(PeerKind::FastbloomFoldhash, N, P, slices.iter().copied()).unwrap();
    let Peer::FastbloomFoldhash(seq) = seq else {
        unreachable!()
    };
    let atomic_bits: Vec<u64> = atomic.0.iter().collect();
    let seq_bits: Vec<u64> = seq.iter().collect();
    assert_eq!(atomic_bits, seq_bits);
    assert_eq!(atomic.size_in_bytes(), seq.num_bits() / 8);

    let fp = fp_rate(|k| atomic.contains(k), &non_members());
    println!(
        "fastbloom AtomicBloomFilter (2 threads): FP {:.4}%, insert {:.3} ms",
        fp * 100.0,
        secs * 1e3
    );
    // The same bits answer the same: equal to the sequential filter's count, probe for probe.
    let seq_fp = fp_rate(|k| seq.contains(k), &non_members());
    assert_eq!(fp, seq_fp);
    // And not above the 1% asked for by more than 4 binomial sigmas over the probes.
    let sigma = (P * (1.0 - P) / PROBES as f64).sqrt();
    assert!(
        fp <= P + 4.0 * sigma,
        "FP {fp} is more than 4 sigmas ({sigma}) above {P}"
    );
}

#[test]
fn atomic_parallel_build_accepts_odd_thread_counts() {
    let keys = members();
    let slices: Vec<&[u8]> = keys[..7].iter().map(Vec::as_slice).collect();
    for threads in [0, 1, 3, 64] {
        let (atomic, _) = fastbloom_atomic_parallel_build(&slices, 7, P, threads).unwrap();
        assert!(
            slices.iter().all(|k| atomic.contains(k)),
            "threads = {threads}"
        );
    }
    assert!(fastbloom_atomic_parallel_build(&[], 1, P, 2).is_ok());
}

#[test]
fn bad_parameters_are_errors_not_panics() {
    let keys: [&[u8]; 1] = [b"a"];
    for kind in PeerKind::ALL {
        for (n, p) in [
            (0, P),
            (10, 0.0),
            (10, 1.0),
            (10, -0.5),
            (10, f64::NAN),
            (usize::MAX, 1e-300),
        ] {
            let err = Peer::build(kind, n, p, keys).unwrap_err();
            assert!(!err.to_string().is_empty(), "{kind} n={n} p={p}");
        }
    }
    assert!(fastbloom_atomic_parallel_build(&keys, 0, P, 2).is_err());
}

#[test]
fn hash_set_rejects_non_utf8_keys_with_a_hint() {
    let keys: [&[u8]; 2] = [b"ok", &[0xff, 0xfe]];
    let err = Peer::build(PeerKind::HashSet, 2, P, keys).unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    // The filters take arbitrary bytes.
    let (peer, _) = Peer::build(PeerKind::FastbloomDefault, 2, P, keys).unwrap();
    assert!(peer.contains(&[0xff, 0xfe]));
}

/// The reason `bloomfilter_seed` has distinct halves: with equal halves both SipHash passes
/// return the same value and the probes degenerate. Measured, not assumed.
#[test]
fn bloomfilter_equal_seed_halves_raise_fp() {
    let keys = members();
    let probes = non_members();
    let fp_with = |seed: &[u8; 32]| {
        let mut f = bloomfilter::Bloom::<[u8]>::new_for_fp_rate_with_seed(N, P, seed).unwrap();
        for k in &keys {
            f.set(k);
        }
        fp_rate(|k| f.check(k), &probes)
    };
    let distinct = bloomfilter_seed();
    let mut equal = distinct;
    equal.copy_within(..16, 16);
    let (good, bad) = (fp_with(&distinct), fp_with(&equal));
    println!(
        "bloomfilter: FP {:.4}% with distinct seed halves, {:.4}% with equal halves ({:.1}x)",
        good * 100.0,
        bad * 100.0,
        bad / good
    );
    assert!(bad > 1.5 * good, "equal halves: {bad}, distinct: {good}");
}

/// Filling the table to 100% of its (power-of-two) slots must make some inserts fail; they are
/// counted, never a panic, and each one loses at most one member.
#[test]
fn cuckoofilter_counts_refusals_on_a_full_table() {
    const SLOTS: usize = 1 << 14;
    let keys: Vec<Vec<u8>> = (0..SLOTS)
        .map(|i| format!("member.{i}@example.com").into_bytes())
        .collect();
    let (peer, refused) = Peer::build(
        PeerKind::Cuckoofilter,
        SLOTS,
        P,
        keys.iter().map(Vec::as_slice),
    )
    .unwrap();
    let missing = keys.iter().filter(|k| !peer.contains(k)).count() as u64;
    println!(
        "cuckoofilter at 100% load: {refused} of {SLOTS} inserts refused, {missing} members lost"
    );
    assert!(refused > 0);
    assert!(missing <= refused);
}

#[test]
fn qfilter_refuses_past_its_table_and_its_rate_follows_its_load() {
    // Twice the keys it was sized for: a fixed-size qfilter refuses the overflow, loses no
    // accepted key, and counts each refusal.
    let keys: Vec<Vec<u8>> = (0..2 * N)
        .map(|i| format!("member.{i}@example.com").into_bytes())
        .collect();
    let (peer, refused) =
        Peer::build(PeerKind::Qfilter, N, P, keys.iter().map(Vec::as_slice)).unwrap();
    let missing = keys.iter().filter(|k| !peer.contains(k)).count() as u64;
    assert!(refused > 0, "an over-full qfilter refused nothing");
    assert!(missing <= refused);

    // At n keys its rate is 1 - exp(-load / 2^r) with r = 7 at 1%: within 5 binomial sigmas.
    let (peer, _) =
        Peer::build(PeerKind::Qfilter, N, P, members().iter().map(Vec::as_slice)).unwrap();
    let Peer::Qfilter(f) = &peer else {
        panic!("not a qfilter")
    };
    assert_eq!(f.max_error_ratio(), 2f64.powi(-7));
    let expected = f.current_error_ratio();
    let fp = fp_rate(|k| peer.contains(k), &non_members()) * PROBES as f64;
    let mean = expected * PROBES as f64;
    let sigma = (mean * (1.0 - expected)).sqrt();
    assert!(
        (fp - mean).abs() <= 5.0 * sigma,
        "qfilter: {fp} false positives, formula {mean:.1} ± {sigma:.1}"
    );
}
