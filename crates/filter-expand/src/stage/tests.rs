//! Unit tests of a stage and its addressing: the nesting the deletion proof rests on, the
//! places against their definitions, the word-at-once bucket test, and an undone walk.

use super::*;
use filter_core::Filter;

fn layout(b0: u64, d: u32) -> Layout {
    Layout {
        b0,
        d,
        f0: 9,
        period: 2,
    }
}

fn hash(i: u64) -> Hash128 {
    Hash128 {
        lo: mix(i ^ 0x1234),
        hi: mix(i.wrapping_mul(7) ^ 0x9876),
    }
}

/// The two facts the deletion proof rests on: within a stage, `alt` is an involution
/// computed from the stored fingerprint alone; across stages, a key's identity in a newer
/// stage determines its identity in every older one (bucket pair and fingerprint).
#[test]
fn identities_nest_and_alt_is_an_involution() {
    for (b0, d) in [(1, 1), (3, 1), (264, 1), (5, 2), (7, 3)] {
        let l = layout(b0, d);
        let stages = 9.min(math::possible_stages(b0, d));
        for k in 0..2000 {
            let places: Vec<Place> = l.places(hash(k)).take(stages as usize).collect();
            let mut filled = vec![Place::default(); places.len()];
            l.fill_places(hash(k), &mut filled);
            assert_eq!(filled, places, "the lookup path's places");
            for (i, p) in places.iter().enumerate() {
                let i = i as u32;
                assert_eq!(l.alt_of_stored(i, p.c, p.fp), p.alt, "stored alt");
                assert_eq!(l.alt_of_stored(i, p.alt, p.fp), p.c, "involution");
                if i == 0 {
                    continue;
                }
                let older = places[i as usize - 1];
                let f_old = l.fp_bits(i - 1);
                assert_eq!(Layout::prefix(p.fp, l.fp_bits(i), f_old), older.fp);
                let pair = [p.c >> d, p.alt >> d];
                assert!(
                    pair.contains(&older.c) && pair.contains(&older.alt),
                    "pairs nest"
                );
            }
        }
    }
}

/// The places follow their definitions up to the last addressable level: bucket
/// `reduce(lo, B_i)`, fingerprint the top `fp_bits(i)` bits, alternate from the stored
/// fingerprint; and the lookup path's places are the same.
#[test]
fn places_follow_their_definitions_up_to_the_address_limit() {
    let wide = Layout {
        f0: 50,
        period: 1,
        ..layout(1, 1)
    };
    for l in [1, 264, 5, 7, 3]
        .into_iter()
        .zip([1, 1, 2, 3, 4])
        .map(|(b0, d)| layout(b0, d))
        .chain([wide])
    {
        let (b0, d) = (l.b0, l.d);
        let levels = math::possible_stages(b0, d) as usize;
        for k in 0..300 {
            let h = hash(k);
            let places: Vec<Place> = l.places(h).collect();
            assert_eq!(places.len(), levels);
            for (i, p) in (0u32..).zip(&places) {
                let buckets = l.buckets(i).unwrap();
                assert_eq!(p.c, reduce(h.lo, buckets), "b0={b0} d={d} level {i}");
                assert_eq!(p.fp, Layout::key_fp(h.hi, l.fp_bits(i)), "level {i}");
                assert_eq!(p.alt, l.alt_of_stored(i, p.c, p.fp), "level {i}");
            }
            let mut filled = vec![Place::default(); levels];
            l.fill_places(h, &mut filled);
            assert_eq!(filled, places, "b0={b0} d={d}");
        }
    }
}

/// A fixture for the check above: an addressing whose alternate does not nest (the digits
/// moved into the block) is caught.
#[test]
fn a_non_nesting_alternate_is_caught() {
    let l = layout(264, 1);
    let nested = |p: Place, older: Place| [p.c >> 1, p.alt >> 1].contains(&older.alt);
    let broken = (0..200).any(|k| {
        let places: Vec<Place> = l.places(hash(k)).take(4).collect();
        let mut bad = places[3];
        bad.alt = (bad.alt ^ (1 << 5)) % l.buckets(3).unwrap();
        !nested(bad, places[2])
    });
    assert!(broken);
}

/// The word-at-once bucket test answers exactly as reading the slots one by one, for every
/// width (the window up to 16 bits, the slot loop beyond), on buckets with empty slots,
/// repeated values and the value under test in each position.
#[test]
fn bucket_test_agrees_with_the_slot_loop() {
    let mut rng = 0x853c_49e6_748f_ea9bu64;
    let mut next = move || {
        rng = mix(rng);
        rng
    };
    for f in 1..=20u32 {
        let l = Layout {
            b0: 37,
            d: 1,
            f0: f,
            period: 64,
        };
        let mut stage = Stage::new(&l, 0, filter_core::MemoryCap::NONE, 0).unwrap();
        let values = 1u64 << f;
        for b in 0..stage.buckets {
            for j in 0..SLOTS {
                let v = if next() % 4 == 0 { 0 } else { next() % values };
                stage.set_slot(b, j, v);
            }
        }
        let (mut hits, mut misses) = (0, 0);
        for b in 0..stage.buckets {
            let stored: Vec<u64> = (0..SLOTS).map(|j| stage.slot(b, j)).collect();
            let others = (0..8).map(|_| next() % values);
            for fp in stored.into_iter().chain(others).filter(|&v| v != 0) {
                let expected = stage.find(b, fp).is_some();
                assert_eq!(stage.bucket_has(b, fp), expected, "f={f} b={b} fp={fp}");
                if expected {
                    hits += 1;
                } else {
                    misses += 1;
                }
            }
        }
        assert!(
            hits > 0 && (f < 4 || misses > 0),
            "f={f}: {hits} / {misses}"
        );
    }
}

