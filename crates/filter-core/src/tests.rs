/// Runs the prefetch block on references into the start, middle and end of a table, as the
/// batch loops do (under Miri this checks the unsafe block), and checks that a prefetch is
/// only a hint: the data and what a lookup reads are the same before and after.
#[test]
fn prefetch_is_a_hint_that_changes_nothing() {
    let table: Vec<u64> = (0..100).map(|i| i * 0x9e37_79b9).collect();
    let before = table.clone();
    for i in [0, 1, 50, 99] {
        super::prefetch(&table[i]);
        assert_eq!(table[i], before[i], "element {i} after its prefetch");
    }
    super::prefetch(&table[..]);
    super::prefetch("a str");
    assert_eq!(table, before);
}

/// The batch hashing hands over every key's hash once, in order, [`super::BATCH`] at a time
/// (two full chunks and a partial one here), stops at the first error, and the batch answers
/// are the per-key answers; the fixture: a probe that drops the last answer of each chunk is
/// seen.
#[test]
fn batch_hashing_covers_every_key_once_in_order() {
    use super::batch::{contains_keys_hashed, hashed_chunks};
    let hasher = super::KeyHasher::default();
    let keys: Vec<Vec<u8>> = (0..600u32).map(|i| i.to_le_bytes().to_vec()).collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    hashed_chunks::<()>(&hasher, &refs, |h| {
        sizes.push(h.len());
        seen.extend_from_slice(h);
        Ok(())
    })
    .unwrap();
    assert_eq!(sizes, [256, 256, 88]);
    let expected: Vec<super::Hash128> = refs.iter().map(|k| hasher.hash(k)).collect();
    assert_eq!(seen, expected);
    let mut calls = 0;
    assert_eq!(
        hashed_chunks(&hasher, &refs, |_| {
            calls += 1;
            Err(calls)
        }),
        Err(1)
    );
    let answer = |h: super::Hash128| h.lo % 3 == 0;
    let per_key: Vec<bool> = expected.iter().map(|&h| answer(h)).collect();
    let batched = |drop_last: bool| {
        let mut out = vec![true; 5];
        contains_keys_hashed(&hasher, &refs, &mut out, |h, part| {
            part.clear();
            part.extend(h.iter().map(|&h| answer(h)));
            if drop_last {
                part.pop();
            }
        });
        out
    };
    assert_eq!(batched(false), per_key);
    assert_ne!(batched(true), per_key);
}

/// Every key count hashes to the same chunks: none for zero keys, one for a few (the small
/// buffer), one at 32 and 33 keys (either side of the small buffer), and full chunks plus a
/// remainder at 257; the answers of `contains_keys_hashed` stay the per-key ones at every count.
#[test]
fn batch_hashing_chunks_every_key_count() {
    use super::batch::{contains_keys_hashed, hashed_chunks, BATCH};
    let hasher = super::KeyHasher::default();
    let keys: Vec<Vec<u8>> = (0..600u32).map(|i| i.to_le_bytes().to_vec()).collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let answer = |h: super::Hash128| h.lo % 3 == 0;
    for (count, expected_sizes) in [
        (0, vec![]),
        (1, vec![1]),
        (5, vec![5]),
        (32, vec![32]),
        (33, vec![33]),
        (BATCH, vec![BATCH]),
        (BATCH + 1, vec![BATCH, 1]),
        (513, vec![BATCH, BATCH, 1]),
    ] {
        let refs = &refs[..count];
        let (mut sizes, mut seen) = (Vec::new(), Vec::new());
        hashed_chunks::<()>(&hasher, refs, |h| {
            sizes.push(h.len());
            seen.extend_from_slice(h);
            Ok(())
        })
        .unwrap();
        let expected: Vec<super::Hash128> = refs.iter().map(|k| hasher.hash(k)).collect();
        assert_eq!(sizes, expected_sizes, "{count} keys");
        assert_eq!(seen, expected, "{count} keys");
        let mut out = vec![true; 3];
        contains_keys_hashed(&hasher, refs, &mut out, |h, part| {
            part.clear();
            part.extend(h.iter().map(|&h| answer(h)));
        });
        let per_key: Vec<bool> = expected.iter().map(|&h| answer(h)).collect();
        assert_eq!(out, per_key, "{count} keys");
    }
}

#[test]
fn accept_if_passes_the_value_or_names_the_parameter() {
    assert_eq!(crate::accept_if(true, "hashes", 7u32, "1 to 64"), Ok(7));
    assert_eq!(
        crate::accept_if(false, "growth", 0.5f64, "above 1"),
        Err(crate::Error::InvalidParameter {
            name: "growth",
            value: "0.5".into(),
            expected: "above 1",
        })
    );
    // A float far from 1 in scientific notation, not in 300 digits (issue 37).
    let e = crate::accept_if(false, "tightening", 1e-300, "in (0, 1)").unwrap_err();
    assert!(e.to_string().contains("`tightening` = 1e-300:"), "{e}");
}
