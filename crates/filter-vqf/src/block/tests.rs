use super::*;

/// The block a model says: bucket `q`'s fingerprints in insertion order, buckets in order.
fn model_entries(model: &[Vec<u8>]) -> Vec<(u32, u8)> {
    let mut out = Vec::new();
    for (q, fps) in model.iter().enumerate() {
        out.extend(fps.iter().map(|&f| (q as u32, f)));
    }
    out
}

fn rng(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

#[test]
fn inserts_and_removes_match_a_model() {
    let mut s = 0x2545_f491_4f6c_dd1d;
    for round in 0..300 {
        let mut b = Block([0; 8]);
        let mut model = vec![Vec::<u8>::new(); BUCKETS as usize];
        // Narrow buckets and values in some rounds, so buckets fill and values repeat.
        let (buckets, values) = if round % 2 == 0 {
            (BUCKETS, 255)
        } else {
            (5, 3)
        };
        for _ in 0..400 {
            let q = (rng(&mut s) % u64::from(buckets)) as u32;
            let fp = 1 + (rng(&mut s) % values) as u8;
            if rng(&mut s) % 3 != 0 && !b.is_full() {
                b.insert(q, fp);
                model[q as usize].push(fp);
            } else {
                let held = model[q as usize].iter().position(|&f| f == fp);
                assert_eq!(b.remove(q, fp), held.is_some());
                if let Some(i) = held {
                    model[q as usize].remove(i);
                }
            }
            let total: usize = model.iter().map(Vec::len).sum();
            assert_eq!(b.len() as usize, total);
            assert_eq!(b.is_full(), total == SLOTS as usize);
            assert_eq!(b.defect(), None);
            let count = model[q as usize].iter().filter(|&&f| f == fp).count();
            assert_eq!(b.count(q, fp) as usize, count);
            for k in [Kernel::Portable, Kernel::detect()] {
                assert_eq!(b.contains(k, q, fp), count > 0);
            }
        }
        // Entries in bucket order; within a bucket the model's multiset.
        let mut got = b.entries();
        let mut want = model_entries(&model);
        got.sort_unstable();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}

#[test]
fn a_full_block_and_the_last_bucket() {
    let mut b = Block([0; 8]);
    for i in 0..SLOTS {
        b.insert(BUCKETS - 1, i as u8 + 1);
    }
    assert!(b.is_full());
    assert_eq!(b.count(BUCKETS - 1, 48), 1);
    assert_eq!(b.count(0, 48), 0);
    assert_eq!(b.defect(), None);
    assert!(b.remove(BUCKETS - 1, 1));
    assert_eq!(b.len(), SLOTS - 1);
    assert_eq!(b.defect(), None);
}

#[test]
fn overflow_bits_are_apart_from_the_code() {
    let mut b = Block([0; 8]);
    b.insert(3, 9);
    assert!(b.mark_overflow(group(3)));
    assert!(!b.mark_overflow(group(3)));
    assert!(b.overflowed(3) && !b.overflowed(4));
    assert_eq!(b.overflow_marks(), 1);
    assert_eq!(b.len(), 1);
    assert!(b.contains(Kernel::Portable, 3, 9));
    for g in 0..OVERFLOW_BITS {
        b.mark_overflow(g);
    }
    assert_eq!(b.entries(), vec![(3, 9)]);
    assert_eq!(b.defect(), None);
}

#[test]
fn defects_are_found() {
    let mut b = Block([0; 8]);
    b.insert(0, 7);
    // A fingerprint in a slot past the last one used.
    let mut stray = b;
    stray.0[7] = 1 << 56;
    assert!(stray.defect().unwrap().contains("empty slot"));
    // A 1 bit past the last bucket's end.
    let mut past = b;
    past.0[1] |= 1 << (RUN_BITS - 64 - 1);
    assert!(past.defect().unwrap().contains("past its last bucket"));
    // 49 ones in the code.
    let mut many = Block([0; 8]);
    many.0[0] = (1 << 49) - 1;
    assert!(many.defect().unwrap().contains("49 fingerprints"));
}

/// A damaged block, as a file opened in place may hold (its blocks are not checked at open):
/// every lookup and count (all a read-only filter does) answers without reading past the block
/// or panicking. (Inserts and removals reach only checked tables: a load checks every block.)
#[test]
fn a_damaged_code_is_answered_within_the_block() {
    let mut s = 0x5851_f42d_4c95_7f2du64;
    let mut codes = vec![
        [u64::MAX; 2],
        [u64::MAX, 0],
        [0, u64::MAX],
        [u64::MAX >> 1, u64::MAX],
    ];
    for _ in 0..2_000 {
        codes.push([rng(&mut s), rng(&mut s)]);
    }
    for [lo, hi] in codes {
        let b = Block([
            lo,
            hi,
            rng(&mut s),
            rng(&mut s),
            rng(&mut s),
            rng(&mut s),
            0,
            7,
        ]);
        for q in 0..BUCKETS {
            for fp in [0u8, 7, 255] {
                for k in [Kernel::Portable, Kernel::detect()] {
                    let _ = b.contains(k, q, fp);
                }
                let _ = b.count(q, fp);
            }
        }
    }
}
