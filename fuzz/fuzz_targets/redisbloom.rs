//! RedisBloom's `BF.SCANDUMP` chunks and their one-file form (`filterlab::interop::redisbloom`):
//! a valid chain of fuzzer-chosen options, growth and keys is written, then its header fields
//! are set to fuzzer-chosen values (counts, sizes, error rates, `k`, `n2`, options), bytes
//! flipped, its end cut or extended, and the chunks' iterators changed. `from_bytes` and
//! `from_chunks` must refuse it or give a filter that writes back the bytes it was read from,
//! reports a rate in [0, 1] and takes inserts without losing them. A declared size is never
//! allocated before its bytes are there: with `-malloc_limit_mb`, a header declaring 2^60 bytes
//! is a finding if it is.
//!
//! The cuckoo filter's chunks (`RedisCuckoo`) too: a valid header of fuzzer-chosen shape with
//! fuzzer bytes as fingerprints, its bytes flipped and iterators changed; `from_chunks` must
//! refuse it or give a filter whose header and data are the chunks', and answer lookups.
#![no_main]

use arbitrary::Arbitrary;
use filterlab::interop::redisbloom::{
    RedisBloom, RedisCuckoo, FILE_MAGIC, OPT_ALL, OPT_ENTS_IS_BITS,
};
use filterlab::Filter;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    options: u8,
    growth: u8,
    capacity: u8,
    keys: Vec<Vec<u8>>,
    /// (field, value): the header field at that index (see `FIELDS`) set to the value.
    fields: Vec<(u8, u64)>,
    flips: Vec<(u16, u8)>,
    cut: u8,
    extra: Vec<u8>,
    chunk: u16,
    iterators: Vec<(u8, i64)>,
    cf: (u64, u8, u64, u8, u8, u16, u8),
    cf_flips: Vec<(u8, u8)>,
}

/// A `CF.SCANDUMP` of a valid shape (1 to 32 buckets, 1 to 3 sub-filters, buckets of 1 to 4
/// slots, expansion 1 to 3) holding fuzzer bytes, its header then flipped.
fn cf_chunks(input: &Input) -> Vec<(i64, Vec<u8>)> {
    let (items, b, deletes, n, s, it, e) = input.cf;
    let (buckets, filters, size) = (1u64 << (b % 6), u64::from(n % 3) + 1, u16::from(s % 4) + 1);
    let expansion = u16::from(e % 3) + 1;
    let mut head = Vec::new();
    for v in [items, buckets, deletes, filters] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    for v in [size, it, expansion] {
        head.extend_from_slice(&v.to_le_bytes());
    }
    for &(at, x) in input.cf_flips.iter().take(4) {
        let i = usize::from(at) % head.len();
        head[i] ^= x;
    }
    let mut chunks = vec![(1i64, head)];
    let (mut pos, mut n) = (0i64, buckets);
    let fill: Vec<u8> = input.keys.iter().flatten().copied().collect();
    for _ in 0..filters {
        let len = (n * u64::from(size)) as usize;
        let data: Vec<u8> = (0..len)
            .map(|i| fill.get(i).copied().unwrap_or(0))
            .collect();
        pos += len as i64;
        chunks.push((1 + pos, data));
        n *= u64::from(expansion);
    }
    chunks
}

/// Header fields by (offset in the header chunk, width): the chain's count, links, options,
/// growth, then the first two links' bytes, bits, count, error, bpe, k, entries, n2.
const FIELDS: [(usize, usize); 20] = [
    (0, 8),
    (8, 4),
    (12, 4),
    (16, 4),
    (20, 8),
    (28, 8),
    (36, 8),
    (44, 8),
    (52, 8),
    (60, 4),
    (64, 8),
    (72, 1),
    (73, 8),
    (81, 8),
    (89, 8),
    (97, 8),
    (105, 8),
    (113, 4),
    (117, 8),
    (125, 1),
];

