//! Guava's `BloomFilter` bytes (`filterlab::interop::guava`): a valid filter of either strategy
//! is written, its header set to fuzzer-chosen values (strategy ordinal, `k`, the declared count
//! of longs), bytes flipped, its end cut or extended. `from_bytes` and `read_from` must refuse it
//! or give the same filter, which writes back the bytes it was read from, reports a rate in
//! [0, 1] and takes inserts without losing them. A declared count is never allocated before its
//! bytes are there: with `-malloc_limit_mb`, a header declaring 2^31 longs is a finding if it is.
#![no_main]

use arbitrary::Arbitrary;
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::Filter;
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    strategy: u8,
    hashes: u8,
    words: Option<i32>,
    keys: Vec<Vec<u8>>,
    flips: Vec<(u16, u8)>,
    cut: u8,
    extra: Vec<u8>,
}

fn crafted(input: &Input) -> Vec<u8> {
    let strategy = if input.strategy & 1 == 0 {
        Strategy::Murmur128Mitz32
    } else {
        Strategy::Murmur128Mitz64
    };
    let mut f = GuavaBloom::new(64, 0.01, strategy).expect("a small filter");
    for k in input.keys.iter().take(64) {
        f.insert(k).expect("Guava filters never refuse");
    }
    let mut bytes = f.to_bytes();
    bytes[0] = input.strategy;
    bytes[1] = input.hashes;
    if let Some(w) = input.words {
        bytes[2..6].copy_from_slice(&w.to_be_bytes());
    }
    for &(at, x) in input.flips.iter().take(8) {
        let i = usize::from(at) % bytes.len();
        bytes[i] ^= x;
    }
    bytes.truncate(bytes.len().saturating_sub(usize::from(input.cut % 80)));
    bytes.extend_from_slice(&input.extra);
    bytes
}

fuzz_target!(|input: Input| {
    let bytes = crafted(&input);
    let strict = GuavaBloom::from_bytes(&bytes);
    let mut rest = &bytes[..];
    let streamed = GuavaBloom::read_from(&mut rest);
    match (&strict, &streamed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b, "both readers, one filter");
            assert_eq!(a.to_bytes(), bytes, "read, then written: the same bytes");
            assert!(rest.is_empty());
        }
        (Ok(_), Err(e)) => panic!("from_bytes loads what read_from refuses: {e}"),
        // Bytes after the filter: refused by from_bytes, left unread by read_from.
        (Err(_), Ok(b)) => assert_eq!(b.to_bytes(), bytes[..bytes.len() - rest.len()]),
        (Err(_), Err(_)) => {}
    }
    if let Ok(mut g) = strict {
        let rate = g.estimated_fpr();
        assert!((0.0..=1.0).contains(&rate), "{rate}");
        for k in input.keys.iter().take(16) {
            g.insert(k).expect("Guava filters never refuse");
            assert!(g.contains(k), "a key inserted into a loaded filter is found");
        }
    }
});
