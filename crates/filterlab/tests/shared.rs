//! Sharing the variants that have no lock-free form: `Sharded<F>`, many threads at once.

use filter_core::concurrent::Sharded;
use filter_core::testkit;
use filterlab::{CountingBloom, CuckooFilter, Error, Filter, KeyHasher, ScalableBloom};

/// Removes a key from a sharded filter (`Sharded::remove` for deletable variants).
type Remove<F> = fn(&Sharded<F>, &[u8]) -> filterlab::Result<()>;

const THREADS: usize = 8;
const PER_THREAD: usize = 4_000;

/// Every thread inserts its keys, checks each right after, then removes every other one when
/// `remove` is given; returns the false negatives seen.
fn run<F: Filter + Send>(shared: &Sharded<F>, remove: Option<Remove<F>>) -> usize {
    let lost = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let lost = &lost;
            s.spawn(move || {
                let keys = testkit::keys(&format!("shard{t}"), PER_THREAD);
                for k in &keys {
                    shared.insert(k).unwrap();
                    if !shared.contains(k).unwrap() {
                        lost.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
                if let Some(remove) = remove {
                    keys.iter()
                        .step_by(2)
                        .for_each(|k| remove(shared, k).unwrap());
                }
            });
        }
    });
    let kept = (0..THREADS).flat_map(|t| {
        let keys = testkit::keys(&format!("shard{t}"), PER_THREAD);
        let step = if remove.is_some() { 2 } else { 1 };
        keys.into_iter().skip(step - 1).step_by(step)
    });
    lost.into_inner() + kept.filter(|k| !shared.contains(k).unwrap()).count()
}

#[test]
fn sharded_counting_filter_under_many_threads() {
    let shared = Sharded::new(16, |_| {
        CountingBloom::builder()
            .capacity((THREADS * PER_THREAD / 16 + 500) as u64)
            .build()
    })
    .unwrap();
    assert_eq!(run(&shared, Some(Sharded::remove)), 0);
    assert_eq!(shared.len(), (THREADS * PER_THREAD / 2) as u64);
}

#[test]
fn sharded_cuckoo_filter_under_many_threads() {
    let shared = Sharded::new(16, |_| {
        CuckooFilter::builder()
            .capacity((THREADS * PER_THREAD / 16 * 2) as u64)
            .build()
    })
    .unwrap();
    assert_eq!(run(&shared, Some(Sharded::remove)), 0);
}

#[test]
fn sharded_scalable_filter_under_many_threads() {
    let shared = Sharded::new(4, |_| ScalableBloom::builder().capacity(100).build()).unwrap();
    assert_eq!(run(&shared, None), 0);
    // A scalable filter adds only keys it does not already report present: the keys that were
    // false positives when they came (at most its 1% bound, expected far fewer) are not counted.
    let (len, total) = (shared.len(), (THREADS * PER_THREAD) as u64);
    assert!(len <= total && len * 50 >= total * 49, "{len} of {total}");
}

#[test]
fn shards_must_share_a_hasher_and_exist() {
    let mixed = Sharded::new(2, |i| {
        CountingBloom::builder()
            .hasher(KeyHasher::new(filterlab::HashKind::Xxh3_128, i as u64).unwrap())
            .build()
    });
    assert!(matches!(mixed, Err(Error::Incompatible(_))));
    for n in [0, usize::MAX] {
        assert!(matches!(
            Sharded::new(n, |_| CountingBloom::builder().build()),
            Err(Error::InvalidParameter { name: "shards", .. })
        ));
    }
}

#[test]
fn each_shard_keeps_its_false_positive_rate() {
    // The shard choice must not correlate with the filters' own addressing: 8 shards of 2,000
    // keys each must show the rate of one filter of 2,000 keys (4-sigma binomial tolerance).
    let shared = Sharded::new(8, |_| {
        CountingBloom::builder().capacity(2_000).fpr(0.01).build()
    })
    .unwrap();
    testkit::keys("member", 16_000)
        .iter()
        .for_each(|k| shared.insert(k).unwrap());
    let probes = testkit::keys("other", 100_000);
    let fp = probes
        .iter()
        .filter(|k| shared.contains(k).unwrap())
        .count() as u64;
    let shards = shared.into_shards().unwrap();
    let expected = shards.iter().map(|s| s.expected_fpr()).sum::<f64>() / shards.len() as f64;
    testkit::assert_fpr_near("sharded counting", fp, probes.len() as u64, expected, 4.0);
}
