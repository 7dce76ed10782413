//! Filters opened in place (issue 39): the same answers as a loaded copy, no copy of the
//! table, O(1) checks that refuse every kind of damaged head, the full checksum on request,
//! and readers that keep their file while a save replaces it.

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::format::{self, layout};
use filterlab::{Filter, FormatError};
use std::path::{Path, PathBuf};

fn key(i: u64) -> Vec<u8> {
    format!("user{i}@example.com").into_bytes()
}

/// A filter of `v` holding keys `0..n` (inserted, or built from them for a static variant).
fn filled(v: Variant, capacity: u64, n: u64) -> AnyFilter {
    let params = Params::new(capacity, 0.01);
    let hashes: Vec<_> = (0..n).map(|i| params.hasher.hash(&key(i))).collect();
    AnyFilter::build_from_hashes(v, &params, &hashes).unwrap()
}

mod common;
use common::{tempdir, Dir};

fn dir() -> Dir {
    tempdir("mapped")
}

fn saved(dir: &Path, name: &str, f: &AnyFilter) -> PathBuf {
    let p = dir.join(name);
    f.save(&p).unwrap();
    p
}

/// The format error an open refused `bytes` with.
fn open_error(dir: &Path, bytes: &[u8]) -> FormatError {
    let p = dir.join("damaged.bin");
    std::fs::write(&p, bytes).unwrap();
    let e = AnyFilter::open(&p).expect_err("a damaged file opened");
    e.get_ref()
        .and_then(|i| i.downcast_ref::<FormatError>())
        .cloned()
        .unwrap_or_else(|| panic!("not a format error: {e}"))
}

fn in_place_variants() -> Vec<Variant> {
    Variant::ALL
        .iter()
        .copied()
        .filter(|v| v.capabilities().in_place)
        .collect()
}

#[test]
fn an_open_filter_answers_as_the_loaded_one() {
    let d = dir();
    let names: Vec<&str> = in_place_variants().iter().map(|v| v.name()).collect();
    assert_eq!(
        names,
        [
            "classic",
            "counting",
            "cuckoo",
            "blocked",
            "quotient",
            "binary-fuse8",
            "binary-fuse16",
            "ribbon",
            "vqf"
        ]
    );
    for v in in_place_variants() {
        let f = filled(v, 20_000, 20_000);
        let p = saved(d.path(), "f.bin", &f);
        let m = AnyFilter::open(&p).unwrap();
        let loaded = AnyFilter::load(&p).unwrap();
        assert_eq!(m.variant(), v);
        assert_eq!((m.len(), m.hasher()), (loaded.len(), loaded.hasher()));
        assert_eq!(m.expected_fpr(), loaded.expected_fpr(), "{v}");
        assert_eq!(
            m.to_bytes(),
            loaded.to_bytes(),
            "{v}: saved back differently"
        );
        let keys: Vec<Vec<u8>> = (0..60_000).map(key).collect();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        m.contains_batch(&refs, &mut a);
        loaded.contains_batch(&refs, &mut b);
        assert_eq!(a, b, "{v}: batched answers differ");
        assert!(a[..20_000].iter().all(|&x| x), "{v}: a false negative");
        assert!(refs.iter().zip(&b).all(|(k, &x)| m.contains(k) == x), "{v}");
        m.verify().unwrap();
    }
}

/// The cuckoo filter's second layout opens too (the first is `Params`' default, above).
#[test]
fn a_near_layout_cuckoo_filter_answers_as_the_loaded_one() {
    let d = dir();
    let params = Params::new(20_000, 0.01).cuckoo_layout(filterlab::any::CuckooLayout::near());
    let hashes: Vec<_> = (0..20_000).map(|i| params.hasher.hash(&key(i))).collect();
    let f = AnyFilter::build_from_hashes(Variant::Cuckoo, &params, &hashes).unwrap();
    let p = saved(d.path(), "near.bin", &f);
    let (m, loaded) = (AnyFilter::open(&p).unwrap(), AnyFilter::load(&p).unwrap());
    assert_eq!(m.parameters(), loaded.parameters());
    assert!((0..20_000).all(|i| m.contains(&key(i))));
    assert!((20_000..80_000).all(|i| m.contains(&key(i)) == loaded.contains(&key(i))));
}

#[test]
fn version_1_files_and_growing_variants_are_sent_to_load() {
    let d = dir();
    let f = filled(Variant::Classic, 1000, 500);
    let v1 = f.to_bytes_version_1().unwrap();
    assert_eq!(v1, layout::to_version_1(&f.to_bytes()).unwrap());
    let p = d.path().join("v1.bin");
    std::fs::write(&p, &v1).unwrap();
    let e = AnyFilter::open(&p).unwrap_err().to_string();
    assert!(
        e.contains("version 1") && e.contains("load it instead"),
        "{e}"
    );
    let loaded = AnyFilter::load(&p).unwrap();
    assert!((0..500).all(|i| loaded.contains(&key(i))));
    for v in [Variant::Scalable, Variant::Expandable, Variant::ItemWindow] {
        let p = saved(d.path(), "grows.bin", &filled(v, 1000, 10));
        let e = AnyFilter::open(&p).unwrap_err().to_string();
        assert!(
            e.contains(v.name()) && e.contains("load it instead"),
            "{v}: {e}"
        );
        AnyFilter::load(&p).unwrap();
    }
}

