use super::*;

const CLASSIC: FileKind = FileKind::new(1, "classic");
const CUCKOO: FileKind = FileKind::new(4, "cuckoo");

fn sample() -> Vec<u8> {
    let mut e = Encoder::new(CLASSIC, KeyHasher::default(), 16);
    e.u64(1000).u32(7).begin_payload().u64s(&[1, 2, 3]);
    e.finish()
}

#[test]
fn round_trip_sections() {
    let bytes = sample();
    let mut d = decode(&bytes, CLASSIC).unwrap();
    assert_eq!(d.hasher, KeyHasher::default());
    assert_eq!(d.params.u64().unwrap(), 1000);
    assert_eq!(d.params.u32().unwrap(), 7);
    d.params.finish().unwrap();
    assert_eq!(*d.payload.u64s(3).unwrap(), [1, 2, 3]);
    d.payload.finish().unwrap();
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = sample();
    for cut in 0..bytes.len() {
        assert!(decode(&bytes[..cut], CLASSIC).is_err(), "cut at {cut}");
    }
}

#[test]
fn every_single_bit_flip_is_an_error() {
    let bytes = sample();
    for i in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(decode(&b, CLASSIC).is_err(), "flip bit {i}");
    }
}

#[test]
fn specific_errors() {
    let bytes = sample();
    assert_eq!(
        decode(b"GIF89a..........................................", CLASSIC).unwrap_err(),
        FormatError::BadMagic
    );
    assert!(matches!(
        decode(&bytes, CUCKOO).unwrap_err(),
        FormatError::WrongVariant {
            expected: "cuckoo",
            ..
        }
    ));
    let mut newer = bytes.clone();
    newer[8] = 4;
    assert_eq!(
        decode(&newer, CLASSIC).unwrap_err(),
        FormatError::UnsupportedVersion {
            found: 4,
            supported: 3
        }
    );
    let mut zero = bytes.clone();
    zero[8] = 0;
    let e = decode(&zero, CLASSIC).unwrap_err();
    assert_eq!(
        e,
        FormatError::UnsupportedVersion {
            found: 0,
            supported: 3
        }
    );
    // Issue 16, defect 8: version 0 is not "newer than this build reads".
    assert!(!e.to_string().contains("newer"), "{e}");
    assert!(e.to_string().contains("damaged"), "{e}");
    let v1 = layout::to_version_1(&bytes).unwrap();
    let mut trailing = v1[..v1.len() - 8].to_vec();
    trailing.push(0);
    let sum = checksum(&trailing);
    trailing.extend_from_slice(&sum.to_le_bytes());
    assert_eq!(
        decode(&trailing, CLASSIC).unwrap_err(),
        FormatError::TrailingBytes(1)
    );
    let mut trailing = bytes.clone();
    trailing.push(0);
    reseal(&mut trailing);
    assert_eq!(
        decode(&trailing, CLASSIC).unwrap_err(),
        FormatError::TrailingBytes(1)
    );
}

#[test]
fn version_1_files_load_as_before() {
    let v2 = sample();
    let v1 = layout::to_version_1(&v2).unwrap();
    assert_eq!(peek_version(&v1), Ok(1));
    assert_eq!(peek_version(&v2), Ok(2));
    // Version 1's layout: no offset, no head checksum, the payload right after its length.
    assert_eq!(v1.len(), 24 + 12 + 8 + 24 + 8);
    let (a, b) = (decode(&v1, CLASSIC).unwrap(), decode(&v2, CLASSIC).unwrap());
    assert_eq!(a.hasher, b.hasher);
    assert_eq!(a.params.rest(), b.params.rest());
    assert_eq!(a.payload.rest(), b.payload.rest());
    for cut in 0..v1.len() {
        assert!(decode(&v1[..cut], CLASSIC).is_err(), "cut at {cut}");
    }
}

/// A decoder knows the version it reads and an encoder the one it writes, so that a variant
/// can lay its payload out by version; an encoder asked for version 1 writes version 1's
/// layout (here the same file as the conversion, the payload not depending on the version).
#[test]
fn sections_know_their_file_s_version() {
    let v2 = sample();
    let v1 = layout::to_version_1(&v2).unwrap();
    for (bytes, version) in [(&v1, 1), (&v2, 2)] {
        let d = decode(bytes, CLASSIC).unwrap();
        let versions = (d.params.format_version(), d.payload.format_version());
        assert_eq!(versions, (version, version));
        let head = Head::parse(bytes).unwrap().unwrap();
        assert_eq!(head.version, version);
    }
    assert_eq!(Reader::new(&[]).format_version(), FORMAT_VERSION);
    let mut e = Encoder::of_version(CLASSIC, KeyHasher::default(), 16, 1);
    assert_eq!(e.format_version(), 1);
    e.u64(1000).u32(7).begin_payload().u64s(&[1, 2, 3]);
    assert_eq!(e.finish(), v1);
    let e = Encoder::new(CLASSIC, KeyHasher::default(), 0);
    assert_eq!(
        e.format_version(),
        2,
        "a variant writes version 2 unless it says otherwise"
    );
    assert_eq!(FORMAT_VERSION, 3, "and every version up to 3 is read");
}

