use super::*;
use filter_core::testkit;
use filter_core::FormatError;

fn filled(n: usize) -> RedisBloom {
    let mut f = RedisBloom::reserve(0.01, 100, Scaling::Expand(2)).unwrap();
    for k in testkit::keys("member", n) {
        f.insert(&k).unwrap();
    }
    f
}

/// `BF.RESERVE k 0.01 1000`, worked by hand from `bloom_init`: the first link at 0.005,
/// `bpe = -ln 0.005 / 0.480453013918201 = 11.0277`, `(u64) 11027.7 = 11027` bits, rounded up to
/// 173 words; `k = ceil(0.693147180559945 · 11.0277) = 8`.
#[test]
fn sizing_follows_bloom_init() {
    let f = RedisBloom::reserve(0.01, 1000, Scaling::Expand(2)).unwrap();
    let l = &f.links()[0];
    assert_eq!(
        (l.bits(), l.data().len(), l.hashes(), l.n2()),
        (11072, 1384, 8, 0)
    );
    assert_eq!((l.entries(), l.error()), (1000, 0.005));
    assert_eq!(f.options(), OPT_FORCE64 | OPT_NOROUND);
    let ns = RedisBloom::reserve(0.01, 1000, Scaling::NonScaling).unwrap();
    assert_eq!(
        (ns.links()[0].error(), ns.growth()),
        (0.01, DEFAULT_EXPANSION)
    );
    // Without NOROUND, a power of two: 11027.7 bits -> 2^14, with the spare bits as entries.
    let p2 = RedisBloom::with_options(0.01, 1000, OPT_FORCE64, 2).unwrap();
    let l = &p2.links()[0];
    assert_eq!((l.bits(), l.n2(), l.modulus()), (16384, 14, 16384));
    assert_eq!(
        l.entries(),
        1000 + ((16384.0 - 11027.7_f64) / 11.0277) as u64
    );
    // ENTS_IS_BITS: 2^5 bits reachable, stored in one word.
    let tiny = RedisBloom::with_options(0.1, 5, OPT_ENTS_IS_BITS | OPT_FORCE64, 2).unwrap();
    assert_eq!(
        (tiny.links()[0].bits(), tiny.links()[0].modulus()),
        (64, 32)
    );
}

#[test]
fn refuses_what_redisbloom_refuses() {
    for e in [0.0, 1.0, -0.1, f64::NAN] {
        assert!(
            RedisBloom::reserve(e, 100, Scaling::Expand(2)).is_err(),
            "{e}"
        );
    }
    assert!(RedisBloom::reserve(0.01, 0, Scaling::Expand(2)).is_err());
    assert!(RedisBloom::reserve(0.01, 100, Scaling::Expand(0)).is_err());
    assert!(RedisBloom::with_options(0.01, 100, 16, 2).is_err());
    assert!(RedisBloom::with_options(0.01, 64, OPT_ENTS_IS_BITS, 2).is_err());
}

#[test]
fn the_chain_grows_and_forgets_nothing() {
    let mut f = RedisBloom::reserve(0.01, 100, Scaling::Expand(3)).unwrap();
    let keys = testkit::keys("k", 2000);
    assert_eq!(testkit::check_no_false_negatives(&mut f, &keys), 2000);
    let entries: Vec<u64> = f.links().iter().map(Link::entries).collect();
    assert_eq!(entries, [100, 300, 900, 2700]);
    let errors: Vec<f64> = f.links().iter().map(Link::error).collect();
    assert_eq!(errors, [0.005, 0.0025, 0.00125, 0.000625]);
    // Each full link holds its entries; the count is of new keys (false positives are not).
    assert!(f.links()[..3].iter().all(|l| l.size() == l.entries()));
    assert_eq!(f.len(), f.links().iter().map(Link::size).sum::<u64>());
    assert!(f.len() <= 2000 && f.len() > 1950, "{}", f.len());
    // A repeated key changes nothing.
    let before = f.clone();
    assert!(!f.insert_if_absent(&keys[5]).unwrap());
    assert_eq!(f, before);
    assert_eq!(f.capacity(), 4000);
    let (fp, trials) = testkit::probe_others(&f, 100_000);
    testkit::assert_fpr_near("redisbloom", fp, trials, f.expected_fpr(), 5.0);
}