/// A fixture for the check above: a zero-lane test without the `!x` term (it then also
/// fires on lanes whose top bit is set) disagrees with the slot loop.
#[test]
fn a_sloppy_lane_test_is_caught() {
    let (f, lanes) = (8u32, 0x80_u64);
    let low = 1 | 1 << f | 1 << (2 * f) | 1 << (3 * f);
    let x = lanes ^ 3u64.wrapping_mul(low);
    let sloppy = x.wrapping_sub(low) & (low << (f - 1)) != 0;
    let exact = x.wrapping_sub(low) & !x & (low << (f - 1)) != 0;
    assert!(sloppy && !exact);
}

/// A full stage refuses an insert after a walk of evictions and is left bit-for-bit as it
/// was; the keys it held are all still there.
#[test]
fn a_failed_walk_is_undone_exactly() {
    let l = layout(2, 1);
    let mut stage = Stage::new(&l, 1, filter_core::MemoryCap::NONE, 0).unwrap();
    let (mut held, mut k) = (Vec::new(), 0u64);
    while held.len() < 16 {
        let p = l.places(hash(k)).nth(1).unwrap();
        assert!(stage.insert(&l, p, 500, k), "a free slot was left");
        held.push(p);
        k += 1;
    }
    let before = stage.clone();
    let refused = (k..k + 50)
        .filter(|&k| !stage.insert(&l, l.places(hash(k)).nth(1).unwrap(), 500, k))
        .count();
    assert_eq!(refused, 50);
    assert_eq!(stage, before);
    assert!(held.iter().all(|&p| stage.has(p)));
}

/// A filter's answer for `h` straight from the definitions, stage by stage (the bucket
/// `reduce(lo, B_i)`, the fingerprint the top `f_i` bits of `hi`, the alternate from the stored
/// fingerprint, each slot read alone), with two mistakes to switch on for the fixture: no
/// alternate bucket, or every stage's fingerprint `f_0` bits wide.
fn reference_lookup(f: &crate::ExpandableCuckoo, h: Hash128, no_alt: bool, narrow: bool) -> bool {
    f.stages.iter().filter(|s| s.len > 0).any(|s| {
        let bits = if narrow { f.layout.f0 } else { s.fp_bits };
        let fp = (h.hi >> (64 - bits)).max(1);
        let c = reduce(h.lo, s.buckets);
        let alt = f.layout.alt_of_stored(s.index, c, fp);
        let buckets = if no_alt { vec![c] } else { vec![c, alt] };
        buckets
            .into_iter()
            .any(|b| (0..SLOTS).any(|j| s.slot(b, j) == fp))
    })
}

/// The filter's lookups (places computed incrementally, the alternate block once, the
/// fingerprint once per width, on each of the three kinds of room for the places) answer as
/// [`reference_lookup`] on members and random non-members, in filters with short fingerprints
/// (so non-members often match) grown through 1 to 9 levels, growth 2 and 4. The fixture: the
/// two mistaken references disagree with the filter on these keys.
#[test]
fn filter_lookups_agree_with_the_definitions() {
    let (mut wrong, mut levels) = ((0, 0), Vec::new());
    for (growth, keys) in [(2, 4), (2, 40), (2, 3000), (4, 3000)] {
        let mut f = crate::ExpandableCuckoo::builder()
            .capacity(8)
            .fpr(0.9)
            .tightening_period(1)
            .growth(growth)
            .build()
            .unwrap();
        for k in 0..keys {
            f.insert_hash(hash(k)).unwrap();
        }
        levels.push(f.stages.last().map_or(0, |s| s.index + 1));
        let mut answers = [0u64; 2];
        for k in 0..2 * keys + 2000 {
            let h = hash(k);
            let want = reference_lookup(&f, h, false, false);
            assert_eq!(f.lookup(h), want, "growth {growth}, {keys} keys, key {k}");
            answers[usize::from(want)] += 1;
            wrong.0 += u64::from(reference_lookup(&f, h, true, false) != want);
            wrong.1 += u64::from(reference_lookup(&f, h, false, true) != want);
        }
        assert!(answers.iter().all(|&n| n > 100), "{answers:?}");
    }
    assert!(wrong.0 > 0 && wrong.1 > 0, "{wrong:?}");
    // The unit tests' rooms: 2 levels, 4, then the heap.
    let rooms = [1..=2, 3..=4, 5..=u32::MAX];
    assert!(
        rooms.iter().all(|r| levels.iter().any(|l| r.contains(l))),
        "{levels:?}"
    );
}
