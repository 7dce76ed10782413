//! Unit tests of `stages/course/hash64.rs`.

use super::*;
use filterlab::{BlockedBloom, Filter};

#[test]
fn keys_count_in_decimal_in_one_buffer() {
    let mut k = Key::at(b'm', 99);
    assert_eq!(&k.0[..], b"m00000000099@filterlab.org");
    k.advance();
    assert_eq!(&k.0[..], b"m00000000100@filterlab.org");
    assert_eq!(KEY_BYTES, 26);
    assert_eq!(&Key::at(b'p', 12_345_678_901).0[..12], b"p12345678901");
}

/// The slice answers exactly as the whole filter does for the keys whose block lies in it.
#[test]
fn a_slice_answers_like_the_filter_it_is_cut_from() {
    for kind in [HashKind::Xxh3_128, HashKind::Xxh3_64] {
        let hasher = KeyHasher::new(kind, SEED).unwrap();
        let n = 5000;
        let mut f = BlockedBloom::builder()
            .capacity(n)
            .fpr(FPR)
            .hasher(hasher)
            .build()
            .unwrap();
        assert_eq!(f.blocks(), blocks_for(n).unwrap());
        let slice = Slice::new(f.blocks(), f.blocks() / 4);
        for i in 0..n {
            let key = Key::at(b'm', i);
            f.insert(&key.0).unwrap();
            slice.insert(hasher.hash(&key.0));
        }
        let (mut inside, mut hits) = (0, 0);
        for i in 0..20_000 {
            let key = Key::at(b'p', i);
            if let Some(hit) = slice.probe(hasher.hash(&key.0)) {
                assert_eq!(hit, f.contains(&key.0), "{kind:?}, probe {i}");
                inside += 1;
                hits += u64::from(hit);
            }
        }
        assert!((4000..6000).contains(&inside), "{inside}");
        assert!(hits > 0, "no false positive in {inside} probes at 1%");
    }
}

#[test]
fn a_small_run_counts_members_and_probes_of_both_kinds() {
    let scale = Hash64Scale {
        sizes: [3000, 30_000],
        slice: 4,
        probes: 4000,
    };
    let study = run(scale).unwrap();
    assert_eq!(study.runs.len(), 2);
    for (r, n) in study.runs.iter().zip(scale.sizes) {
        assert_eq!((r.n, r.blocks), (n, blocks_for(n).unwrap()));
        assert_eq!(r.slice_blocks, r.blocks / 4);
        for c in [r.wide, r.narrow] {
            // A quarter of the members and at least the probes asked for, within 6 sigma.
            let share = n as f64 / 4.0;
            assert!(
                (c.members as f64 - share).abs() < 6.0 * share.sqrt(),
                "{c:?}"
            );
            assert!(c.trials >= 4000 - 6 * 64 && c.hits <= c.trials, "{c:?}");
        }
        assert_ne!(r.wide, r.narrow, "two kinds, one count");
    }
    assert!(run(Hash64Scale {
        sizes: [10, 5],
        ..scale
    })
    .is_err());
    assert!(run(Hash64Scale {
        sizes: [1, 1],
        ..scale
    })
    .is_err());
}
