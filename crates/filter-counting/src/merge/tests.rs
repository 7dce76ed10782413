use super::*;
use filter_core::{testkit, Deletable, Filter, HashKind, KeyHasher, Persist};

fn small() -> CountingBloom {
    CountingBloom::builder().capacity(500).build().unwrap()
}

#[test]
fn union_equals_counting_both_sets_even_past_saturation() {
    let (mut a, mut b, mut both) = (small(), small(), small());
    // A hot key 10 times in each part: its counters saturate only in the union.
    for (f, tag) in [(&mut a, "a"), (&mut b, "b")] {
        for k in testkit::keys(tag, 200) {
            f.insert(&k).unwrap();
        }
        (0..10).for_each(|_| f.insert(b"hot").unwrap());
    }
    for k in testkit::keys("a", 200)
        .iter()
        .chain(&testkit::keys("b", 200))
    {
        both.insert(k).unwrap();
    }
    (0..20).for_each(|_| both.insert(b"hot").unwrap());
    a.union(&b).unwrap();
    assert_eq!(a, both);
    assert_eq!(a.count(b"hot"), u32::MAX, "saturated in the union");
    assert!(a.saturated() > 0);
    // The union loads and removes like the filter built at once.
    let mut loaded = CountingBloom::from_bytes(&a.to_bytes()).unwrap();
    loaded.remove(&testkit::keys("a", 1)[0]).unwrap();
    both.remove(&testkit::keys("a", 1)[0]).unwrap();
    assert_eq!(loaded, both);
}

#[test]
fn incompatible_filters_are_refused_and_untouched() {
    let mut a = small();
    a.insert(b"x").unwrap();
    let before = a.clone();
    let bigger = CountingBloom::builder().capacity(5000).build().unwrap();
    let seeded = CountingBloom::builder()
        .capacity(500)
        .hasher(KeyHasher::new(HashKind::Xxh3_128, 9).unwrap())
        .build()
        .unwrap();
    for other in [&bigger, &seeded] {
        assert!(matches!(a.union(other), Err(Error::Incompatible(_))));
        assert_eq!(a, before);
    }
}
