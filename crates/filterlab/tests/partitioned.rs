//! Partitioned builds that merge, as a distributed engine runs them: each task builds its
//! partition's filter with the same parameters and seed and writes the bytes; one reducer loads
//! them and merges with `union`. The result must be bit for bit the filter built from all keys.

use filter_core::Persist;
use filterlab::{
    BlockedBloom, ClassicBloom, CountingBloom, Deletable, Error, Filter, HashKind, KeyHasher,
};
use rayon::prelude::*;

const PARTS: usize = 8;
const PER_PART: usize = 5_000;

fn hasher() -> KeyHasher {
    KeyHasher::new(HashKind::Xxh3_128, 0x5eed).unwrap()
}

/// Keys of partition `p`; the same hot key in every partition exercises saturation.
fn partition(p: usize) -> Vec<Vec<u8>> {
    let mut keys = filter_core::testkit::keys(&format!("part{p}"), PER_PART);
    keys.extend(std::iter::repeat_n(b"hot@example.com".to_vec(), 3));
    keys
}

/// Runs the recipe: tasks build and serialize in parallel, the reducer loads and unions; returns
/// the merged filter and the filter built from all keys at once.
fn map_reduce<F>(
    make: impl Fn() -> F + Sync,
    union: impl Fn(&mut F, &F) -> filterlab::Result<()>,
) -> (F, F)
where
    F: Filter + Persist,
{
    let files: Vec<Vec<u8>> = (0..PARTS)
        .into_par_iter()
        .map(|p| {
            let mut f = make();
            for k in partition(p) {
                f.insert(&k).unwrap();
            }
            f.to_bytes()
        })
        .collect();
    let mut merged = F::from_bytes(&files[0]).unwrap();
    for bytes in &files[1..] {
        union(&mut merged, &F::from_bytes(bytes).unwrap()).unwrap();
    }
    let mut all = make();
    for p in 0..PARTS {
        for k in partition(p) {
            all.insert(&k).unwrap();
        }
    }
    (merged, all)
}

#[test]
fn classic_from_eight_partitions_is_the_filter_of_all_keys() {
    let make = || {
        ClassicBloom::builder()
            .capacity((PARTS * PER_PART) as u64)
            .hasher(hasher())
            .build()
            .unwrap()
    };
    let (merged, all) = map_reduce(make, ClassicBloom::union);
    assert_eq!(merged.to_bytes(), all.to_bytes());
}

#[test]
fn blocked_from_eight_partitions_is_the_filter_of_all_keys() {
    let make = || {
        BlockedBloom::builder()
            .capacity((PARTS * PER_PART) as u64)
            .hasher(hasher())
            .build()
            .unwrap()
    };
    let (merged, all) = map_reduce(make, BlockedBloom::union);
    assert_eq!(merged.to_bytes(), all.to_bytes());
}

#[test]
fn counting_from_eight_partitions_is_the_filter_of_all_keys() {
    let make = || {
        CountingBloom::builder()
            .capacity((PARTS * PER_PART) as u64)
            .hasher(hasher())
            .build()
            .unwrap()
    };
    let (merged, all) = map_reduce(make, CountingBloom::union);
    assert_eq!(merged.to_bytes(), all.to_bytes());
    assert_eq!(
        merged.count(b"hot@example.com"),
        u32::MAX,
        "24 copies saturate 4-bit counters"
    );
}

#[test]
fn a_partition_built_with_other_parameters_is_refused() {
    let part = |seed, capacity| {
        let mut f = ClassicBloom::builder()
            .capacity(capacity)
            .hasher(KeyHasher::new(HashKind::Xxh3_128, seed).unwrap())
            .build()
            .unwrap();
        f.insert(b"k").unwrap();
        f
    };
    let mut merged = part(1, 1000);
    for odd in [part(2, 1000), part(1, 2000)] {
        assert!(matches!(merged.union(&odd), Err(Error::Incompatible(_))));
    }
    let b = |seed| {
        BlockedBloom::builder()
            .hasher(KeyHasher::new(HashKind::Xxh3_128, seed).unwrap())
            .build()
            .unwrap()
    };
    assert!(matches!(b(1).union(&b(2)), Err(Error::Incompatible(_))));
}