fn chain(input: &Input) -> Option<RedisBloom> {
    // Not ENTS_IS_BITS: a growing chain takes each new link's entries as log2 of its bits, so
    // 10 entries times 4 ask for 2^40 bits (as RedisBloom would); loaded headers still have it.
    let options = u32::from(input.options) & OPT_ALL & !OPT_ENTS_IS_BITS;
    let capacity = u64::from(input.capacity % 32) + 1;
    let growth = u32::from(input.growth % 4) + 1;
    let mut f = RedisBloom::with_options(0.1, capacity, options, growth).ok()?;
    for k in input.keys.iter().take(200) {
        let _ = f.insert(k); // a NONSCALING chain fills up
    }
    Some(f)
}

fn edit_header(header: &mut [u8], input: &Input) {
    for &(field, value) in input.fields.iter().take(6) {
        let (at, width) = FIELDS[usize::from(field) % FIELDS.len()];
        if at + width <= header.len() {
            header[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
    }
}

/// A loaded chain behaves: it writes back what it was read from (checked by the caller), its
/// rate is a probability, and keys inserted are found (when the chain grows only a little).
fn exercise(mut f: RedisBloom, keys: &[Vec<u8>]) {
    let rate = f.expected_fpr();
    assert!((0.0..=1.0).contains(&rate), "{rate}");
    for k in keys.iter().take(16) {
        let last = f.links().last().expect("a chain has a link");
        let next = last.entries().saturating_mul(u64::from(f.growth()));
        if next > 1 << 16 || f.options() & OPT_ENTS_IS_BITS != 0 {
            // The header's sizes would grow it by gigabytes (with ENTS_IS_BITS, 2^next bits):
            // what it asks for, not the loader's doing.
            return;
        }
        if f.insert(k).is_ok() {
            assert!(f.contains(k), "a key inserted into a loaded chain is found");
        }
    }
}

fuzz_target!(|input: Input| {
    let Some(f) = chain(&input) else { return };
    // The one-file form.
    let mut bytes = f.to_bytes();
    edit_header(&mut bytes[FILE_MAGIC.len()..], &input);
    for &(at, x) in input.flips.iter().take(8) {
        let i = usize::from(at) % bytes.len();
        bytes[i] ^= x;
    }
    bytes.truncate(bytes.len().saturating_sub(usize::from(input.cut % 80)));
    bytes.extend_from_slice(&input.extra);
    if let Ok(g) = RedisBloom::from_bytes(&bytes) {
        assert_eq!(g.to_bytes(), bytes, "read, then written: the same bytes");
        exercise(g, &input.keys);
    }
    // The chunks.
    let mut chunks = f.to_chunks_of(usize::from(input.chunk).max(1));
    edit_header(&mut chunks[0].1, &input);
    for &(i, iter) in input.iterators.iter().take(4) {
        let n = chunks.len();
        chunks[usize::from(i) % n].0 = iter;
    }
    if let Ok(g) = RedisBloom::from_chunks(&chunks) {
        let data: Vec<u8> = chunks[1..].iter().flat_map(|(_, c)| c.clone()).collect();
        let mut file = FILE_MAGIC.to_vec();
        file.extend_from_slice(&chunks[0].1);
        file.extend_from_slice(&data);
        assert_eq!(
            g.to_bytes(),
            file,
            "the chunks, read, are the one-file form"
        );
        exercise(g, &input.keys);
    }
    // The cuckoo filter.
    let mut chunks = cf_chunks(&input);
    for &(i, iter) in input.iterators.iter().take(2) {
        let n = chunks.len();
        chunks[usize::from(i) % n].0 = iter;
    }
    if let Ok(cf) = RedisCuckoo::from_chunks(&chunks) {
        let back = cf.to_chunks();
        assert_eq!(back[0].1, chunks[0].1, "the header written back");
        let data = |c: &[(i64, Vec<u8>)]| {
            c[1..]
                .iter()
                .flat_map(|(_, d)| d.clone())
                .collect::<Vec<u8>>()
        };
        assert_eq!(data(&back), data(&chunks), "the data written back");
        for k in input.keys.iter().take(16) {
            let _ = cf.contains(k);
        }
    }
});
