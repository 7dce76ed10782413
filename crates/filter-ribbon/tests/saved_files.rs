//! Filters built by the code of commit 6a1dbd0 (before the back substitution and the lookups
//! were reworked for fewer instructions) save to the same bytes today: the construction, its
//! seeds and its layout are unchanged, so no format version is bumped. The digests below are
//! FNV-1a of `to_bytes()` at that commit, for rates with a fractional column (1 %, 0.1 %),
//! one column (0.3), whole columns only (2^-8, 2^-16) and sizes from an empty set up.

use filter_core::testkit::hashes;
use filter_core::{KeyHasher, Persist};
use filter_ribbon::Ribbon;

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

const RATES: [f64; 5] = [0.01, 0.001, 0.3, 1.0 / 256.0, 1.0 / 65_536.0];

/// (key count, rate, bytes of the file, its digest).
const THEN: &[(usize, f64, usize, u64)] = &[
    (0, 0.01, 188, 0x9655b8c5fd876b9b),
    (0, 0.001, 236, 0xf340962d921f3307),
    (0, 0.3, 108, 0x9d06a52d6831de40),
    (0, 0.00390625, 204, 0xa8f5b61301f467ec),
    (0, 1.52587890625e-5, 332, 0xe46dd25c60c4df51),
    (1, 0.01, 188, 0xde5a70a14e9a9c17),
    (1, 0.001, 236, 0xd6bb635bd12c404b),
    (1, 0.3, 108, 0xd876d7eb0dfdebcf),
    (1, 0.00390625, 204, 0x7c6278c0748008ed),
    (1, 1.52587890625e-5, 332, 0x64f83fe31715ea16),
    (100, 0.01, 244, 0x325f3c3453f7e8ae),
    (100, 0.001, 316, 0x27656b6826d52233),
    (100, 0.3, 124, 0xba36dc4c1c35c987),
    (100, 0.00390625, 268, 0x646154cccf3ce088),
    (100, 1.52587890625e-5, 460, 0xcf8fea81db1d23ac),
    (1000, 0.01, 1108, 0x3cb5a28acb065bfd),
    (1000, 0.001, 1596, 0xfb5579e6775f03a8),
    (1000, 0.3, 356, 0x1591f6387e6b1005),
    (1000, 0.00390625, 1292, 0xee2213659d06dd4a),
    (1000, 1.52587890625e-5, 2508, 0x9bb84c8d5abc6680),
    (5000, 0.01, 4652, 0x7e7290f1327b8a81),
    (5000, 0.001, 6868, 0x6a834d9c80121cfe),
    (5000, 0.3, 1308, 0x1ac1e8e970430367),
    (5000, 0.00390625, 5516, 0x4ecf1ddd31cfd09f),
    (5000, 1.52587890625e-5, 10956, 0x7e0b9b1dc4f0e50e),
    (50000, 0.01, 44116, 0xcb845e41e8832894),
    (50000, 0.001, 65444, 0x3a036837da9e8a54),
    (50000, 0.3, 11876, 0xe035cfb88734e206),
    (50000, 0.00390625, 52492, 0x4c85a9950da88bb6),
    (50000, 1.52587890625e-5, 104908, 0x24ac271823c0840f),
];

fn digest(n: usize, rate: f64) -> (usize, u64) {
    let f = Ribbon::builder()
        .fpr(rate)
        .hasher(KeyHasher::default())
        .build_from_hashes(&hashes(97, n))
        .unwrap();
    // The digests are of version 1 files, as the earlier code wrote them.
    let bytes = filter_core::format::layout::to_version_1(&f.to_bytes()).unwrap();
    (bytes.len(), fnv(&bytes))
}

#[test]
fn files_built_before_are_byte_identical() {
    assert_eq!(THEN.len(), 6 * RATES.len());
    for &(n, rate, len, d) in THEN {
        let now = digest(n, rate);
        assert_eq!(now, (len, d), "n = {n}, rate {rate}: {now:#x?}");
    }
}

/// The check discriminates: the same keys under another hasher seed, or one key fewer, make
/// other files.
#[test]
fn the_digest_tells_other_filters_apart() {
    let (n, rate, _, d) = THEN[20];
    assert_eq!((n, rate), (5_000, 0.01));
    let other = KeyHasher::new(filter_core::HashKind::Xxh3_128, 1).unwrap();
    let f = Ribbon::builder()
        .fpr(rate)
        .hasher(other)
        .build_from_hashes(&hashes(97, n))
        .unwrap();
    assert_ne!(fnv(&f.to_bytes()), d);
    assert_ne!(digest(n - 1, rate).1, d);
}
