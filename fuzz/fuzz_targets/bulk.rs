//! A batch into an empty filter of a variant that builds its table in one pass
//! (`Capabilities::bulk_build`: the quotient and Aleph filters today, any later one from the
//! registry) gives the table of the same hashes inserted one at a time, bit for bit, and fails
//! where they fail: fuzzer-chosen hashes, with repeats and crowded quotients, into small tables
//! (to their limit and past it; a growing one under a memory cap).
#![no_main]

#[allow(dead_code)] // the shape and the builder; not `Pick`
mod common;

use arbitrary::Arbitrary;
use common::Shape;
use filterlab::{Filter, Hash128, Variant};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    pick: u8,
    shape: Shape,
    /// One hash each: `home` in the top bits of `lo` (so that the fuzzer can crowd one
    /// quotient), `rest` below it and as `hi` (the remainder and the fingerprint).
    keys: Vec<(u16, u64)>,
}

fuzz_target!(|input: Input| {
    let bulk: Vec<Variant> = Variant::ALL
        .iter()
        .copied()
        .filter(|v| v.capabilities().bulk_build)
        .collect();
    let v = bulk[usize::from(input.pick) % bulk.len()];
    let hashes: Vec<Hash128> = input
        .keys
        .iter()
        .map(|&(home, rest)| Hash128 {
            lo: u64::from(home) << 48 | rest >> 16,
            hi: rest,
        })
        .collect();
    let mut single = common::build(v, input.shape);
    let alone = hashes.iter().try_for_each(|&h| single.insert_hash(h));
    let mut batch = common::build(v, input.shape);
    let together = batch.insert_hash_batch(&hashes);
    assert_eq!(
        alone.is_ok(),
        together.is_ok(),
        "{v}: one at a time {alone:?}, in a batch {together:?}"
    );
    assert_eq!(single.len(), batch.len(), "{v}: lengths differ");
    assert!(
        single.to_bytes() == batch.to_bytes(),
        "{v}: the batch's table differs from the inserts one at a time"
    );
});
