use super::*;

fn emails(tag: &str, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{tag}{i}@example.com").into_bytes())
        .collect()
}

#[test]
fn xxh64_seed_0_is_parquets_hash() {
    // XXH64("", 0), from the xxHash reference.
    assert_eq!(hash(b""), 0xef46_db37_51d8_e999);
}

#[test]
fn header_is_the_thrift_compact_bloom_filter_header() {
    // numBytes = 32 (zigzag 64), then BLOCK, XXHASH, UNCOMPRESSED and the struct's end, as the
    // Thrift compact protocol spells them.
    let expected = [21, 64, 28, 28, 0, 0, 28, 28, 0, 0, 28, 28, 0, 0, 0];
    assert_eq!(thrift::header(32), expected);
    assert_eq!(thrift::read_header(&expected).unwrap(), (32, 15));
    // A two-byte varint: 1024 bytes is zigzag 2048 = 0x80 0x10.
    assert_eq!(thrift::header(1024)[..3], [21, 0x80, 0x10]);
    assert_eq!(
        thrift::read_header(&thrift::header(1 << 20)).unwrap().0,
        1 << 20
    );
}

#[test]
fn a_filter_written_by_parquet_mr_is_read() {
    // The one-block bitset Spark (parquet-mr) wrote for the strings "a0".."a9"; the same
    // fixture arrow-rs tests its reader with.
    let bitset = [
        200, 1, 80, 20, 64, 68, 8, 109, 6, 37, 4, 67, 144, 80, 96, 32, 8, 132, 43, 33, 0, 5, 99,
        65, 2, 0, 224, 44, 64, 78, 96, 4,
    ];
    let f = ParquetBloom::from_bitset(&bitset).unwrap();
    assert!((0..10).all(|i| f.contains(format!("a{i}").as_bytes())));
    // Built here from the same strings: the same 32 bytes.
    let mut ours = ParquetBloom::with_bytes(32).unwrap();
    (0..10).for_each(|i| ours.insert(format!("a{i}").as_bytes()));
    assert_eq!(ours.bitset(), bitset);
}

#[test]
fn sizing_follows_the_writers_formula() {
    // m = -8 n / ln(1 - p^(1/8)) bits: 9,681 bits for 1,000 values at 1%, so 1,210 bytes,
    // rounded up to 2,048; tiny and huge requests are clamped.
    assert_eq!(
        ParquetBloom::with_ndv_fpp(1000, 0.01)
            .unwrap()
            .size_in_bytes(),
        2048
    );
    assert_eq!(
        ParquetBloom::with_ndv_fpp(0, 0.01).unwrap().size_in_bytes(),
        32
    );
    assert_eq!(
        ParquetBloom::with_ndv_fpp(1_000_000, 0.001)
            .unwrap()
            .size_in_bytes(),
        2 << 20
    );
    assert_eq!(
        ParquetBloom::with_bytes(u64::MAX).unwrap().size_in_bytes(),
        MAX_BYTES
    );
    for bad in [0.0, 1.0, -0.5, f64::NAN] {
        assert!(matches!(
            ParquetBloom::with_ndv_fpp(10, bad),
            Err(Error::InvalidParameter { name: "fpp", .. })
        ));
    }
}

#[test]
fn folding_equals_building_at_the_smaller_size() {
    let keys = emails("fold", 3000);
    let mut big = ParquetBloom::with_ndv_fpp(100_000, 0.01).unwrap();
    keys.iter().for_each(|k| big.insert(k));
    let folds = big.fold_to_target_fpp(0.01).unwrap();
    assert!(folds >= 3, "{folds}");
    let mut direct = ParquetBloom::with_bytes(big.size_in_bytes() as u64).unwrap();
    keys.iter().for_each(|k| direct.insert(k));
    assert_eq!(big, direct);
    assert!(keys.iter().all(|k| big.contains(k)));
    // An empty filter folds to one block.
    let mut empty = ParquetBloom::with_bytes(4096).unwrap();
    assert_eq!(empty.fold_to_target_fpp(0.01).unwrap(), 7);
    assert_eq!(empty.blocks(), 1);
}

#[test]
fn tiny_rates_get_the_largest_filter_not_one_block() {
    // ln(1 - fpp^(1/8)) rounds to 0 for fpp = 1e-200: the writers' form sizes one block.
    let naive = -8.0 * 1000.0 / (1.0 - 1e-200f64.powf(1.0 / 8.0)).ln();
    assert!(naive.is_infinite() || naive < 256.0, "{naive}");
    let f = ParquetBloom::with_ndv_fpp(1000, 1e-200).unwrap();
    assert_eq!(f.size_in_bytes(), MAX_BYTES);
    // The ordinary range is unchanged: 10,000 values at 1% need 95,850 bits, 16 KiB.
    let f = ParquetBloom::with_ndv_fpp(10_000, 0.01).unwrap();
    assert_eq!(f.size_in_bytes(), 16 << 10);
}

