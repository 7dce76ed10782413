use super::*;
use crate::{BinaryFuse16, BinaryFuse8};
use filter_core::{testkit, Persist};

fn keys(tag: &str, n: usize) -> Vec<Vec<u8>> {
    testkit::keys(tag, n)
}

fn build<F: Fingerprint>(n: usize) -> BinaryFuse<F> {
    let k = keys("saved", n);
    let refs: Vec<&[u8]> = k.iter().map(Vec::as_slice).collect();
    let hasher = KeyHasher::new(filter_core::HashKind::Murmur3X64_128, 99).unwrap();
    BinaryFuse::<F>::from_keys_with(&refs, hasher).unwrap()
}

fn round_trip<F: Stored>(n: usize) {
    let f = build::<F>(n);
    let mut probes = keys("saved", n);
    probes.extend(keys("stranger", 20_000));
    testkit::check_static_round_trip(&f, &probes);
    let copy = BinaryFuse::<F>::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(copy, f, "every field restored");
}

#[test]
fn a_loaded_filter_answers_as_the_saved_one() {
    for n in [0, 1, 2, 100, 5_000] {
        round_trip::<u8>(n);
        round_trip::<u16>(n);
    }
}

#[test]
fn every_truncation_and_bit_flip_is_refused() {
    let dir = std::env::temp_dir().join(format!("filterlab-fuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(testkit::check_damaged_files(&build::<u8>(30), &dir), 0);
    assert_eq!(testkit::check_damaged_files(&build::<u16>(30), &dir), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    testkit::check_rejects_bad_bytes(&build::<u8>(3_000));
    testkit::check_rejects_bad_bytes(&build::<u16>(3_000));
}

#[test]
fn the_decoder_validates_every_field() {
    assert!(testkit::check_decoder_validates(&build::<u8>(200)) > 0);
    assert!(testkit::check_decoder_validates(&build::<u16>(200)) > 0);
}

#[test]
fn the_two_widths_do_not_load_as_each_other() {
    let b8 = build::<u8>(100).to_bytes();
    assert!(matches!(
        BinaryFuse16::from_bytes(&b8),
        Err(FormatError::WrongVariant { .. })
    ));
    let b16 = build::<u16>(100).to_bytes();
    assert!(matches!(
        BinaryFuse8::from_bytes(&b16),
        Err(FormatError::WrongVariant { .. })
    ));
}

/// Parameters rewritten (with a valid checksum) to describe impossible filters.
fn crafted(seg_len: u32, seg_count: u32, len: u64, payload_len: Option<usize>) -> Vec<u8> {
    let bytes = build::<u8>(100).to_bytes();
    testkit::reenvelope::<BinaryFuse8>(&bytes, |params, payload| {
        params[8..16].copy_from_slice(&len.to_le_bytes());
        params[16..20].copy_from_slice(&seg_len.to_le_bytes());
        params[20..24].copy_from_slice(&seg_count.to_le_bytes());
        let n = payload_len.unwrap_or((seg_count as usize + 2) * seg_len as usize);
        payload.resize(n, 0);
    })
}

fn refused(bytes: &[u8], why: &str) {
    testkit::check_refused::<BinaryFuse8>(bytes, why);
}

#[test]
fn impossible_layouts_are_refused_before_allocating() {
    // The crafted payload has the length the layout implies, so only the layout check stops
    // these.
    refused(&crafted(6, 10, 10, None), "segment length of 6");
    refused(&crafted(2, 10, 10, None), "segment length of 2");
    refused(&crafted(1 << 19, 1, 10, None), "segment length of 524288");
    refused(&crafted(16, 0, 10, Some(32)), "no segment");
    refused(&crafted(16, 100, 10_000, None), "10000 keys in 1632 slots");
    // 2^32 slots would need a 4 GiB payload: the count is refused from the parameters.
    refused(
        &crafted(1 << 18, u32::MAX, 10, Some(64)),
        "overflow 32-bit slot indexes",
    );
    // A segment count that does not match the table present.
    refused(
        &crafted(16, 100, 10, Some(16 * 101)),
        "a table of 1616 bytes",
    );
    refused(
        &crafted(16, 100, 10, Some(16 * 103)),
        "a table of 1648 bytes",
    );
    // A well-formed crafted layout loads and answers without reading out of bounds.
    let ok = BinaryFuse8::from_bytes(&crafted(16, 100, 10, None)).unwrap();
    let strangers = keys("stranger", 2_000);
    assert!(strangers.iter().any(|k| ok.contains(k)), "all-zero table");
}
