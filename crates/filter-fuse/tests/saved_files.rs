//! Filters built by the code of commit 70c9353 (before the formulas moved to
//! `filter_core::math::fuse` and the construction's fallback was documented) save to the same
//! bytes today: the construction, its seeds and its layouts are unchanged, so no format
//! version is bumped. The digests below are FNV-1a of `to_bytes()` at that commit, for key
//! counts on both sides of the C library's failures (11,480–11,521) and small sets.

use filter_core::testkit::hashes;
use filter_core::{KeyHasher, Persist, StaticFilter};
use filter_fuse::{BinaryFuse16, BinaryFuse8};

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// (key count, bytes of the fuse8 file, its digest, bytes of the fuse16 file, its digest).
const THEN: &[(usize, usize, u64, usize, u64)] = &[
    (1, 76, 0x3387221fb74b0420, 88, 0x98502d8c9acbc775),
    (2, 76, 0xcab309f886284df7, 88, 0x39d8cbb1f504819c),
    (3, 88, 0x52f6f97d8188bb6b, 112, 0x9eefa7553919fa76),
    (10, 112, 0x86fdaf5b70a023b4, 160, 0xf032927687360b54),
    (100, 256, 0x710ceea86d878123, 448, 0xa3b951beaa147ad5),
    (1000, 1472, 0xa47b416c2f5ab778, 2880, 0xd67676480928e1ec),
    (3000, 4160, 0xac72c7e60df2889c, 8256, 0xf945fafc89b37a86),
    (11479, 15424, 0xafbad08848cb360f, 30784, 0x62857938a7f4c309),
    (11480, 15424, 0xdf9c94c55b0c5a84, 30784, 0x1587438d326a0858),
    (11500, 15424, 0x6f6d1243cf368cc8, 30784, 0x359b04abf55148f4),
    (11521, 15424, 0x35ab0aa7520bbef2, 30784, 0x6e6e36dc90e7108a),
    (50000, 61504, 0x5eb4ee025def0f5e, 122944, 0xa66aeeec3c11016f),
];

fn digests(n: usize) -> (usize, u64, usize, u64) {
    let pool = hashes(97, n);
    let f8 = BinaryFuse8::from_hashes(&pool, KeyHasher::default()).unwrap();
    let f16 = BinaryFuse16::from_hashes(&pool, KeyHasher::default()).unwrap();
    // The digests are of version 1 files, as the earlier code wrote them.
    let v1 = |b: Vec<u8>| filter_core::format::layout::to_version_1(&b).unwrap();
    let (b8, b16) = (v1(f8.to_bytes()), v1(f16.to_bytes()));
    (b8.len(), fnv(&b8), b16.len(), fnv(&b16))
}

#[test]
fn files_of_counts_that_built_before_are_byte_identical() {
    for &(n, len8, d8, len16, d16) in THEN {
        let now = digests(n);
        assert_eq!(now, (len8, d8, len16, d16), "n = {n}: {now:#x?}");
    }
}

/// The check discriminates: the same keys under another hasher seed, or one key fewer, make
/// other files.
#[test]
fn the_digest_tells_other_filters_apart() {
    let pool = hashes(97, 1_000);
    let other = KeyHasher::new(filter_core::HashKind::Xxh3_128, 1).unwrap();
    let f8 = BinaryFuse8::from_hashes(&pool, other).unwrap();
    let (_, _, d8, _, _) = THEN[5];
    assert_eq!(THEN[5].0, 1_000);
    assert_ne!(fnv(&f8.to_bytes()), d8);
    assert_ne!(digests(999).1, d8);
}

/// Prints the table above (run at the reference commit to regenerate it).
#[test]
#[ignore = "prints the digests of THEN"]
fn print_digests() {
    for n in COUNTS {
        let (l8, d8, l16, d16) = digests(n);
        println!("    ({n}, {l8}, {d8:#018x}, {l16}, {d16:#018x}),");
    }
}

const COUNTS: [usize; 12] = [
    1, 2, 3, 10, 100, 1_000, 3_000, 11_479, 11_480, 11_500, 11_521, 50_000,
];