#[test]
fn payloads_start_on_a_line_or_a_page() {
    let bytes = sample();
    let l = layout::parse(&bytes, bytes.len() as u64).unwrap();
    assert_eq!(
        (l.head_len, l.payload_offset, l.payload_len),
        (24 + 12 + 24, 64, 24)
    );
    let words = vec![7u64; (layout::PAGE_ALIGN_MIN / 8) as usize];
    let mut e = Encoder::new(CLASSIC, KeyHasher::default(), 0);
    e.u64(1).begin_payload().u64s(&words);
    let big = e.finish();
    let l = layout::parse(&big, big.len() as u64).unwrap();
    assert_eq!(l.payload_offset, 4096);
    assert_eq!(big.len() as u64, 4096 + layout::PAGE_ALIGN_MIN + 8);
    assert!(big[l.head_len as usize..4096].iter().all(|&b| b == 0));
}

#[test]
fn peek_kind_id_reads_the_id_or_refuses() {
    let bytes = sample();
    assert_eq!(peek_kind_id(&bytes), Ok(CLASSIC.id()));
    let mut cuckoo = bytes.clone();
    cuckoo[10] = CUCKOO.id();
    assert_eq!(peek_kind_id(&cuckoo), Ok(CUCKOO.id()));
    let mut unknown = bytes.clone();
    unknown[10] = 99;
    assert_eq!(peek_kind_id(&unknown), Ok(99));
    assert_eq!(peek_kind_id(b"GIF89a"), Err(FormatError::BadMagic));
    assert!(matches!(
        peek_kind_id(&bytes[..11]),
        Err(FormatError::Truncated { .. })
    ));
    let mut newer = bytes;
    newer[8] = 4;
    assert!(matches!(
        peek_kind_id(&newer),
        Err(FormatError::UnsupportedVersion { found: 4, .. })
    ));
}

#[test]
fn copies_are_reserved_fallibly() {
    assert!(matches!(
        try_vec::<u64>(usize::MAX / 2),
        Err(FormatError::OutOfMemory { .. })
    ));
    let mut r = Reader::new(&[1, 2, 3]);
    assert_eq!(r.take_vec(2).unwrap(), [1, 2]);
    assert!(matches!(r.take_vec(2), Err(FormatError::Truncated { .. })));
    let mut r = Reader::new(&[1, 2, 3]);
    assert_eq!(*r.take_table(2).unwrap(), [1, 2]);
    assert!(matches!(
        r.take_table(2),
        Err(FormatError::Truncated { .. })
    ));
}

#[test]
#[cfg_attr(miri, ignore = "4 MiB of words take minutes under Miri")]
fn large_loaded_tables_are_allocated_as_built_ones() {
    let n = crate::HUGE_PAGE_MIN_BYTES / 8;
    let bytes: Vec<u8> = (0..n as u64).flat_map(u64::to_le_bytes).collect();
    let words = Reader::new(&bytes).u64s(n).unwrap();
    assert!(words.iter().enumerate().all(|(i, &w)| w == i as u64));
    assert_eq!(
        words.is_own_mapping(),
        cfg!(all(target_os = "linux", not(miri)))
    );
    let bytes = Reader::new(&bytes).take_table(bytes.len()).unwrap();
    assert_eq!(
        bytes.is_own_mapping(),
        cfg!(all(target_os = "linux", not(miri)))
    );
}

/// A file of `bytes` in the temporary directory, mapped.
#[cfg(not(miri))]
fn mapped_file(tag: &str, bytes: &[u8]) -> crate::FileMap {
    let p = std::env::temp_dir().join(format!("filterlab-map-{tag}-{}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    let map = mapped::map_file(&p).unwrap();
    std::fs::remove_file(&p).unwrap();
    map
}

#[cfg(not(miri))] // Miri cannot map files.
#[test]
fn a_mapped_payload_gives_its_tables_in_place() {
    let bytes = sample();
    let map = mapped_file("in-place", &bytes);
    let mut d = mapped::sections(&map, CLASSIC).unwrap();
    assert!(d.payload.in_place());
    let words = d.payload.u64s(3).unwrap();
    assert_eq!(*words, [1, 2, 3]);
    assert!(words.is_in_file());
    // The table is the file's bytes, not a copy.
    let at = words.as_ptr() as usize - map.bytes().as_ptr() as usize;
    assert_eq!(at, 64);
    // A table that is not aligned for its words is refused, not read.
    let mut d = mapped::sections(&map, CLASSIC).unwrap();
    d.payload.u8().unwrap();
    let e = d.payload.table::<u64>(2).unwrap_err();
    assert!(e.to_string().contains("not aligned to 8 bytes"), "{e}");
    // Bytes outside the mapping are never a table of it.
    assert!(Table::<u8>::in_file(&map, &bytes[..8]).is_none());
    // A write to the table copies it first: the mapping is read-only.
    let mut copy = words;
    copy[0] = 9;
    assert!(!copy.is_in_file());
    assert_eq!(*copy, [9, 2, 3]);
    mapped::verify(&map).unwrap();
}

#[cfg(not(miri))]
#[test]
fn version_1_is_not_opened_in_place_and_damage_fails_verify() {
    let v1 = layout::to_version_1(&sample()).unwrap();
    let map = mapped_file("v1", &v1);
    let e = mapped::sections(&map, CLASSIC).unwrap_err();
    assert!(matches!(e, FormatError::NotInPlace(_)), "{e}");
    assert!(e.to_string().contains("load it instead"), "{e}");
    let mut damaged = sample();
    let last = damaged.len() - 9;
    damaged[last] ^= 1;
    let map = mapped_file("damaged", &damaged);
    mapped::sections(&map, CLASSIC).unwrap();
    assert!(matches!(
        mapped::verify(&map),
        Err(FormatError::ChecksumMismatch { .. })
    ));
}