#[test]
fn a_nonscaling_chain_fills_up() {
    let mut f = RedisBloom::reserve(0.01, 50, Scaling::NonScaling).unwrap();
    let keys = testkit::keys("k", 100);
    let mut added = 0;
    for k in &keys {
        match f.insert(k) {
            Ok(()) => added += 1,
            Err(Error::Full { .. }) => break,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(added >= 50 && f.len() == 50, "{added} {}", f.len());
    assert_eq!(f.links().len(), 1);
}

#[test]
fn chunks_and_file_round_trip() {
    for options in [OPT_FORCE64 | OPT_NOROUND, OPT_NOROUND, 0, OPT_FORCE64] {
        let mut f = RedisBloom::with_options(0.02, 64, options, 2).unwrap();
        let keys = testkit::keys("m", 500);
        assert_eq!(testkit::check_no_false_negatives(&mut f, &keys), 500);
        assert!(f.links().len() >= 3);
        let chunks = f.to_chunks();
        assert_eq!(chunks.len(), 1 + f.links().len());
        assert_eq!(RedisBloom::from_chunks(&chunks).unwrap(), f);
        // Small chunks never span two links; their iterators count the data bytes.
        let small = f.to_chunks_of(7);
        assert!(small.len() > chunks.len());
        let back = RedisBloom::from_chunks(&small).unwrap();
        assert_eq!(back, f);
        let mut closed = small.clone();
        closed.push((0, Vec::new()));
        assert_eq!(RedisBloom::from_chunks(&closed).unwrap(), f);
        let bytes = f.to_bytes();
        assert_eq!(bytes.len() as u64, f.header().file_len());
        assert_eq!(&bytes[..8], b"RBLOOMSB");
        assert_eq!(RedisBloom::from_bytes(&bytes).unwrap(), f);
        let concatenated: Vec<u8> = chunks.iter().flat_map(|(_, c)| c.clone()).collect();
        assert_eq!(
            bytes[8..],
            concatenated[..],
            "the file is the chunks, concatenated"
        );
        for k in testkit::keys("other", 500) {
            assert_eq!(back.contains(&k), f.contains(&k));
        }
    }
}

#[test]
fn save_and_load() {
    let f = filled(400);
    let dir = std::env::temp_dir().join(format!("redisbloom-unit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.rbloom");
    f.save(&path).unwrap();
    assert_eq!(RedisBloom::load(&path).unwrap(), f);
    let bytes = f.to_bytes();
    let cuts = [
        (5, "in the magic"),
        (20, "in the fixed header"),
        (40, "in a link"),
        (bytes.len() - 1, "in the data"),
    ];
    for (len, why) in cuts {
        std::fs::write(&path, &bytes[..len]).unwrap();
        let e = RedisBloom::load(&path).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{why}: {e}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    assert!(RedisBloom::load(&path).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Offsets of the header fields, in the header chunk.
const SIZE: usize = 0;
const NFILTERS: usize = 8;
const OPTIONS: usize = 12;
const LINK0: usize = CHAIN_HEADER_LEN;
const L_BYTES: usize = 0;
const L_BITS: usize = 8;
const L_SIZE: usize = 16;
const L_ERROR: usize = 24;
const L_BPE: usize = 32;
const L_HASHES: usize = 40;
const L_N2: usize = 52;

/// An edit of a header chunk.
type Edit = Box<dyn Fn(&mut Vec<u8>)>;
/// Chunks as `to_chunks` gives them.
type Chunks = Vec<(i64, Vec<u8>)>;

fn put(h: &mut [u8], at: usize, v: &[u8]) {
    h[at..at + v.len()].copy_from_slice(v);
}

fn invalid(r: Result<RedisBloom, FormatError>, what: &str) -> String {
    match r {
        Err(FormatError::Invalid(m)) => m,
        other => panic!("{what}: expected Invalid, got {other:?}"),
    }
}

/// Each check of the header can fail: one lying field per fixture.
#[test]
fn lying_headers_are_refused() {
    let f = filled(300);
    let chunks = f.to_chunks();
    assert!(f.links().len() >= 2);
    let edit = |e: &dyn Fn(&mut Vec<u8>)| {
        let mut c = chunks.clone();
        e(&mut c[0].1);
        RedisBloom::from_chunks(&c)
    };
    let cases: [(&str, Edit, &str); 10] = [
        (
            "no links",
            Box::new(|h| put(h, NFILTERS, &0u32.to_le_bytes())),
            "0 links",
        ),
        (
            "options",
            Box::new(|h| put(h, OPTIONS, &16u32.to_le_bytes())),
            "options",
        ),
        (
            "count",
            Box::new(|h| put(h, SIZE, &1u64.to_le_bytes())),
            "counts",
        ),
        (
            "link count",
            Box::new(|h| put(h, LINK0 + L_SIZE, &u64::MAX.to_le_bytes())),
            "counts",
        ),
        (
            "error",
            Box::new(|h| put(h, LINK0 + L_ERROR, &1.5f64.to_le_bytes())),
            "error rate",
        ),
        ("n2", Box::new(|h| h[LINK0 + L_N2] = 64), "n2"),
        ("n2 above bits", Box::new(|h| h[LINK0 + L_N2] = 40), "2^n2"),
        (
            "bits",
            Box::new(|h| put(h, LINK0 + L_BITS, &8u64.to_le_bytes())),
            "bits",
        ),
        (
            "bpe",
            Box::new(|h| put(h, LINK0 + L_BPE, &1e9f64.to_le_bytes())),
            "per entry",
        ),
        (
            "hashes",
            Box::new(|h| put(h, LINK0 + L_HASHES, &9u32.to_le_bytes())),
            "k =",
        ),
    ];
    for (what, e, says) in cases {
        let m = invalid(edit(&*e), what);
        assert!(m.contains(says), "{what}: {m}");
    }
    // The unedited chunks load: each failure above is the edit's.
    assert_eq!(edit(&|_| {}).unwrap(), f);
}

/// Sizes that lie are refused before anything is allocated.
#[test]
fn lying_sizes_are_refused_before_any_allocation() {
    let f = filled(300);
    let chunks = f.to_chunks();
    let edit = |e: &dyn Fn(&mut Vec<u8>)| {
        let mut c = chunks.clone();
        e(&mut c[0].1);
        RedisBloom::from_chunks(&c)
    };
    // A huge link: declared, never allocated (the data is not there).
    let huge = edit(&|h| {
        put(h, LINK0 + L_BYTES, &(1u64 << 60).to_le_bytes());
        put(h, LINK0 + L_BITS, &(1u64 << 63).to_le_bytes());
    });
    assert!(
        matches!(huge, Err(FormatError::Truncated { .. })),
        "{huge:?}"
    );
    let two_huge = edit(&|h| {
        put(h, LINK0 + L_BYTES, &(u64::MAX / 8).to_le_bytes());
        put(h, LINK0 + L_BITS, &(u64::MAX / 8 * 8).to_le_bytes());
        let l1 = LINK0 + LINK_HEADER_LEN;
        put(h, l1 + L_BYTES, &(u64::MAX / 8).to_le_bytes());
        put(h, l1 + L_BITS, &(u64::MAX / 8 * 8).to_le_bytes());
    });
    assert!(
        matches!(two_huge, Err(FormatError::Truncated { .. })),
        "{two_huge:?}"
    );
    // Links announced that the header does not hold, and bytes after them.
    let more = edit(&|h| put(h, NFILTERS, &u32::MAX.to_le_bytes()));
    assert!(
        matches!(more, Err(FormatError::Truncated { .. })),
        "{more:?}"
    );
    let extra = edit(&|h| h.push(0));
    assert!(
        matches!(extra, Err(FormatError::TrailingBytes(1))),
        "{extra:?}"
    );
    for cut in [0, 10, 19, 21, CHAIN_HEADER_LEN + LINK_HEADER_LEN] {
        let short = edit(&|h| h.truncate(cut));
        assert!(
            matches!(short, Err(FormatError::Truncated { .. })),
            "{cut}: {short:?}"
        );
    }
    // The unedited chunks load: each failure above is the edit's.
    assert_eq!(edit(&|_| {}).unwrap(), f);
}

/// Data chunks that lie about where they go, or hold too little or too much.
#[test]
fn lying_data_chunks_are_refused() {
    let f = filled(300);
    let chunks = f.to_chunks_of(100);
    let with = |e: &dyn Fn(&mut Chunks)| {
        let mut c = chunks.clone();
        e(&mut c);
        RedisBloom::from_chunks(&c)
    };
    assert!(matches!(
        with(&|c| {
            c.pop();
        }),
        Err(FormatError::Truncated { .. })
    ));
    assert!(matches!(
        with(&|c| c.push((99, vec![0]))),
        Err(FormatError::TrailingBytes(1))
    ));
    assert!(matches!(
        with(&|c| {
            c[2].1.pop();
        }),
        Err(FormatError::Truncated { .. })
    ));
    invalid(with(&|c| c[0].0 = 2), "header iterator");
    invalid(with(&|c| c[3].0 += 1), "data iterator");
    invalid(with(&|c| c.swap(2, 3)), "out of order");
    invalid(with(&|c| c[4].0 = -5), "negative iterator");
    // A chunk that runs from one link into the next, with the right iterators and lengths.
    let first = f.links()[0].data().len();
    let spans = {
        let mut data: Vec<u8> = f.links().iter().flat_map(|l| l.data().to_vec()).collect();
        let rest = data.split_off(first + 8);
        vec![
            (1, chunks[0].1.clone()),
            (1 + data.len() as i64, data),
            (1 + (first + 8 + rest.len()) as i64, rest),
        ]
    };
    let m = invalid(RedisBloom::from_chunks(&spans), "spanning");
    assert!(m.contains("link 0"), "{m}");
    invalid(
        with(&|c| c.insert(2, (chunks[1].0, Vec::new()))),
        "empty chunk",
    );
    assert!(matches!(
        RedisBloom::from_chunks::<Vec<u8>>(&[]),
        Err(FormatError::Truncated { .. })
    ));
}

#[test]
fn lying_files_are_refused() {
    let f = filled(300);
    let bytes = f.to_bytes();
    assert_eq!(RedisBloom::from_bytes(&bytes).unwrap(), f);
    let mut other = bytes.clone();
    other[0] = b'X';
    invalid(RedisBloom::from_bytes(&other), "magic");
    assert!(matches!(
        RedisBloom::from_bytes(&bytes[..3]),
        Err(FormatError::Truncated { .. })
    ));
    assert!(matches!(
        RedisBloom::from_bytes(&bytes[..bytes.len() - 1]),
        Err(FormatError::Truncated { .. })
    ));
    let mut longer = bytes.clone();
    longer.push(1);
    assert!(matches!(
        RedisBloom::from_bytes(&longer),
        Err(FormatError::TrailingBytes(1))
    ));
}

/// Every byte of a small file flipped, every cut: an error or a filter, never a panic; what
/// loads writes back the bytes it was read from.
#[test]
fn every_flip_and_cut_is_an_error_or_a_filter() {
    let mut f = RedisBloom::reserve(0.1, 4, Scaling::Expand(2)).unwrap();
    for k in testkit::keys("k", 9) {
        f.insert(&k).unwrap();
    }
    let bytes = f.to_bytes();
    for i in 0..bytes.len() {
        for x in [1u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= x;
            if let Ok(g) = RedisBloom::from_bytes(&b) {
                assert_eq!(g.to_bytes(), b);
                let _ = g.expected_fpr();
            }
        }
        assert!(RedisBloom::from_bytes(&bytes[..i]).is_err());
    }
}

/// A `CF.SCANDUMP` header: items, buckets, deletes, sub-filters, bucket size, max iterations,
/// expansion.
fn cf_header(fields: (u64, u64, u64, u64, u16, u16, u16)) -> Vec<u8> {
    let (items, buckets, deletes, filters, bs, it, ex) = fields;
    let mut h = Vec::new();
    for v in [items, buckets, deletes, filters] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    for v in [bs, it, ex] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

const CF_GOOD: (u64, u64, u64, u64, u16, u16, u16) = (1, 8, 0, 2, 2, 20, 2);

/// 8 and 16 buckets of 2 slots; `key` stored in sub-filter 1 where RedisBloom would look.
fn cf_chunks(key: &[u8]) -> Vec<(i64, Vec<u8>)> {
    let h = hash::murmur64a(key, 0);
    let fp = (h % 255 + 1) as u8;
    let mut second = vec![0u8; 32];
    second[((h % 16) * 2 + 1) as usize] = fp;
    vec![(1, cf_header(CF_GOOD)), (17, vec![0; 16]), (49, second)]
}

#[test]
fn a_cuckoo_dump_is_read_and_written_back() {
    let chunks = cf_chunks(b"alice");
    let f = RedisCuckoo::from_chunks(&chunks).unwrap();
    assert_eq!(f.sub_filter_buckets(), [8, 16]);
    assert_eq!((f.items(), f.bucket_size(), f.expansion()), (1, 2, 2));
    assert!(f.contains(b"alice"));
    let others = testkit::keys("other", 1000);
    assert!(others.iter().filter(|k| f.contains(k)).count() < 30);
    assert_eq!(f.to_chunks(), chunks);
    assert_eq!(f.header_bytes().len(), CF_HEADER_LEN);
    let mut closed = chunks.clone();
    closed.push((0, Vec::new()));
    assert_eq!(RedisCuckoo::from_chunks(&closed).unwrap(), f);
}

/// Each check of a `CF` header or its chunks can fail.
#[test]
fn lying_cuckoo_dumps_are_refused() {
    let with_header = |fields| {
        let mut c = cf_chunks(b"k");
        c[0].1 = cf_header(fields);
        RedisCuckoo::from_chunks(&c)
    };
    let (i, b, d, n, s, it, e) = CF_GOOD;
    let lies = [
        ((i, b, d, n, 0, it, e), "bucket size"),
        ((i, b, d, n, 256, it, e), "bucket size"),
        ((i, 0, d, n, s, it, e), "buckets"),
        ((i, 12, d, n, s, it, e), "buckets"),
        ((i, 1 << 56, d, n, s, it, e), "buckets"),
        ((i, b, d, 0, s, it, e), "sub-filters"),
        ((i, b, d, 1 << 16, s, it, e), "sub-filters"),
        ((i, b, d, n, s, 0, e), "max iterations"),
        ((i, b, d, n, s, it, 0), "sub-filter 1"),
        ((i, 1 << 55, d, 200, s, it, 2), "beyond 2^64"),
    ];
    for (fields, says) in lies {
        match with_header(fields) {
            Err(FormatError::Invalid(m)) => assert!(m.contains(says), "{fields:?}: {m}"),
            other => panic!("{fields:?}: {other:?}"),
        }
    }
    // Sizes declared, never allocated: 2^40 buckets of 255 slots, not in the data.
    let huge = with_header((i, 1 << 40, d, 1, 255, it, e));
    assert!(
        matches!(huge, Err(FormatError::Truncated { .. })),
        "{huge:?}"
    );
    let good = cf_chunks(b"k");
    let edit = |e: &dyn Fn(&mut Chunks)| {
        let mut c = good.clone();
        e(&mut c);
        RedisCuckoo::from_chunks(&c)
    };
    assert!(edit(&|_| {}).is_ok());
    let short_head = edit(&|c| {
        c[0].1.pop();
    });
    assert!(matches!(short_head, Err(FormatError::Truncated { .. })));
    assert!(matches!(
        edit(&|c| c[0].1.push(0)),
        Err(FormatError::TrailingBytes(1))
    ));
    assert!(matches!(
        edit(&|c| {
            c.pop();
        }),
        Err(FormatError::Truncated { .. })
    ));
    assert!(matches!(
        edit(&|c| c[2].1.push(0)),
        Err(FormatError::TrailingBytes(1))
    ));
    assert!(matches!(
        edit(&|c| c[0].0 = 0),
        Err(FormatError::Invalid(_))
    ));
    assert!(matches!(
        edit(&|c| c[1].0 = 16),
        Err(FormatError::Invalid(_))
    ));
    // 24 bytes then 24: the first runs into the second sub-filter.
    let across = edit(&|c| {
        let data: Vec<u8> = c[1].1.iter().chain(&c[2].1).copied().collect();
        c[1] = (25, data[..24].to_vec());
        c[2] = (49, data[24..].to_vec());
    });
    assert!(matches!(across, Err(FormatError::Invalid(m)) if m.contains("sub-filter 0")));
    assert!(matches!(
        RedisCuckoo::from_chunks::<Vec<u8>>(&[]),
        Err(FormatError::Truncated { .. })
    ));
}
