//! The quotient filter's files (issue 39, issue 52). Version 3 files save the table in blocks
//! with their `spill` offsets (version 2 files saved the offsets after the table), so a filter
//! opens in place (`format::mapped::decode_in_place`) with O(1) checks and
//! answers as its load does; a load refuses saved offsets that the table does not give; a
//! change to a filter opened in place checks its table first, as a load would have. Version 1
//! files, which hold no offsets, keep loading byte for byte.
#![cfg(not(miri))] // Miri cannot map files.

mod common;

use common::filter;
use filter_core::format::{self, mapped};
use filter_core::testkit::{self, keys};
use filter_core::{Deletable, Error, Filter, FormatError, HashKind, KeyHasher, Persist};
use filter_quotient::{QuotientFilter, FILE_KIND};

/// A version 1 file written by the code of commit 124fee4, before the offsets were saved
/// (`to_version_1` of its save): XXH3-128 with seed 0, capacity 200 at 1%, keys
/// `v1-{0..150}@example.com` and `v1-0` once more, one resize, then `v1-{150..300}`.
const OLD_FILE: &[u8] = include_bytes!("data/v1-resized.bin");

/// `bytes` opened in place, as `AnyFilter::open` opens a quotient filter's file.
fn opened(bytes: &[u8], tag: &str) -> Result<QuotientFilter, FormatError> {
    let p = std::env::temp_dir().join(format!("filterlab-quotient-{tag}-{}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    let map = mapped::map_file(&p).unwrap();
    std::fs::remove_file(&p).unwrap();
    mapped::decode_in_place(&map)
}

#[test]
fn a_version_1_file_without_offsets_loads_byte_for_byte() {
    assert_eq!(format::peek_version(OLD_FILE), Ok(1));
    let f = QuotientFilter::from_bytes(OLD_FILE).unwrap();
    assert_eq!(f.hasher(), KeyHasher::new(HashKind::Xxh3_128, 0).unwrap());
    assert_eq!((f.len(), f.resizes(), f.capacity()), (301, 1, 400));
    assert!(keys("v1", 300).iter().all(|k| f.contains(k)));
    assert_eq!(f.count(b"v1-0@example.com"), 2);
    assert_eq!(f.to_bytes_version_1().unwrap(), OLD_FILE);
    // Saved again: version 3, the blocks with their offsets (4 bytes a block of 64 slots) and
    // a 16-byte tail, and the same filter.
    let v3 = f.to_bytes();
    assert_eq!(format::peek_version(&v3), Ok(3));
    let payload = |b: &[u8]| format::decode(b, FILE_KIND).unwrap().payload.remaining();
    let offsets = (f.slots() / 64) as usize * 4 + 16;
    assert_eq!(payload(&v3), payload(OLD_FILE) + offsets);
    assert_eq!(QuotientFilter::from_bytes(&v3).unwrap(), f);
    // A version 1 file cannot open in place (the format refuses it before the variant).
    assert!(matches!(
        opened(OLD_FILE, "v1"),
        Err(FormatError::NotInPlace(_))
    ));
}

/// Filters opened in place answer every key as their loads do, members (with their copies)
/// and strangers, fresh, nearly full, and resized twice.
#[test]
fn a_filter_opened_in_place_answers_as_the_loaded_one() {
    let members = keys("member", 3_000);
    let strangers = keys("stranger", 20_000);
    let mut nearly_full = filter(3_000, 0.01, 1);
    let mut resized = filter(700, 0.001, 2);
    let mut copies = filter(2_000, 0.05, 3);
    for k in &members[..2_800] {
        nearly_full.insert(k).unwrap();
    }
    for k in &members[..600] {
        resized.insert(k).unwrap();
    }
    resized.resize().unwrap();
    for k in &members[600..1_200] {
        resized.insert(k).unwrap();
    }
    resized.resize().unwrap();
    for k in &members[1_200..2_400] {
        resized.insert(k).unwrap();
    }
    for (i, k) in members[..600].iter().enumerate() {
        (0..=i % 3).for_each(|_| copies.insert(k).unwrap());
    }
    assert_eq!(resized.resizes(), 2);
    for (name, f) in [
        ("full", nearly_full),
        ("resized", resized),
        ("copies", copies),
    ] {
        let bytes = f.to_bytes();
        let loaded = QuotientFilter::from_bytes(&bytes).unwrap();
        let open = opened(&bytes, name).unwrap();
        assert_eq!(open, loaded, "{name}");
        assert_eq!(open.to_bytes(), bytes, "{name}: saved back differently");
        for k in members.iter().chain(&strangers) {
            assert_eq!(open.contains(k), loaded.contains(k), "{name}: {k:?}");
            assert_eq!(open.count(k), loaded.count(k), "{name}: {k:?}");
        }
        let refs: Vec<&[u8]> = strangers.iter().map(Vec::as_slice).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        open.contains_batch(&refs, &mut a);
        loaded.contains_batch(&refs, &mut b);
        assert_eq!(a, b, "{name}");
        assert!(members[..600].iter().all(|k| open.contains(k)), "{name}");
    }
}

/// The fixture the load's new check must refuse: a valid version 3 file whose saved offset of
/// one block (a block a run spills into, or one nothing spills into) is not the one the table
/// gives, its checksums recomputed. An open trusts it (O(1) checks), answers without
/// panicking, and refuses a change as the load does.
#[test]
fn a_load_refuses_saved_offsets_the_table_does_not_give() {
    let mut f = filter(1_000, 0.05, 4);
    keys("o", 950).iter().for_each(|k| f.insert(k).unwrap());
    let bytes = f.to_bytes();
    let blocks = (f.slots() / 64) as usize;
    // Block b's offset leads its 20 + 8r bytes; the end's leads the tail.
    let stride = 20 + 8 * f.remainder_bits() as usize;
    let offset_at = |block: usize| block * stride;
    let mut spilled = 0;
    for block in 1..blocks {
        let damaged = testkit::reenvelope::<QuotientFilter>(&bytes, |_, payload| {
            let at = offset_at(block);
            spilled += usize::from(payload[at..at + 4] != [0; 4]);
            payload[at] ^= 1;
        });
        testkit::check_refused::<QuotientFilter>(&damaged, &format!("offset of block {block}"));
        let mut open = opened(&damaged, "offsets").unwrap();
        let _ = keys("o", 950).iter().filter(|k| open.contains(k)).count();
        assert!(matches!(open.insert(b"x"), Err(Error::Format(_))));
        assert_eq!(
            open.to_bytes(),
            damaged,
            "a refused change changed the filter"
        );
    }
    assert!(spilled > 0 && spilled < blocks - 1, "{spilled} of {blocks}");
    // The first and last offsets are 0 in every table: an open refuses others.
    for at in [0, blocks] {
        let damaged = testkit::reenvelope::<QuotientFilter>(&bytes, |_, payload| {
            let at = offset_at(at);
            payload[at] = 7;
        });
        let e = opened(&damaged, "ends").unwrap_err().to_string();
        assert!(e.contains("offsets of"), "{e}");
    }
}

/// An open checks none of the table, so the first change makes a load's checks: a valid table
/// then changes as the loaded one does; a table that fails them (here an item count the table
/// does not hold) refuses every change, merges into others included, and stays as it was.
#[test]
fn a_change_to_a_filter_opened_in_place_checks_its_table_first() {
    let mut f = filter(1_000, 0.01, 5);
    let held = keys("c", 500);
    held.iter().for_each(|k| f.insert(k).unwrap());
    let bytes = f.to_bytes();

    let mut open = opened(&bytes, "valid").unwrap();
    open.insert(b"new").unwrap();
    open.remove(&held[0]).unwrap();
    let mut loaded = QuotientFilter::from_bytes(&bytes).unwrap();
    loaded.insert(b"new").unwrap();
    loaded.remove(&held[0]).unwrap();
    assert_eq!(open, loaded);
    let mut open = opened(&bytes, "resized").unwrap();
    open.resize().unwrap();
    assert!(held.iter().all(|k| open.contains(k)));
    let mut twice = QuotientFilter::from_bytes(&bytes).unwrap();
    twice.merge(&opened(&bytes, "merged").unwrap()).unwrap();
    assert_eq!(twice.count(&held[1]), 2);

    // The item count, after Q0 (8), resizes (4) and remainder bits (4).
    let lying = testkit::reenvelope::<QuotientFilter>(&bytes, |params, _| {
        params[16..24].copy_from_slice(&499u64.to_le_bytes());
    });
    testkit::check_refused::<QuotientFilter>(&lying, "500 stored remainders but 499 items");
    let mut open = opened(&lying, "lying").unwrap();
    assert!(held.iter().all(|k| open.contains(k)), "an open answers");
    let refused = |r: filter_core::Result<()>| match r {
        Err(Error::Format(e)) => assert!(e.to_string().contains("opened in place"), "{e}"),
        other => panic!("a change to a damaged table: {other:?}"),
    };
    refused(open.insert(b"x"));
    refused(open.remove(&held[2]));
    refused(open.resize());
    refused(QuotientFilter::from_bytes(&bytes).unwrap().merge(&open));
    refused(open.merge(&QuotientFilter::from_bytes(&bytes).unwrap()));
    assert_eq!(
        open.to_bytes(),
        lying,
        "a refused change changed the filter"
    );
}