#[test]
fn folding_refuses_targets_outside_the_unit_interval() {
    let keys = emails("refuse", 100);
    let mut f = ParquetBloom::with_bytes(4096).unwrap();
    keys.iter().for_each(|k| f.insert(k));
    for target in [f64::NAN, 1.0, 2.0, 0.0, -0.5] {
        let before = f.clone();
        assert!(
            matches!(
                f.fold_to_target_fpp(target),
                Err(Error::InvalidParameter { name: "fpp", .. })
            ),
            "{target}"
        );
        assert_eq!(f, before, "{target}");
    }
    // One key in 4 MiB: one block would be at (8/256)^8 = 9e-13, above a 1e-14 target.
    let mut sparse = ParquetBloom::with_bytes(4 << 20).unwrap();
    sparse.insert(b"only");
    let folds = sparse.fold_to_target_fpp(1e-14).unwrap();
    assert!(folds > 0 && sparse.blocks() > 1, "{folds}");
    assert!(sparse.contains(b"only"));
}

#[test]
fn round_trip_and_damaged_bytes() {
    let mut f = ParquetBloom::with_ndv_fpp(500, 0.05).unwrap();
    emails("rt", 500).iter().for_each(|k| f.insert(k));
    let bytes = f.to_bytes();
    assert_eq!(ParquetBloom::from_bytes(&bytes).unwrap(), f);
    // Every truncation is an error, never a panic.
    for cut in 0..bytes.len() {
        assert!(
            ParquetBloom::from_bytes(&bytes[..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        ParquetBloom::from_bytes(&longer),
        Err(FormatError::TrailingBytes(1))
    );
    // Another algorithm (union member 2), a negative size, a missing field, a bitset that is not
    // whole blocks, and a deep nest of unknown fields.
    let mut other_algo = bytes.clone();
    let at = bytes.iter().position(|&b| b == 28).unwrap() + 1;
    other_algo[at] = 0x2c;
    assert!(
        matches!(ParquetBloom::from_bytes(&other_algo), Err(FormatError::Invalid(m)) if m.contains("BLOCK"))
    );
    assert!(ParquetBloom::from_bytes(&[21, 1, 0]).is_err());
    assert!(ParquetBloom::from_bytes(&[21, 64, 0]).is_err());
    assert!(ParquetBloom::from_bitset(&[0; 48]).is_err());
    let mut deep = vec![(5 << 4) | 12; 40];
    deep.extend([0; 40]);
    assert!(matches!(
        ParquetBloom::from_bytes(&deep),
        Err(FormatError::Invalid(_))
    ));
    let huge_list = [(5 << 4) | 9, 0xf5, 0xff, 0xff, 0xff, 0x0f];
    assert!(ParquetBloom::from_bytes(&huge_list).is_err());
}

#[test]
fn measured_rate_matches_the_split_block_formula() {
    let mut f = ParquetBloom::with_bytes(16 << 10).unwrap();
    let n = 10_000;
    emails("member", n).iter().for_each(|k| f.insert(k));
    let probes = emails("other", 100_000);
    let fp = probes.iter().filter(|k| f.contains(k)).count() as f64 / probes.len() as f64;
    let theory = filter_core::math::split_block_fpr(f.blocks() as u64, n as u64);
    let sigma = filter_core::math::binomial_sigma(theory, probes.len() as u64);
    assert!((fp - theory).abs() < 4.0 * sigma, "{fp} vs {theory}");
}

/// Thrift field ids are i16: a long-form id at i64::MAX followed by a short delta used to
/// overflow the id arithmetic (a panic in debug builds, a wrap in release).
#[test]
fn field_ids_outside_i16_are_refused_not_overflowed() {
    // Field (long form, type i32) with id i64::MAX, its value 0, then a field with delta 1.
    let mut crafted = vec![
        0x05, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    crafted.extend([0x00, 0x15, 0x00, 0x00]);
    assert!(
        matches!(ParquetBloom::from_bytes(&crafted), Err(FormatError::Invalid(m)) if m.contains("i16")),
    );
    // The largest i16 id (zigzag 65534) is accepted as a field; a delta past it is refused.
    let at_max = [0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00];
    assert!(
        matches!(ParquetBloom::from_bytes(&at_max), Err(FormatError::Invalid(m)) if m.contains("32767 + 1")),
    );
    // An id inside i16 given in long form (100) is skipped like any unknown field.
    let mut unknown = thrift::header(32);
    unknown.pop(); // the end of the struct, written again after the extra field
    unknown.extend([0x05, 0xc8, 0x01, 0x00, 0x00]);
    unknown.extend([0u8; 32]);
    assert_eq!(
        ParquetBloom::from_bytes(&unknown).map(|f| f.blocks()),
        Ok(1)
    );
}

#[test]
fn varints_past_64_bits_are_refused() {
    // numBytes with a tenth varint byte carrying bits 64 and up.
    let mut long = vec![0x15];
    long.extend([0xff; 9]);
    long.push(0x7f);
    assert!(
        matches!(ParquetBloom::from_bytes(&long), Err(FormatError::Invalid(m)) if m.contains("64 bits"))
    );
}