/// The head of the file: where its parameters end, for the edits below.
fn head_fields(bytes: &[u8]) -> (usize, usize, usize) {
    let p = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
    // Payload length, payload offset, head checksum.
    (24 + p, 32 + p, 40 + p)
}

fn set_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// `bytes` with the head checksum recomputed (the whole-file one left as it is: an open does
/// not read it).
fn reseal_head(mut bytes: Vec<u8>) -> Vec<u8> {
    let (_, _, sum_at) = head_fields(&bytes);
    let sum = format::checksum(&bytes[..sum_at]);
    set_u64(&mut bytes, sum_at, sum);
    bytes
}

/// Each check an open makes, shown to fail on the damage it is there for; the file it was
/// made from opens (so each refusal is that check's).
#[test]
fn every_open_check_refuses_its_damage() {
    let d = dir();
    let good = filled(Variant::Blocked, 50_000, 1000).to_bytes();
    assert!(good.len() > 64 << 10);
    let (len_at, offset_at, _) = head_fields(&good);
    let offset = u64::from_le_bytes(good[offset_at..offset_at + 8].try_into().unwrap());
    let payload = u64::from_le_bytes(good[len_at..len_at + 8].try_into().unwrap());
    assert_eq!(offset % 64, 0);
    let p = d.path().join("good.bin");
    std::fs::write(&p, &good).unwrap();
    AnyFilter::open(&p).unwrap();

    // A file shorter than its head declares: refused at open, not at a lookup.
    for cut in [1, 8, 4096, good.len() / 2, good.len() - offset as usize] {
        let e = open_error(d.path(), &good[..good.len() - cut]);
        assert!(matches!(e, FormatError::Truncated { .. }), "cut {cut}: {e}");
    }
    let mut longer = good.clone();
    longer.push(0);
    assert_eq!(open_error(d.path(), &longer), FormatError::TrailingBytes(1));
    // An offset aligned but not where a writer puts it, and a misaligned one.
    for (moved, why) in [
        (offset + 64, "declared at offset"),
        (offset + 8, "not aligned"),
    ] {
        let mut b = good.clone();
        set_u64(&mut b, offset_at, moved);
        let e = open_error(d.path(), &reseal_head(b));
        assert!(
            matches!(&e, FormatError::Invalid(m) if m.contains(why)),
            "{e}"
        );
    }
    // Lying lengths: a huge payload, and one longer than the parameters allow that the file
    // (grown to match) holds.
    let mut b = good.clone();
    set_u64(&mut b, len_at, 1 << 60);
    let huge = open_error(d.path(), &reseal_head(b));
    assert!(
        matches!(
            huge,
            FormatError::Invalid(_) | FormatError::Truncated { .. }
        ),
        "{huge}"
    );
    let mut b = good.clone();
    set_u64(&mut b, len_at, payload + 32);
    b.splice(b.len() - 8..b.len() - 8, [0u8; 32]);
    let e = open_error(d.path(), &reseal_head(b));
    assert!(matches!(e, FormatError::PayloadTooLarge { .. }), "{e}");
    // A head whose bytes changed and whose checksum did not.
    let mut b = good.clone();
    b[len_at - 1] ^= 0x10;
    let e = open_error(d.path(), &b);
    assert!(matches!(e, FormatError::ChecksumMismatch { .. }), "{e}");
    // Every byte of the head flipped, and every cut through it: an error, never a panic.
    for i in 0..offset_at + 16 {
        let mut b = good.clone();
        b[i] ^= 0x01;
        assert!(AnyFilter::open(write(d.path(), &b)).is_err(), "flip at {i}");
    }
    for cut in 0..offset as usize + 64 {
        assert!(
            AnyFilter::open(write(d.path(), &good[..cut])).is_err(),
            "cut {cut}"
        );
    }
}

fn write(dir: &Path, bytes: &[u8]) -> PathBuf {
    let p = dir.join("any.bin");
    std::fs::write(&p, bytes).unwrap();
    p
}

/// An open trusts the payload (stated in the docs); `verify` reads it and refuses damage.
#[test]
fn a_damaged_payload_opens_and_fails_verify() {
    let d = dir();
    for v in in_place_variants() {
        let mut b = filled(v, 5000, 5000).to_bytes();
        let (_, offset_at, _) = head_fields(&b);
        let offset = u64::from_le_bytes(b[offset_at..offset_at + 8].try_into().unwrap());
        b[offset as usize + 100] ^= 0x04;
        let m = AnyFilter::open(write(d.path(), &b)).unwrap();
        let e = m.verify().unwrap_err();
        assert!(
            matches!(e, FormatError::ChecksumMismatch { .. }),
            "{v}: {e}"
        );
        let loaded = AnyFilter::load(write(d.path(), &b)).unwrap_err();
        assert!(loaded.to_string().contains("checksum"), "{v}: {loaded}");
    }
}
