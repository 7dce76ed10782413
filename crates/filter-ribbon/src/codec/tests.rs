use super::*;
use filter_core::{testkit, Persist};

fn build(n: usize, fpr: f64) -> Ribbon {
    let k = testkit::keys("saved", n);
    let refs: Vec<&[u8]> = k.iter().map(Vec::as_slice).collect();
    let hasher = KeyHasher::new(filter_core::HashKind::Xxh3_64, 7).unwrap();
    Ribbon::builder()
        .fpr(fpr)
        .hasher(hasher)
        .build_from_keys(&refs)
        .unwrap()
}

#[test]
fn a_loaded_filter_answers_as_the_saved_one() {
    // 2^-16 has no extra column; 0.3 has r = 1; 1% the usual fractional column.
    for (n, fpr) in [
        (0, 0.01),
        (1, 0.01),
        (300, 0.3),
        (5_000, 0.01),
        (2_000, 1.6e-5),
        (2_000, 1.0 / 65_536.0),
    ] {
        let f = build(n, fpr);
        let mut probes = testkit::keys("saved", n);
        probes.extend(testkit::keys("stranger", 20_000));
        testkit::check_static_round_trip(&f, &probes);
        assert_eq!(Ribbon::from_bytes(&f.to_bytes()).unwrap(), f, "n = {n}");
    }
}

#[test]
fn every_truncation_and_bit_flip_is_refused() {
    let dir = std::env::temp_dir().join(format!("filterlab-ribbon-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    assert_eq!(testkit::check_damaged_files(&build(40, 0.01), &dir), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    testkit::check_rejects_bad_bytes(&build(3_000, 0.01));
}

#[test]
fn the_decoder_validates_every_field() {
    assert!(testkit::check_decoder_validates(&build(500, 0.01)) > 0);
}

/// A 1% filter's file with its parameters rewritten (valid checksum) and a payload of
/// `payload_words` words (by default, what the parameters imply when they are valid).
fn crafted(r: u32, slots: u64, boundary: u64, len: u64, payload_words: Option<u64>) -> Vec<u8> {
    let bytes = build(100, 0.01).to_bytes();
    let words = payload_words.unwrap_or_else(|| {
        let (t, e) = checked_shape(r, slots, boundary, len).expect("a valid shape");
        t + e
    });
    testkit::reenvelope::<Ribbon>(&bytes, |params, payload| {
        params[8..16].copy_from_slice(&len.to_le_bytes());
        params[16..20].copy_from_slice(&r.to_le_bytes());
        params[20..28].copy_from_slice(&slots.to_le_bytes());
        params[28..36].copy_from_slice(&boundary.to_le_bytes());
        payload.resize(words as usize * 8, 0);
    })
}

fn refused(bytes: &[u8], why: &str) {
    testkit::check_refused::<Ribbon>(bytes, why);
}

#[test]
fn impossible_shapes_are_refused_before_allocating() {
    refused(&crafted(0, 256, 10, 10, Some(0)), "0 result bits");
    refused(&crafted(17, 256, 10, 10, Some(100)), "17 result bits");
    refused(&crafted(6, 64, 0, 10, Some(6)), "64 slots");
    refused(&crafted(6, 200, 0, 10, Some(6)), "200 slots");
    refused(
        &crafted(6, 256, 130, 10, Some(30)),
        "boundary of 130 past the 129",
    );
    refused(
        &crafted(16, 256, 1, 10, Some(70)),
        "an extra column beyond 16",
    );
    refused(&crafted(6, 256, 0, 257, Some(24)), "257 keys in 256 slots");
    // Sizes that would overflow or exhaust memory are refused from the parameters, against
    // the few bytes present.
    let huge = u64::MAX - 63;
    refused(&crafted(16, huge, 0, 10, Some(8)), "overflow 64-bit sizes");
    refused(&crafted(1, huge, 0, 10, Some(8)), "a payload of 64 bytes");
    refused(
        &crafted(8, 1 << 40, 1 << 39, 10, Some(8)),
        "a payload of 64 bytes",
    );
    // Table lengths that do not match the slots.
    refused(&crafted(6, 256, 64, 10, Some(24 + 3 - 1)), "24 + 3 words");
    refused(&crafted(6, 256, 64, 10, Some(24 + 3 + 1)), "24 + 3 words");
    // The largest valid boundary: the extra column reaches the last slot, and every query
    // of the loaded filter stays in bounds.
    let edge = Ribbon::from_bytes(&crafted(6, 256, 129, 10, None)).unwrap();
    let strangers = testkit::keys("stranger", 5_000);
    let maybe = strangers.iter().filter(|k| edge.contains(k)).count();
    assert!(
        maybe > 0,
        "an all-zero table answers 'maybe' for zero fingerprints"
    );
}
